/**
 * A probe's own request whose log line came too late to be matched while the probe waited (2 s:
 * probe/run.ts), on a loaded machine or a log read far behind: without a match it stayed in the log
 * as an agent's turn. This keeps looking for it, with the lag widened to how long it looks, and
 * attributes it to infertop's probe when exactly one request matches the answer's counts (the same
 * rule as matchProbeRequest's: never a guess between two). Nothing is waited for on a server whose
 * log is not read.
 */
import {LOG_LAG_MS, matchProbeRequest} from '../model/derive.js';
import type {Action, MonitorState} from '../types/state.js';
import type {LogQuery} from './timing.js';

/** How long a late line is waited for. */
export const LATE_MATCH_MS = 10_000;
const STEP_MS = 200;

/** Resolves true once the request is attributed, false when `waitMs` passed without a single match. */
export async function attributeLate(
	getState: () => MonitorState,
	dispatch: (a: Action) => void,
	serverId: string,
	q: LogQuery,
	waitMs = LATE_MATCH_MS,
): Promise<boolean> {
	if (q.model === undefined) return false;
	// Only a server whose log is read has lines to wait for.
	const server = getState().servers[serverId];
	if (server === undefined || server.linesParsed + server.linesUnparsed === 0) return false;
	const deadline = Date.now() + waitMs;
	for (;;) {
		const m = matchProbeRequest(getState(), serverId, q, LOG_LAG_MS + waitMs);
		if (m !== undefined && m.reason === undefined) {
			dispatch({type: 'request-attributed', serverId, key: m.key, model: q.model, by: 'probe'});
			return true;
		}
		if (Date.now() >= deadline) return false;
		// (a timer that keeps no process alive: quitting never waits for a late line)
		await new Promise(r => setTimeout(r, STEP_MS).unref());
	}
}
