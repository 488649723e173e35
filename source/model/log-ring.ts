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
 * and a boxed time, ~100 bytes a line). Kept apart they are bytes, an unboxed double and a small
 * integer; a LogLine is made when one is read (the rows on screen).
 *
 * The texts are kept as their UTF-8 bytes in a Buffer (LogTexts), decoded when read, not as
 * strings: a line's string is a slice of the 64 KiB chunk its read decoded, and a ring of strings
 * kept every chunk alive for as long as one of its lines was held (1 s of a log at 100 requests a
 * second). All of them outlived the young generation: with eight busy logs, the decoded chunks were
 * a quarter of the bytes promoted to the old one (14.4 of 61.7 MB in 20 s, issue 32). Bytes outside
 * the collected heap are copied once into the store, and never by the collector.
 */
import type {LogLine, LogRing, LogTexts} from '../types/state.js';

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
	let store = ring.buffer;
	let times = ring.times as Float64Array | number[] | undefined;
	let marks = ring.flags as Uint8Array | number[] | undefined;
	let start = ring.start;
	let end = ring.end;
	// Only the newest window may write into a store (it ends where the store's lines do); anything
	// else copies (never overwrites). A store with no room for the line (its lines or its bytes:
	// at most 3 a UTF-16 unit, counted exactly only near the end) copies too.
	let texts = isTexts(store) ? store : undefined;
	if (texts === undefined || times === undefined || marks === undefined || end !== texts.lines || end >= texts.length || !roomFor(texts, end, text)) {
		// (a ring written out empty has no times or flags: nothing to keep)
		const keep = times === undefined || marks === undefined ? 0 : Math.min(end - start, cap - 1);
		// The store is made at its full size (2 × cap lines) once per `cap` lines: grown by a push a
		// line, it was copied at each growth (~90 bytes a line of a busy log, all of it outliving a
		// scavenge: V8's sampling heap profiler, llama.cpp at 1,000 requests a second).
		const size = Math.max(2 * cap, keep + 1);
		texts = newTexts(store, end - keep, end, size, text);
		const at = new Float64Array(size);
		const marked = new Uint8Array(size);
		// The times copied as a block where they are a Float64Array: read one by one, each was a new
		// heap number under the interpreter (16 B a line of a busy log, a third of appendTo's garbage).
		const typed = times instanceof Float64Array;
		if (typed) at.set((times as Float64Array).subarray(end - keep, end));
		for (let i = 0; i < keep; i++) {
			const k = end - keep + i;
			if (!typed) at[i] = times![k]!;
			marked[i] = marks![k]!;
		}
		store = texts;
		times = at;
		marks = marked;
		start = 0;
		end = keep;
	}
	const from = texts.offsets[end]!;
	texts.offsets[end + 1] = from + (texts.bytes as Buffer).write(text, from);
	texts.lines = end + 1;
	times[end] = t;
	marks[end] = flags;
	end++;
	if (end - start > cap) start = end - cap;
	ring.buffer = store;
	ring.times = times;
	ring.flags = marks;
	ring.start = start;
	ring.end = end;
	ring.length = end - start;
	return ring;
}

const isTexts = (store: LogTexts | readonly string[]): store is LogTexts => !Array.isArray(store);

/** The store has room for `text` as line `end`. */
function roomFor(texts: LogTexts, end: number, text: string): boolean {
	const free = texts.bytes.length - texts.offsets[end]!;
	return 3 * text.length <= free || Buffer.byteLength(text) <= free;
}

/** Bytes a store is made with at least. */
const MIN_STORE_BYTES = 4096;

/**
 * A new store of `size` lines holding lines [from, to) of `old` (its bytes copied as one block), with
 * room for `size` lines as long as the kept ones on average (a quarter more), and for `next`.
 */
function newTexts(old: LogTexts | readonly string[], from: number, to: number, size: number, next: string): LogTexts {
	const keep = to - from;
	const offsets = new Uint32Array(size + 1);
	if (isTexts(old)) {
		const a = old.offsets[from]!;
		const kept = old.offsets[to]! - a;
		const bytes = Buffer.allocUnsafeSlow(storeBytes(kept, keep, size, next));
		(old.bytes as Buffer).copy(bytes, 0, a, a + kept);
		for (let i = 0; i <= keep; i++) offsets[i] = old.offsets[from + i]! - a;
		return {bytes, offsets, lines: keep, length: size};
	}
	// a ring made by hand: its texts written out
	let kept = 0;
	for (let k = from; k < to; k++) kept += Buffer.byteLength(old[k]!);
	const bytes = Buffer.allocUnsafeSlow(storeBytes(kept, keep, size, next));
	for (let i = 0; i < keep; i++) offsets[i + 1] = offsets[i]! + bytes.write(old[from + i]!, offsets[i]!);
	return {bytes, offsets, lines: keep, length: size};
}

function storeBytes(kept: number, keep: number, size: number, next: string): number {
	const perLine = keep > 0 ? kept / keep : 0;
	return Math.max(MIN_STORE_BYTES, Math.ceil(1.25 * perLine * size), kept + Buffer.byteLength(next));
}

/** Line `i` of the ring (0 = oldest held), made on read: the same fields as the line appended. */
export function logLineAt(ring: LogRing, i: number): LogLine {
	const k = ring.start + i;
	const t = ring.times?.[k] ?? 0;
	const text = textOf(ring.buffer, k);
	const flags = ring.flags?.[k] ?? 0;
	const parsed = (flags & LOG_PARSED) !== 0;
	return (flags & LOG_NOTE) === 0 ? {t, text, parsed} : {t, text, parsed, note: true};
}

/** The text of line `i` (0 = oldest held), read in place (a filter reads only the texts). */
export function logTextAt(ring: LogRing, i: number): string {
	return textOf(ring.buffer, ring.start + i);
}

/** Line k of a store, decoded (or of a ring's plain array). */
function textOf(store: LogTexts | readonly string[], k: number): string {
	return isTexts(store) ? (store.bytes as Buffer).toString('utf8', store.offsets[k], store.offsets[k + 1]) : store[k]!;
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
