import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import type http from 'node:http';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {comparePlan, machineOf, runCompare, type CompareTarget} from '../../source/probe/compare.js';
import {compareCommand} from '../../source/probe/compare-command.js';
import {compareJson, compareLines, range} from '../../source/model/compare.js';
import {HISTORY_COLUMNS} from '../../source/probe/history.js';
import {fitToContext, loadPrompt} from '../../source/probe/prompts.js';
import {startServer, until, wait, type TestServer} from '../helpers/probe-server.js';

let servers: TestServer[] = [];
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-compare-'));
});
afterEach(async () => {
	for (const s of servers) await s.close();
	servers = [];
	await rm(dir, {recursive: true, force: true});
});

/** Streams in flight on either server (the comparison's, not the outside client's): never above 1. */
let streaming = 0;
let maxStreaming = 0;
const enter = (): void => {
	streaming++;
	maxStreaming = Math.max(maxStreaming, streaming);
};
const leave = (): void => {
	streaming--;
};

const FAST_TOKENS = 21;
/**
 * A llama-server: OpenAI chat SSE with llama.cpp's `timings` (tools/server/server.cpp, b6xxx): 120
 * tok/s reported, 10 of 20 decoded tokens accepted from the draft (2 tokens per pass). A prompt seen
 * before is served from the cache (cache_n), as llama-server's prompt cache does.
 */
async function fastServer(): Promise<TestServer & {prompts: string[]}> {
	const seen = new Set<string>();
	const prompts: string[] = [];
	const s = await startServer({
		'GET /v1/models': (_q, res) => res.end(JSON.stringify({object: 'list', data: [{id: 'fast-model', object: 'model', owned_by: 'llamacpp'}]})),
		'POST /v1/chat/completions': async (_q: http.IncomingMessage, res: http.ServerResponse, body: string) => {
			enter();
			const b = JSON.parse(body) as {messages: {content: string}[]; temperature: number; max_tokens: number};
			const text = b.messages[0]!.content;
			prompts.push(text);
			const promptTokens = Math.ceil(text.length / 4);
			const cache = seen.has(text) ? promptTokens - 1 : 0;
			seen.add(text);
			res.writeHead(200, {'content-type': 'text/event-stream', server: 'llama.cpp'});
			for (let i = 0; i < FAST_TOKENS; i++) {
				res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: `f${i} `}, finish_reason: null}]})}\n\n`);
				await wait(1);
			}
			const timings = {prompt_n: promptTokens - cache, cache_n: cache, prompt_ms: 50, predicted_n: FAST_TOKENS, predicted_ms: 175, predicted_per_second: 120, draft_n: 16, draft_n_accepted: 10};
			res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {}, finish_reason: 'length'}], usage: {prompt_tokens: promptTokens, completion_tokens: FAST_TOKENS}, timings})}\n\n`);
			res.end('data: [DONE]\n\n');
			leave();
		},
	});
	servers.push(s);
	return Object.assign(s, {prompts});
}

const SLOW_TOKENS = 8;
/**
 * An Ollama that takes one request at a time: while one streams it answers HTTP 429 (as a
 * one-at-a-time proxy in front of it does). 8 tokens in 400 ms by its own count: 20 tok/s.
 */
async function slowServer(): Promise<TestServer & {refused: () => number; holdFirst: () => Promise<void>}> {
	let busy = false;
	let refused = 0;
	let releaseOutside: (() => void) | undefined;
	const s = await startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/ps': (_q, res) => res.end(JSON.stringify({models: [{name: 'slow-model:7b', model: 'slow-model:7b', size: 1, size_vram: 1, context_length: 8192}]})),
		'POST /api/generate': async (q: http.IncomingMessage, res: http.ServerResponse) => {
			if (busy) {
				refused++;
				res.writeHead(429, {'content-type': 'application/json'});
				res.end('{"error":"server busy, please try again. maximum pending requests exceeded"}');
				// The outside client's request ends once the comparison has been told to wait.
				releaseOutside?.();
				return;
			}
			busy = true;
			const outside = q.headers['x-outside'] === '1';
			if (!outside) enter();
			res.writeHead(200, {'content-type': 'application/x-ndjson'});
			if (outside) await new Promise<void>((r) => (releaseOutside = r));
			for (let i = 0; i < SLOW_TOKENS; i++) {
				res.write(JSON.stringify({model: 'slow-model:7b', response: `s${i} `, done: false}) + '\n');
				await wait(2);
			}
			res.end(JSON.stringify({model: 'slow-model:7b', response: '', done: true, done_reason: 'length', eval_count: SLOW_TOKENS, eval_duration: 400_000_000, prompt_eval_count: 30, prompt_eval_duration: 100_000_000}) + '\n');
			if (!outside) leave();
			busy = false;
		},
	});
	servers.push(s);
	return Object.assign(s, {
		refused: () => refused,
		/** Another client holds the server until the comparison has been refused once. */
		holdFirst: async () => {
			const done = fetch(`${s.url}/api/generate`, {method: 'POST', headers: {'x-outside': '1'}, body: '{}'}).then((r) => r.text());
			await until(() => busy);
			void done;
		},
	});
}

describe('infertop compare', () => {
	it('every row, in plan order, one request at a time, the 429 waited out, the known rates exact', async () => {
		const fast = await fastServer();
		const slow = await slowServer();
		await slow.holdFirst();
		maxStreaming = 0;
		const targets: CompareTarget[] = [
			{url: fast.url, engine: 'llamacpp', model: 'fast-model', contextLength: 4096},
			{url: slow.url, engine: 'ollama', model: 'slow-model:7b', contextLength: 8192},
		];
		const history = path.join(dir, 'probes.csv');
		const statuses: string[] = [];
		const out = await runCompare({targets, maxTokens: 64, runId: 'r1', historyPath: history, version: '0.0.0-test', busyRetryBaseMs: 5, busyTimeoutMs: 20_000, timeouts: {firstTokenMs: 10_000, interTokenMs: 10_000}, logWaitMs: 0, onProgress: (p) => p.status && statuses.push(p.status)});
		expect(out.cancelled).toBe(false);
		expect(out.rows.map((r) => `${r.model} ${r.prompt} ${r.run}`)).toEqual([
			'fast-model code 1', 'fast-model code 2', 'fast-model prose 1', 'fast-model prose 2', 'fast-model long 1', 'fast-model long 2',
			'slow-model:7b code 1', 'slow-model:7b code 2', 'slow-model:7b prose 1', 'slow-model:7b prose 2', 'slow-model:7b long 1', 'slow-model:7b long 2',
		]);
		expect(out.rows.every((r) => r.error === undefined)).toBe(true);
		// Both servers are on this machine: never two streams at once.
		expect(maxStreaming).toBe(1);
		expect(slow.refused()).toBeGreaterThanOrEqual(1);
		expect(statuses.some((s) => /^server busy \(HTTP 429\), retrying in \d+ s$/.test(s))).toBe(true);
		const json = out.rows.map(compareJson);
		for (const j of json.slice(0, 6)) expect(j).toMatchObject({server: fast.url, engine: 'llamacpp', model: 'fast-model', reportedTps: 120, tokensPerPass: 2, ceilingTps: null, runId: 'r1'});
		for (const j of json.slice(6)) expect(j).toMatchObject({server: slow.url, engine: 'ollama', model: 'slow-model:7b', reportedTps: 20, promptTokens: 30, tokensPerPass: null, ceilingTps: null});
		// The first slow run waited on the 429; the others found the server free.
		expect(json[6]!.queuedMs).not.toBeNull();
		expect(json.slice(7).every((j) => j.queuedMs === null)).toBe(true);
		// The second run of an identical prompt is served from the cache (llama.cpp says how much).
		expect(json[0]!.cachedTokens).toBe(0);
		expect(json[1]!.cachedTokens).toBe(json[1]!.promptTokens! - 1);
		// The long prompt was cut to the 4096-token context, question kept.
		const longSent = fast.prompts[4]!;
		expect(longSent.length).toBeLessThanOrEqual((4096 - 64 - 256) * 2.5);
		expect(longSent.endsWith('what does it do when the output is taller than the terminal?')).toBe(true);
		// Every run is in the history with the run number and the comparison's id, header unchanged but for the new columns.
		const csv = (await readFile(history, 'utf8')).trim().split('\n');
		expect(csv[0]).toBe(HISTORY_COLUMNS.join(','));
		expect(HISTORY_COLUMNS.slice(-2)).toEqual(['run', 'run_id']);
		expect(csv).toHaveLength(13);
		expect(csv.slice(1).map((l) => l.split(',').slice(-2).join(','))).toEqual(out.rows.map((r) => `${r.run},r1`));
		// The table: one line per server × model; the reported figures beside the wall ones are in JSON.
		const lines = compareLines(out.rows);
		expect(lines.map((l) => [l.model, l.cells[4]])).toEqual([
			['fast-model', '2.00'],
			['slow-model:7b', '--'],
		]);
	}, 60_000);

	it('Esc (abort) stops the comparison: the rest are cancelled rows, nothing hangs', async () => {
		const fast = await fastServer();
		const ac = new AbortController();
		const out = await runCompare({
			targets: [{url: fast.url, engine: 'llamacpp', model: 'fast-model'}],
			historyPath: null,
			version: 't',
			signal: ac.signal,
			logWaitMs: 0,
			onRow: () => ac.abort(),
		});
		expect(out.cancelled).toBe(true);
		expect(out.rows).toHaveLength(6);
		expect(out.rows[0]!.result).toBeDefined();
		expect(out.rows.slice(1).map((r) => r.error)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
	}, 30_000);

	it('a server that fails is a row with its reason; the others still run', async () => {
		const fast = await fastServer();
		const dead = await startServer({});
		const url = dead.url;
		await dead.close();
		const out = await runCompare({targets: [{url, engine: 'ollama', model: 'x'}, {url: fast.url, engine: 'llamacpp', model: 'fast-model'}], kinds: ['code'], runs: 1, historyPath: null, version: 't', logWaitMs: 0});
		expect(out.rows.map((r) => [r.url, r.error === undefined])).toEqual([
			[url, false],
			[fast.url, true],
		]);
		expect(out.rows[0]!.error).toMatch(/connection refused/);
		expect(compareJson(out.rows[0]!)).toMatchObject({ttftMs: null, decodeTps: null, reportedTps: null});
	}, 30_000);

	it('the headless command: JSON rows on stdout, progress on stderr, bad URL refused', async () => {
		const fast = await fastServer();
		const stdout = new PassThrough();
		const stderr = new PassThrough();
		let o = '';
		let e = '';
		stdout.on('data', (c: Buffer) => (o += c.toString()));
		stderr.on('data', (c: Buffer) => (e += c.toString()));
		const code = await compareCommand({
			urls: [fast.url],
			json: true,
			maxTokens: 32,
			historyPath: path.join(dir, 'h.csv'),
			resolveTargets: async (urls) => ({targets: urls.map((url) => ({url, engine: 'llamacpp', model: 'fast-model'})), problems: []}),
			stdout,
			stderr,
		});
		expect(code).toBe(0);
		const rows = JSON.parse(o) as Record<string, unknown>[];
		expect(rows).toHaveLength(6);
		expect(Object.keys(rows[0]!)).toEqual(['server', 'engine', 'model', 'prompt', 'run', 'runId', 'ttftMs', 'decodeTps', 'reportedTps', 'promptTokens', 'cachedTokens', 'tokensPerPass', 'ceilingTps', 'queuedMs', 'error']);
		expect(e).toMatch(/^infertop compare: run \S+: 1 server × model/);
		let e2 = '';
		const err2 = new PassThrough();
		err2.on('data', (c: Buffer) => (e2 += c.toString()));
		expect(await compareCommand({urls: ['ftp://x'], json: true, maxTokens: 32, historyPath: path.join(dir, 'h.csv'), resolveTargets: async () => ({targets: [], problems: []}), stdout: new PassThrough(), stderr: err2})).toBe(2);
		expect(e2).toBe('infertop compare: unsupported URL scheme ftp: (use http:// or https://)\n');
	}, 30_000);
});

describe('compare: pure parts', () => {
	it('plan order, machines, ranges', () => {
		const p = comparePlan([{url: 'http://a', engine: 'ollama'}], ['code', 'long'], 2);
		expect(p.map((i) => `${i.index} ${i.prompt} ${i.run}`)).toEqual(['0 code 1', '1 code 2', '2 long 1', '3 long 2']);
		expect(machineOf('http://127.0.0.1:8080')).toBe(machineOf('http://localhost:11434'));
		expect(machineOf('http://[::1]:8080')).toBe('this machine');
		expect(machineOf('http://gpu-box:8000')).toBe('gpu-box');
		expect(range([88.2, 91.4])).toBe('88–91');
		expect(range([88.2, 88.4])).toBe('88');
		expect(range([undefined, Number.NaN])).toBe('--');
	});

	it('the long prompt: whole when the context is unknown or big enough, cut otherwise', async () => {
		const long = await loadPrompt('long');
		expect(fitToContext(long, undefined, 256)).toBe(long);
		expect(fitToContext(long, 131_072, 256)).toBe(long);
		const cut = fitToContext(long, 8192, 256);
		expect(cut.text.length).toBeLessThanOrEqual((8192 - 256 - 256) * 2.5);
		expect(cut.text.length).toBeGreaterThan(15_000);
		const code = await loadPrompt('code');
		expect(fitToContext(code, 100, 256)).toBe(code);
	});
});
