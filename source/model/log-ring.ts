/**
 * The log buffer: the newest `cap` lines, append in amortised O(1), immutable to its readers.
 *
 * A plain array copied on every line costs 1,000 copies per line at the cap. Here every state holds
 * a window [start, end) onto a shared, append-only backing array: appending writes past every
 * existing window, so no earlier state sees a change. When the backing array reaches twice the cap
 * the newest `cap` lines move to a fresh one (one copy per `cap` lines). A state that is appended to
 * twice (a branch, never done by the store) gets its own copy, so windows never overlap writes.
 */
import type {LogLine, LogRing} from '../types/state.js';

export type {LogRing} from '../types/state.js';

const EMPTY: LogRing = {buffer: [], start: 0, end: 0, length: 0};

export function emptyLog(): LogRing {
	return EMPTY;
}

export function isLogRing(x: unknown): x is LogRing {
	return typeof x === 'object' && x !== null && 'buffer' in x && 'start' in x && 'end' in x;
}

export function appendLog(ring: LogRing, line: LogLine, cap: number): LogRing {
	return appendTo({...ring}, line, cap);
}

/** A ring whose window may be moved in place: one that a batch made and no reader has seen yet. */
export type DraftRing = {-readonly [K in keyof LogRing]: LogRing[K]};

/**
 * appendLog into `ring` itself, for a ring nobody has seen yet (a batch's own copy): a busy log's
 * batch appends thousands of lines, and a new ring object for each was garbage at once.
 */
export function appendTo(ring: DraftRing, line: LogLine, cap: number): DraftRing {
	let buffer = ring.buffer as LogLine[];
	let start = ring.start;
	let end = ring.end;
	// Only the newest window may write into a backing array; anything else copies (never overwrites).
	if (end !== buffer.length || buffer === EMPTY.buffer || buffer.length >= cap * 2) {
		const keep = Math.min(end - start, cap - 1);
		buffer = buffer.slice(end - keep, end);
		start = 0;
		end = keep;
	}
	buffer.push(line);
	end++;
	if (end - start > cap) start = end - cap;
	ring.buffer = buffer;
	ring.start = start;
	ring.end = end;
	ring.length = end - start;
	return ring;
}

/** The lines, oldest first (a copy; O(length)). */
export function logLines(ring: LogRing | readonly LogLine[]): readonly LogLine[] {
	return isLogRing(ring) ? ring.buffer.slice(ring.start, ring.end) : ring;
}

/** The newest `n` lines, oldest first, skipping the newest `skip` (O(n)). */
export function logTail(ring: LogRing | readonly LogLine[], n: number, skip = 0): readonly LogLine[] {
	if (!isLogRing(ring)) {
		const end = Math.max(0, ring.length - skip);
		return ring.slice(Math.max(0, end - n), end);
	}
	const end = Math.max(ring.start, ring.end - skip);
	return ring.buffer.slice(Math.max(ring.start, end - n), end);
}
