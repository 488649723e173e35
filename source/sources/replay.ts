/**
 * Replay a captured log into the pipeline with its original pacing: the gaps between the
 * timestamps its lines carry (Ollama slog `time=`, llama.cpp relative `M.SS.mmm.uuu`, vLLM/SGLang/
 * mlx-lm/gin times), divided by `speed`; lines without timestamps follow their predecessor, and a
 * log with no timestamps at all plays at a fixed small gap. Long idle gaps are capped.
 */
import {existsSync, readdirSync, statSync} from 'node:fs';
import {readFile} from 'node:fs/promises';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Collector} from '../types/state.js';

export interface ReplayOptions {
	readonly file: string;
	/** Multiplier: 2 = twice as fast. ≤ 0 or Infinity = as fast as possible. */
	readonly speed?: number;
	readonly onLine: (line: string, t: number) => void;
	readonly onEnd?: () => void;
	/** Gap between lines of a log without timestamps (ms, before speed). */
	readonly fixedGapMs?: number;
	/** Longest pause kept from the original (ms, before speed). */
	readonly maxGapMs?: number;
}

export const FIXED_GAP_MS = 40;
export const MAX_GAP_MS = 5000;
/** Replays read at most this much of a file. */
export const MAX_REPLAY_BYTES = 64 * 1024 * 1024;

const LLAMA_TS = /^(?:\[\s*\d+\] )?(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) /;
const SLOG = /^(?:\w{3} +\d+ \d{2}:\d{2}:\d{2} \S+ \S+: )?time=(\S+) /;
const ISO_SPACE = /^\[?(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:[,.](\d{1,6}))?/;
const VLLM = /^(?:\([^)]*\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) /;
const GIN = /^\[GIN\] (\d{4})\/(\d{2})\/(\d{2}) - (\d{2}):(\d{2}):(\d{2})/;
const GOLOG = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2}) /;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const JOURNALD = /^(\w{3}) +(\d+) (\d{2}):(\d{2}):(\d{2}) /;

const utc = (y: number, mo: number, d: number, h: number, mi: number, s: number, frac?: string): number =>
	Date.UTC(y, mo - 1, d, h, mi, s) + (frac ? Number(`0.${frac}`) * 1000 : 0);

/** The time a line carries, in ms on its own scale (relative or wall clock), or undefined. */
export function lineTimestampMs(line: string): number | undefined {
	if (line.length === 0) return undefined;
	let m = LLAMA_TS.exec(line);
	if (m) return Number(m[1]) * 60_000 + Number(m[2]) * 1000 + Number(m[3]) + Number(m[4]) / 1000;
	m = SLOG.exec(line);
	if (m) {
		const t = Date.parse(m[1]!);
		return Number.isFinite(t) ? t : undefined;
	}
	m = ISO_SPACE.exec(line);
	if (m) return utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7]);
	m = VLLM.exec(line);
	if (m) return utc(2000, +m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
	m = GIN.exec(line) ?? GOLOG.exec(line);
	if (m) return utc(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
	m = JOURNALD.exec(line);
	if (m) {
		const mo = MONTHS.indexOf(m[1]!);
		if (mo >= 0) return utc(2000, mo + 1, +m[2]!, +m[3]!, +m[4]!, +m[5]!);
	}
	return undefined;
}

/**
 * Delay before each line (ms, already divided by speed). Timestamped logs: the gap to the previous
 * timestamp (negative gaps, e.g. a restart, count as 0; long gaps capped); untimestamped lines in
 * such a log: 0. A log without timestamps: a fixed gap.
 */
export function replayDelays(lines: readonly string[], speed = 1, fixedGapMs = FIXED_GAP_MS, maxGapMs = MAX_GAP_MS): number[] {
	const fast = !(speed > 0) || !Number.isFinite(speed);
	const stamps = lines.map(l => lineTimestampMs(l));
	const timed = stamps.some(s => s !== undefined);
	let prev: number | undefined;
	return stamps.map((s, i) => {
		if (fast || i === 0) {
			if (s !== undefined) prev = s;
			return 0;
		}
		let gap: number;
		if (!timed) gap = fixedGapMs;
		else if (s === undefined) gap = 0;
		else {
			gap = prev === undefined ? 0 : Math.min(maxGapMs, Math.max(0, s - prev));
			prev = s;
		}
		return gap / speed;
	});
}

/** `FILE:SPEED` → {file, speed}; a trailing `:number` is the speed (Windows `C:\…` kept intact). */
export function parseReplaySpec(spec: string): {file: string; speed: number} {
	const m = /^(.*):(\d+(?:\.\d+)?|\.\d+)$/.exec(spec);
	if (m && m[1]!.length > 1) return {file: m[1]!, speed: Number(m[2])};
	return {file: spec, speed: 1};
}

/** The shipped samples/ folder, found upward from this module (source/sources/ in dev, dist/ installed). */
export function samplesDir(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
	let dir = from;
	for (let i = 0; i < 6; i++) {
		const candidate = path.join(dir, 'samples');
		if (existsSync(path.join(candidate, 'README.md'))) return candidate;
		const up = path.dirname(dir);
		if (up === dir) break;
		dir = up;
	}
	return undefined;
}

/**
 * `--replay FILE[:SPEED]` as typed → a spec whose file exists: the path as given, else a shipped
 * sample by name (`vllm`, `vllm.log`, `samples/vllm.log`) from this installation's samples/.
 * A file that is nowhere is an error naming the samples there are.
 */
export function resolveReplayArg(arg: string, dir = samplesDir()): {spec: string} | {error: string} {
	const {file, speed} = parseReplaySpec(arg);
	const suffix = speed === 1 && !/:1(\.0*)?$/.test(arg) ? '' : `:${speed}`;
	const isFile = (p: string): boolean => {
		try {
			return statSync(p).isFile();
		} catch {
			return false;
		}
	};
	if (isFile(file)) return {spec: arg};
	if (dir) {
		const base = path.basename(file);
		for (const name of [base, `${base}.log`]) if (isFile(path.join(dir, name))) return {spec: `${path.join(dir, name)}${suffix}`};
	}
	const names = dir ? readdirSyncSafe(dir).filter((n) => n.endsWith('.log')).map((n) => n.slice(0, -4)) : [];
	return {error: `--replay: ${file}: no such file${names.length > 0 ? ` (shipped samples: ${names.join(', ')})` : ''}`};
}

function readdirSyncSafe(dir: string): string[] {
	try {
		return readdirSync(dir).sort();
	} catch {
		return [];
	}
}

export function createReplay(options: ReplayOptions): Collector {
	let stopped = true;
	let timer: NodeJS.Timeout | undefined;
	let ended = false;
	const end = () => {
		if (ended) return;
		ended = true;
		options.onEnd?.();
	};
	return {
		async start() {
			if (!stopped) return;
			stopped = false;
			let text: string;
			try {
				const buf = await readFile(options.file);
				text = buf.subarray(0, MAX_REPLAY_BYTES).toString('utf8');
			} catch (error) {
				options.onLine(`[replay] cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, Date.now());
				end();
				return;
			}
			const lines = text.split('\n').map(l => l.replace(/\r$/, ''));
			if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
			const delays = replayDelays(lines, options.speed ?? 1, options.fixedGapMs, options.maxGapMs);
			let i = 0;
			let due = Date.now();
			const step = () => {
				timer = undefined;
				if (stopped) return;
				// Emit every line that is due (many share one instant), then sleep until the next.
				const now = Date.now();
				let n = 0;
				while (i < lines.length && due + delays[i]! <= now + 1) {
					due += delays[i]!;
					options.onLine(lines[i]!, Date.now());
					i++;
					if (++n >= 5000) break; // yield now and then on huge instant bursts
				}
				if (i >= lines.length) {
					end();
					return;
				}
				timer = setTimeout(step, Math.max(0, due + delays[i]! - Date.now()));
			};
			step();
		},
		async stop() {
			stopped = true;
			if (timer) clearTimeout(timer);
			timer = undefined;
		},
	};
}
