/**
 * What the findings list (`!`), the footer and `--notify` read of the agent findings (issue 28):
 * every session's findings as rows, and the newest one not yet seen. Pure; no Ink.
 */
import {engineOf} from '../../engines/index.js';
import {FINDING_MARK, FINDING_WORDS} from '../../model/findings.js';
import {currentFindings, type FindingEntry} from '../../model/sessions.js';
import type {MonitorState} from '../../types/state.js';
import {sanitize} from '../../util/sanitize.js';

/** Each server's engine label (the agent view's findings line quotes the engine). */
export function engineLabels(state: MonitorState): Record<string, string> {
	return Object.fromEntries(state.order.flatMap(id => {
		const s = state.servers[id];
		return s ? [[id, engineOf(s.engine).label]] : [];
	}));
}

/** Turn numbers as ranges: `4–9`, `2, 5, 7–8`. */
export function turnRanges(turns: readonly number[]): string {
	const out: string[] = [];
	let i = 0;
	while (i < turns.length) {
		let j = i;
		while (j + 1 < turns.length && turns[j + 1] === turns[j]! + 1) j++;
		out.push(j > i ? `${turns[i]}–${turns[j]}` : String(turns[i]));
		i = j + 1;
	}
	return out.join(', ');
}

export interface FindingRow {
	readonly entry: FindingEntry;
	readonly mark: string;
	readonly words: string;
	readonly where: string;
}

/** Every finding of every session, newest first, in words. */
export function findingRows(state: MonitorState, sessionGapMs: number): FindingRow[] {
	return currentFindings(state, sessionGapMs).map(entry => {
		const server = state.servers[entry.serverId];
		const label = server ? engineOf(server.engine).label : entry.serverId;
		const turns = entry.live ? `turn ${entry.turns[0]} (prefilling now)` : `turn${entry.turns.length === 1 ? '' : 's'} ${turnRanges(entry.turns)}`;
		return {entry, mark: FINDING_MARK[entry.kind], words: FINDING_WORDS[entry.kind], where: `${entry.model} on ${label} (${server?.url ?? entry.serverId}) · ${turns}`};
	});
}

/** The newest finding after `seenAt` (the footer shows it until the agent view or the list is opened). */
export function newestUnseen(rows: readonly FindingRow[], seenAt: number | undefined): FindingRow | undefined {
	const r = rows[0];
	return r && (seenAt === undefined || r.entry.time > seenAt) ? r : undefined;
}

/** The footer's line for it. */
export function footerFinding(r: FindingRow): string {
	return `${r.words}: ${r.where} · fix: ${r.entry.fix} · a: agent view, !: all findings`;
}

/**
 * `--notify`: the kinds not notified yet, newest first, each once, and what the terminal is sent
 * for them: a bell and an OSC 9 notification (iTerm2, WezTerm, kitty, Windows Terminal show it;
 * others ignore it), the text sanitized (no control character can end the sequence early).
 */
export function notifications(rows: readonly FindingRow[], notified: ReadonlySet<string>): {kinds: string[]; sequence: string} {
	const fresh: FindingRow[] = [];
	for (const r of rows) if (!notified.has(r.entry.kind) && !fresh.some(x => x.entry.kind === r.entry.kind)) fresh.push(r);
	if (fresh.length === 0) return {kinds: [], sequence: ''};
	const text = sanitize(fresh.map(r => `${r.words} (${r.entry.model})`).join('; '), 200).replace(/[\u0007\u001b\u009c]/g, '');
	return {kinds: fresh.map(r => r.entry.kind), sequence: `\u0007\u001b]9;infertop: ${text} · a: agent view\u0007`};
}
