/**
 * A probe's own requests whose log lines could not be told apart while the probe waited (2 s:
 * probe/run.ts): read late (a loaded machine, a log read behind), or two of infertop's own answers
 * with the same counts in each other's window (the what-if measurement's concurrency pair). Without
 * a match they stayed in the log as an agent's turns. This keeps looking for them, with the lag
 * widened to how long it looks, and attributes them to infertop's probe: answers with the same
 * counts (and model) are taken together, over the span of their windows, when the log holds exactly
 * as many such requests as there were answers, none of them already infertop's; never a guess among
 * more. Nothing is waited for on a server whose log is not read.
 */
import {LOG_LAG_MS, probeCandidates} from '../model/derive.js';
import type {Action, MonitorState} from '../types/state.js';
import type {LogQuery} from './timing.js';

/** How long late lines are waited for. */
export const LATE_MATCH_MS = 10_000;
const STEP_MS = 200;

/** Resolves to how many requests it attributed to the probe (0 when `waitMs` passed without a match). */
export async function attributeLate(
	getState: () => MonitorState,
	dispatch: (a: Action) => void,
	serverId: string,
	queries: readonly LogQuery[],
	waitMs = LATE_MATCH_MS,
): Promise<number> {
	// Only a server whose log is read has lines to wait for.
	const first = getState().servers[serverId];
	if (first === undefined || first.linesParsed + first.linesUnparsed === 0) return 0;
	const groups = new Map<string, LogQuery[]>();
	for (const q of queries) {
		if (q.model === undefined || q.completionTokens === undefined) continue;
		const key = `${q.model}\u0000${q.completionTokens}\u0000${q.promptTokens ?? ''}`;
		const g = groups.get(key);
		if (g) g.push(q);
		else groups.set(key, [q]);
	}
	let attributed = 0;
	const deadline = Date.now() + waitMs;
	for (;;) {
		const last = Date.now() >= deadline;
		const server = getState().servers[serverId];
		for (const [key, qs] of groups) {
			const span = {fromMs: Math.min(...qs.map(q => q.fromMs)), toMs: Math.max(...qs.map(q => q.toMs)), completionTokens: qs[0]!.completionTokens, promptTokens: qs[0]!.promptTokens};
			const found = server === undefined ? [] : probeCandidates(server, span, LOG_LAG_MS + waitMs);
			// As many as the answers: each is one of them. Fewer: the rest may still come (taken at the end).
			if (found.length === qs.length || (last && found.length > 0 && found.length < qs.length)) {
				for (const r of found) dispatch({type: 'request-attributed', serverId, key: r.key, model: qs[0]!.model!, by: 'probe'});
				attributed += found.length;
				groups.delete(key);
			}
		}
		if (groups.size === 0 || last) return attributed;
		// (a timer that keeps no process alive: quitting never waits for a late line)
		await new Promise(r => setTimeout(r, STEP_MS).unref());
	}
}
