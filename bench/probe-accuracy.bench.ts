/**
 * Probe accuracy: how close the probe's TTFT and decode tok/s come to a server whose timing is
 * KNOWN. The server runs in a worker thread (its own event loop) and schedules every SSE event
 * with a sleep-then-spin wait on performance.now() for sub-ms precision; it reports the times it
 * actually wrote, so its own slip is measured apart from the probe's error.
 *
 * Modes: the probe alone; the probe with the monitor's UI running in the same process (the real
 * Dashboard fed by the real store and probe controller, rendered by ink-testing-library and
 * re-rendered at 4 Hz; a dashboard-sized stand-in tree if the UI cannot be loaded); and, for
 * comparison, the UI with the in-thread fetch fallback instead of the reader worker.
 *
 *   npx tsx bench/probe-accuracy.bench.ts
 *   INFERTOP_BENCH_REPS=5 npx tsx bench/probe-accuracy.bench.ts
 *
 * Targets: TTFT error ≤ 1 ms, decode tok/s error ≤ 0.5 %.
 *
 * Measured 2026-11-30 on an idle 16-core Linux box (Node 20.20, 5 runs per case, 50/200/1000 tok/s):
 * decode tok/s error ≤ 0.075 % (with and without the UI); TTFT error 1.3–1.9 ms mean, 2.3 ms max,
 * of which 0.87 ms is the request's own way to the server (fresh TCP connection, send, HTTP parse:
 * part of a real TTFT) and 0.25 ms the first token's way from the server's write to the reader's
 * stamp. The in-thread fetch fallback under the same UI: TTFT up to 13.7 ms (a render in the way).
 * On a loaded 2-core box (load average ≈ 15) the server's own scheduling slips by 5–40 ms and the
 * figures mean nothing: run it on an idle machine.
 */
import {pathToFileURL} from 'node:url';
import {Worker} from 'node:worker_threads';
import React from 'react';
import {Box, Text} from 'ink';
import {render} from 'ink-testing-library';
import {createProbeController} from '../source/probe/controller.js';
import {performance} from 'node:perf_hooks';
import {streamOnce} from '../source/probe/client.js';
import {runProbe} from '../source/probe/run.js';
import {inThreadTransport, type Transport} from '../source/probe/transport.js';
import type {ProbePrompt} from '../source/probe/prompts.js';
import type {ProbeResult} from '../source/types/probe.js';
import {emptyProbe} from '../source/types/probe.js';
import type {MonitorState} from '../source/types/monitor.js';
import {reduce} from '../source/model/reducer.js';

const SERVER = String.raw`
const http = require('node:http');
const {parentPort} = require('node:worker_threads');
const {performance} = require('node:perf_hooks');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(t) {
	for (;;) {
		const left = t - performance.now();
		if (left <= 0) return;
		if (left > 3) await sleep(left - 2);
		else while (performance.now() < t) {}
	}
}
const server = http.createServer((req, res) => {
	let body = '';
	req.on('data', (c) => (body += c));
	req.on('end', async () => {
		const t0 = performance.now();
		let spec;
		try {
			const m = JSON.parse(body).model;
			spec = JSON.parse(Buffer.from(m.slice(6), 'base64url').toString());
		} catch {
			res.writeHead(400);
			res.end('{"error":"bad spec"}');
			return;
		}
		req.socket.setNoDelay(true);
		res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'});
		res.flushHeaders();
		const writes = [];
		for (let i = 0; i < spec.n; i++) {
			await until(t0 + spec.ttftMs + i * spec.gapMs);
			res.write('data: ' + JSON.stringify({choices: [{index: 0, delta: {content: 'tok' + i + ' '}, finish_reason: null}]}) + '\n\n');
			writes.push(performance.now());
			// http corks the socket until the next tick: yield one macrotask so the chunk leaves now.
			await new Promise((r) => setImmediate(r));
		}
		res.write('data: ' + JSON.stringify({choices: [{index: 0, delta: {}, finish_reason: 'length'}]}) + '\n\n');
		res.write('data: ' + JSON.stringify({choices: [], usage: {prompt_tokens: 12, completion_tokens: spec.n, total_tokens: 12 + spec.n}}) + '\n\n');
		res.end('data: [DONE]\n\n');
		parentPort.postMessage({id: spec.id, firstMs: writes[0] - t0, spanMs: writes[writes.length - 1] - writes[0], t0Abs: performance.timeOrigin + t0, firstAbs: performance.timeOrigin + writes[0]});
	});
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({port: server.address().port}));
parentPort.on('message', (m) => { if (m === 'close') server.close(() => process.exit(0)); });
`;

interface Truth {
	id: number;
	firstMs: number;
	spanMs: number;
	/** Absolute (timeOrigin-based, shared by all threads) times of the request's arrival and the first write. */
	t0Abs: number;
	firstAbs: number;
}

type Mode = 'plain' | 'with UI' | 'UI, fetch';

interface Sample {
	rate: number;
	mode: Mode;
	ttftErrMs: number;
	/** The server's own slip from its schedule (first token). */
	serverSlipMs: number;
	tpsErrPct: number;
	/** Error against the server's actual write span (isolates the probe's error). */
	tpsErrVsActualPct: number;
}

const PROMPT: ProbePrompt = {kind: 'code', label: 'bench', text: 'bench'};

async function startWorker(): Promise<{worker: Worker; url: string; truth: (id: number) => Promise<Truth>}> {
	const worker = new Worker(SERVER, {eval: true});
	const waiting = new Map<number, (t: Truth) => void>();
	const arrived = new Map<number, Truth>();
	const port = await new Promise<number>((resolve, reject) => {
		worker.once('error', reject);
		worker.on('message', (m: {port?: number} & Partial<Truth>) => {
			if (m.port !== undefined) resolve(m.port);
			else if (m.id !== undefined) {
				const t = m as Truth;
				const w = waiting.get(t.id);
				if (w) w(t);
				else arrived.set(t.id, t);
			}
		});
	});
	const truth = (id: number): Promise<Truth> => {
		const t = arrived.get(id);
		if (t) return Promise.resolve(t);
		return new Promise((resolve) => waiting.set(id, resolve));
	};
	return {worker, url: `http://127.0.0.1:${port}`, truth};
}

let nextId = 1;
function model(ttftMs: number, gapMs: number, n: number): {id: number; model: string} {
	const id = nextId++;
	return {id, model: `bench:${Buffer.from(JSON.stringify({id, ttftMs, gapMs, n})).toString('base64url')}`};
}

/** The UI running in this process: the real Dashboard over the real store when it loads. */
async function startUi(transport?: Transport): Promise<{probe: (url: string, m: string) => Promise<ProbeResult>; stop: () => void; kind: string}> {
	try {
		const [{createStore}, app, view, themeCtx, theme] = await Promise.all([
			import('../source/model/store.js'),
			import('../source/ui/app.js'),
			import('../source/ui/view-state.js'),
			import('../source/ui/theme-context.js'),
			import('../source/ui/theme.js'),
		]);
		const store = createStore();
		const controller = createProbeController({dispatch: store.dispatch, getState: store.getSnapshot, historyPath: null, timeouts: {firstTokenMs: 10_000, interTokenMs: 5_000}, transport});
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
		const probe = async (url: string, m: string): Promise<ProbeResult> => {
			const before = store.getSnapshot().probe.results.length;
			await controller.probe({serverId: 'bench', engine: 'vllm', url, model: m}, 'code');
			const s = store.getSnapshot().probe;
			const r = s.results[before];
			if (!r) throw new Error(s.lastError ?? 'no result');
			return r;
		};
		return {
			probe,
			stop: () => {
				clearInterval(timer);
				ui.unmount();
				if (frames === 0) throw new Error('UI never rendered');
			},
			kind: 'Dashboard (source/ui/app.tsx) over createStore, 160×50, 4 Hz',
		};
	} catch (e) {
		// Stand-in: a dashboard-sized tree (header, 3 engines, 20 requests, graph, probe pane) at 4 Hz.
		let state = {probe: emptyProbe(), servers: {}, bandwidth: {}} as unknown as MonitorState;
		const controller = createProbeController({dispatch: (a) => (state = reduce(state, a)), getState: () => state, historyPath: null, transport});
		let tick = 0;
		const tree = (): React.ReactElement => {
			const rows = Array.from({length: 20}, (_, i) =>
				React.createElement(Text, {key: i, wrap: 'truncate-end'}, `req ${i} ${'▁▂▃▄▅▆▇█'.repeat(8).slice((i + tick) % 8)} ${(tick * 1.7 + i).toFixed(1)} tok/s`),
			);
			const p = state.probe.running;
			return React.createElement(
				Box,
				{flexDirection: 'column', width: 160, height: 49},
				React.createElement(Text, null, `infertop  tick ${tick}`),
				...rows,
				React.createElement(Text, null, `probe ${p ? `${p.tokens} tok ${p.liveTps?.toFixed(1) ?? '--'} tok/s` : 'idle'}`),
			);
		};
		const ui = render(tree());
		const timer = setInterval(() => {
			tick++;
			ui.rerender(tree());
		}, 250);
		return {
			probe: async (url, m) => {
				const before = state.probe.results.length;
				await controller.probe({serverId: 'bench', engine: 'vllm', url, model: m}, 'code');
				const r = state.probe.results[before];
				if (!r) throw new Error(state.probe.lastError ?? 'no result');
				return r;
			},
			stop: () => {
				clearInterval(timer);
				ui.unmount();
			},
			kind: `stand-in dashboard tree (UI not loadable: ${(e as Error).message.split('\n')[0]})`,
		};
	}
}

const TTFT_MS = 150;
const CASES: {rate: number; n: number}[] = [
	{rate: 50, n: 100},
	{rate: 200, n: 256},
	{rate: 1000, n: 512},
];

async function measureOnce(
	url: string,
	truth: (id: number) => Promise<Truth>,
	rate: number,
	n: number,
	mode: Mode,
	probe: (url: string, m: string) => Promise<ProbeResult>,
): Promise<Sample> {
	const gap = 1000 / rate;
	const {id, model: m} = model(TTFT_MS, gap, n);
	const r = await probe(url, m);
	const t = await truth(id);
	if (r.ttftMs === undefined || r.decodeTps === undefined) throw new Error(`probe returned no figures: ${JSON.stringify(r)}`);
	const actualTps = ((n - 1) * 1000) / t.spanMs;
	return {
		rate,
		mode,
		ttftErrMs: r.ttftMs - TTFT_MS,
		serverSlipMs: t.firstMs - TTFT_MS,
		tpsErrPct: ((r.decodeTps - rate) / rate) * 100,
		tpsErrVsActualPct: ((r.decodeTps - actualTps) / actualTps) * 100,
	};
}

/**
 * Where the TTFT error goes, on the real client path (streamOnce through the reader worker): the
 * request's way to the server (connect, send, parse) and the first token's way back.
 */
async function decompose(url: string, truth: (id: number) => Promise<Truth>, reps: number): Promise<{requestMs: number; deliveryMs: number}> {
	let requestMs = 0;
	let deliveryMs = 0;
	for (let i = 0; i < reps; i++) {
		const {id, model: m} = model(TTFT_MS, 5, 20);
		const out = await streamOnce({baseUrl: url, plan: {protocol: 'openai-chat', path: '/v1/chat/completions'}, spec: {model: m, prompt: 'bench', maxTokens: 16, seed: 1}});
		const t = await truth(id);
		requestMs += t.t0Abs - (performance.timeOrigin + out.clock.tSent);
		deliveryMs += performance.timeOrigin + out.clock.tFirst! - t.firstAbs;
	}
	return {requestMs: requestMs / reps, deliveryMs: deliveryMs / reps};
}

const fmt = (x: number, d = 3): string => (x >= 0 ? ' ' : '') + x.toFixed(d);

export async function run(): Promise<string> {
	const reps = Number(process.env.INFERTOP_BENCH_REPS ?? 3);
	const {worker, url, truth} = await startWorker();
	const plain = async (u: string, m: string): Promise<ProbeResult> =>
		(await runProbe({target: {url: u, engine: 'vllm', model: m}, prompt: PROMPT, maxTokens: 16, timeouts: {firstTokenMs: 10_000, interTokenMs: 5_000}})).result;
	const lines: string[] = [];
	try {
		// Warm-up: JIT and the keep-alive connection.
		for (let i = 0; i < 2; i++) await measureOnce(url, truth, 500, 50, 'plain', plain);
		const samples: Sample[] = [];
		for (const c of CASES) for (let i = 0; i < reps; i++) samples.push(await measureOnce(url, truth, c.rate, c.n, 'plain', plain));
		const ui = await startUi();
		try {
			for (const c of CASES) for (let i = 0; i < reps; i++) samples.push(await measureOnce(url, truth, c.rate, c.n, 'with UI', ui.probe));
		} finally {
			ui.stop();
		}
		// For comparison: the same with fetch on the main thread (no reader worker).
		const uiFetch = await startUi(inThreadTransport);
		try {
			for (const c of CASES) for (let i = 0; i < reps; i++) samples.push(await measureOnce(url, truth, c.rate, c.n, 'UI, fetch', uiFetch.probe));
		} finally {
			uiFetch.stop();
		}
		lines.push(`probe accuracy: known TTFT ${TTFT_MS} ms, ${reps} runs per case; server in a worker thread (sleep+spin scheduling)`);
		lines.push(`UI mode: ${ui.kind}`);
		lines.push('mode      rate   TTFT err ms (max |.|)   server slip ms   tok/s err % vs nominal (max |.|)   vs server actual %');
		let worstTtft = 0;
		let worstTps = 0;
		for (const mode of ['plain', 'with UI', 'UI, fetch'] as const) {
			for (const c of CASES) {
				const s = samples.filter((x) => x.mode === mode && x.rate === c.rate);
				const maxAbs = (f: (x: Sample) => number): number => s.reduce((a, x) => (Math.abs(f(x)) > Math.abs(a) ? f(x) : a), 0);
				const mean = (f: (x: Sample) => number): number => s.reduce((a, x) => a + f(x), 0) / s.length;
				const tt = maxAbs((x) => x.ttftErrMs);
				const tp = maxAbs((x) => x.tpsErrPct);
				if (mode !== 'UI, fetch') {
					worstTtft = Math.max(worstTtft, Math.abs(tt));
					worstTps = Math.max(worstTps, Math.abs(tp));
				}
				lines.push(
					`${mode.padEnd(9)} ${String(c.rate).padStart(5)}   ${fmt(mean((x) => x.ttftErrMs))} (${fmt(tt)})         ${fmt(maxAbs((x) => x.serverSlipMs))}           ${fmt(mean((x) => x.tpsErrPct))} (${fmt(tp)})                   ${fmt(maxAbs((x) => x.tpsErrVsActualPct))}`,
				);
			}
		}
		lines.push('(UI, fetch = the in-thread fallback transport, shown for comparison; not counted in the worst figures)');
		const d = await decompose(url, truth, reps * 2);
		lines.push(
			`TTFT error split (plain, mean): request to server (connect+send+parse) ${d.requestMs.toFixed(3)} ms; first token server write → stamped by the reader ${d.deliveryMs.toFixed(3)} ms`,
		);
		lines.push(`worst |TTFT error| ${worstTtft.toFixed(3)} ms (target ≤ 1 ms: ${worstTtft <= 1 ? 'met' : 'MISSED'}); worst |decode tok/s error| ${worstTps.toFixed(3)} % (target ≤ 0.5 %: ${worstTps <= 0.5 ? 'met' : 'MISSED'})`);
	} finally {
		worker.postMessage('close');
		await worker.terminate().catch(() => undefined);
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
