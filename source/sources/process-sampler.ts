/**
 * The lean process sampler: the process table the contention tracker needs, at htop's cost.
 *
 * Linux reads /proc directly, the way htop does: the pid list, then one `/proc/PID/stat` per
 * process (comm, ppid, utime + stime, starttime, rss — one small read gives all of them). CPU % is
 * the difference of utime + stime between two samples over the wall time between them. Between
 * samples the sampler keeps three number maps (pid → CPU ticks, start time, last sample seen),
 * updated in place, no object per process. The command line (`/proc/PID/cmdline`) is read only for
 * the processes that turn out to matter — hot ones, engine candidates, the watched engines — and kept for as long as that
 * process (same pid, same start time) lives.
 *
 * macOS runs one `ps -axo pid=,ppid=,%cpu=,rss=,comm=` per sample (plus one `ps -o command=` for
 * the few candidates whose command line is not known yet). Other platforms return undefined: the
 * caller falls back to systeminformation.
 *
 * Only the processes that matter leave a sample as ProcSample rows: busy ones (≥ `busyPct`), engine
 * candidates by name, the watched pids and infertop, plus their ancestors and the descendants of
 * candidates (the tracker needs the trees to tell engines' children and infertop's own children
 * apart). An idle machine of 400 processes yields a table of a few rows.
 */
import {closeSync, openSync, readdirSync, readFileSync, readSync} from 'node:fs';
import {loadExeca} from './lazy-execa.js';
import {sanitizeName} from '../util/sanitize.js';
import type {ProcSample} from '../system/contention.js';
import {engineProcessKind, isEngineCandidate} from '../engines/index.js';

/** USER_HZ: fixed at 100 by the Linux ABI on every architecture Node runs on (times(2), proc(5)). */
const CLK_TCK = 100;

export interface ProcessSamplerOptions {
	readonly platform?: NodeJS.Platform;
	/** Root of the proc filesystem (tests point it at a fake tree). Default `/proc`. */
	readonly procRoot?: string;
	/** CPU % (100 = one core) from which a process is kept in the table. Default 1. */
	readonly busyPct?: number;
	/** For tests: wall clock in ms (performance.now by default). */
	readonly clock?: () => number;
	/** For tests (macOS path): run ps; returns its stdout. */
	readonly ps?: (args: readonly string[]) => Promise<string>;
}

export interface ProcessSample {
	/** The rows that matter (see the file comment); cpuPct is absent on the first sample (no baseline). */
	readonly processes: ProcSample[];
	/** Every process seen in this sample. */
	readonly total: number;
	/** Wall time this sample took, ms. */
	readonly scanMs: number;
}

export interface ProcessSampler {
	/** One sample; `keep` are pids that must be in the table (the watched engines, infertop itself). */
	sample(keep: ReadonlySet<number>): Promise<ProcessSample>;
	/** Number of processes the sampler remembers between samples (for the soak bench). */
	remembered(): number;
}

/** Whether this platform has a lean sampler (else the caller uses systeminformation). */
export function hasLeanSampler(platform: NodeJS.Platform = process.platform): boolean {
	return platform === 'linux' || platform === 'darwin';
}

interface Row {
	pid: number;
	ppid: number;
	comm: string;
	cpuPct?: number;
	rssBytes?: number;
	/** Start time, for telling a reused pid from the same process. */
	start: number;
}

function basename(p: string): string {
	return p.slice(p.lastIndexOf('/') + 1);
}

/** What one /proc/PID/stat line says (see parseProcStat). */
export interface ProcStat {
	pid: number;
	comm: string;
	ppid: number;
	ticks: number;
	start: number;
	rssPages: number;
}

/**
 * Parse one /proc/PID/stat line (proc(5)): `pid (comm) state ppid … utime stime … starttime vsize rss …`.
 * comm may hold spaces and parentheses, so it runs to the LAST `)`.
 */
export function parseProcStat(text: string): ProcStat | undefined {
	const b = Buffer.from(text, 'latin1');
	return parseProcStatBytes(b, b.length);
}

/**
 * The same, read in place from the bytes of the file (the sampler reads every process's stat into
 * one reused buffer): no string for the whole line and no array of its fifty fields per process,
 * only comm and the five numbers it keeps.
 */
export function parseProcStatBytes(buf: Buffer, length: number): ProcStat | undefined {
	const open = buf.indexOf(40 /* ( */);
	if (open < 0 || open >= length) return undefined;
	let close = -1;
	for (let i = length - 1; i > open; i--) {
		if (buf[i] === 41 /* ) */) {
			close = i;
			break;
		}
	}
	if (close < 0) return undefined;
	const pid = Number(buf.toString('latin1', 0, open).trim());
	// after comm: state(0) ppid(1) … utime(11) stime(12) … starttime(19) vsize(20) rss(21)
	let ppid = NaN;
	let utime = NaN;
	let stime = NaN;
	let start = NaN;
	let rssPages = NaN;
	let field = 0;
	let from = close + 2;
	for (let i = from; i <= length && field <= 21; i++) {
		if (i < length && buf[i] !== 32 /* space */ && buf[i] !== 10 /* newline */) continue;
		if (field === 1 || field === 11 || field === 12 || field === 19 || field === 21) {
			const v = Number(buf.toString('latin1', from, i));
			if (field === 1) ppid = v;
			else if (field === 11) utime = v;
			else if (field === 12) stime = v;
			else if (field === 19) start = v;
			else rssPages = v;
		}
		field++;
		from = i + 1;
		if (i < length && buf[i] === 10) break;
	}
	const ticks = utime + stime;
	if (!Number.isInteger(pid) || pid <= 0 || !Number.isFinite(ticks) || ticks < 0 || !Number.isFinite(start)) return undefined;
	return {pid, comm: buf.toString('latin1', open + 1, close), ppid: Number.isInteger(ppid) ? ppid : 0, ticks, start, rssPages: Number.isFinite(rssPages) && rssPages >= 0 ? rssPages : 0};
}

/** `ps -axo pid=,ppid=,%cpu=,rss=,comm=` lines (macOS): comm is the executable path and may hold spaces. */
export function parsePsLines(text: string): {pid: number; ppid: number; cpuPct?: number; rssKiB?: number; comm: string}[] {
	const out: {pid: number; ppid: number; cpuPct?: number; rssKiB?: number; comm: string}[] = [];
	for (const line of text.split('\n')) {
		const m = /^\s*(\d+)\s+(\d+)\s+([\d.,]+)\s+(\d+)\s+(.*)$/.exec(line);
		if (!m) continue;
		const pid = Number(m[1]);
		if (!Number.isInteger(pid) || pid <= 0) continue;
		const cpu = Number(m[3]!.replace(',', '.'));
		const rss = Number(m[4]);
		out.push({pid, ppid: Number(m[2]), ...(Number.isFinite(cpu) && cpu >= 0 ? {cpuPct: cpu} : {}), ...(Number.isFinite(rss) && rss > 0 ? {rssKiB: rss} : {}), comm: m[5]!.trim()});
	}
	return out;
}

/** A process that may be an inference engine once its command line is read (Python servers, app helpers): every engine's `process.candidates`. */
const isCandidate = (name: string): boolean => isEngineCandidate(name) || engineProcessKind(name, '') !== undefined;

/**
 * Pick the rows that matter and turn them into ProcSample rows (shared by both platforms).
 * `command(row)` gives the command line of a kept row (cached by the caller).
 */
function select(rows: readonly Row[], keep: ReadonlySet<number>, busyPct: number, first: boolean, command: (row: Row) => string | undefined): ProcSample[] {
	const byPid = new Map<number, Row>();
	const children = new Map<number, number[]>();
	for (const r of rows) {
		byPid.set(r.pid, r);
		const list = children.get(r.ppid);
		if (list) list.push(r.pid);
		else children.set(r.ppid, [r.pid]);
	}
	const chosen = new Set<number>();
	const roots: number[] = [];
	for (const r of rows) {
		if (keep.has(r.pid) || isCandidate(basename(r.comm))) roots.push(r.pid);
		// without a baseline (the first sample) nothing is known to be idle: every row is kept once
		else if (r.cpuPct === undefined ? first : r.cpuPct >= busyPct) chosen.add(r.pid);
	}
	// the descendants of candidates and kept pids (engines' runners and workers, infertop's children)
	const stack = [...roots];
	while (stack.length > 0) {
		const pid = stack.pop()!;
		if (chosen.has(pid)) continue;
		chosen.add(pid);
		for (const c of children.get(pid) ?? []) stack.push(c);
	}
	// and the ancestors of everything chosen (so a busy grandchild of an engine is seen as the engine's)
	for (const pid of [...chosen]) {
		let p = byPid.get(pid)?.ppid;
		while (p !== undefined && p > 0 && !chosen.has(p) && byPid.has(p)) {
			chosen.add(p);
			p = byPid.get(p)!.ppid;
		}
	}
	const out: ProcSample[] = [];
	for (const pid of chosen) {
		const r = byPid.get(pid);
		if (!r) continue;
		const cmd = command(r);
		// comm is cut at 15 characters: the executable's own name is the better label.
		const exe = cmd ? basename(cmd.split(' ')[0] ?? '') : '';
		const name = r.comm.length >= 15 && exe.startsWith(r.comm) ? exe : r.comm.includes('/') ? basename(r.comm) : r.comm;
		out.push({
			pid,
			...(r.ppid > 0 ? {ppid: r.ppid} : {}),
			name: sanitizeName(name, 64) || '?',
			...(cmd ? {command: cmd} : {}),
			...(r.cpuPct !== undefined ? {cpuPct: r.cpuPct} : {}),
			...(r.rssBytes !== undefined && r.rssBytes > 0 ? {memRssBytes: r.rssBytes} : {}),
		});
	}
	out.sort((a, b) => a.pid - b.pid);
	return out;
}

function createLinuxSampler(opts: ProcessSamplerOptions): ProcessSampler {
	const root = opts.procRoot ?? '/proc';
	const busyPct = opts.busyPct ?? 1;
	const clock = opts.clock ?? (() => performance.now());
	// pid → CPU ticks, start time and the sample that last saw it: updated in place, never rebuilt.
	// Two new maps of every pid each sample lived until the next one, so each outlived V8's young
	// generation and died in the old one (~20 KB a map for 500 processes, every second under traffic).
	const prevTicks = new Map<number, number>();
	const prevStart = new Map<number, number>();
	const seenAt = new Map<number, number>();
	let sampleNo = 0;
	let prevWall: number | undefined;
	const forget = (n: number, pid: number) => {
		if (n === sampleNo) return;
		prevTicks.delete(pid);
		prevStart.delete(pid);
		seenAt.delete(pid);
	};
	// command lines of the processes that mattered, by pid, valid while the start time matches
	const commands = new Map<number, {start: number; command: string; argv?: readonly string[]}>();
	let pageSize: number | undefined;
	// one buffer for every stat read (a stat line is well under 1 KB; the kernel caps it at a page)
	const statBuffer = Buffer.allocUnsafe(4096);
	/** Read one stat file into statBuffer (open, one read, close: no fstat, no new buffer); its length, or undefined when gone. */
	function readStat(file: string): number | undefined {
		let fd: number | undefined;
		try {
			fd = openSync(file, 'r');
			return readSync(fd, statBuffer, 0, statBuffer.length, 0);
		} catch {
			return undefined;
		} finally {
			if (fd !== undefined) {
				try {
					closeSync(fd);
				} catch {}
			}
		}
	}

	function readPageSize(): number {
		// rss in /proc is in pages; the page size is 4 KiB on x86 but 16 or 64 KiB on some arm64 kernels.
		// Calibrated once against Node's own RSS, read in the same instant.
		try {
			const own = parseProcStat(readFileSync(`${root}/self/stat`, 'latin1'));
			const rss = process.memoryUsage.rss();
			if (own && own.rssPages > 0 && root === '/proc') {
				const guess = rss / own.rssPages;
				return [4096, 16384, 65536].reduce((best, p) => (Math.abs(p - guess) < Math.abs(best - guess) ? p : best), 4096);
			}
		} catch {}
		return 4096;
	}

	return {
		async sample(keep) {
			const t0 = clock();
			pageSize ??= readPageSize();
			let names: string[];
			try {
				names = readdirSync(root);
			} catch (error) {
				throw Object.assign(new Error(`cannot read ${root}`), {code: (error as {code?: string}).code});
			}
			const wall = clock();
			const dt = prevWall === undefined ? undefined : (wall - prevWall) / 1000;
			sampleNo++;
			const rows: Row[] = [];
			for (const n of names) {
				const c = n.charCodeAt(0);
				if (c < 48 || c > 57) continue;
				const length = readStat(`${root}/${n}/stat`);
				if (length === undefined) continue; // gone between the listing and the read
				const s = parseProcStatBytes(statBuffer, length);
				if (!s) continue;
				let cpuPct: number | undefined;
				const before = prevTicks.get(s.pid);
				if (dt !== undefined && dt > 0 && before !== undefined && prevStart.get(s.pid) === s.start && s.ticks >= before) {
					cpuPct = ((s.ticks - before) / CLK_TCK / dt) * 100;
				}
				prevTicks.set(s.pid, s.ticks);
				prevStart.set(s.pid, s.start);
				seenAt.set(s.pid, sampleNo);
				rows.push({pid: s.pid, ppid: s.ppid, comm: s.comm, start: s.start, ...(cpuPct !== undefined ? {cpuPct} : {}), rssBytes: s.rssPages * pageSize});
			}
			// the processes that are gone (forEach: no entry arrays; deleting while iterating is allowed)
			seenAt.forEach(forget);
			prevWall = wall;
			const processes = select(rows, keep, busyPct, dt === undefined && Number.isFinite(busyPct), (r) => {
				const known = commands.get(r.pid);
				if (known && known.start === r.start) return known.command || undefined;
				let command = '';
				let argv: string[] | undefined;
				try {
					const parts = readFileSync(`${root}/${r.pid}/cmdline`, 'utf8').replace(/\0+$/, '').split('\0');
					command = parts.join(' ');
					// Kept only where joining loses where an argument ends (a path with a space or a newline).
					if (parts.some((a) => /\s/.test(a))) argv = parts;
				} catch {}
				commands.set(r.pid, argv === undefined ? {start: r.start, command} : {start: r.start, command, argv});
				return command || undefined;
			});
			for (const p of processes) {
				const argv = commands.get(p.pid)?.argv;
				if (argv !== undefined) Object.assign(p, {argv});
			}
			// forget command lines of processes that are gone or no longer matter
			const kept = new Set(processes.map((p) => p.pid));
			for (const pid of commands.keys()) if (!kept.has(pid)) commands.delete(pid);
			return {processes, total: rows.length, scanMs: clock() - t0};
		},
		remembered: () => prevTicks.size,
	};
}

function createDarwinSampler(opts: ProcessSamplerOptions): ProcessSampler {
	const busyPct = opts.busyPct ?? 1;
	const clock = opts.clock ?? (() => performance.now());
	const ps = opts.ps ?? (async (args: readonly string[]) => String((await (await loadExeca())('ps', [...args], {timeout: 5000, stdin: 'ignore', maxBuffer: 16 * 1024 * 1024})).stdout));
	const commands = new Map<number, {comm: string; command: string}>();
	return {
		async sample(keep) {
			const t0 = clock();
			const listed = parsePsLines(await ps(['-axo', 'pid=,ppid=,%cpu=,rss=,comm=']));
			// ps's %cpu is a decaying average of one core, available from the first sample on.
			const rows: Row[] = listed.map((p) => ({pid: p.pid, ppid: p.ppid, comm: p.comm, start: 0, ...(p.cpuPct !== undefined ? {cpuPct: p.cpuPct} : {}), ...(p.rssKiB !== undefined ? {rssBytes: p.rssKiB * 1024} : {})}));
			const wanted = new Set<number>();
			const processes = select(rows, keep, busyPct, false, (r) => {
				const known = commands.get(r.pid);
				if (known && known.comm === r.comm) return known.command || undefined;
				wanted.add(r.pid);
				return undefined;
			});
			if (wanted.size > 0) {
				// one more ps for the command lines not known yet (a few pids, once per process)
				try {
					const text = await ps(['-o', 'pid=,command=', '-p', [...wanted].join(',')]);
					for (const line of text.split('\n')) {
						const m = /^\s*(\d+)\s+(.*)$/.exec(line);
						if (!m) continue;
						const pid = Number(m[1]);
						const row = rows.find((r) => r.pid === pid);
						if (row) commands.set(pid, {comm: row.comm, command: m[2]!.trim()});
					}
				} catch {}
				for (const pid of wanted) if (!commands.has(pid)) commands.set(pid, {comm: rows.find((r) => r.pid === pid)?.comm ?? '', command: ''});
				for (const p of processes) {
					const c = commands.get(p.pid)?.command;
					if (c && p.command === undefined) Object.assign(p, {command: c});
				}
			}
			const kept = new Set(processes.map((p) => p.pid));
			for (const pid of commands.keys()) if (!kept.has(pid)) commands.delete(pid);
			return {processes, total: rows.length, scanMs: clock() - t0};
		},
		remembered: () => commands.size,
	};
}

/** The lean sampler for this platform, or undefined where there is none (Windows: systeminformation). */
export function createProcessSampler(opts: ProcessSamplerOptions = {}): ProcessSampler | undefined {
	const platform = opts.platform ?? process.platform;
	if (platform === 'linux') return createLinuxSampler(opts);
	if (platform === 'darwin') return createDarwinSampler(opts);
	return undefined;
}
