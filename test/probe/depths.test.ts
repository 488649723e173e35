import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import {performance} from 'node:perf_hooks';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {compareCommand} from '../../source/probe/compare-command.js';
import {parseDepths} from '../../source/config/depths.js';
import {concurrencyFrom, depthText, SHORT_DEPTH_TEXT} from '../../source/probe/depths.js';
import {readProfiles, saveProfiles} from '../../source/probe/profiles.js';
import {profilesFile} from '../../source/config/paths.js';
import type {Profile} from '../../source/types/whatif.js';
import type {Turn} from '../../source/model/sessions.js';
import {projectTurns} from '../../source/model/whatif.js';
import {startServer, wait, type TestServer} from '../helpers/probe-server.js';
import {captureStreams} from '../helpers/streams.js';

let servers: TestServer[] = [];
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-depths-'));
});
afterEach(async () => {
	for (const s of servers) await s.close();
	servers = [];
	await rm(dir, {recursive: true, force: true});
});

/** The text deeper prompts are cut from: numbered source lines. */
const SOURCE = Array.from({length: 400}, (_, i) => `const value${i} = compute(${i}, "tower");`).join('\n');
/** Both scripted servers count a token per 4 characters. */
const tokensOf = (text: string): number => Math.ceil(text.length / 4);
/** Prefill: 0.01 ms per token plus 1e-6 ms per token² (slower with depth); decode: 2 + depth/1000 ms per token. */
const prefillMsOf = (uncached: number, depth: number): number => Number((uncached * 0.01 + 1e-6 * (depth * depth - (depth - uncached) ** 2)).toFixed(3));
const decodeGapOf = (depth: number): number => 2 + depth / 1000;
/** Tokens each answer streams (the scripted servers stop here whatever the request asks). */
const GEN = 40;
/** Timers take whole milliseconds: each token is sent on an absolute schedule (never early), so the curve holds over the answer. */
async function stream(n: number, firstAfterMs: number, gapMs: number, send: (i: number) => void): Promise<void> {
	const t0 = performance.now();
	for (let i = 0; i < n; i++) {
		const due = t0 + firstAfterMs + i * gapMs - performance.now();
		if (due > 0) await wait(Math.ceil(due));
		send(i);
	}
}

/**
 * A llama-server: OpenAI chat SSE with `timings`; runs requests side by side; an identical prompt
 * seen before is served from its cache (cache_n = tokens − 1).
 */
async function llamaServer(): Promise<TestServer> {
	const seen = new Set<string>();
	const s = await startServer({
		'GET /v1/models': (_q, res) => res.end(JSON.stringify({object: 'list', data: [{id: 'deep-model', object: 'model', owned_by: 'llamacpp'}]})),
		'POST /v1/chat/completions': async (_q: http.IncomingMessage, res: http.ServerResponse, body: string) => {
			const b = JSON.parse(body) as {messages: {content: string}[]};
			const text = b.messages[0]!.content;
			const n = tokensOf(text);
			const cache = seen.has(text) ? n - 1 : 0;
			seen.add(text);
			const promptMs = prefillMsOf(n - cache, n);
			res.writeHead(200, {'content-type': 'text/event-stream', server: 'llama.cpp'});
			const gap = decodeGapOf(n);
			await stream(GEN, promptMs, gap, (i) => res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: `d${i} `}, finish_reason: null}]})}\n\n`));
			const timings = {prompt_n: n - cache, cache_n: cache, prompt_ms: promptMs, predicted_n: GEN, predicted_ms: gap * (GEN - 1), predicted_per_second: 1000 / gap};
			res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {}, finish_reason: 'length'}], usage: {prompt_tokens: n, completion_tokens: GEN}, timings})}\n\n`);
			res.end('data: [DONE]\n\n');
		},
	});
	servers.push(s);
	return s;
}

/**
 * An Ollama with an 8K window that runs one request at a time (the second waits), states its load
 * time on the first request (1.5 s), keeps the model 300 s, and reuses an identical prompt without
 * saying so (its API has no cached count): the second TTFT is short.
 */
async function ollamaServer(o: {refuses?: boolean} = {}): Promise<TestServer> {
	const seen = new Set<string>();
	let first = true;
	let chain = Promise.resolve();
	let busy = false;
	const s = await startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/ps': (_q, res) => res.end(JSON.stringify({models: [{name: 'small:8b', model: 'small:8b', size: 1, size_vram: 1, context_length: 8192, expires_at: new Date(Date.now() + 300_000).toISOString()}]})),
		'POST /api/generate': async (_q: http.IncomingMessage, res: http.ServerResponse, body: string) => {
			if (o.refuses && busy) {
				res.writeHead(429, {'content-type': 'application/json'});
				res.end('{"error":"server busy, please try again. maximum pending requests exceeded"}');
				return;
			}
			const run = async (): Promise<void> => {
				busy = true;
				const text = (JSON.parse(body) as {prompt: string}).prompt;
				const n = tokensOf(text);
				const reused = seen.has(text);
				seen.add(text);
				const promptMs = reused ? 1 : prefillMsOf(n, n) * 2;
				const load = first ? 1_500_000_000 : 20_000_000;
				first = false;
				res.writeHead(200, {'content-type': 'application/x-ndjson'});
				const gap = decodeGapOf(n) * 2;
				await stream(GEN, promptMs, gap, (i) => res.write(JSON.stringify({model: 'small:8b', response: `o${i} `, done: false}) + '\n'));
				res.end(JSON.stringify({model: 'small:8b', response: '', done: true, done_reason: 'length', eval_count: GEN, eval_duration: Math.round(gap * GEN * 1e6), prompt_eval_count: n, prompt_eval_duration: Math.round(promptMs * 1e6), load_duration: load}) + '\n');
				busy = false;
			};
			const mine = chain.then(run);
			chain = mine.catch(() => undefined);
			await mine;
		},
	});
	servers.push(s);
	return s;
}

const run = async (urls: {url: string; engine: string; model: string; contextLength?: number; loaded?: boolean}[], depths: number[], profilesPath: string) => {
	const {stdout, stderr, out, err} = captureStreams();
	const code = await compareCommand({
		urls: urls.map((u) => u.url),
		json: true,
		maxTokens: 64,
		historyPath: path.join(dir, 'h.csv'),
		resolveTargets: async () => ({targets: urls, problems: []}),
		stdout,
		stderr,
		depths,
		profilesPath,
		depthSource: async () => SOURCE,
		busyRetryBaseMs: 5,
		timeouts: {firstTokenMs: 10_000, interTokenMs: 10_000},
		expiresAt: async (t) => {
			const r = await fetch(`${t.url}/api/ps`).catch(() => undefined);
			if (!r || !r.ok) return undefined;
			return ((await r.json()) as {models: {name: string; expires_at: string}[]}).models.find((m) => m.name === t.model)?.expires_at;
		},
		version: '9.9.9-test',
	});
	return {code, out: out(), err: err()};
};

describe('compare --depths', () => {
	it('parses depth lists (k = 1024) and refuses bad ones with one line', () => {
		expect(parseDepths('0,4k,16k,32k')).toEqual([0, 4096, 16_384, 32_768]);
		expect(parseDepths('32k, 0, 4096')).toEqual([0, 4096, 32_768]);
		expect(() => parseDepths('4q')).toThrow('--depths: "4q" is not a token count (e.g. 4k or 4096)');
		expect(() => parseDepths('')).toThrow('--depths: give depths in tokens');
		expect(() => parseDepths('1,2,3,4,5,6,7,8,9')).toThrow('at most 8 depths');
	});

	it('cuts a depth to the window (the probe\'s 2.5 characters per token, 64 + 256 tokens free)', () => {
		const free = depthText(SOURCE, 4096, undefined, 64);
		expect(free.capped).toBe(false);
		expect(free.text.length).toBeLessThanOrEqual(4096 * 3.5);
		expect(free.text.length).toBeGreaterThan(4096 * 3.5 - 200);
		const cut = depthText(SOURCE, 32_768, 2048, 64);
		expect(cut.capped).toBe(true);
		expect(cut.text.length).toBeLessThanOrEqual((2048 - 64 - 256) * 2.5);
		expect(depthText(SOURCE, 0, 2048, 64).text).toBe(SHORT_DEPTH_TEXT);
	});

	it('a second request while the first streams: refused, side by side, or after it; unknown when sent too late', () => {
		expect(concurrencyFrom({refused: true})).toBe('refuses');
		expect(concurrencyFrom({refused: false, aLastToken: 100, bSent: 20, bFirstToken: 40})).toBe('parallel');
		expect(concurrencyFrom({refused: false, aLastToken: 100, bSent: 20, bFirstToken: 130})).toBe('one-at-a-time');
		expect(concurrencyFrom({refused: false, aLastToken: 100, bSent: 120, bFirstToken: 130})).toBeUndefined();
		expect(concurrencyFrom({refused: false, aLastToken: 100, bSent: 20})).toBeUndefined();
	});

	it('measures each server × model at each depth, its cache, load, keep-alive and concurrency, and keeps the profiles', async () => {
		const llama = await llamaServer();
		const ollama = await ollamaServer();
		const file = profilesFile({env: {XDG_STATE_HOME: dir}, platform: 'linux', homedir: dir});
		const {code, out, err} = await run(
			[
				{url: llama.url, engine: 'llamacpp', model: 'deep-model', contextLength: 32_768},
				// Not loaded before: its first request loads it.
				{url: ollama.url, engine: 'ollama', model: 'small:8b', contextLength: 2048, loaded: false},
			],
			[0, 1024, 4096],
			file,
		);
		expect(err).toContain('profiles kept in');
		expect(code).toBe(0);
		const profiles = JSON.parse(out) as Profile[];
		expect(profiles).toHaveLength(2);
		const [a, b] = profiles as [Profile, Profile];
		// llama-server: three depths, by the server's own counts; the engine's prefill rate exactly its timings'.
		expect(a.points.map((p) => p.nominal)).toEqual([0, 1024, 4096]);
		for (const p of a.points) {
			expect(p.cachedTokens).toBe(0);
			const reported = Number(((p.promptTokens * 1000) / prefillMsOf(p.promptTokens, p.promptTokens)).toFixed(2));
			expect(p.prefillTpsReported).toBeCloseTo(reported, 1);
			// Wall clock: the TTFT holds the server's prefill and more, never less.
			expect(p.ttftMs).toBeGreaterThanOrEqual(prefillMsOf(p.promptTokens, p.promptTokens) - 1);
			expect(p.prefillTps).toBeLessThanOrEqual(reported * 1.02);
			expect(p.decodeTpsReported).toBeCloseTo(1000 / decodeGapOf(p.promptTokens), 1);
			expect(p.generated).toBe(GEN);
		}
		// The deepest prompt: ~4096 × 3.5 characters at 4 per token.
		expect(a.points[2]!.promptTokens).toBeGreaterThan(3400);
		expect(a.points[2]!.promptTokens).toBeLessThanOrEqual(3584 + 10);
		// Sent again: reused by the server's count (all but one token), and the cached prefill is fast.
		expect(a.cache.reused).toBe(true);
		expect(a.cache.by).toBe('count');
		expect(a.cache.cachedTokens).toBe(a.cache.promptTokens! - 1);
		expect(a.cache.promptTokens).toBe(a.points[2]!.promptTokens);
		expect(a.concurrency).toBe('parallel');
		expect(a.loadMs).toBeUndefined();
		expect(a.tokenizer).toEqual({textId: 'depth-0 v1', tokens: tokensOf(`[request 00000000]\n${SHORT_DEPTH_TEXT}`)});
		expect(a.version).toBe('9.9.9-test');
		// Ollama with a 2K window: the deeper depths are cut to it, one at a time, load and keep-alive stated.
		expect(b.contextWindow).toBe(2048);
		expect(b.points.every((p) => p.promptTokens <= 2048)).toBe(true);
		expect(b.notes).toEqual(['depth 4096 cut to the 2048-token window']);
		expect(b.loadMs).toBe(1500);
		expect(b.loadSource).toBe('load_duration');
		expect(b.keepAliveMs).toBe(300_000);
		expect(b.concurrency).toBe('one-at-a-time');
		// No cached count from Ollama's API: reuse known by time (the second TTFT far under half the first).
		expect(b.cache.by).toBe('time');
		expect(b.cache.reused).toBe(true);
		// Kept in the file, read back the same.
		const back = await readProfiles(file);
		expect(back.map((p) => [p.url, p.model])).toEqual([
			[llama.url, 'deep-model'],
			[ollama.url, 'small:8b'],
		]);
		expect(back[0]!.points).toEqual(a.points);
		// Every probe of it is in the probe history under one run id: per server the load request, 3 depths, the cache request, the pair.
		const rows = (await readFile(path.join(dir, 'h.csv'), 'utf8')).trim().split('\n').slice(1);
		expect(rows).toHaveLength(14);
		const runIds = new Set(rows.map((r) => /\d{8}T\d{6}Z-[0-9a-f]{4}/.exec(r)?.[0]));
		expect([...runIds]).toHaveLength(1);
		expect([...runIds][0]).toBeDefined();

		// A recorded agent session of 20 growing turns (200 … 3050 prompt tokens, each reusing the last,
		// 40 generated) projected onto both measured profiles.
		const turns: Turn[] = Array.from({length: 20}, (_, i) => ({serverId: 's', key: `t${i}`, time: i, start: i, promptTokens: 200 + 150 * i, cachedTokens: i === 0 ? 0 : 200 + 150 * (i - 1), promptEstimated: false, queueMs: 0, prefillMs: 1, decodeMs: 1, generatedTokens: GEN, idleBeforeMs: i === 0 ? undefined : 1000, retries: 0, backlog: false, findings: []}));
		const onLlama = projectTurns(turns, 'deep-model', a);
		// The curve's exact sums: prefill Σ 0.01 × uncached + 1e-6 × (prompt² − cached²); decode Σ 40 × (2 + prompt / 1000) ms.
		const exactPrefill = turns.reduce((s, t) => s + prefillMsOf(t.promptTokens! - t.cachedTokens!, t.promptTokens!), 0);
		const exactDecode = turns.reduce((s, t) => s + GEN * decodeGapOf(t.promptTokens!), 0);
		// Wall clock holds the server's own time and more (HTTP, timers on a loaded machine): never under
		// the curve by more than the straight lines' error, and within 3× of it here.
		expect(onLlama.parts.prefillMs!).toBeGreaterThan(exactPrefill * 0.9);
		expect(onLlama.parts.prefillMs!).toBeLessThan(exactPrefill * 3);
		expect(onLlama.parts.decodeMs!).toBeGreaterThan(exactDecode * 0.9);
		expect(onLlama.parts.decodeMs!).toBeLessThan(exactDecode * 3);
		expect(onLlama.parts.idleMs).toBe(19_000);
		expect(onLlama.unable).toBeNull();
		// The 2K window: turn 14 (2150 prompt + 40 generated) does not fit.
		const onOllama = projectTurns(turns, 'small:8b', b);
		expect(onOllama.unable).toBe('turn 14 needs 2.2K tokens, window 2.0K');
		expect(onOllama.projectedMs).toBeNull();
	});

	it('a one-at-a-time server that refuses the second request (429) is `refuses`', async () => {
		const ollama = await ollamaServer({refuses: true});
		const {code, out} = await run([{url: ollama.url, engine: 'ollama', model: 'small:8b', contextLength: 8192}], [0], path.join(dir, 'p.json'));
		expect(code).toBe(0);
		expect((JSON.parse(out) as Profile[])[0]!.concurrency).toBe('refuses');
	});

	it('the profiles file: newest per server × model kept; a hostile or broken file is refused or cleaned where it enters', async () => {
		const file = path.join(dir, 'profiles.json');
		const p = (t: number, model = 'm'): Profile => ({url: 'http://127.0.0.1:1', engine: 'llamacpp', model, measuredAt: t, version: '1', points: [{nominal: 0, promptTokens: 40, ttftMs: 20, prefillTps: 2000, t}], cache: {}});
		await saveProfiles(file, [p(1), p(1, 'other')]);
		await saveProfiles(file, [p(5)]);
		await saveProfiles(file, [p(3)]);
		expect((await readProfiles(file)).map((x) => [x.model, x.measuredAt])).toEqual([
			['m', 5],
			['other', 1],
		]);
		await writeFile(file, JSON.stringify({format: 1, profiles: [{...p(1), model: 'evil\u001b[2J\u202emodel'}, {...p(1), points: [{nominal: 0, promptTokens: -4, ttftMs: 1, prefillTps: 1, t: 1}]}, 'junk']}));
		const cleaned = await readProfiles(file);
		expect(cleaned).toHaveLength(1);
		expect(cleaned[0]!.model).not.toMatch(/[\u001b\u202e]/);
		await writeFile(file, '{not json');
		await expect(readProfiles(file)).rejects.toThrow('not JSON');
		expect(await readProfiles(path.join(dir, 'absent.json'))).toEqual([]);
	});
});
