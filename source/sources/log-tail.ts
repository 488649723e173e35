/**
 * Tail a log file by byte offset, the way `tail -F` does: starts from the last ~64 KB of an
 * existing file, buffers partial lines, survives truncation and rotation (rename + new file),
 * waits for a file that does not exist yet. chokidar watches the folder (so a file that appears
 * later, or a new file after rotation, is seen); a slow stat poll backs it up where file events
 * are unreliable (network folders, some container mounts).
 */
import {open, stat} from 'node:fs/promises';
import path from 'node:path';
import {StringDecoder} from 'node:string_decoder';
import {watch, type FSWatcher} from 'chokidar';
import type {Collector} from '../types/monitor.js';

/** How much of an existing file is read at start. */
export const TAIL_START_BYTES = 64 * 1024;
/** A line longer than this is cut (kept: the first MAX_KEPT_LINE chars); never grow without bound. */
export const MAX_PARTIAL_CHARS = 1024 * 1024;
export const MAX_KEPT_LINE = 64 * 1024;
const READ_CHUNK = 1024 * 1024;
const MARK_BYTES = 16;
const POLL_MS = 1000;

export interface LogTailOptions {
	readonly path: string;
	readonly onLine: (line: string, t: number) => void;
	readonly onState?: (text: string) => void;
	/** Bytes of an existing file to read at start (default 64 KB); Infinity = whole file. */
	readonly startBytes?: number;
	/** Poll interval of the stat fallback (ms). */
	readonly pollMs?: number;
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

	write(chunk: Buffer): void {
		const text = this.decoder.write(chunk);
		let start = 0;
		for (;;) {
			const nl = text.indexOf('\n', start);
			if (nl < 0) break;
			this.take(text.slice(start, nl), true);
			start = nl + 1;
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

export function createLogTail(options: LogTailOptions): Collector & {readonly offset: () => number} {
	const file = path.resolve(options.path);
	const dir = path.dirname(file);
	const base = path.basename(file);
	let offset = 0;
	let ino: number | undefined;
	let watcher: FSWatcher | undefined;
	let poll: NodeJS.Timeout | undefined;
	let stopped = false;
	let reading = false;
	let again = false;
	let first = true;
	let lastState = '';
	/** The last bytes read before `offset`: if they change, the file was truncated and rewritten past our offset. */
	let tailMark: Buffer | undefined;
	const splitter = new LineSplitter(line => options.onLine(line, Date.now()));
	const state = (text: string) => {
		if (text !== lastState) {
			lastState = text;
			options.onState?.(text);
		}
	};

	async function readMore(): Promise<void> {
		if (stopped) return;
		if (reading) {
			again = true;
			return;
		}
		reading = true;
		try {
			do {
				again = false;
				await readOnce();
			} while (again && !stopped);
		} finally {
			reading = false;
		}
	}

	async function readOnce(): Promise<void> {
		let st;
		try {
			st = await stat(file);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			state(code === 'ENOENT' ? `no such file: ${options.path} (waiting for it)` : `cannot read ${options.path}: ${code ?? String(error)}`);
			if (ino !== undefined) {
				// Rotated away and not yet recreated: the next file starts from 0.
				ino = undefined;
				offset = 0;
				splitter.reset();
			}
			return;
		}
		if (!st.isFile()) {
			state(`${options.path} is not a file`);
			return;
		}
		if (ino !== undefined && st.ino !== ino) {
			// Rotation: a new file under the same name.
			offset = 0;
			splitter.reset();
			state(`following ${options.path} (rotated)`);
		} else if (st.size < offset || (st.size !== offset && offset > 0 && tailMark && !(await sameMark(st.size)))) {
			// Truncation (also when the file grew past our offset again before we looked): start over.
			offset = 0;
			tailMark = undefined;
			splitter.reset();
			state(`following ${options.path} (truncated)`);
		}
		let skipPartial = false;
		if (ino === undefined && first) {
			const startBytes = options.startBytes ?? TAIL_START_BYTES;
			if (st.size > startBytes) {
				offset = st.size - startBytes;
				skipPartial = true;
			}
		}
		first = false;
		ino = st.ino;
		if (st.size === offset) {
			if (!lastState.startsWith('following')) state(`following ${options.path}`);
			return;
		}
		let handle;
		try {
			handle = await open(file, 'r');
		} catch (error) {
			state(`cannot open ${options.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
			return;
		}
		try {
			const buffer = Buffer.allocUnsafe(READ_CHUNK);
			while (!stopped && offset < st.size) {
				const want = Math.min(READ_CHUNK, st.size - offset);
				const {bytesRead} = await handle.read(buffer, 0, want, offset);
				if (bytesRead <= 0) break;
				let chunk = buffer.subarray(0, bytesRead);
				offset += bytesRead;
				if (skipPartial) {
					// Started mid-file: drop the partial first line.
					const nl = chunk.indexOf(0x0a);
					if (nl < 0) continue;
					chunk = chunk.subarray(nl + 1);
					skipPartial = false;
				}
				splitter.write(Buffer.from(chunk));
				const markStart = Math.max(0, bytesRead - MARK_BYTES);
				tailMark = Buffer.from(buffer.subarray(markStart, bytesRead));
			}
		} finally {
			await handle.close().catch(() => undefined);
		}
		if (!lastState.startsWith('following')) state(`following ${options.path}`);
	}

	async function sameMark(size: number): Promise<boolean> {
		if (!tailMark || size < offset) return false;
		let handle;
		try {
			handle = await open(file, 'r');
			const probe = Buffer.alloc(tailMark.length);
			const {bytesRead} = await handle.read(probe, 0, tailMark.length, offset - tailMark.length);
			return bytesRead === tailMark.length && probe.equals(tailMark);
		} catch {
			return true;
		} finally {
			await handle?.close().catch(() => undefined);
		}
	}

	const kick = () => {
		void readMore().catch(error => state(`error reading ${options.path}: ${String(error)}`));
	};

	return {
		offset: () => offset,
		async start() {
			stopped = false;
			await readMore();
			try {
				watcher = watch(dir, {
					depth: 0,
					ignoreInitial: true,
					persistent: true,
					ignored: (p: string) => p !== dir && path.basename(p) !== base,
				});
				watcher.on('all', (_event, p) => {
					if (path.basename(p) === base) kick();
				});
				watcher.on('error', () => undefined);
			} catch {
				// The folder may not exist yet: the stat poll below covers it.
			}
			poll = setInterval(kick, options.pollMs ?? POLL_MS);
			poll.unref?.();
		},
		async stop() {
			stopped = true;
			if (poll) clearInterval(poll);
			poll = undefined;
			const w = watcher;
			watcher = undefined;
			await w?.close().catch(() => undefined);
		},
	};
}
