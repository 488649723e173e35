/**
 * What `npm run bench -- traffic` and `npm run bench -- servers` share: infertop (bundled, in tmux
 * at 120×40, `--log FILE` per server, `--no-scan`) beside `tail -F` on the same files and the
 * writers (bench/traffic-writer.mjs, one write a line as the engines write: real llama.cpp b10587 request blocks, or vLLM
 * `--enable-log-requests` lines) in one run, at each rate.
 *
 * Per subject: CPU (% of one core, /proc/PID/stat utime + stime over the window), CPU per 1,000
 * lines written, RSS at the end (and its peak, sampled each second). For infertop also: the lag
 * behind the writers when they stop (lines written but not yet read, from the lines infertop
 * counted at its exit, INFERTOP_RENDER_STATS; in lines and in seconds of traffic) and the lines it
 * skipped on purpose (too far behind). Linux only (it reads /proc); the machine's load is printed:
 * on a shared machine compare the ratios within one run, not the absolute figures.
 *
 * Options (after `--`): --seconds=N (window, default 20; 3 is a smoke test), --warmup=N (seconds of
 * traffic before the window opens, default 30: under a busy log V8 optimizes infertop's hot functions
 * during the first half-minute or so, and its compiles in that time are not what a log busy for hours
 * costs; `--warmup=1.5` measures the first seconds, as the rounds before the fourth did), --rates=100,1000,5000
 * (requests a second per server), --formats=llama.cpp,vllm. INFERTOP_BENCH_BASELINE=DIR adds
 * another checkout (built there first), on the same files in the same run: before/after a change.
 * --floor adds the least Ink app that tails the same logs (bench/floor/tail.tsx, through the same
 * bin): what node, React and Ink cost for this traffic at the least, beside infertop's figures.
 * `alone` (the servers bench) adds an infertop that tails the first log only, in the same window.
 * `sameLines` (the servers bench's --same-lines) adds one more log, written at the rate of all the
 * others together, and an infertop that tails it alone: the same lines from one server.
 * --windows=N (default 1) cuts the measured time into N windows of --seconds each, back to back: each
 * one's CPU is printed, and the servers bench's ratios for each (this VM's runs differ by 10–20 %:
 * the spread of N windows in one run says how far one figure is to be trusted).
 */
import {execFileSync, spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {BENCH_ENV, bundleInto, cpuSeconds, layOut, mainThreadCpuSeconds, rssBytes, tmuxStart} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wait = (ms: number) => new Promise<void>(r => setTimeout(r, ms));

export interface TrafficOptions {
	readonly servers: number;
	readonly seconds: number;
	/** Seconds of traffic before the window opens. */
	readonly warmup: number;
	readonly rates: readonly number[];
	readonly formats: readonly ('llama.cpp' | 'vllm')[];
	readonly baseline?: string;
	/** Also run bench/floor/tail.tsx on the same logs (`--floor`). */
	readonly floor?: boolean;
	/**
	 * Also an infertop that tails the first log alone, in the same window (`servers`: the ratio of
	 * many servers to one measured under the same load at the same time, not in a run minutes apart).
	 */
	readonly alone?: boolean;
	/**
	 * Also one more log written at `servers` × the rate, and an infertop that tails it alone, in the
	 * same window (`servers --same-lines`): what the servers cost beyond the lines they carry.
	 */
	readonly sameLines?: boolean;
	/** Windows of `seconds` each, back to back (`--windows=N`, default 1). */
	readonly windows?: number;
	/** Told infertop's CPU for each format and rate run (the servers bench's ratios). */
	readonly record?: (run: RunCpu) => void;
}

/**
 * One run's CPU, % of one core over all its windows: the infertop on the box's logs (`many`), the
 * lone one, the one on the same lines; the same for each window; and the first two's main threads.
 */
export interface RunCpu {
	readonly format: 'llama.cpp' | 'vllm';
	readonly rate: number;
	readonly many?: number;
	readonly alone?: number;
	readonly same?: number;
	readonly windows: readonly WindowCpu[];
	readonly main: MainThreadCpu;
}

/** One window's CPU (% of one core): the infertop on the box's logs, the lone one, the one on the same lines. */
export interface WindowCpu {
	readonly many?: number;
	readonly alone?: number;
	readonly same?: number;
}

/** `--seconds=5 --rates=100,1000 --formats=vllm` (and the bench's defaults). */
export function trafficOptions(args: readonly string[], servers: number): TrafficOptions {
	const opt = (name: string) => args.find(a => a.startsWith(`--${name}=`))?.slice(name.length + 3);
	const seconds = Number(opt('seconds') ?? process.env.INFERTOP_BENCH_SECONDS ?? 20);
	const warmup = Number(opt('warmup') ?? process.env.INFERTOP_BENCH_WARMUP ?? 30);
	const rates = (opt('rates') ?? (servers > 1 ? '100' : '100,1000,5000')).split(',').map(Number);
	const formats = (opt('formats') ?? 'llama.cpp,vllm').split(',') as ('llama.cpp' | 'vllm')[];
	const windows = Number(opt('windows') ?? 1);
	if (!Number.isFinite(seconds) || seconds <= 0 || !Number.isFinite(warmup) || warmup < 0 || rates.some(r => !Number.isFinite(r) || r <= 0) || formats.some(f => f !== 'llama.cpp' && f !== 'vllm') || !Number.isInteger(windows) || windows < 1 || windows > 30) {
		throw new Error('options: --seconds=N --warmup=N --windows=1..30 --rates=N,N --formats=llama.cpp,vllm --floor --same-lines');
	}
	return {servers, seconds, warmup, rates, formats, windows, baseline: process.env.INFERTOP_BENCH_BASELINE, floor: args.includes('--floor'), sameLines: args.includes('--same-lines')};
}

function has(bin: string): boolean {
	return spawnSync('sh', ['-c', `command -v ${bin}`], {encoding: 'utf8'}).status === 0;
}

/** The main threads' CPU over the whole span, % of one core: the box's infertop and the lone one's (the servers bench's ratio of the two). */
export interface MainThreadCpu {
	readonly many?: number;
	readonly alone?: number;
}

/**
 * `  infertop: main thread 3.9 %, other threads 1.2 % of a core`: the JavaScript (the main thread)
 * and V8's helper threads (its optimizing compiler, the collector's tasks) with libuv's; `--` where
 * either is unknown (never 0; the other threads never below 0).
 */
export function threadsLine(label: string, allPct: number | undefined, mainPct: number | undefined): string {
	const known = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);
	const other = known(allPct) && known(mainPct) ? Math.max(0, allPct - mainPct) : undefined;
	const f = (v: number | undefined) => (known(v) ? v.toFixed(1) : '--');
	return `  ${label}: main thread ${f(mainPct)} %, other threads ${f(other)} % of a core`;
}

/**
 * infertop's CPU against `tail -F`'s in the same run (`0.2×`, `1.4×`, `12×`): one decimal under 10×,
 * so a known ratio under 0.5 never reads as `0×`; `--` where either is unknown or tail used under a
 * clock tick.
 */
export function tailRatio(cpu: number | undefined, tailCpu: number | undefined): string {
	if (cpu === undefined || tailCpu === undefined || !Number.isFinite(cpu) || !Number.isFinite(tailCpu) || !(tailCpu > 0)) return '-- (tail -F used under a clock tick)';
	const r = cpu / tailCpu;
	return `${r.toFixed(r < 10 ? 1 : 0)}×`;
}

interface Subject {
	readonly label: string;
	pids: () => number[];
	peakRss?: number;
	endRss?: number;
	/** infertop: its stats file at exit, and its tmux session. */
	stats?: string;
	session?: string;
	read?: {lines: number; skipped: number};
	/** What its agent sessions' derivations did over the whole run (model/sessions.ts sessionsWork, from its stats file). */
	sessions?: {derives: number; timelines: number};
	/** The writers' status files of the logs it reads, where not all the box's (the lone infertop's, the same-lines one's): its lines and lag are theirs. */
	reads?: readonly string[];
}

interface WriterStatus {
	requests: number;
	lines: number;
	bytes: number;
}

const readJson = <T>(file: string): T | undefined => {
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as T;
	} catch {
		return undefined;
	}
};

const sumCpu = (pids: number[]): number | undefined => {
	let total = 0;
	for (const p of pids) {
		const c = cpuSeconds(p);
		if (c === undefined) return undefined;
		total += c;
	}
	return total;
};

/**
 * bench/floor/tail.tsx laid out as npm installs a package, in a folder of its own, to be started
 * through the same bin as infertop; the caller removes it.
 */
function stageFloor(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-floor-'));
	const b = bundleInto(root, 'bench/floor/tail.tsx', dir);
	if (b.status !== 0) throw new Error(`build of bench/floor/tail.tsx failed:\n${b.stderr}`);
	layOut(root, dir);
	return dir;
}

async function once(o: TrafficOptions, format: 'llama.cpp' | 'vllm', rate: number, floorDir?: string): Promise<string[]> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-traffic-'));
	const files = Array.from({length: o.servers}, (_, i) => path.join(dir, `server-${i}.log`));
	for (const f of files) writeFileSync(f, '');
	const env = BENCH_ENV;
	const allLogs = files.map(f => `--log ${f}`).join(' ');
	const children: ChildProcess[] = [];
	const windows = o.windows ?? 1;
	const sessions: string[] = [];
	const subjects: Subject[] = [];
	const infertop = (label: string, checkout: string, name: string, logs = allLogs): Subject => {
		const session = `it-${name}-${process.pid}`;
		const stats = path.join(dir, `${name}.stats.json`);
		const bin = path.join(checkout, 'bin', 'infertop.js');
		const pid = tmuxStart(session, `${env} INFERTOP_RENDER_STATS=${stats} exec ${process.execPath} ${bin} ${logs} --no-scan`);
		sessions.push(session);
		return {label, pids: () => [pid], stats, session};
	};
	try {
		subjects.push(infertop('infertop', root, 'new'));
		if (o.baseline) subjects.push(infertop('baseline', o.baseline, 'base'));
		if (floorDir) subjects.push(infertop('least Ink app', floorDir, 'floor'));
		const statusFiles = files.map((_, i) => path.join(dir, `writer-${i}.json`));
		const alone: Subject | undefined = o.alone && o.servers > 1 ? {...infertop('infertop, one log', root, 'alone', `--log ${files[0]!}`), reads: statusFiles.slice(0, 1)} : undefined;
		if (alone) subjects.push(alone);
		// the same lines from one server: its own log, written at the box's rate in all
		const sameFile = path.join(dir, 'same-lines.log');
		const sameStatus = path.join(dir, 'writer-same.json');
		let same: Subject | undefined;
		if (o.sameLines && o.servers > 1) {
			writeFileSync(sameFile, '');
			same = {...infertop(`infertop, one × ${o.servers}`, root, 'same', `--log ${sameFile}`), reads: [sameStatus]};
			subjects.push(same);
		}
		const tail = spawn('tail', ['-q', '-F', ...files], {stdio: ['ignore', 'ignore', 'ignore']});
		children.push(tail);
		subjects.push({label: 'tail -F', pids: () => (tail.pid === undefined ? [] : [tail.pid])});
		await wait(3000); // infertop's start-up is not the steady state
		const writer = (f: string, r: number, status: string) => {
			const w = spawn(process.execPath, [path.join(root, 'bench', 'traffic-writer.mjs'), f, format, String(r), String(o.warmup + o.seconds * windows + 60), status], {stdio: 'ignore'});
			children.push(w);
			return w;
		};
		const boxWriters = files.map((f, i) => writer(f, rate, statusFiles[i]!));
		const sameWriter = same ? writer(sameFile, rate * o.servers, sameStatus) : undefined;
		const writers = sameWriter ? [...boxWriters, sameWriter] : boxWriters;
		subjects.push({label: o.servers > 1 ? `writers (${o.servers})` : 'writer', pids: () => boxWriters.flatMap(w => (w.pid === undefined ? [] : [w.pid]))});
		if (sameWriter) subjects.push({label: `writer, ${o.servers}× rate`, pids: () => (sameWriter.pid === undefined ? [] : [sameWriter.pid])});
		await wait(o.warmup * 1000);
		const written = (only: readonly string[] = statusFiles) => only.map(f => readJson<WriterStatus>(f) ?? {requests: 0, lines: 0, bytes: 0}).reduce((a, b) => ({requests: a.requests + b.requests, lines: a.lines + b.lines, bytes: a.bytes + b.bytes}));
		const w0 = written();
		// what each subject that reads other logs than the box's had written to them
		const own0 = new Map(subjects.flatMap(s => (s.reads ? [[s, written(s.reads)] as const] : [])));
		// each subject's CPU seconds at the ends of the windows: the whole span is the first to the last
		const cpuNow = () => subjects.map(s => sumCpu(s.pids()));
		// and each infertop's main thread (its JavaScript; the rest is V8's helper threads and libuv's)
		const mainNow = () => subjects.map(s => (s.stats ? mainThreadCpuSeconds(s.pids()[0]) : undefined));
		const t0 = performance.now();
		const marks: {t: number; cpu: (number | undefined)[]; main: (number | undefined)[]}[] = [{t: t0, cpu: cpuNow(), main: mainNow()}];
		const sampler = setInterval(() => {
			for (const s of subjects) {
				const r = s.pids().reduce((a, p) => a + (rssBytes(p) ?? 0), 0);
				s.peakRss = Math.max(s.peakRss ?? 0, r);
			}
		}, 1000);
		for (let k = 0; k < windows; k++) {
			await wait(o.seconds * 1000);
			marks.push({t: performance.now(), cpu: cpuNow(), main: mainNow()});
		}
		clearInterval(sampler);
		for (const s of subjects) {
			s.endRss = s.pids().reduce((a, p) => a + (rssBytes(p) ?? 0), 0);
			s.peakRss = Math.max(s.peakRss ?? 0, s.endRss);
		}
		const dt = (marks[windows]!.t - t0) / 1000;
		/** CPU seconds of `s` (`of`: all its threads, or its main thread) from the end of window `from` to the end of window `to` (0: the start). */
		const cpuBetween = (s: Subject | undefined, from = 0, to = windows, of: 'cpu' | 'main' = 'cpu'): number | undefined => {
			const i = s ? subjects.indexOf(s) : -1;
			const a = i < 0 ? undefined : marks[from]![of][i];
			const b = i < 0 ? undefined : marks[to]![of][i];
			return a === undefined || b === undefined ? undefined : b - a;
		};
		/** That as % of one core over those windows. */
		const pctBetween = (s: Subject | undefined, from = 0, to = windows, of: 'cpu' | 'main' = 'cpu'): number | undefined => {
			const c = cpuBetween(s, from, to, of);
			const secs = (marks[to]!.t - marks[from]!.t) / 1000;
			return c === undefined || !(secs > 0) ? undefined : (c / secs) * 100;
		};
		const windowPct = (k: number, s: Subject | undefined) => pctBetween(s, k, k + 1);
		// The writers stop (each writes its last count), then infertop quits at once: what it had
		// read by then, against what was written, is its lag behind the tail.
		for (const w of writers) w.kill('SIGTERM');
		await Promise.all(writers.map(w => new Promise(r => (w.exitCode !== null ? r(undefined) : w.once('exit', r)))));
		const w1 = written();
		const own1 = new Map(subjects.flatMap(s => (s.reads ? [[s, written(s.reads)] as const] : [])));
		for (const s of subjects) if (s.session) execFileSync('tmux', ['send-keys', '-t', s.session, 'q']);
		for (let i = 0; i < 100 && subjects.some(s => s.stats && !existsSync(s.stats)); i++) await wait(100);
		for (const s of subjects) {
			const j = s.stats ? readJson<{logs?: Record<string, {lines: number; linesSkipped: number}>; sessions?: {derives?: number; timelines?: number}}>(s.stats) : undefined;
			if (typeof j?.sessions?.derives === 'number' && typeof j.sessions.timelines === 'number') s.sessions = {derives: j.sessions.derives, timelines: j.sessions.timelines};
			if (j?.logs) {
				const all = Object.values(j.logs);
				s.read = {lines: all.reduce((a, l) => a + l.lines, 0), skipped: all.reduce((a, l) => a + l.linesSkipped, 0)};
			}
		}
		const lines = w1.lines - w0.lines;
		const linesPerS = lines / dt;
		const load = os.loadavg().map(l => l.toFixed(1)).join(' ');
		const f1 = (v: number | undefined, d = 1) => (v === undefined || !Number.isFinite(v) ? '--' : v.toFixed(d));
		const mb = (v: number | undefined) => (v === undefined ? '--' : `${(v / 1e6).toFixed(0)} MB`);
		const out = [
			`traffic: ${format}, ${o.servers} server${o.servers > 1 ? 's' : ''} × ${rate.toLocaleString('en-US')} req/s (${f1(linesPerS, 0)} lines/s written in all), ${dt.toFixed(0)} s ${windows > 1 ? `in ${windows} windows` : 'window'} after ${o.warmup} s of traffic, ${os.cpus().length} cores, load ${load}, node ${process.version}`,
			`  ${'subject'.padEnd(18)}${'CPU %'.padStart(8)}${'ms CPU / 1k lines'.padStart(19)}${'RSS end (peak)'.padStart(18)}${'lag at stop'.padStart(22)}${'skipped'.padStart(10)}`,
		];
		const tailCpu = subjects.find(s => s.label === 'tail -F');
		for (const s of subjects) {
			const cpu = cpuBetween(s);
			// the lone infertop's lines and lag are the first log's, the same-lines one's its own log's
			const a = own0.get(s);
			const b = own1.get(s);
			const its = a && b ? {total: b.lines, lines: b.lines - a.lines} : {total: w1.lines, lines};
			const perS = its.lines / dt;
			const lag = s.read ? its.total - s.read.lines - s.read.skipped : undefined;
			const lagText = lag === undefined ? '--' : `${Math.max(0, lag).toLocaleString('en-US')} lines (${f1(perS > 0 ? Math.max(0, lag) / perS : undefined, 2)} s)`;
			out.push(
				`  ${s.label.padEnd(18)}${f1(cpu === undefined ? undefined : (cpu / dt) * 100).padStart(8)}${f1(cpu === undefined || its.lines === 0 ? undefined : (cpu * 1000) / (its.lines / 1000), 2).padStart(19)}${`${mb(s.endRss)} (${mb(s.peakRss)})`.padStart(18)}${(s.stats ? lagText : '').padStart(22)}${(s.read ? s.read.skipped.toLocaleString('en-US') : s.stats ? '--' : '').padStart(10)}`,
			);
		}
		const perWindow: WindowCpu[] = Array.from({length: windows}, (_, k) => ({many: windowPct(k, subjects[0]), alone: windowPct(k, alone), same: windowPct(k, same)}));
		for (const s of subjects) if (s.stats) out.push(threadsLine(s.label, pctBetween(s), pctBetween(s, 0, windows, 'main')));
		for (const s of subjects) if (s.sessions) out.push(`  ${s.label}: agent sessions derived ${s.sessions.derives.toLocaleString('en-US')} time${s.sessions.derives === 1 ? '' : 's'} over the run, ${s.sessions.timelines.toLocaleString('en-US')} request timelines`);
		if (windows > 1) {
			for (let k = 0; k < windows; k++) {
				const parts = subjects.filter(s => s.stats).map(s => `${s.label} ${f1(windowPct(k, s))}`);
				out.push(`  window ${k + 1}/${windows} (% of a core): ${parts.join(' · ')}`);
			}
		}
		o.record?.({format, rate, many: pctBetween(subjects[0]), alone: pctBetween(alone), same: pctBetween(same), windows: perWindow, main: {many: pctBetween(subjects[0], 0, windows, 'main'), alone: pctBetween(alone, 0, windows, 'main')}});
		const tc = tailCpu ? cpuBetween(tailCpu) : undefined;
		// tail -F reads the box's logs: an infertop that reads others (one of them, the same-lines log) is not set beside it
		for (const s of subjects.filter(x => x.stats && !x.reads)) {
			const c = cpuBetween(s);
			out.push(`  ${s.label} / tail -F CPU: ${tailRatio(c, tc)}`);
		}
		return out;
	} finally {
		for (const s of sessions) spawnSync('tmux', ['kill-session', '-t', s]);
		for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
		rmSync(dir, {recursive: true, force: true});
	}
}

export async function runTraffic(o: TrafficOptions): Promise<string> {
	if (process.platform !== 'linux') return 'traffic: Linux only (it reads /proc): skipped';
	if (!has('tmux') || !has('tail')) return 'traffic: needs tmux and tail: skipped';
	for (const dir of [root, ...(o.baseline ? [o.baseline] : [])]) {
		const b = spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: dir, encoding: 'utf8'});
		if (b.status !== 0) throw new Error(`build failed in ${dir}:\n${b.stderr}`);
	}
	const out: string[] = [];
	const floorDir = o.floor ? stageFloor() : undefined;
	try {
		for (const format of o.formats) for (const rate of o.rates) out.push(...(await once(o, format, rate, floorDir)));
	} finally {
		if (floorDir) rmSync(floorDir, {recursive: true, force: true});
	}
	out.push(
		'  goals (issue 32): ≥ 200,000 lines/s per core end to end (≤ 5 ms CPU per 1,000 lines; 10,000 lines/s ≤ 5 % of a core); RSS ≤ 80 MB;',
		`  ${o.servers > 1 ? `${o.servers} servers at 100 req/s each ≤ 2× one server at 100 req/s` : 'lag bounded (SKIP_BEHIND_BYTES), skipped lines counted'}`,
	);
	return out.join('\n');
}
