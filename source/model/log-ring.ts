/**
 * The log buffer: the newest `cap` lines of a log, appended in amortised O(1), read as windows.
 *
 * Where the lines live (issue 32): outside V8's collected heap, in an arena of UTF-8 bytes reused
 * in a circle, with each line's place, length, time and flags in typed arrays. Kept as strings, a
 * busy log's lines (slices of the decoded read, which they kept alive) lived 1–3 s in the ring:
 * each outlived a scavenge or two and was copied and promoted, and the old generation they filled
 * was collected again and again. Measured with both builds on the same logs at once
 * (docs/measured.md, fourteenth round): eight vLLM logs at 100 requests a second each cost 14–20 %
 * less CPU, eight llama.cpp logs 2–17 % less (seven runs); with vLLM's long lines V8's heap is 10 MB
 * smaller and malloc's 9 MB larger. Writing a line's bytes costs ~0.1 µs, reading one back (the
 * rows on screen, a filter) ~0.2 µs. (Tried once before as append-only stores made anew every cap
 * lines, when the rest cost twice what it does now: no gain then.)
 *
 * A state's ring is a window [start, end) of absolute line numbers onto its arena. The arena keeps
 * readable the newest window's lines and those of one pinned window: the store pins the state it
 * publishes to the screen (pinLogs), which may be a few appends behind, or held (space pauses the
 * screen). A pinned window far behind (PIN_LAG × cap lines) is given its own copy of its lines, so
 * a paused screen or a log not on screen never makes an arena grow. Any other window reads its
 * lines while none of them was reused; reading one that was throws (only a state older than the
 * published one, which nothing on screen reads). Appending to a window that is not its arena's
 * newest (a branch, never done by the store) copies it to an arena of its own.
 *
 * A text reads back as its UTF-8 round trip: the same string (a lone surrogate, half of a character,
 * would read back as U+FFFD, but sanitize has replaced those before a line gets here).
 */
import type {LogArena, LogLine, LogRing, MonitorState} from '../types/state.js';

export type {LogRing} from '../types/state.js';

/** Flags of a kept line: a parser read it; infertop's own note (why a request was not used); its time cannot be known (`t` is when it was read). */
export const LOG_PARSED = 1;
export const LOG_NOTE = 2;
export const LOG_EARLIER = 4;

/** A pinned window this many caps behind the newest line gets a copy of its own. */
export const PIN_LAG = 2;
const MIN_BYTES = 16 * 1024;
const MIN_SLOTS = 64;

type Arena = {-readonly [K in keyof LogArena]: LogArena[K]} & {bytes: Buffer};

/**
 * Buffer's own UTF-8 methods, what `write` and `toString` call once they have checked their
 * arguments: half their cost without TurboFan (0.12 against 0.24–0.36 µs a 100-byte line, node
 * 20.20, the bin's flags). Not in Node's documentation, so the documented ones where they are absent.
 */
type Utf8Buffer = Buffer & {utf8Write?: (text: string, at: number) => number; utf8Slice?: (from: number, to: number) => string};

export interface Utf8 {
	/** Whether these are Buffer's own methods (appendTo then calls `utf8Write` in place: a call less a line). */
	readonly own: boolean;
	readonly write: (bytes: Buffer, text: string, at: number) => number;
	readonly read: (bytes: Buffer, from: number, to: number) => string;
}

/** Buffer's own UTF-8 methods where `proto` has them, else the documented `write` and `toString`. */
export function utf8Of(proto: object): Utf8 {
	const own = proto as Partial<Utf8Buffer>;
	if (typeof own.utf8Write === 'function' && typeof own.utf8Slice === 'function') {
		return {own: true, write: (bytes, text, at) => (bytes as Utf8Buffer).utf8Write!(text, at), read: (bytes, from, to) => (bytes as Utf8Buffer).utf8Slice!(from, to)};
	}
	return {own: false, write: (bytes, text, at) => bytes.write(text, at), read: (bytes, from, to) => bytes.toString('utf8', from, to)};
}

const UTF8 = utf8Of(Buffer.prototype);
const OWN_UTF8 = UTF8.own;
const writeText = UTF8.write;
const readText = UTF8.read;

const EMPTY: LogRing = {arena: undefined, start: 0, end: 0, length: 0};

export function emptyLog(): LogRing {
	return EMPTY;
}

export function isLogRing(x: unknown): x is LogRing {
	return typeof x === 'object' && x !== null && 'start' in x && 'end' in x && !Array.isArray(x);
}

/** The flags of a line. */
export const logFlags = (parsed: boolean, note?: boolean, earlier?: boolean): number => (parsed ? LOG_PARSED : 0) | (note === true ? LOG_NOTE : 0) | (earlier === true ? LOG_EARLIER : 0);

export function appendLog(ring: LogRing, line: LogLine, cap: number): LogRing {
	return appendTo({...ring}, line.t, line.text, logFlags(line.parsed, line.note, line.earlier), cap);
}

/** A ring whose window may be moved in place: one that a batch made and no reader has seen yet. */
export type DraftRing = {-readonly [K in keyof LogRing]: LogRing[K]};

function arrays(size: number, slots: number): Pick<Arena, 'bytes' | 'at' | 'len' | 'times' | 'flags'> {
	return {bytes: Buffer.allocUnsafeSlow(size), at: new Uint32Array(slots), len: new Uint32Array(slots), times: new Float64Array(slots), flags: new Uint8Array(slots)};
}

/** Line slots for `n` lines: a power of two (a line's slot is its number masked, not divided). */
const slotsFor = (n: number): number => Math.max(MIN_SLOTS, 2 ** Math.ceil(Math.log2(n)));

/** Bytes of lines [from, to) of `a`. */
function bytesOf(a: Arena, from: number, to: number): number {
	let sum = 0;
	const mask = a.at.length - 1;
	for (let n = from; n < to; n++) sum += a.len[n & mask]!;
	return sum;
}

type Packed = Pick<Arena, 'bytes' | 'at' | 'len' | 'times' | 'flags' | 'head'>;

/**
 * Lines [from, to) of `a` in new arrays, sized for them, `room` bytes and a line more, packed from
 * byte 0 (their numbers stay theirs). Runs of lines that lie end to end are copied as one block.
 */
function packed(a: Arena, from: number, to: number, room: number): Packed {
	const next = arrays(Math.max(MIN_BYTES, Math.ceil((bytesOf(a, from, to) + room) * 1.25)), slotsFor(2 * (to - from + 1)));
	// slot masks (slot counts are powers of two)
	const fromMask = a.at.length - 1;
	const toMask = next.at.length - 1;
	let head = 0;
	let runAt = 0;
	let runEnd = 0;
	for (let n = from; n < to; n++) {
		const i = n & fromMask;
		const j = n & toMask;
		const at = a.at[i]!;
		const len = a.len[i]!;
		if (at !== runEnd) {
			if (runEnd > runAt) a.bytes.copy(next.bytes, head - (runEnd - runAt), runAt, runEnd);
			runAt = at;
		}
		runEnd = at + len;
		next.at[j] = head;
		next.len[j] = len;
		next.times[j] = a.times[i]!;
		next.flags[j] = a.flags[i]!;
		head += len;
	}
	if (runEnd > runAt) a.bytes.copy(next.bytes, head - (runEnd - runAt), runAt, runEnd);
	return {...next, head};
}

/** A new arena holding lines [from, to) of `a` (none: an empty one numbered from `to`). */
function arenaOf(a: Arena | undefined, from: number, to: number, room: number): Arena {
	if (a === undefined || from >= to) return {lines: to, intact: to, pin: undefined, ...arrays(Math.max(MIN_BYTES, room * 2), MIN_SLOTS), head: 0};
	if (from < a.intact) throw new RangeError(`log ring: line ${from} was reused (a state older than the one on screen was appended to)`);
	return {lines: to, intact: from, pin: undefined, ...packed(a, from, to, room)};
}

/**
 * Append into `ring` itself, for a ring nobody has seen yet (a batch's own copy): a busy log's batch
 * appends thousands of lines, and a new ring object for each was garbage at once. The line comes as
 * its parts (no LogLine made to be taken apart).
 */
export function appendTo(ring: DraftRing, t: number, text: string, flags: number, cap: number): DraftRing {
	// UTF-8 takes at most 3 bytes for each UTF-16 unit (4 for a pair of them)
	const need = text.length * 3;
	let a = ring.arena as Arena | undefined;
	if (a === undefined || ring.end !== a.lines) {
		// the first line, or a branch: the window's newest cap − 1 lines to an arena of its own
		a = arenaOf(a, Math.max(ring.start, ring.end - (cap - 1)), ring.end, need);
		ring.arena = a;
		ring.start = Math.max(ring.start, a.intact);
	}
	const n = a.lines;
	// what must stay readable: the new window, and the pinned one
	let keep = Math.max(ring.start, n + 1 - cap);
	const pin = a.pin;
	if (pin !== undefined) {
		if (pin.arena !== a || pin.end > n) a.pin = undefined;
		else if (n - pin.start > PIN_LAG * cap) {
			(pin as DraftRing).arena = arenaOf(a, pin.start, pin.end, 0);
			a.pin = undefined;
		} else if (pin.start < keep) keep = pin.start;
	}
	let slots = a.at.length;
	const mask = slots - 1;
	let size = a.bytes.length;
	let pos = a.head;
	// the oldest line still whole once this one is written (lines lie in the order written, in a circle)
	let k = a.intact;
	let grow = n + 1 - keep > slots || need > size;
	if (!grow) {
		if (pos + need > size) {
			// to byte 0: the lines after the head, to the end, go first
			while (k < n && a.at[k & mask]! >= pos) k++;
			pos = 0;
			while (k < n && a.at[k & mask]! < need) k++;
			grow = k > keep;
		} else {
			const end = pos + need;
			while (k < n && a.at[k & mask]! >= pos && a.at[k & mask]! < end) k++;
			grow = k > keep;
		}
		// every 1,024 lines: a burst of long lines made it large, and they have left: back to about
		// what it holds (the sum is over what it keeps, so ~1 addition a line)
		if (!grow && (n & 1023) === 0) grow = size > 4 * (bytesOf(a, keep, n) + need) + MIN_BYTES;
	}
	if (grow) {
		Object.assign(a, packed(a, keep, n, need));
		a.intact = keep;
		slots = a.at.length;
		size = a.bytes.length;
		pos = a.head;
		k = a.intact;
	}
	const slot = n & (slots - 1);
	// (Buffer's own method called in place, not through UTF8.write: a call less a line)
	const written = OWN_UTF8 ? (a.bytes as Utf8Buffer).utf8Write!(text, pos) : writeText(a.bytes, text, pos);
	a.at[slot] = pos;
	a.len[slot] = written;
	a.times[slot] = t;
	a.flags[slot] = flags;
	a.head = pos + written;
	a.lines = n + 1;
	a.intact = Math.max(k, n + 1 - slots);
	ring.end = n + 1;
	ring.start = Math.max(ring.start, n + 1 - cap);
	ring.length = ring.end - ring.start;
	return ring;
}

/** The slot of line `i` (0 = oldest held) in its arena; throws where that line's place was reused. */
function slotOf(ring: LogRing, i: number): number {
	const a = ring.arena!;
	const n = ring.start + i;
	if (n < a.intact) throw new RangeError(`log ring: line ${n} was reused (a state older than the one on screen was read)`);
	return n & (a.at.length - 1);
}

/** The text in `slot` of `a`. */
function textIn(a: LogArena, slot: number): string {
	const at = a.at[slot]!;
	return readText(a.bytes as Buffer, at, at + a.len[slot]!);
}

/** Line `i` of the ring (0 = oldest held), made on read: the same fields as the line appended. */
export function logLineAt(ring: LogRing, i: number): LogLine {
	const slot = slotOf(ring, i);
	const a = ring.arena!;
	const t = a.times[slot]!;
	const text = textIn(a, slot);
	const flags = a.flags[slot]!;
	const parsed = (flags & LOG_PARSED) !== 0;
	if ((flags & (LOG_NOTE | LOG_EARLIER)) === 0) return {t, text, parsed};
	return {t, text, parsed, ...((flags & LOG_NOTE) !== 0 ? {note: true} : {}), ...((flags & LOG_EARLIER) !== 0 ? {earlier: true} : {})};
}

/** The text of line `i` (0 = oldest held), read in place (a filter reads only the texts). */
export function logTextAt(ring: LogRing, i: number): string {
	return textIn(ring.arena!, slotOf(ring, i));
}

/**
 * Keep the rings of `state` readable (the store calls it with the state it publishes to the screen):
 * each arena keeps one pinned window, this one in place of the last.
 */
export function pinLogs(state: MonitorState): void {
	for (const id in state.servers) {
		const ring = state.servers[id]!.log;
		const a = ring.arena as Arena | undefined;
		// (a state whose lines were already reused cannot be kept: never the one just published)
		if (a !== undefined && ring.start >= a.intact) a.pin = ring;
	}
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
	const end = Math.max(0, ring.length - skip);
	return isLogRing(ring) ? linesOf(ring, Math.max(0, end - n), end) : ring.slice(Math.max(0, end - n), end);
}
