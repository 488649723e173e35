/**
 * Tail a log file by byte offset, the way GNU `tail -F` does: starts from the last ~64 KB of a file
 * that existed at start (a file that appears later is read from its beginning), buffers partial
 * lines, survives truncation and rotation, waits for a file that does not exist yet.
 *
 * The file stays open between reads: on rotation (rename + new file) the old one is drained to its
 * end before the new one is followed, so lines written just before the rename are not lost.
 * A file is the same file only while its identity holds: device + inode (+ birth time where the
 * platform has one), a size never seen below our offset, and its first KB (kept); a
 * copytruncate that regrows past our offset, or a delete-and-recreate that reuses the inode, is
 * a new file and is read from its beginning.
 *
 * node's fs.watch watches the file itself, not its folder (a busy sibling file costs nothing); a
 * slow stat poll notices a file that appears or reappears, and backs the watch up where file events
 * are unreliable (network folders, some container mounts). An event only schedules a read (at most
 * one per MIN_READ_GAP_MS): the read's own stat says what changed. chokidar, used before, stats
 * the file on every event — 100 stats a second per log of a server at 100 requests a second, 6 of
 * the 35 % of a core that eight such logs cost (issue 32); the size it saw is not needed, since a
 * file cut and regrown between two reads is told by its head, its tail mark and the ledger.
 * While a log is busy its watch is closed and it is read by the clock (`quiet`, below): engines
 * write a line a write, and each write was an event.
 */
import {fstatSync, readSync, statSync, watch, type FSWatcher, type Stats} from 'node:fs';
import {lstat, open, stat, statfs, type FileHandle} from 'node:fs/promises';
import path from 'node:path';
import {StringDecoder} from 'node:string_decoder';
import type {Collector} from '../types/state.js';
import {sanitizeName} from '../util/sanitize.js';
import {HASH_SEED, hashBytes, hashRange} from './line-hash.js';

/** How much of an existing file is read at start. */
export const TAIL_START_BYTES = 64 * 1024;
/** A line longer than this is cut (kept: the first MAX_KEPT_LINE chars); never grow without bound. */
export const MAX_PARTIAL_CHARS = 1024 * 1024;
export const MAX_KEPT_LINE = 64 * 1024;
/** Bytes decoded to one string at a time (below V8's large-object size: see LineSplitter.write). */
export const DECODE_BYTES = 32 * 1024;
/**
 * One step of a read: the lines of 64 KiB (~560 llama.cpp request lines) are parsed and go to the
 * store (one batch) before the next step is read, so a key is answered between steps while a
 * backlog is caught up. 64 KiB, not 256: a step's lines, events and texts stay alive until its
 * batch is applied, and at ~1.3 KB allocated a line a 256 KiB step (~2,200 lines) outlived two of
 * the app's 1 MB scavenges and was promoted whole (see MAX_BATCH_LINES in log-source.ts).
 */
export const READ_CHUNK = 64 * 1024;
/**
 * Reads are at least this far apart: a busy engine appends many times a second, and each file
 * event read what was new at once (a stat, an fstat, the identity checks and a store update per
 * append). Now the appends of 250 ms are read together: the screen shows them at most 4 times a
 * second (PUBLISH_INTERVAL_MS), once a second by default, so reading more often shows nothing
 * sooner. A read of a quiet log still happens at once on its file event. 100 ms before (issue 32):
 * each read of a busy log costs its checks and a store update whatever it finds, and leaves more
 * behind for the old generation (half as many full collections at 250 ms, as many scavenges;
 * likely its batch's copies of the server's rings, not measured object by object). Measured with
 * both builds on the same logs at once, 250 ms took 8–11 % off one llama.cpp log at 1,000 req/s
 * and 11–22 % off eight logs at 100 req/s each (docs/measured.md, tenth round).
 */
export const MIN_READ_GAP_MS = 250;
/**
 * The most a tail falls behind the file's end: past this (a burst of a million lines, an engine
 * writing faster than infertop reads), it jumps ahead to the last SKIP_KEEP_BYTES and counts the
 * lines it did not read (LogLag.linesSkipped, shown beside the requests). Readme: "Busy servers".
 */
export const SKIP_BEHIND_BYTES = 16 * 1024 * 1024;
export const SKIP_KEEP_BYTES = 2 * 1024 * 1024;
/** Bytes passed over (their lines counted) between two turns of the event loop while skipping ahead. */
const SKIP_STEP_BYTES = 1024 * 1024;
/** Bytes behind below this show as 0 (a read always finds what 250 ms of appends wrote). */
export const LAG_SHOWN_BYTES = 1024 * 1024;
const MARK_BYTES = 64;
/** Bytes at the start of the file that are part of its identity (kept and compared whole). */
export const HEAD_BYTES = 1024;
const POLL_MS = 1000;
/**
 * The stat poll while the file itself is watched (its events say when it grows): only a backstop for
 * folders where events never come, and for a file renamed away and recreated. Polling each second
 * on top of the watch was a stat pair per second per log, for nothing, on an idle engine.
 */
const WATCHED_POLL_MS = 5000;

export interface LogTailOptions {
	readonly path: string;
	readonly onLine: (line: string, t: number) => void;
	readonly onState?: (text: string) => void;
	/** Bytes of an existing file to read at start (default 64 KB); Infinity = whole file. */
	readonly startBytes?: number;
	/** Poll interval of the stat fallback (ms); default 1 s, 5 s while a file watch is armed. */
	readonly pollMs?: number;
	/** Watch the file for changes (default true); false: the stat poll alone (folders where events never come). */
	readonly watch?: boolean;
	/** How far behind the file's end the tail is, and what it skipped (called when that changes). */
	readonly onLag?: (lag: TailLag) => void;
	/** Least time between two reads (default MIN_READ_GAP_MS). */
	readonly minReadGapMs?: number;
	/** Bytes behind past which the tail skips ahead (default SKIP_BEHIND_BYTES). */
	readonly skipBehindBytes?: number;
	/** Read with synchronous calls where readsLocally says so (default); false: always asynchronously. */
	readonly syncReads?: boolean;
}

export interface TailLag {
	/** Bytes not yet read when the last read began (0 below LAG_SHOWN_BYTES). */
	readonly bytesBehind: number;
	/** Lines skipped on purpose since start (never read: the tail jumped ahead). */
	readonly linesSkipped: number;
	readonly skips: number;
}

/**
 * Linux file systems on a local disk or in memory (statfs's f_type, linux/magic.h): a file on one
 * is read with synchronous calls. Each asynchronous fs call is a round trip through libuv's thread
 * pool: a promise, a request object, a worker's wake-up and its own CPU, 30-90 µs of the main
 * thread's CPU each under V8's interpreter, where the read itself takes a few µs from the page
 * cache. A read of a busy log made five of them (the path's stat, its head, its tail mark, the
 * ledger's spot check, the new bytes), ten times a second per log then (now four): with eight logs,
 * 0.8 % of a core in the pool's threads and ~20 ms a second of the main thread's (issue 32).
 * A file anywhere else (NFS, SMB, FUSE such as sshfs, any other system, macOS) is read as before,
 * asynchronously: a hung mount must never freeze the screen.
 */
const LOCAL_FS: ReadonlySet<number> = new Set([
	0xef53, // ext2/3/4
	0x58465342, // xfs
	0x9123683e, // btrfs
	0x01021994, // tmpfs
	0x794c7630, // overlayfs (containers)
	0x2fc12fc1, // zfs
	0xf2f52010, // f2fs
	0xca451a4e, // bcachefs
	0x858458f6, // ramfs
]);

/**
 * Whether `file` (open, a regular file) may be read synchronously: on Linux, on a local file
 * system (LOCAL_FS), and named by a path that is no symbolic link (the path is stat'ed on every
 * read: a link could lead anywhere later). Anything unknown: no.
 */
export async function readsLocally(file: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
	if (platform !== 'linux') return false;
	try {
		const [fsInfo, link] = await Promise.all([statfs(file), lstat(file)]);
		return LOCAL_FS.has(Number(fsInfo.type) >>> 0) && !link.isSymbolicLink();
	} catch {
		return false;
	}
}

/** Newlines in `buf` (native search, no decoding). */
function countNewlines(buf: Buffer): number {
	let n = 0;
	let i = buf.indexOf(0x0a);
	while (i >= 0) {
		n++;
		i = buf.indexOf(0x0a, i + 1);
	}
	return n;
}

/**
 * Lines a ledger remembers (two numbers each, in typed-array rings: 12 bytes a line, 192 KiB at
 * most, outside the JS heap); past it the oldest line is forgotten, one for each new one.
 *
 * Why not more (issue 32): the ledger is one per log and fills with every line read, so its size
 * is logs × ledger. At 200,000 lines (2.4 MB a log) eight busy logs held 19 MB once full (6 MB of
 * ArrayBuffers 35 s in, in a heap snapshot at 8 × 100 req/s), and RSS grew with it for minutes.
 * What it is for needs far fewer: a copytruncate changes the file's head, and a changed head means
 * the new text began at 0 (resumeAt's `headChanged`), whatever was forgotten; the ledger places only
 * a cut that kept the head (a writer that truncated its log part-way), within its last 16,384
 * lines (~1.6 MB of llama.cpp request lines).
 */
export const LEDGER_LINES = 16_384;
/** Lines a ledger's rings hold at first; they grow ×4 up to its capacity (a quiet log keeps them small). */
const LEDGER_FIRST_LINES = 1024;
/**
 * The hash a ledger keeps for a line whose bytes are `bytes`, lying at `start` in the file (the
 * hash reads the file's bytes 8 at a time from a multiple of 8: the same bytes elsewhere in the
 * file may hash otherwise; a line is only ever compared with the one at its own place).
 */
export function lineHash(bytes: Uint8Array, start: number): number {
	if (bytes.length === 0) return HASH_SEED;
	const k = start % 8;
	hashBytes(k + bytes.length).set(bytes, k);
	return hashRange(HASH_SEED, k, k + bytes.length);
}

/**
 * Where each line read lies in the file and a hash of its bytes, for the lines read since the file
 * was opened (the last `capacity` of them). A file truncated in place and regrown (by
 * `copytruncate`, or a writer that cut it) keeps its first bytes: the first line that no longer
 * reads as it did is where the new text starts. Reading resumes there, so no line is read twice and
 * none of the new ones is skipped, whether or not the shrink was seen between two reads (GNU `tail
 * -F` reads a truncated file again from its start).
 *
 * Cost (measured, bin's V8 flags: interpreter, no optimizing compiler): the per-byte FNV-1a loop it
 * replaced was ~17 % of the app's CPU under traffic, and its three JS arrays of up to 200,000
 * numbers (the hashes mostly heap numbers) were spliced by 50,000 at a time. Now: newlines are found
 * natively, each line is hashed 8 bytes a step over an aligned copy of the read (in WebAssembly:
 * sources/line-hash.ts), and a line is two typed-array slots (its end and its hash: lines are
 * contiguous, so a line's start is the end before it).
 */
export class LineLedger {
	/** Ring of the remembered lines' ends (file offsets: past 2^31 in a big file, so doubles). */
	private ends = new Float64Array(0);
	private hashes = new Int32Array(0);
	/** Ring slot of the oldest remembered line, and how many are remembered. */
	private first = 0;
	private count = 0;
	/** Where the oldest remembered line starts (the end of the one forgotten before it). */
	private firstStart = 0;
	/** Where the line being read started; -1: it is not a line of the ledger (a partial first line). */
	private lineStart = -1;
	/** The hash of the line being read, up to the last whole word of what was fed. */
	private hash = HASH_SEED;
	/** Where the next chunk should begin (-1: anywhere); a chunk elsewhere is a gap (a skip ahead). */
	private next = -1;
	/** The bytes of the last read after its last whole pair of words (< 8): the start of the next read's first pair. */
	private readonly carry = new Uint8Array(8);
	/** Lines were forgotten: what came before the first remembered one cannot be checked. */
	forgot = false;

	constructor(readonly capacity = LEDGER_LINES) {}

	/** Start over at a line start (a new file, or where reading resumes); -1: the first line is partial. */
	reset(at: number): void {
		this.first = 0;
		this.count = 0;
		this.lineStart = at;
		this.hash = HASH_SEED;
		this.next = at;
		this.forgot = false;
	}

	/** How many lines are remembered. */
	get size(): number {
		return this.count;
	}

	/** The i-th remembered line (0 = the oldest): where it starts and ends, and its hash. */
	line(i: number): {start: number; end: number; hash: number} {
		const cap = this.ends.length;
		const start = i === 0 ? this.firstStart : this.ends[(this.first + i - 1) % cap]!;
		return {start, end: this.ends[(this.first + i) % cap]!, hash: this.hashes[(this.first + i) % cap]!};
	}

	private remember(start: number, end: number, hash: number): void {
		let cap = this.ends.length;
		if (this.count === cap && cap < this.capacity) {
			// Not wrapped yet (a ring only wraps once full at its capacity): grow in place.
			cap = Math.min(this.capacity, Math.max(LEDGER_FIRST_LINES, cap * 4));
			const ends = new Float64Array(cap);
			ends.set(this.ends);
			const hashes = new Int32Array(cap);
			hashes.set(this.hashes);
			this.ends = ends;
			this.hashes = hashes;
		}
		if (this.count === 0) this.firstStart = start;
		else if (this.count === cap) {
			// Full: forget the oldest line.
			this.firstStart = this.ends[this.first]!;
			this.first = this.first + 1 === cap ? 0 : this.first + 1;
			this.count--;
			this.forgot = true;
		}
		let slot = this.first + this.count;
		if (slot >= cap) slot -= cap;
		this.ends[slot] = end;
		this.hashes[slot] = hash;
		this.count++;
	}

	/** The bytes read at `offset` (contiguous with the last ones, else the lines before are forgotten). */
	feed(chunk: Uint8Array, offset: number): void {
		if (chunk.length === 0) return;
		if (this.next >= 0 && offset !== this.next) {
			// A gap (the tail skipped ahead): the line cut at `offset` is not a line; what came before
			// was passed over, and can no longer be checked.
			this.count = 0;
			this.lineStart = -1;
			this.forgot = true;
		}
		this.next = offset + chunk.length;
		// The chunk goes into an aligned copy `k` bytes in (the hash's memory, sources/line-hash.ts),
		// after the bytes of its first pair of words that the last chunk ended with (kept by the last
		// feed): word i of the copy is the file's word at base + 4i, whatever the chunk's own alignment.
		// One native copy per read (~2,000 lines).
		const k = offset % 8;
		const base = offset - k;
		const n = k + chunk.length;
		const bytes = hashBytes(n);
		if (k > 0) bytes.set(this.carry.subarray(0, k));
		bytes.set(chunk, k);
		// A sentinel newline after the data: the native search below always stops within the copy.
		bytes[n] = 0x0a;
		let h = this.hash;
		// The unhashed part of the line being read begins at `from` in the copy (the line's start, or
		// the copy's first word: the last feed hashed every whole word before it).
		let from = this.lineStart < 0 ? -1 : Math.max(0, this.lineStart - base);
		let nl = bytes.indexOf(0x0a, k);
		while (nl < n) {
			const end = nl + 1;
			const endAt = base + end;
			if (from >= 0) this.remember(this.lineStart, endAt, hashRange(h, from, end));
			this.lineStart = endAt;
			from = end;
			h = HASH_SEED;
			nl = bytes.indexOf(0x0a, end);
		}
		// The line being read: its whole pairs of words now; its last, partial pair with the next chunk.
		const whole = n & ~7;
		if (from >= 0 && whole > from) h = hashRange(h, from, whole);
		this.hash = h;
		if (whole < n) this.carry.set(bytes.subarray(whole, n));
	}

	/** Forget the remembered lines, keeping the line being read (a probe compares a chunk's lines at a time). */
	private dropRemembered(): void {
		this.count = 0;
	}

	/**
	 * Some remembered lines (a quarter, half and three quarters of the way) still read as they did.
	 * Between two reads a file may be cut and regrown past our offset with the few bytes before it
	 * equal by chance (a repeated idle line): lines further back tell.
	 */
	async spotCheck(read: (length: number, position: number) => Promise<Buffer>, size: number): Promise<boolean> {
		const n = this.count;
		if (n < 4) return true;
		// The lines at a quarter, a half and three quarters (index loops: no array, iterator or line
		// object a read: this runs at every read of a busy log).
		const cap = this.ends.length;
		for (let q = 1; q <= 3; q++) {
			const at = (q * n) >> 2;
			const start = at === 0 ? this.firstStart : this.ends[(this.first + at - 1) % cap]!;
			const end = this.ends[(this.first + at) % cap]!;
			if (end > size) return false;
			if (end - start > 64 * 1024) continue;
			const bytes = await read(end - start, start);
			if (bytes.length !== end - start || lineHash(bytes, start) !== this.hashes[(this.first + at) % cap]) return false;
		}
		return true;
	}

	/**
	 * Where to read from in the file as it is now: the start of the first remembered line that no
	 * longer reads as it did (or is gone), else the end of the last one. `lost`: the first
	 * remembered line changed although lines before it were read and forgotten, so the new text may
	 * have begun earlier (what lies between is not read). `headChanged`: the file's first bytes no
	 * longer read as they did: a cut to 0 (copytruncate) and regrown, so where nothing remembered
	 * still holds the new text is read from 0, not from the first remembered line, and nothing is lost.
	 */
	async resumeAt(read: (length: number, position: number) => Promise<Buffer>, size: number, headChanged = false): Promise<{offset: number; lost: boolean}> {
		const n = this.count;
		let j = 0;
		const start0 = n > 0 ? this.line(0).start : 0;
		const last = n > 0 ? Math.min(size, this.line(n - 1).end) : 0;
		// The file as it is now, read into a ledger of its own from the first remembered line: its
		// lines (where they end, their hashes) against the remembered ones, a read at a time.
		const probe = new LineLedger(READ_CHUNK + 1);
		probe.reset(start0);
		let pos = start0;
		let mismatch = false;
		while (!mismatch && pos < last && j < n) {
			const chunk = await read(Math.min(READ_CHUNK, last - pos), pos);
			if (chunk.length === 0) break;
			probe.feed(chunk, pos);
			for (let i = 0; i < probe.count && j < n; i++, j++) {
				const now = probe.line(i);
				const was = this.line(j);
				// A line ends there now and ended there then, with the same bytes; else it changed.
				if (now.end !== was.end || now.hash !== was.hash) {
					mismatch = true;
					break;
				}
			}
			probe.dropRemembered();
			pos += chunk.length;
		}
		let offset: number;
		let lost = false;
		if (n === 0) offset = 0;
		else if (j === n) offset = this.line(n - 1).end;
		else if (j > 0) offset = this.line(j).start;
		else if (size < start0) {
			// The file now ends before the first remembered line (a copytruncate to 0 of a busy log, not
			// yet regrown that far): all it holds is read, as GNU tail -F reads a truncated file. (It
			// resumed at start0, past the end: a negative read size threw, and the next read began at 0.)
			offset = 0;
		} else if (headChanged) {
			// The head changed too: the file was cut to 0 and regrown past the first remembered line
			// (a busy log's copytruncate): all of it is new text.
			offset = 0;
		} else if (this.forgot) {
			// Even the first remembered line changed, and lines before it were read and forgotten: the
			// new text began somewhere before it; what lies between is not read again.
			offset = start0;
			lost = true;
		} else offset = 0; // nothing before the first remembered line was ever read: read from the start
		// Keep what still holds; what is read from `offset` on is remembered after it.
		this.count = j;
		this.lineStart = offset;
		this.hash = HASH_SEED;
		this.next = offset;
		return {offset, lost};
	}
}

/**
 * Splits a byte stream into lines: UTF-8 safe across chunk boundaries (invalid bytes become
 * U+FFFD), CRLF tolerated, partial lines buffered, overlong lines cut.
 */
export class LineSplitter {
	private decoder = new StringDecoder('utf8');
	private partial = '';
	private overflow = false;

	constructor(private readonly emit: (line: string) => void) {}

	write(chunk: Uint8Array): void {
		// Decoded DECODE_BYTES at a time: a string of 128 KiB or more is a large object in V8 (a
		// mapping of its own, freed only by a full collection): decoding a 256 KiB read whole cost
		// ~1.2-1.5 ms against ~0.04 ms in 16-64 KiB pieces (bin flags). A line kept for the log
		// pane (a slice of its piece) also keeps at most a piece alive, not the whole read.
		for (let at = 0; at < chunk.length; at += DECODE_BYTES) {
			this.lines(this.decoder.write(at === 0 && chunk.length <= DECODE_BYTES ? chunk : chunk.subarray(at, at + DECODE_BYTES)));
		}
	}

	private lines(text: string): void {
		let start = 0;
		let nl = text.indexOf('\n');
		if (nl >= 0 && (this.partial.length > 0 || this.overflow)) {
			this.take(text.slice(0, nl), true);
			start = nl + 1;
			nl = text.indexOf('\n', start);
		}
		// The common case, inline (a call less per line): a whole line, nothing buffered before it
		// (after a complete line nothing is).
		while (nl >= 0) {
			if (nl - start > MAX_PARTIAL_CHARS) this.take(text.slice(start, nl), true);
			else this.emit(text.slice(start, nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
			start = nl + 1;
			nl = text.indexOf('\n', start);
		}
		if (start < text.length) this.take(text.slice(start), false);
	}

	/** Drop buffered state (after truncation or rotation). */
	reset(): void {
		this.decoder = new StringDecoder('utf8');
		this.partial = '';
		this.overflow = false;
	}

	/** Emit a trailing line without newline (end of a replay). */
	flush(): void {
		const rest = this.partial + this.decoder.end();
		this.reset();
		if (rest.length > 0) this.emit(rest.replace(/\r$/, ''));
	}

	private take(segment: string, complete: boolean): void {
		// The common case: a whole line, nothing buffered before it.
		if (complete && !this.overflow && this.partial.length === 0 && segment.length <= MAX_PARTIAL_CHARS) {
			this.emit(segment.charCodeAt(segment.length - 1) === 13 ? segment.slice(0, -1) : segment);
			return;
		}
		if (this.overflow) {
			if (complete) this.overflow = false;
			return;
		}
		this.partial += segment;
		if (this.partial.length > MAX_PARTIAL_CHARS) {
			this.emit(`${this.partial.slice(0, MAX_KEPT_LINE)}…[line cut]`);
			this.partial = '';
			this.overflow = !complete;
			return;
		}
		if (complete) {
			const line = this.partial.endsWith('\r') ? this.partial.slice(0, -1) : this.partial;
			this.partial = '';
			this.emit(line);
		}
	}
}

export interface LogTail extends Collector {
	readonly offset: () => number;
	/** Read whatever is new now (what a file event or the poll would do). */
	readonly readNow: () => Promise<void>;
	/** File events taken so far (tests: a busy log is read by the clock, not by its events). */
	readonly fileEvents: () => number;
	/** Whether the file's watch is open now (closed while a busy log is read by the clock). */
	readonly watching: () => boolean;
}

export function createLogTail(options: LogTailOptions): LogTail {
	const file = path.resolve(options.path);
	/** The path as the screen, stderr and JSON may show it (a file name is untrusted text). */
	const shown = sanitizeName(options.path);
	let offset = 0;
	/** The file being followed, kept open (it may have been renamed away meanwhile). */
	let handle: FileHandle | undefined;
	/** The open file is read with synchronous calls (readsLocally), and its path stat'ed so. */
	let local = false;
	let identity: {dev: number; ino: number; birth: number} | undefined;
	/** Hash of the first `headLength` bytes of the file being followed. */
	/** The file's first bytes as we read them (at most HEAD_BYTES): compared whole, no hash (and no node:crypto to load). */
	let head: Buffer | undefined;
	let headLength = 0;
	/** The last bytes read before `offset`: if they change, the file was rewritten under us. */
	let tailMark: Buffer | undefined;
	/** Whether the file existed when the tail started (only then does the start-up window apply). */
	let existedAtStart: boolean | undefined;
	let watcher: FSWatcher | undefined;
	let watchedIno: number | undefined;
	let poll: NodeJS.Timeout | undefined;
	let stopped = false;
	let reading = false;
	let again = false;
	let lastState = '';
	let linesSkipped = 0;
	let skips = 0;
	let lastLag: TailLag = {bytesBehind: 0, linesSkipped: 0, skips: 0};
	const lag = (behind: number) => {
		const next = {bytesBehind: behind >= LAG_SHOWN_BYTES ? behind : 0, linesSkipped, skips};
		// A change the screen would show: skips, or bytes behind moving by 1/8 (or to and from 0).
		const moved = next.bytesBehind === 0 ? lastLag.bytesBehind !== 0 : Math.abs(next.bytesBehind - lastLag.bytesBehind) * 8 > lastLag.bytesBehind;
		if (!moved && next.linesSkipped === lastLag.linesSkipped && next.skips === lastLag.skips) return;
		lastLag = next;
		options.onLag?.(next);
	};
	// A line's time is when its chunk was read: one clock read a chunk, not one a line (each a
	// heap number under a busy log, issue 32); a chunk's lines are split within a millisecond or two.
	let chunkReadAt = 0;
	const splitter = new LineSplitter(line => options.onLine(line, chunkReadAt));
	const ledger = new LineLedger();
	const state = (text: string) => {
		if (text !== lastState) {
			lastState = text;
			options.onState?.(text);
		}
	};
	const following = () => {
		if (!lastState.startsWith('following')) state(`following ${shown}`);
	};

	/** When the last read ended; a wake-up sooner than MIN_READ_GAP_MS after it waits for the rest. */
	let lastReadEnd = -Infinity;
	let gapTimer: NodeJS.Timeout | undefined;
	/** An event came during a read: another read is due once it ends. */
	let wanted = false;
	const minGap = options.minReadGapMs ?? MIN_READ_GAP_MS;

	async function readMore(): Promise<void> {
		if (stopped) return;
		if (reading) {
			again = true;
			return;
		}
		reading = true;
		readBytes = 0;
		try {
			do {
				again = false;
				await readOnce();
			} while (again && !stopped);
		} finally {
			reading = false;
			lastReadEnd = performance.now();
			if (wanted) {
				wanted = false;
				soon();
			}
			if (quiet) listenAgain();
		}
	}

	/**
	 * While the log is busy the watch is closed (`quiet`), and the tail reads by the clock instead,
	 * every MIN_READ_GAP_MS, until a read finds nothing new; then it watches again. An engine writes
	 * each line on its own (llama.cpp common/log.cpp flushes each entry; Python's logging each record),
	 * and each write was a file event: a wake-up of the process and a call into JavaScript, ~1,900 a
	 * second for a llama-server at 1,000 requests a second, ~290 at 100, for reads that happen at most
	 * 4 times a second (10 when this was written). Closing the watch at each event and opening it
	 * again after each read cost more than the events (~85 µs of JavaScript a turn). Where reads are
	 * asynchronous (macOS, network folders) the size after the watch is opened again comes from an
	 * asynchronous stat.
	 */
	let quiet = false;
	/** Bytes the current (or last) read took from the file. */
	let readBytes = 0;
	let events = 0;
	function onEvent(): void {
		events++;
		if (!quiet && watcher) {
			quiet = true;
			const w = watcher;
			watcher = undefined;
			w.close();
		}
		soon();
	}

	/** After a read: while the log is busy (this read found lines, or it has grown since), the next read is by the clock; else watch again. */
	function listenAgain(): void {
		if (stopped || !quiet) return;
		if (readBytes > 0 || grown()) {
			soon();
			return;
		}
		quiet = false;
		watchPath();
		// appended between the check and the watch: read it (no event told of it)
		if (local) {
			if (grown()) onEvent();
			return;
		}
		const h = handle;
		void h?.stat().then(st => {
			if (!stopped && handle === h && st.size > offset) onEvent();
		}, () => undefined);
	}

	/** The open file is longer than what was read (false where that cannot be told synchronously: not `local`). */
	function grown(): boolean {
		const h = handle;
		if (!h || !local) return false;
		try {
			return fstatSync(h.fd).size > offset;
		} catch {
			return false;
		}
	}

	/**
	 * A file event or the poll: read now, or once MIN_READ_GAP_MS has passed since the last read.
	 * During a read, the next one is due MIN_READ_GAP_MS after it ends (it was at once: two reads
	 * per gap under steady appends, each with its stats and identity checks).
	 */
	function soon(): void {
		if (stopped || gapTimer) return;
		if (reading) {
			wanted = true;
			return;
		}
		const wait = lastReadEnd + minGap - performance.now();
		if (wait <= 0) {
			kick();
			return;
		}
		gapTimer = setTimeout(() => {
			gapTimer = undefined;
			kick();
		}, Math.max(0, wait));
	}

	const identityOf = (st: Stats) => ({dev: st.dev, ino: st.ino, birth: st.birthtimeMs > 0 ? st.birthtimeMs : 0});
	const sameIdentity = (st: Stats): boolean => {
		const id = identityOf(st);
		return identity !== undefined && id.dev === identity.dev && id.ino === identity.ino && id.birth === identity.birth;
	};

	async function closeHandle(): Promise<void> {
		const h = handle;
		handle = undefined;
		local = false;
		identity = undefined;
		head = undefined;
		headLength = 0;
		tailMark = undefined;
		await h?.close().catch(() => undefined);
	}

	/** Read into `buf` at `position`: the bytes read (synchronously where the file is `local`). */
	async function readInto(h: FileHandle, buf: Buffer, length: number, position: number): Promise<number> {
		if (local) return readSync(h.fd, buf, 0, length, position);
		return (await h.read(buf, 0, length, position)).bytesRead;
	}

	async function readAt(h: FileHandle, length: number, position: number): Promise<Buffer> {
		const buf = Buffer.alloc(length);
		const bytesRead = await readInto(h, buf, length, position);
		return buf.subarray(0, bytesRead);
	}

	/**
	 * The bytes at `position` for a comparison made at once (the head, the tail mark, the ledger's
	 * spot check at every read of a busy log): read into one buffer of the tail's, grown as needed,
	 * valid until the next check. A new buffer for each was ~5 % of what eight busy logs allocated.
	 */
	let checkBuffer = Buffer.allocUnsafe(HEAD_BYTES);
	async function checkAt(h: FileHandle, length: number, position: number): Promise<Buffer> {
		if (checkBuffer.length < length) checkBuffer = Buffer.allocUnsafe(length);
		const bytesRead = await readInto(h, checkBuffer, length, position);
		return checkBuffer.subarray(0, bytesRead);
	}
	/** The file the ledger's spot check reads (set before each: one reader function, no closure a read). */
	let checkHandle: FileHandle | undefined;
	const checkRead = (length: number, position: number): Promise<Buffer> => checkAt(checkHandle!, length, position);

	/** The file's first bytes still read as we read them (true while none were noted). */
	async function headHolds(h: FileHandle, size: number): Promise<boolean> {
		if (headLength === 0) return true;
		return size >= headLength && head !== undefined && (await checkAt(h, headLength, 0)).equals(head);
	}
	/** Past the head (checked first, by the caller): the mark before our offset and the ledger's spot check still read as they did. */
	async function restHolds(h: FileHandle, size: number): Promise<boolean> {
		if (tailMark && offset >= tailMark.length) {
			if (!(await checkAt(h, tailMark.length, offset - tailMark.length)).equals(tailMark)) return false;
		}
		checkHandle = h;
		return ledger.spotCheck(checkRead, size);
	}

	/** Remember (or extend, while the file is still shorter than HEAD_BYTES) its head. */
	async function noteHead(h: FileHandle, size: number): Promise<void> {
		const want = Math.min(size, HEAD_BYTES);
		if (want <= headLength) return;
		head = await readAt(h, want, 0);
		headLength = head.length;
	}

	/**
	 * Read the open file from our offset to its end (it may have been renamed away: drain it).
	 * `known`: its size from a stat just made of it (the path's, where it is still the same file):
	 * no fstat of our own (each async fs call is a thread-pool round trip, ~30-90 µs of CPU here).
	 */
	async function drain(skipPartial: boolean, known?: number): Promise<void> {
		const h = handle;
		if (!h) return;
		const size = known ?? (local ? fstatSync(h.fd).size : (await h.stat()).size);
		// The same content (head first, then the rest), or cut in place; a changed head tells resumeAt
		// that the new text began at 0.
		let headChanged = false;
		let cut = size < offset;
		if (cut || size > offset) {
			headChanged = !(await headHolds(h, size));
			cut ||= headChanged || !(await restHolds(h, size));
		}
		if (cut) {
			// Truncated in place (copytruncate), maybe regrown past our offset since: resume at the first
			// line that no longer reads as it did (none read twice, none of the new skipped); a new file
			// under the same inode changed from its first line, and is read from its start.
			const r = await ledger.resumeAt((length, position) => readAt(h, length, position), size, headChanged);
			offset = r.offset;
			const lost = r.lost;
			head = undefined;
			headLength = 0;
			tailMark = undefined;
			splitter.reset();
			state(`following ${shown} (truncated${lost ? '; lines written between the cut and the last lines kept in memory were not read' : ''})`);
		}
		if (size === offset) return;
		lag(size - offset);
		let skip = skipPartial;
		if (size - offset > (options.skipBehindBytes ?? SKIP_BEHIND_BYTES)) {
			// Too far behind to catch up in time: jump to the file's last SKIP_KEEP_BYTES, counting the
			// lines passed over (their newlines; the line cut at the landing point is counted when dropped).
			const target = size - SKIP_KEEP_BYTES;
			const counter = Buffer.allocUnsafe(READ_CHUNK);
			let at = offset;
			let counted = 0;
			while (!stopped && at < target) {
				// A key is answered between the MiBs counted: a million lines passed over were ~110 MB
				// counted in one go (a buffer search a line: 100-180 ms), and a key pressed then waited.
				if (counted >= SKIP_STEP_BYTES) {
					counted = 0;
					await new Promise(r => setImmediate(r));
				}
				const bytesRead = await readInto(h, counter, Math.min(READ_CHUNK, target - at), at);
				if (bytesRead <= 0) break;
				linesSkipped += countNewlines(counter.subarray(0, bytesRead));
				at += bytesRead;
				counted += bytesRead;
			}
			offset = at;
			splitter.reset();
			skips++;
			skip = true;
			state(`following ${options.path} (skipped ahead: too far behind)`);
		}
		// Sized to what is new (a few hundred bytes per request, from Node's pool), not READ_CHUNK:
		// a 1 MiB buffer per drain was three 1 MiB mallocs a second under traffic, and once one was
		// freed glibc raised its mmap threshold to 1 MiB, so the next ones stayed in its heap (RSS).
		const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK, size - offset));
		let first = true;
		while (!stopped && offset < size) {
			// Between steps, whatever else waits runs first (a key, a frame): a backlog is read in steps.
			// (After the microtasks the last step queued, its batch's store update among them: what that
			// queued runs before the next step too. A synchronous read has no await of its own.)
			if (!first) {
				await null;
				await new Promise(r => setImmediate(r));
			}
			first = false;
			const want = Math.min(READ_CHUNK, size - offset);
			const bytesRead = await readInto(h, buffer, want, offset);
			if (bytesRead <= 0) break;
			let chunk = buffer.subarray(0, bytesRead);
			ledger.feed(chunk, offset);
			offset += bytesRead;
			readBytes += bytesRead;
			if (skip) {
				// Started mid-file (or skipped ahead): drop the partial first line.
				const nl = chunk.indexOf(0x0a);
				if (nl < 0) continue;
				chunk = chunk.subarray(nl + 1);
				if (!skipPartial) linesSkipped++;
				skip = false;
			}
			chunkReadAt = Date.now();
			splitter.write(chunk);
			tailMark = Buffer.from(buffer.subarray(Math.max(0, bytesRead - MARK_BYTES), bytesRead));
			lag(size - offset);
		}
		await noteHead(h, offset);
		lag(0);
	}

	async function readOnce(): Promise<void> {
		let st: Stats | undefined;
		let why: string | undefined;
		try {
			st = local ? statSync(file) : await stat(file);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			why = code === 'ENOENT' ? `no such file: ${shown} (waiting for it)` : `cannot read ${shown}: ${code ?? String(error)}`;
		}
		existedAtStart ??= st !== undefined;
		// Whatever the name points to now, first finish the file we have open (tail -F does too).
		if (handle) await drain(false, st && sameIdentity(st) ? st.size : undefined);
		if (!st || !st.isFile()) {
			state(why ?? `${shown} is not a file`);
			if (handle) {
				// Rotated away (or deleted) and not yet recreated: the next file starts from 0.
				await closeHandle();
				offset = 0;
				splitter.reset();
			}
			return;
		}
		let rotated = false;
		if (handle && !sameIdentity(st)) {
			await closeHandle();
			rotated = true;
		}
		if (!handle) {
			try {
				handle = await open(file, 'r');
			} catch (error) {
				state(`cannot open ${shown}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
				return;
			}
			const opened = await handle.stat();
			local = options.syncReads !== false && (await readsLocally(file));
			identity = identityOf(opened);
			offset = 0;
			splitter.reset();
			let skipPartial = false;
			// Only a file that was there at start is read from its last ~64 KB; one that appeared
			// (or replaced it) since is new: every line of it is read.
			const startBytes = options.startBytes ?? TAIL_START_BYTES;
			if (existedAtStart && watchedIno === undefined && !rotated && opened.size > startBytes) {
				offset = opened.size - startBytes;
				skipPartial = true;
			}
			// Started mid-file: the first (partial) line is not a line of the ledger.
			ledger.reset(skipPartial ? -1 : offset);
			await noteHead(handle, Math.min(opened.size, HEAD_BYTES));
			if (rotated) state(`following ${shown} (rotated)`);
			arm(opened.ino);
			await drain(skipPartial, opened.size);
		}
		following();
	}

	const kick = () => {
		void readMore().catch(error => state(`error reading ${shown}: ${String(error)}`));
	};

	/** Watch the file itself (not its folder); re-armed for each new file under the name. */
	function arm(ino: number): void {
		if (stopped || watchedIno === ino) return;
		watchedIno = ino;
		if (options.watch === false) return;
		watcher?.close();
		watcher = undefined;
		quiet = false;
		watchPath();
	}

	function watchPath(): void {
		try {
			// An event only schedules a read (header comment): nothing is stat'ed for it.
			const w = watch(file, {persistent: true}, onEvent);
			w.on('error', () => undefined);
			watcher = w;
		} catch {
			// The stat poll covers it.
		}
	}

	return {
		offset: () => offset,
		readNow: () => readMore(),
		fileEvents: () => events,
		watching: () => watcher !== undefined,
		async start() {
			stopped = false;
			await readMore();
			const next = (): void => {
				if (stopped) return;
				poll = setTimeout(() => {
					soon();
					next();
				}, options.pollMs ?? (watcher || quiet ? WATCHED_POLL_MS : POLL_MS));
				poll.unref?.();
			};
			next();
		},
		async stop() {
			stopped = true;
			if (poll) clearTimeout(poll);
			if (gapTimer) clearTimeout(gapTimer);
			gapTimer = undefined;
			poll = undefined;
			const w = watcher;
			watcher = undefined;
			watchedIno = undefined;
			quiet = false;
			w?.close();
			while (reading) await new Promise(r => setTimeout(r, 5));
			await closeHandle();
		},
	};
}
