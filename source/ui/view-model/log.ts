/**
 * The log pane's scrolling as data: which lines pass the filter (with their absolute numbers), the
 * window the view shows and where a scroll step lands, reading the ring in place. Pure; no components.
 */
import type {LogLine, LogRing, RequestRecord} from '../../types/state.js';
import {isLogRing, logLineAt, logLines, logTail, logTextAt} from '../../model/log-ring.js';
import {compileFilter} from '../view-state.js';

export type Log = LogRing | readonly LogLine[];

export interface Numbered {
	readonly line: LogLine;
	readonly abs: number;
}

/** Line `i` (0 = oldest held) of a ring or a plain array, read in place (no copy of the buffer). */
function lineAt(log: Log, i: number): LogLine {
	return isLogRing(log) ? logLineAt(log, i) : log[i]!;
}

/** The text of line `i`: what a filter tests (a ring makes a line object only for a match). */
function textAt(log: Log, i: number): string {
	return isLogRing(log) ? logTextAt(log, i) : log[i]!.text;
}

/** Absolute number of the oldest held line (the ring keeps the newest of `total` lines). */
const baseOf = (log: Log, total: number): number => Math.max(total, log.length) - log.length;

/** The log's lines that pass the filter, each with its absolute number (reads the ring in place). Pure. */
export function matchedLines(log: Log, total: number, filter: string): {lines: Numbered[]; error?: string} {
	const f = compileFilter(filter);
	const base = baseOf(log, total);
	const lines: Numbered[] = [];
	for (let i = 0; i < log.length; i++) {
		if (!f || f.test(textAt(log, i))) lines.push({line: lineAt(log, i), abs: base + i});
	}
	return {lines, error: f?.error};
}

/** Index just past the bottom line of the view among `count` lines, given how many have abs <= end. */
function bottomOf(count: number, atOrBefore: number | undefined, rows: number): number {
	if (atOrBefore === undefined) return count;
	return Math.min(count, Math.max(atOrBefore, Math.min(rows, count)));
}

/** Index just past the bottom line of the view in `lines` (lines.length when following). */
function bottomIndex(lines: readonly Numbered[], end: number | undefined, rows: number): number {
	if (end === undefined) return lines.length;
	let n = 0;
	while (n < lines.length && lines[n]!.abs <= end) n++;
	return bottomOf(lines.length, n, rows);
}

/**
 * What the view needs of the log: the (at most `rows`) matching lines ending at the bottom of the
 * view, how many match and the bottom's index among them. Without a filter only that tail is read
 * (logTail): never a copy of the whole ring.
 */
export function logWindow(log: Log, total: number, filter: string, end: number | undefined, rows: number): {tail: Numbered[]; matched: number; endIdx: number; error?: string} {
	const f = compileFilter(filter);
	if (!f) {
		const base = baseOf(log, total);
		const endIdx = bottomOf(log.length, end === undefined ? undefined : Math.max(0, Math.min(log.length, end - base + 1)), rows);
		const lines = logTail(log, rows, log.length - endIdx);
		const first = endIdx - lines.length;
		return {tail: lines.map((line, k) => ({line, abs: base + first + k})), matched: log.length, endIdx};
	}
	const {lines, error} = matchedLines(log, total, filter);
	const endIdx = bottomIndex(lines, end, rows);
	return {tail: lines.slice(Math.max(0, endIdx - rows), endIdx), matched: lines.length, endIdx, error};
}

/**
 * The next bottom line after scrolling `delta` matching lines back (positive) or forward; `'home'`
 * is the oldest screenful, `'end'` follows the newest again (undefined). Pure.
 */
export function logStep(log: Log, total: number, filter: string, end: number | undefined, step: number | 'home' | 'end', rows: number): number | undefined {
	if (step === 'end') return undefined;
	if (!compileFilter(filter)) {
		// No filter: the numbers are the ring's positions, nothing to scan.
		const base = baseOf(log, total);
		const count = log.length;
		const floor = Math.min(Math.max(1, rows), count);
		const at = bottomOf(count, end === undefined ? undefined : Math.max(0, Math.min(count, end - base + 1)), rows);
		const next = step === 'home' ? floor : Math.max(floor, Math.min(count, at - step));
		return next >= count ? undefined : base + next - 1;
	}
	const {lines} = matchedLines(log, total, filter);
	const floor = Math.min(Math.max(1, rows), lines.length);
	const at = bottomIndex(lines, end, rows);
	const next = step === 'home' ? floor : Math.max(floor, Math.min(lines.length, at - step));
	return next >= lines.length ? undefined : lines[next - 1]!.abs;
}

/**
 * The log lines from a request's first to its last, those the log still holds: by their numbers in
 * the log where the request has them (a request of a backlog whose times cannot be known has lines
 * too), else by time. Lines of other requests between them are among them (slots run at once). Pure.
 */
export function requestLines(r: RequestRecord, log: Log): LogLine[] {
	if (isLogRing(log) && r.firstLine !== undefined) {
		const out: LogLine[] = [];
		const to = Math.min(r.lastLine ?? r.firstLine, log.end - 1);
		for (let n = Math.max(r.firstLine, log.start); n <= to; n++) out.push(logLineAt(log, n - log.start));
		return out;
	}
	return logLines(log).filter(l => l.t >= r.firstSeen && l.t <= r.lastSeen);
}

/** How many of a request's lines (by their numbers) the log no longer holds. Pure. */
export function linesGone(r: RequestRecord, log: Log): number {
	if (!isLogRing(log) || r.firstLine === undefined) return 0;
	return Math.max(0, Math.min(log.start, (r.lastLine ?? r.firstLine) + 1) - r.firstLine);
}
