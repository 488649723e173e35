/**
 * The log buffer: the newest `cap` lines, append in amortised O(1), immutable to its readers.
 *
 * A plain array copied on every line costs 1,000 copies per line at the cap. Here every state holds
 * a window [start, end) onto shared, append-only backing arrays: appending writes past every
 * existing window, so no earlier state sees a change. When the backing arrays reach twice the cap
 * the newest `cap` lines move to fresh ones (one copy per `cap` lines). A state that is appended to
 * twice (a branch, never done by the store) gets its own copy, so windows never overlap writes.
 *
 * A line is kept as its text, its time and its flags in three arrays, not as an object: a busy
 * log's lines each lived through a scavenge or two in the ring and were copied by it (an object
 * and a boxed time, ~100 bytes a line). Kept apart they are a pointer, an unboxed double and a
 * small integer; a LogLine is made when one is read (the rows on screen).
 */
import type {LogLine, LogRing} from '../types/state.js';

export type {LogRing} from '../types/state.js';

/** Flags of a kept line: a parser read it; infertop's own note (why a request was not used). */
export const LOG_PARSED = 1;
export const LOG_NOTE = 2;

const EMPTY: LogRing = {buffer: [], times: [], flags: [], start: 0, end: 0, length: 0};

export function emptyLog(): LogRing {
	return EMPTY;
}

export function isLogRing(x: unknown): x is LogRing {
	return typeof x === 'object' && x !== null && 'buffer' in x && 'start' in x && 'end' in x;
}

/** The flags of a line. */
export const logFlags = (parsed: boolean, note?: boolean): number => (parsed ? LOG_PARSED : 0) | (note === true ? LOG_NOTE : 0);

export function appendLog(ring: LogRing, line: LogLine, cap: number): LogRing {
	return appendTo({...ring}, line.t, line.text, logFlags(line.parsed, line.note), cap);
}

/** A ring whose window may be moved in place: one that a batch made and no reader has seen yet. */
export type DraftRing = {-readonly [K in keyof LogRing]: LogRing[K]};

/**
 * appendLog into `ring` itself, for a ring nobody has seen yet (a batch's own copy): a busy log's
 * batch appends thousands of lines, and a new ring object for each was garbage at once. The line
 * comes as its parts (no LogLine made to be taken apart).
 */
export function appendTo(ring: DraftRing, t: number, text: string, flags: number, cap: number): DraftRing {
	let buffer = ring.buffer as string[];
	let times = ring.times as Float64Array | number[] | undefined;
	let marks = ring.flags as Uint8Array | number[] | undefined;
	let start = ring.start;
	let end = ring.end;
	// Only the newest window may write into a backing array (slot `end` still unwritten: a text is
	// never undefined); anything else copies (never overwrites). A full backing array copies too.
	if (times === undefined || marks === undefined || end >= buffer.length || buffer[end] !== undefined || buffer === EMPTY.buffer) {
		// (a ring written out empty has no times or flags: nothing to keep)
		const keep = times === undefined || marks === undefined ? 0 : Math.min(end - start, cap - 1);
		// The backing arrays are made at their full size (2 × cap) once per `cap` lines: grown by a push
		// a line, they were copied at each growth (~90 bytes a line of a busy log, all of it outliving
		// a scavenge: V8's sampling heap profiler, llama.cpp at 1,000 requests a second). Times and flags
		// are typed arrays (their store is outside the collected heap); the texts a holey array.
		const size = Math.max(2 * cap, keep + 1);
		const texts = new Array<string>(size);
		const at = new Float64Array(size);
		const marked = new Uint8Array(size);
		// The times copied as a block where they are a Float64Array: read one by one, each was a new
		// heap number under the interpreter (16 B a line of a busy log, a third of appendTo's garbage).
		const typed = times instanceof Float64Array;
		if (typed) at.set((times as Float64Array).subarray(end - keep, end));
		for (let i = 0; i < keep; i++) {
			const k = end - keep + i;
			texts[i] = buffer[k]!;
			if (!typed) at[i] = times![k]!;
			marked[i] = marks![k]!;
		}
		buffer = texts;
		times = at;
		marks = marked;
		start = 0;
		end = keep;
	}
	buffer[end] = text;
	times[end] = t;
	marks[end] = flags;
	end++;
	if (end - start > cap) start = end - cap;
	ring.buffer = buffer;
	ring.times = times;
	ring.flags = marks;
	ring.start = start;
	ring.end = end;
	ring.length = end - start;
	return ring;
}

/** Line `i` of the ring (0 = oldest held), made on read: the same fields as the line appended. */
export function logLineAt(ring: LogRing, i: number): LogLine {
	const k = ring.start + i;
	const t = ring.times?.[k] ?? 0;
	const text = ring.buffer[k]!;
	const flags = ring.flags?.[k] ?? 0;
	const parsed = (flags & LOG_PARSED) !== 0;
	return (flags & LOG_NOTE) === 0 ? {t, text, parsed} : {t, text, parsed, note: true};
}

/** The text of line `i` (0 = oldest held), read in place (a filter reads only the texts). */
export function logTextAt(ring: LogRing, i: number): string {
	return ring.buffer[ring.start + i]!;
}

function linesOf(ring: LogRing, from: number, to: number): LogLine[] {
	const out: LogLine[] = [];
	for (let i = from; i < to; i++) out.push(logLineAt(ring, i));
	return out;
}

/** The lines, oldest first (made on read; O(length)). */
export function logLines(ring: LogRing | readonly LogLine[]): readonly LogLine[] {
	return isLogRing(ring) ? linesOf(ring, 0, ring.length) : ring;
}

/** The newest `n` lines, oldest first, skipping the newest `skip` (O(n)). */
export function logTail(ring: LogRing | readonly LogLine[], n: number, skip = 0): readonly LogLine[] {
	if (!isLogRing(ring)) {
		const end = Math.max(0, ring.length - skip);
		return ring.slice(Math.max(0, end - n), end);
	}
	const end = Math.max(0, ring.length - skip);
	return linesOf(ring, Math.max(0, end - n), end);
}
