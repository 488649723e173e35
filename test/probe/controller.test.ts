import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import type {Action, MonitorState} from '../../source/types/state.js';
import {reduce} from '../../source/model/reducer.js';
import {createProbeController} from '../../source/probe/controller.js';
import {HISTORY_HEADER} from '../../source/probe/history.js';
import {emptyProbe, type ProbeState} from '../../source/types/probe.js';
import {openaiStream, startServer, until, type TestServer} from '../helpers/probe-server.js';

let server: TestServer | undefined;
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-ctl-'));
});
afterEach(async () => {
	await server?.close();
	server = undefined;
	await rm(dir, {recursive: true, force: true});
});

function harness(extra: {bytesPerToken?: number; gbs?: number} = {}) {
	let probe: ProbeState = emptyProbe();
	const actions: {t: number; probe: ProbeState}[] = [];
	const state = () =>
		({
			probe,
			servers: {s1: {id: 's1', engine: 'llamacpp', models: [{name: 'm', bytesPerToken: extra.bytesPerToken}]}},
			bandwidth: {gbs: extra.gbs},
		}) as unknown as MonitorState;
	const dispatch = (a: Action) => {
		if (!a.type.startsWith('probe-')) throw new Error('unexpected action');
		// The probe's state changes go through the reducer as events.
		probe = reduce({probe} as MonitorState, a).probe;
		actions.push({t: performance.now(), probe});
	};
	return {actions, getState: state, dispatch, probe: () => probe};
}

const target = (url: string) => ({serverId: 's1', engine: 'llamacpp', url, model: 'm'});

describe('probe controller', () => {
	it('live progress at most ~4 times a second, the result kept in state, one CSV row', async () => {
		server = await startServer({'POST /v1/chat/completions': openaiStream(120, {gapMs: 8})});
		const h = harness({bytesPerToken: 4.9e9, gbs: 273});
		const historyPath = path.join(dir, 'probes.csv');
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath, version: '0.1.0', timeouts: {firstTokenMs: 5000, interTokenMs: 3000}});
		await c.probe(target(server.url), 'code');
		const progress = h.actions.filter((a) => a.probe.running && a.probe.running.tokens > 0);
		expect(progress.length).toBeGreaterThan(0);
		// consecutive live updates are ≥ ~250 ms apart
		for (let i = 1; i < progress.length; i++) expect(progress[i]!.t - progress[i - 1]!.t).toBeGreaterThanOrEqual(240);
		const end = h.probe();
		expect(end.running).toBeUndefined();
		expect(end.lastError).toBeUndefined();
		expect(end.results).toHaveLength(1);
		expect(end.results[0]).toMatchObject({serverId: 's1', completionTokens: 120, prompt: 'code', promptKind: 'code'});
		expect(end.results[0]!.ceilingTps).toBeCloseTo(273 / 4.9, 6);
		const csv = (await readFile(historyPath, 'utf8')).trim().split('\n');
		expect(csv[0]).toBe(HISTORY_HEADER);
		expect(csv).toHaveLength(2);
		const lastProgress = progress.at(-1)!.probe.running!;
		expect(lastProgress.liveTps).toBeGreaterThan(0);
		expect(lastProgress.elapsedMs).toBeGreaterThan(0);
	});

	it('runs: 2 is the cache-reuse probe: two results, run 1 and run 2', async () => {
		server = await startServer({'POST /v1/chat/completions': openaiStream(5)});
		const h = harness();
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null});
		await c.probe(target(server.url), 'repeat', 2);
		expect(h.probe().results.map((r) => r.run)).toEqual([1, 2]);
		expect(h.actions.some((a) => a.probe.running?.run === 2)).toBe(true);
	});

	it('busy server: the status line shows, then the result', async () => {
		let n = 0;
		const ok = openaiStream(5);
		server = await startServer({
			'POST /v1/chat/completions': (req, res, body) => {
				if (n++ === 0) {
					res.writeHead(429);
					res.end('{"detail":"model_busy"}');
					return;
				}
				return ok(req, res, body);
			},
		});
		const h = harness();
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null, busyRetryBaseMs: 30});
		await c.probe(target(server.url), 'code');
		expect(h.actions.some((a) => /^server busy \(HTTP 429\), retrying in 1 s$/.test(a.probe.running?.status ?? ''))).toBe(true);
		expect(h.probe().results).toHaveLength(1);
	});

	it('failure: lastError is one line, no result, nothing running', async () => {
		server = await startServer({});
		const h = harness();
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null});
		await c.probe(target(server.url), 'code');
		expect(h.probe().running).toBeUndefined();
		expect(h.probe().results).toHaveLength(0);
		expect(h.probe().lastError).toMatch(/^HTTP 404 on /);
		expect(h.probe().lastError).not.toContain('\n');
	});

	it('cancel (Esc) aborts the stream', async () => {
		server = await startServer({'POST /v1/chat/completions': openaiStream(500, {gapMs: 10})});
		const h = harness();
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null});
		const p = c.probe(target(server.url), 'code');
		await until(() => (h.probe().running?.tokens ?? 0) > 0 || h.actions.length > 3);
		expect(c.running).toBe(true);
		c.cancel();
		await p;
		expect(c.running).toBe(false);
		expect(h.probe().lastError).toBe('probe cancelled');
		expect(h.probe().running).toBeUndefined();
	});

	it('the API key from apiKeyFor goes only to the probed URL', async () => {
		server = await startServer({'POST /v1/chat/completions': openaiStream(3)});
		const h = harness();
		const url = server.url;
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null, apiKeyFor: (u) => (u === url ? 'k1' : undefined)});
		await c.probe(target(url), 'hex');
		expect(server.requests[0]!.headers.authorization).toBe('Bearer k1');
	});

	it('the overall limit (--timeout) is in the running state from the start, and its expiry is the last error', async () => {
		// Tokens forever: only the overall limit can end it.
		server = await startServer({
			'POST /v1/chat/completions': async (_q, res) => {
				res.writeHead(200, {'content-type': 'text/event-stream'});
				res.flushHeaders();
				while (!res.destroyed) {
					res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'x'}}]})}\n\n`);
					await new Promise((r) => setTimeout(r, 20));
				}
			},
		});
		const h = harness();
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null, totalTimeoutMs: 500});
		await c.probe(target(server.url), 'code');
		const running = h.actions.map((a) => a.probe.running).filter((r) => r !== undefined);
		expect(running.length).toBeGreaterThan(1);
		expect(running.every((r) => r.timeoutMs === 500)).toBe(true);
		expect(h.probe().running).toBeUndefined();
		expect(h.probe().lastError).toBe('probe timed out after 500 ms (the overall limit, --timeout)');
	});
});

describe('probe controller: the queue', () => {
	it('a request in flight when the run left that finishes before the first token: queued behind it', async () => {
		let requests: {key: string; serverId: string; firstSeen: number; lastSeen: number; done: boolean}[] = [];
		const stream = openaiStream(8, {firstDelayMs: 400, gapMs: 5});
		// The server finishes the other request 300 ms into the probe's wait, then answers.
		server = await startServer({
			'POST /v1/chat/completions': (req, res, body) => {
				setTimeout(() => {
					requests = requests.map(r => ({...r, done: true, lastSeen: Date.now()}));
				}, 300);
				return stream(req, res, body);
			},
		});
		let probe: ProbeState = emptyProbe();
		const getState = () => ({probe, servers: {s1: {id: 's1', engine: 'llamacpp', models: [{name: 'm'}], requests}}, bandwidth: {}}) as unknown as MonitorState;
		const dispatch = (a: Action) => {
			probe = reduce({probe} as MonitorState, a).probe;
		};
		requests = [{key: 'other', serverId: 's1', firstSeen: Date.now() - 2000, lastSeen: Date.now() - 100, done: false}];
		const c = createProbeController({dispatch, getState, historyPath: null, timeouts: {firstTokenMs: 5000, interTokenMs: 3000}});
		await c.probe(target(server.url), 'code');
		const r = probe.results.at(-1)!;
		expect(r.queuedBehind).toBe(1);
		expect(r.queuedMs).toBeDefined();
		// It waited at least the 300 ms the other request still ran, and never more than its TTFT.
		expect(r.queuedMs!).toBeGreaterThanOrEqual(250);
		expect(r.queuedMs!).toBeLessThanOrEqual(r.ttftMs!);
	});

	it('nothing in flight: no queue fields', async () => {
		server = await startServer({'POST /v1/chat/completions': openaiStream(8, {gapMs: 5})});
		const h = harness();
		const c = createProbeController({dispatch: h.dispatch, getState: h.getState, historyPath: null, timeouts: {firstTokenMs: 5000, interTokenMs: 3000}});
		await c.probe(target(server.url), 'code');
		expect(h.probe().results[0]!.queuedBehind).toBeUndefined();
		expect(h.probe().results[0]!.queuedMs).toBeUndefined();
	});
});
