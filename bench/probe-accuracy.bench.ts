/**
 * Probe accuracy against what a server ACTUALLY did (issue 17). The scripted server
 * (bench/probe-truth-server.mjs) runs in its own process and reports, on its own clock, when the
 * last byte of each request arrived and when each token's bytes were handed to the kernel (stamped
 * just after a synchronous write, with the stamp just before it as the bracket). The probe is
 * compared with that, not with the schedule the server was asked to keep:
 *
 *   TTFT error   = probe ttftMs − (server's first token written − server's request in)
 *   decode error = probe decodeTps ÷ server's actual rate − 1, the actual rate being
 *                  (n − 1) ÷ (last token written − first token written) on the server's clock
 *
 * Each is a difference of durations, each duration on one process's monotonic clock (the probe's
 * is its reader thread's). The attribution of each run puts both sides on CLOCK_MONOTONIC
 * (process.hrtime, which every process and thread on the machine shares): the request's way in
 * (probe sent → server read it), the first token's way out (server wrote it → probe stamped the
 * read), which read carried it, its size and how many tokens it held, GC pauses and the event-loop
 * delay on the probe's reader thread (transport.ts probeDiagnostics), GC on the main thread, and the
 * server's own slip from its schedule and write bracket.
 *
 * Cases: 150 ms to the first token, then 50, 200 and 1000 tok/s, OpenAI SSE and Ollama NDJSON,
 * 20 runs each (INFERTOP_BENCH_REPS), in these modes:
 *   plain     runProbe in this process (the worker transport)
 *   with UI   the monitor's probe controller while the real Dashboard re-renders at 4 Hz in this
 *             process (a dashboard-sized stand-in tree if the UI cannot be loaded)
 *   CLI       a fresh `infertop probe --json` process per run (cold start, as a user runs it),
 *             200 tok/s (INFERTOP_BENCH_CLI=0 skips it)
 *   pinned    plain, 200 tok/s, with this process too at real-time priority (`chrt -a -f -p 20`,
 *             where allowed; INFERTOP_BENCH_PINNED=0 skips it): a separate, labelled row that tells
 *             a loaded machine's scheduling noise from the probe's own error. Never in the verdict.
 *
 * The reference server runs in its own session (its own scheduling group under Linux autogroup)
 * and, where allowed, at real-time priority in every row (INFERTOP_BENCH_PIN_SERVER=0: not): a
 * reference descheduled between its write and its stamp, or late to read the request, would be
 * counted as the probe's error. The probe is at normal priority everywhere but the pinned row.
 *
 *   npm run bench -- probe                 (about 4 minutes)
 *   INFERTOP_BENCH_REPS=5 npm run bench -- probe
 *   INFERTOP_BENCH_DUMP=FILE               every run's record as JSON, for a closer look
 *
 * Goal: |TTFT error| ≤ 1 ms at the worst of 20 runs on a quiet machine, |decode error| ≤ 0.1 %.
 */
import {execFile, fork, type ChildProcess} from 'node:child_process';
import {readFileSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {PerformanceObserver, performance} from 'node:perf_hooks';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {promisify} from 'node:util';
import React from 'react';
import {Box, Text} from 'ink';
import {render} from 'ink-testing-library';
import {createProbeController} from '../source/probe/controller.js';
import type {ProbePrompt} from '../source/probe/prompts.js';
import {runProbe} from '../source/probe/run.js';
import {probeDiagnostics, type ReadDiagnostics} from '../source/probe/transport.js';
import type {ProbeResult} from '../source/types/probe.js';
import {emptyProbe} from '../source/types/probe.js';
import type {MonitorState} from '../source/types/state.js';
import {reduce} from '../source/model/reducer.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const execFileP = promisify(execFile);

/** What the server did, on its own clock (ms; see probe-truth-server.mjs). */
interface Truth {
	id: number;
	reqInMs: number;
	/** Reads the request took on the server (1: one segment). */
	reqReads: number;
	/** Just after each token's write. */
	writesMs: number[];
	/** Just before each token's write. */
	preMs: number[];
	queued: number;
	hrMinusPerf: number;
	slipMs: number;
}

interface TruthServer {
	url: string;
	pid: number;
	truth(id: number): Promise<Truth>;
	close(): void;
}

async function startTruthServer(): Promise<TruthServer> {
	// detached: its own session, so its own scheduling group (Linux autogroup) — the probe's
	// process, its UI included, does not share a CPU share with the reference it is held against.
	const child: ChildProcess = fork(path.join(here, 'probe-truth-server.mjs'), [], {stdio: ['ignore', 'inherit', 'inherit', 'ipc'], detached: true});
	const waiting = new Map<number, (t: Truth) => void>();
	const arrived = new Map<number, Truth>();
	const port = await new Promise<number>((resolve, reject) => {
		child.once('error', reject);
		child.on('message', (m: {port?: number} & Partial<Truth>) => {
			if (m.port !== undefined) resolve(m.port);
			else if (m.id !== undefined) {
				const w = waiting.get(m.id);
				if (w) w(m as Truth);
				else arrived.set(m.id, m as Truth);
			}
		});
	});
	return {
		url: `http://127.0.0.1:${port}`,
		pid: child.pid!,
		truth: (id) => (arrived.get(id) ? Promise.resolve(arrived.get(id)!) : new Promise((r) => waiting.set(id, r))),
		close: () => {
			child.send('close');
			setTimeout(() => child.kill('SIGKILL'), 2000).unref();
		},
	};
}

type Proto = 'sse' | 'ndjson';
type Mode = 'plain' | 'with UI' | 'CLI' | 'pinned';

/** The reader thread's record of one probe, on CLOCK_MONOTONIC ms. */
interface Reads {
	tSentHr: number;
	reads: {hr: number; bytes: number}[];
	gc: {hr: number; ms: number}[];
	eldMaxMs: number;
}

interface Probed {
	result: ProbeResult;
	reads?: Reads;
}
type Probe = (base: string, model: string, proto: Proto) => Promise<Probed>;

/** One run, with what it takes to say where its error came from. */
interface Sample {
	mode: Mode;
	proto: Proto;
	rate: number;
	run: number;
	ttftErrMs: number;
	/** Undefined when the probe gave no decode rate (every token in one read: `--`, as it should). */
	decodeErrPct?: number;
	/** The server's own lateness against its schedule (first token), ms: the machine's noise. */
	slipMs: number;
	/** Widest [before, after] bracket of the server's first and last token writes, ms. */
	writeSpanMs: number;
	queued: number;
	/** Reads the request took on the server. */
	reqReads: number;
	load: number;
	/** Main-thread GC during the run (this process), ms. */
	mainGcMs: number;
	/** A main-thread GC pause between the first (last) token's write and its stamp. */
	mainGcOnFirst?: boolean;
	mainGcOnLast?: boolean;
	// From the reader thread, where known:
	/** Probe sent → server read the request (CLOCK_MONOTONIC). */
	upMs?: number;
	/** Server wrote the first token → probe stamped the read that carried it. */
	downMs?: number;
	/** Server wrote the last token → probe stamped its read. */
	lastDownMs?: number;
	firstRead?: {index: number; bytes: number; tokens: number};
	lastRead?: {index: number; bytes: number; tokens: number};
	/** GC pauses on the reader thread during the run; onFirst/onLast: one between that token's write and its stamp. */
	readerGc?: {count: number; ms: number; onFirst: boolean; onLast: boolean};
	readerEldMaxMs?: number;
	/** |the first-token read's own stamp − the probe's tFirst|: the stamp is a read's (µs). */
	matchUs?: number;
	/** The first-token read − the START of the server's first write: causality says ≥ 0. */
	outFromPreMs?: number;
}

const TTFT_MS = 150;
/** n so that each run decodes for 0.4 s (a 0.1 ms stamp error is 0.025 % of it). */
const CASES = [
	{rate: 50, n: 21},
	{rate: 200, n: 81},
	{rate: 1000, n: 401},
];
const PROMPT: ProbePrompt = {kind: 'code', label: 'bench', text: 'bench'};
const TIMEOUTS = {firstTokenMs: 10_000, interTokenMs: 5_000};

let nextId = 1;
function spec(rate: number, n: number): {id: number; model: string} {
	const id = nextId++;
	return {id, model: `bench:${Buffer.from(JSON.stringify({id, ttftMs: TTFT_MS, gapMs: 1000 / rate, n})).toString('base64url')}`};
}
const engineOf = (p: Proto): string => (p === 'ndjson' ? 'ollama' : 'vllm');
const baseOf = (url: string, p: Proto): string => (p === 'ndjson' ? `${url}/ollama` : url);

/** The in-process reader thread's diagnostics, one per probe, in order. */
const diags: ReadDiagnostics[] = [];
const toReads = (d: ReadDiagnostics): Reads => ({
	tSentHr: d.tSent + d.hrMinusLocal,
	reads: d.reads.map((r) => ({hr: r.t + d.hrMinusLocal, bytes: r.bytes})),
	gc: d.gc.map((g) => ({hr: g.t + d.hrMinusLocal, ms: g.ms})),
	eldMaxMs: d.eldMaxMs,
});
async function nextDiag(): Promise<Reads | undefined> {
	const end = performance.now() + 500;
	while (diags.length === 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 2));
	const d = diags.shift();
	return d ? toReads(d) : undefined;
}

const plain: Probe = async (base, model, proto) => {
	diags.length = 0;
	const {result} = await runProbe({target: {url: base, engine: engineOf(proto), model}, prompt: PROMPT, maxTokens: 16, timeouts: TIMEOUTS});
	return {result, reads: await nextDiag()};
};

const cliDiagFile = path.join(os.tmpdir(), `infertop-bench-diag-${process.pid}.jsonl`);
const cli: Probe = async (base, model) => {
	rmSync(cliDiagFile, {force: true});
	const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
	const {stdout} = await execFileP(process.execPath, ['--import', tsx, path.join(repo, 'source', 'cli.tsx'), 'probe', base, '--json', '--model', model, '--history', path.join(os.tmpdir(), `infertop-bench-${process.pid}.csv`), '--no-scan'], {
		cwd: repo,
		timeout: 60_000,
		env: {...process.env, NODE_ENV: 'production', INFERTOP_PROBE_DIAG: cliDiagFile},
	});
	const j = JSON.parse(stdout) as {ttftMs: number | null; decodeTps: number | null};
	let reads: Reads | undefined;
	try {
		const lines = readFileSync(cliDiagFile, 'utf8').trim().split('\n');
		const d = JSON.parse(lines.at(-1)!) as {tSent: number; reads: number[]; gc: {t: number; ms: number}[]; eldMaxMs: number; hrMinusAbs: number};
		const rs: {hr: number; bytes: number}[] = [];
		for (let i = 0; i + 1 < d.reads.length; i += 2) rs.push({hr: d.reads[i]! + d.hrMinusAbs, bytes: d.reads[i + 1]!});
		reads = {tSentHr: d.tSent + d.hrMinusAbs, reads: rs, gc: d.gc.map((g) => ({hr: g.t + d.hrMinusAbs, ms: g.ms})), eldMaxMs: d.eldMaxMs};
	} catch {
		reads = undefined;
	}
	return {result: {ttftMs: j.ttftMs ?? undefined, decodeTps: j.decodeTps ?? undefined} as ProbeResult, reads};
};

/** The UI running in this process: the real Dashboard over the real store when it loads. */
async function startUi(): Promise<{probe: Probe; stop: () => void; kind: string}> {
	try {
		const [{createStore}, app, view, themeCtx, theme] = await Promise.all([
			import('../source/model/store.js'),
			import('../source/ui/app.js'),
			import('../source/ui/view-state.js'),
			import('../source/ui/theme-context.js'),
			import('../source/ui/theme.js'),
		]);
		const store = createStore();
		const controller = createProbeController({dispatch: store.dispatch, getState: store.getSnapshot, historyPath: null, timeouts: TIMEOUTS});
		const tree = (): React.ReactElement =>
			React.createElement(
				themeCtx.ThemeContext.Provider,
				{value: theme.noColorTheme()},
				React.createElement(app.Dashboard, {state: store.getPublished(), view: view.initialView, columns: 160, rows: 50, version: 'bench'}),
			);
		const ui = render(tree());
		let frames = 0;
		const timer = setInterval(() => {
			store.publish();
			ui.rerender(tree());
			frames++;
		}, 250);
		return {
			probe: async (base, model, proto) => {
				diags.length = 0;
				const before = store.getSnapshot().probe.results.at(-1);
				await controller.probe({serverId: 'bench', engine: engineOf(proto), url: base, model}, 'code');
				const s = store.getSnapshot().probe;
				// The state keeps the last 20 results: the new one is the last, if there is one.
				const r = s.results.at(-1);
				if (!r || r === before) throw new Error(s.lastError ?? 'no result');
				return {result: r, reads: await nextDiag()};
			},
			stop: () => {
				clearInterval(timer);
				ui.unmount();
				if (frames === 0) throw new Error('UI never rendered');
			},
			kind: 'Dashboard (source/ui/app.tsx) over createStore, 160×50, 4 Hz',
		};
	} catch (e) {
		let state = {probe: emptyProbe(), servers: {}, bandwidth: {}} as unknown as MonitorState;
		const controller = createProbeController({dispatch: (a) => (state = reduce(state, a)), getState: () => state, historyPath: null, timeouts: TIMEOUTS});
		let tick = 0;
		const tree = (): React.ReactElement =>
			React.createElement(
				Box,
				{flexDirection: 'column', width: 160, height: 49},
				...Array.from({length: 30}, (_, i) => React.createElement(Text, {key: i, wrap: 'truncate-end'}, `req ${i} ${'▁▂▃▄▅▆▇█'.repeat(8).slice((i + tick) % 8)} ${(tick * 1.7 + i).toFixed(1)} tok/s`)),
			);
		const ui = render(tree());
		const timer = setInterval(() => {
			tick++;
			ui.rerender(tree());
		}, 250);
		return {
			probe: async (base, model, proto) => {
				diags.length = 0;
				const before = state.probe.results.at(-1);
				await controller.probe({serverId: 'bench', engine: engineOf(proto), url: base, model}, 'code');
				const r = state.probe.results.at(-1);
				if (!r || r === before) throw new Error(state.probe.lastError ?? 'no result');
				return {result: r, reads: await nextDiag()};
			},
			stop: () => {
				clearInterval(timer);
				ui.unmount();
			},
			kind: `stand-in dashboard tree (UI not loadable: ${(e as Error).message.split('\n')[0]})`,
		};
	}
}

/** GC pauses on this (the main) thread, performance.now() ms. */
const mainGc: {t: number; ms: number}[] = [];
/** CLOCK_MONOTONIC − this thread's performance.now(), from the tightest of 5 bracketed samples. */
function hrMinusMain(): number {
	let best = Infinity;
	let off = 0;
	for (let i = 0; i < 5; i++) {
		const a = Number(process.hrtime.bigint()) / 1e6;
		const p = performance.now();
		const b = Number(process.hrtime.bigint()) / 1e6;
		if (b - a < best) {
			best = b - a;
			off = (a + b) / 2 - p;
		}
	}
	return off;
}
const mainGcObserver = new PerformanceObserver((l) => {
	for (const e of l.getEntries()) mainGc.push({t: e.startTime, ms: e.duration});
	if (mainGc.length > 1000) mainGc.splice(0, mainGc.length - 1000);
});

async function measure(srv: TruthServer, mode: Mode, proto: Proto, c: {rate: number; n: number}, probe: Probe, run: number): Promise<Sample> {
	const {rate, n} = c;
	const {id, model} = spec(rate, n);
	const t0 = performance.now();
	const {result: r, reads} = await probe(baseOf(srv.url, proto), model, proto);
	const t = await srv.truth(id);
	const t1 = performance.now();
	if (r.ttftMs === undefined) throw new Error(`probe returned no TTFT: ${JSON.stringify(r)}`);
	const first = t.writesMs[0]!;
	const last = t.writesMs.at(-1)!;
	const actualTps = ((n - 1) * 1000) / (last - first);
	const s: Sample = {
		mode,
		proto,
		rate,
		run,
		ttftErrMs: r.ttftMs - (first - t.reqInMs),
		decodeErrPct: r.decodeTps === undefined ? undefined : (r.decodeTps / actualTps - 1) * 100,
		slipMs: t.slipMs,
		writeSpanMs: Math.max(first - t.preMs[0]!, last - t.preMs.at(-1)!),
		queued: t.queued,
		reqReads: t.reqReads,
		load: os.loadavg()[0]!,
		mainGcMs: mainGc.filter((g) => g.t + g.ms >= t0 && g.t <= t1).reduce((a, g) => a + g.ms, 0),
	};
	if (reads && reads.reads.length > 0) {
		const hr = (ms: number): number => ms + t.hrMinusPerf;
		const tFirstHr = reads.tSentHr + r.ttftMs;
		// No decode rate: every token came in the first token's read, so the last one was read then.
		const tLastHr = r.decodeTps === undefined ? tFirstHr : tFirstHr + ((n - 1) * 1000) / r.decodeTps;
		const nearest = (x: number): number => {
			let best = 0;
			for (let i = 1; i < reads.reads.length; i++) if (Math.abs(reads.reads[i]!.hr - x) < Math.abs(reads.reads[best]!.hr - x)) best = i;
			return best;
		};
		const preHr = t.preMs.map(hr);
		// Tokens whose write had begun by a read: that read and the ones before it can hold them.
		const begun = (x: number): number => preHr.filter((p) => p <= x).length;
		const tokensIn = (i: number): number => begun(reads.reads[i]!.hr) - (i > 0 ? begun(reads.reads[i - 1]!.hr) : 0);
		const fi = nearest(tFirstHr);
		const li = nearest(tLastHr);
		const end = reads.reads.at(-1)!.hr;
		const during = reads.gc.filter((g) => g.hr + g.ms >= reads.tSentHr && g.hr <= end);
		s.matchUs = Math.abs(reads.reads[fi]!.hr - tFirstHr) * 1000;
		s.outFromPreMs = tFirstHr - preHr[0]!;
		s.upMs = hr(t.reqInMs) - reads.tSentHr;
		s.downMs = tFirstHr - hr(first);
		s.lastDownMs = tLastHr - hr(last);
		s.firstRead = {index: fi, bytes: reads.reads[fi]!.bytes, tokens: tokensIn(fi)};
		s.lastRead = {index: li, bytes: reads.reads[li]!.bytes, tokens: tokensIn(li)};
		s.readerGc = {
			count: during.length,
			ms: during.reduce((a, g) => a + g.ms, 0),
			onFirst: during.some((g) => g.hr <= tFirstHr && g.hr + g.ms >= preHr[0]!),
			onLast: during.some((g) => g.hr <= tLastHr && g.hr + g.ms >= preHr.at(-1)!),
		};
		s.readerEldMaxMs = reads.eldMaxMs;
		// The probe's own main thread (a CLI run's is another process, whose GC is not recorded).
		const off = hrMinusMain();
		const mainHr = mode === 'CLI' ? [] : mainGc.filter((g) => g.t + g.ms >= t0 && g.t <= t1).map((g) => ({hr: g.t + off, ms: g.ms}));
		s.mainGcOnFirst = mainHr.some((g) => g.hr <= tFirstHr && g.hr + g.ms >= preHr[0]!);
		s.mainGcOnLast = mainHr.some((g) => g.hr <= tLastHr && g.hr + g.ms >= preHr.at(-1)!);
	}
	return s;
}

/** Real-time priority for these processes, all their threads (root or CAP_SYS_NICE); undefined = done. */
async function pin(pids: number[], on: boolean): Promise<string | undefined> {
	try {
		for (const pid of pids) await execFileP('chrt', on ? ['-a', '-f', '-p', '20', String(pid)] : ['-a', '-o', '-p', '0', String(pid)], {timeout: 5000});
		return undefined;
	} catch (e) {
		return ((e as {stderr?: string}).stderr || (e as Error).message).split('\n')[0];
	}
}

const decodePast = (x: Sample): boolean => x.decodeErrPct === undefined || Math.abs(x.decodeErrPct) > 0.1;
const past = (x: Sample): boolean => Math.abs(x.ttftErrMs) > 1 || decodePast(x);
const decodeAbs = (x: Sample): number => (x.decodeErrPct === undefined ? Infinity : Math.abs(x.decodeErrPct));
const mean = (xs: number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;
const median = (xs: number[]): number => {
	const v = [...xs].sort((a, b) => a - b);
	const m = Math.floor(v.length / 2);
	return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};
const maxAbs = (xs: number[]): number => xs.reduce((a, x) => (Math.abs(x) > Math.abs(a) ? x : a), 0);
const f = (x: number | undefined, d: number, w = 0): string => (x === undefined || !Number.isFinite(x) ? '--' : x.toFixed(d)).padStart(w);
const sgn = (x: number | undefined, d: number): string => (x === undefined ? '--' : `${x >= 0 ? '+' : ''}${x.toFixed(d)}`);

/** The likeliest cause of a TTFT error, from what was recorded in its run. */
function ttftCause(s: Sample): string {
	const err = s.ttftErrMs;
	if (s.downMs === undefined || s.upMs === undefined) return 'no reader record';
	if (Math.abs(err) <= 1) return 'within goal';
	if (s.readerGc?.onFirst) return 'GC on the reader thread';
	if (s.upMs > Math.abs(err) / 2) return "request's way in (the server read it late)";
	if (s.writeSpanMs > Math.abs(err) / 2) return "the server's write bracket (descheduled mid-write)";
	if (s.mainGcOnFirst) return "main-thread GC at the first token (V8's helper threads share the cores)";
	if ((s.readerEldMaxMs ?? 0) >= s.downMs / 2) return 'reader thread ran late (its loop delayed: descheduled)';
	if ((s.firstRead?.tokens ?? 1) > 1) return 'first token coalesced into a later read';
	return 'first token late to the reader (kernel/scheduler; its loop was not blocked)';
}

function decodeCause(s: Sample): string {
	if (s.downMs === undefined || s.lastDownMs === undefined) return 'no reader record';
	if (s.decodeErrPct === undefined) return 'no decode rate (every token in one read)';
	if (Math.abs(s.decodeErrPct) <= 0.1) return 'within goal';
	const end = Math.abs(s.lastDownMs) > Math.abs(s.downMs) ? 'last' : 'first';
	const read = end === 'last' ? s.lastRead : s.firstRead;
	const ms = end === 'last' ? s.lastDownMs : s.downMs;
	if (s.writeSpanMs > Math.abs(ms) / 2) return "the server's write bracket (descheduled mid-write)";
	if (end === 'first' ? s.readerGc?.onFirst : s.readerGc?.onLast) return `GC on the reader thread (${end} token)`;
	if (end === 'first' ? s.mainGcOnFirst : s.mainGcOnLast) return `main-thread GC at the ${end} token (V8's helper threads share the cores)`;
	if ((read?.tokens ?? 1) > 1) return `${end} token's read coalesced ${read?.tokens} tokens`;
	if ((s.readerEldMaxMs ?? 0) >= Math.abs(ms) / 2) return `reader thread ran late on the ${end} token (loop delayed: descheduled)`;
	return `${end} token late to the reader (kernel/scheduler)`;
}

function attribution(s: Sample): string {
	const where = `${s.mode} ${s.proto} ${s.rate} tok/s run ${s.run + 1}`;
	const rd = (x: Sample['firstRead']): string => (x ? `read #${x.index + 1} (${x.bytes} B, ${x.tokens} token${x.tokens === 1 ? '' : 's'})` : '--');
	return [
		`${where}: TTFT error ${sgn(s.ttftErrMs, 3)} ms = request in ${sgn(s.upMs, 3)} + first token out ${sgn(s.downMs, 3)}; decode error ${sgn(s.decodeErrPct, 4)} % (last token out ${sgn(s.lastDownMs, 3)} ms)`,
		`    first token in ${rd(s.firstRead)}, last in ${rd(s.lastRead)}; reader thread: ${s.readerGc ? `${s.readerGc.count} GC (${s.readerGc.ms.toFixed(2)} ms${s.readerGc.onFirst ? ', one on the first token' : ''}${s.readerGc.onLast ? ', one on the last token' : ''})` : '--'}, loop delay max ${f(s.readerEldMaxMs, 2)} ms; main thread GC ${s.mainGcMs.toFixed(2)} ms${s.mainGcOnFirst ? ', one on the first token' : ''}${s.mainGcOnLast ? ', one on the last token' : ''}`,
		`    server: slip ${sgn(s.slipMs, 3)} ms, write bracket ${s.writeSpanMs.toFixed(3)} ms, queued writes ${s.queued}, request in ${s.reqReads} read${s.reqReads === 1 ? '' : 's'}; load ${s.load.toFixed(2)}`,
		`    → TTFT: ${ttftCause(s)}; decode: ${decodeCause(s)}`,
	].join('\n');
}

export async function run(): Promise<string> {
	const reps = Number(process.env.INFERTOP_BENCH_REPS ?? 20);
	const load0 = os.loadavg()[0]!;
	const srv = await startTruthServer();
	const samples: Sample[] = [];
	const lines: string[] = [];
	let uiKind = '';
	let pinNote = '';
	mainGcObserver.observe({entryTypes: ['gc']});
	probeDiagnostics((d) => diags.push(d));
	// The reference at real-time priority (where allowed): its own scheduling noise (reading the
	// request late, descheduled between its write and the stamp after it) is not the probe's error.
	// The probe itself stays at normal priority in every row but `pinned`.
	const refPin = process.env.INFERTOP_BENCH_PIN_SERVER === '0' ? 'not asked' : await pin([srv.pid], true);
	const refNote = refPin === undefined ? 'reference server at SCHED_FIFO 20 in its own session' : `reference server at normal priority in its own session (pinning: ${refPin})`;
	try {
		// Warm the SERVER (its first connection runs cold code too, which would shorten its own
		// "request in → first token" and be blamed on the probe); the probe's own warm-up is its business.
		for (const proto of ['sse', 'ndjson'] as const) for (let i = 0; i < 3; i++) await measure(srv, 'plain', proto, {rate: 1000, n: 20}, plain, i).catch(() => undefined);
		for (const proto of ['sse', 'ndjson'] as const) for (const c of CASES) for (let i = 0; i < reps; i++) samples.push(await measure(srv, 'plain', proto, c, plain, i));
		const ui = await startUi();
		uiKind = ui.kind;
		try {
			for (const proto of ['sse', 'ndjson'] as const) for (const c of CASES) for (let i = 0; i < reps; i++) samples.push(await measure(srv, 'with UI', proto, c, ui.probe, i));
		} finally {
			ui.stop();
		}
		if (process.env.INFERTOP_BENCH_CLI !== '0') {
			for (const proto of ['sse', 'ndjson'] as const) for (let i = 0; i < reps; i++) samples.push(await measure(srv, 'CLI', proto, CASES[1]!, cli, i));
		}
		if (process.env.INFERTOP_BENCH_PINNED !== '0') {
			const failed = await pin([process.pid, srv.pid], true);
			if (failed === undefined) {
				try {
					for (const proto of ['sse', 'ndjson'] as const) for (let i = 0; i < reps; i++) samples.push(await measure(srv, 'pinned', proto, CASES[1]!, plain, i));
				} finally {
					const back = await pin([process.pid], false);
					if (back !== undefined) pinNote = ` (could not drop the real-time priority again: ${back})`;
				}
			} else pinNote = `; pinned row skipped (chrt: ${failed})`;
		}
		const load1 = os.loadavg()[0]!;
		const cores = os.cpus().length;
		const quiet = Math.max(load0, load1) <= cores / 4;
		lines.push(`probe accuracy vs the server's own record (bench/probe-truth-server.mjs, its own process); ${reps} runs per case; TTFT ${TTFT_MS} ms`);
		lines.push(`machine: ${cores} cores, load average ${load0.toFixed(2)} → ${load1.toFixed(2)}${quiet ? '' : ' (NOT quiet: the figures carry its scheduling noise)'}; UI mode: ${uiKind}; ${refNote}${pinNote}`);
		lines.push('mode      proto   rate | TTFT err ms: mean  median   worst | decode err %: mean  median   worst | median ms: in   out | max ms: server bracket  reader loop delay | runs > goal');
		const order: [Mode, Proto, number][] = [];
		for (const mode of ['plain', 'with UI', 'CLI', 'pinned'] as const) for (const proto of ['sse', 'ndjson'] as const) for (const c of CASES) order.push([mode, proto, c.rate]);
		for (const [mode, proto, rate] of order) {
			const s = samples.filter((x) => x.mode === mode && x.proto === proto && x.rate === rate);
			if (s.length === 0) continue;
			const tt = s.map((x) => x.ttftErrMs);
			const dd = s.flatMap((x) => (x.decodeErrPct === undefined ? [] : [x.decodeErrPct]));
			const up = s.flatMap((x) => (x.upMs === undefined ? [] : [x.upMs]));
			const down = s.flatMap((x) => (x.downMs === undefined ? [] : [x.downMs]));
			const eld = s.flatMap((x) => (x.readerEldMaxMs === undefined ? [] : [x.readerEldMaxMs]));
			const over = s.filter(past).length;
			lines.push(
				`${mode.padEnd(9)} ${proto.padEnd(6)} ${String(rate).padStart(5)} | ${f(mean(tt), 3, 17)} ${f(median(tt), 3, 7)} ${f(maxAbs(tt), 3, 7)} | ${f(mean(dd), 4, 18)} ${f(median(dd), 4, 7)} ${f(dd.length ? maxAbs(dd) : undefined, 4, 7)} | ${f(up.length ? median(up) : undefined, 3, 13)} ${f(down.length ? median(down) : undefined, 3, 5)} | ${f(Math.max(...s.map((x) => x.writeSpanMs)), 3, 22)} ${f(eld.length ? Math.max(...eld) : undefined, 2, 18)} | ${String(over).padStart(4)}/${s.length}`,
			);
		}
		// The clocks agree: on CLOCK_MONOTONIC nothing arrives before it was sent (a wrong offset
		// between the probe's reader clock and the server's would show as a negative way in or out),
		// and the probe's first-token time is the stamp of one of its reads.
		const split = samples.filter((x) => x.upMs !== undefined && x.outFromPreMs !== undefined);
		if (split.length > 0) {
			const minUp = Math.min(...split.map((x) => x.upMs!));
			const minOut = Math.min(...split.map((x) => x.outFromPreMs!));
			const match = Math.max(...split.map((x) => x.matchUs!));
			lines.push(
				`clocks over ${split.length} runs: shortest way in ${(minUp * 1000).toFixed(1)} µs, shortest way out (from the start of the server's write) ${(minOut * 1000).toFixed(1)} µs${minUp < 0 || minOut < 0 ? ' — NEGATIVE: the clocks disagree, the figures above are suspect' : ' (never negative: the clocks agree)'}; first token = a read's stamp to ${match.toFixed(2)} µs; ${samples.length - split.length} runs without a reader record`,
			);
		}
		const split2 = samples.filter((x) => x.reqReads !== 1).length;
		lines.push(`requests that reached the server in more than one read (a Nagle/delayed-ACK wait would show here): ${split2} of ${samples.length}`);
		const verdict = samples.filter((x) => x.mode !== 'pinned');
		const outliers = verdict.filter(past);
		if (outliers.length > 0) {
			const causes = new Map<string, number>();
			for (const x of outliers) {
				for (const c of [Math.abs(x.ttftErrMs) > 1 ? `TTFT: ${ttftCause(x)}` : '', decodePast(x) ? `decode: ${decodeCause(x)}` : '']) if (c) causes.set(c, (causes.get(c) ?? 0) + 1);
			}
			lines.push(`runs past a goal (unpinned): ${outliers.length} of ${verdict.length}; causes: ${[...causes].sort((a, b) => b[1] - a[1]).map(([c, k]) => `${c} ×${k}`).join('; ')}`);
		}
		const worstT = verdict.reduce((a, x) => (Math.abs(x.ttftErrMs) > Math.abs(a.ttftErrMs) ? x : a), verdict[0]!);
		const worstD = verdict.reduce((a, x) => (decodeAbs(x) > decodeAbs(a) ? x : a), verdict[0]!);
		lines.push(`worst TTFT run — ${attribution(worstT)}`);
		if (worstD !== worstT) lines.push(`worst decode run — ${attribution(worstD)}`);
		const pinned = samples.filter((x) => x.mode === 'pinned');
		const tw = Math.abs(worstT.ttftErrMs);
		const dw = Math.max(...verdict.flatMap((x) => (x.decodeErrPct === undefined ? [] : [Math.abs(x.decodeErrPct)])), 0);
		const noDecode = verdict.filter((x) => x.decodeErrPct === undefined).length;
		lines.push(
			`verdict (${[...new Set(verdict.map((x) => x.mode))].join(', ')}; ${quiet ? 'quiet machine' : `NOT a quiet machine, load ${load0.toFixed(1)}–${load1.toFixed(1)} on ${cores} cores`}): worst |TTFT error| ${tw.toFixed(3)} ms, goal ≤ 1 ms ${tw <= 1 ? 'MET' : 'MISSED'}; worst |decode error| ${dw.toFixed(4)} %${noDecode > 0 ? ` and ${noDecode} run${noDecode === 1 ? '' : 's'} without a decode rate` : ''}, goal ≤ 0.1 % ${dw <= 0.1 && noDecode === 0 ? 'MET' : 'MISSED'}` +
				(pinned.length > 0
					? ` | pinned row (real-time priority, not the headline): worst ${Math.abs(maxAbs(pinned.map((x) => x.ttftErrMs))).toFixed(3)} ms, ${Math.abs(maxAbs(pinned.flatMap((x) => (x.decodeErrPct === undefined ? [] : [x.decodeErrPct])))).toFixed(4)} %${pinned.some((x) => x.decodeErrPct === undefined) ? ' (and runs without a decode rate)' : ''}`
					: ''),
		);
	} finally {
		probeDiagnostics(undefined);
		if (process.env.INFERTOP_BENCH_DUMP) writeFileSync(process.env.INFERTOP_BENCH_DUMP, JSON.stringify(samples, null, 1));
		mainGcObserver.disconnect();
		rmSync(cliDiagFile, {force: true});
		srv.close();
	}
	return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	run().then(
		(s) => {
			console.log(s);
			process.exit(0);
		},
		(e: unknown) => {
			console.error(e);
			process.exit(1);
		},
	);
}
