/**
 * Issue 14 item 4: a number that cannot be true never becomes a figure. Each case of the issue is
 * a test: the field is unknown (undefined → `null` in JSON) and the line is counted as
 * inconsistent with its reason. Lines are built from the engines' upstream format strings:
 * Ollama x/mlxrunner `speculative decode stats` / `cache hit` (slog attrs, engines.md §1e),
 * lithos-metal `Generation: {…}` (engines.md §7), llama.cpp tools/server/server.cpp
 * print_timings (`prompt eval time = %10.2f ms / %5d tokens (…)`, b10587), vLLM loggers.py
 * stats line (engines.md §4), SGLang scheduler `Decode batch` (engines.md §5).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {Writable} from 'node:stream';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import type {EngineEvent, EngineKind} from '../../source/types/events.js';
import {BOUNDS, checkNumber, numberCheck, validNumber} from '../../source/util/numbers.js';
import {createPoller, pollServer} from '../../source/sources/discovery/pollers.js';
import {openAiModels, readAnswer} from '../../source/engines/answers.js';
import {llamaServerModels} from '../../source/engines/llamacpp.js';
import {ollamaPsModels} from '../../source/engines/ollama.js';
import {createStore} from '../../source/model/store.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {startServer} from '../helpers/probe-server.js';
import {runSnapshot} from '../../source/commands/snapshot.js';
import {DEFAULTS, mergeConfig} from '../../source/config/config.js';
import {sanitize} from '../../source/util/sanitize.js';

const SLOG = 'time=2026-08-21T18:48:25.900-07:00 level=INFO source=speculate_stats.go:62 msg="speculative decode stats"';
const HIT = 'time=2026-08-21T18:48:22.123-07:00 level=INFO source=prefix_cache.go:125 msg="cache hit"';

const parse = (engine: EngineKind, lines: readonly string[]): EngineEvent[] => {
	const p = createParser(engine);
	return lines.flatMap(l => p.push(sanitize(l)) ?? []);
};
const reasons = (events: readonly EngineEvent[]): string[] => events.flatMap(e => (e.type === 'inconsistent' ? [e.reason] : []));
const request = (events: readonly EngineEvent[]): Record<string, unknown> => {
	const out: Record<string, unknown> = {};
	for (const e of events) if (e.type === 'request') Object.assign(out, e);
	return out;
};

describe('util/numbers: the check at the boundary', () => {
	it('the API cases of the issue: eval_count -5, prompt_eval_count -30, cached_tokens -7, 1e308', () => {
		expect(checkNumber('eval_count', -5, 'tokens')).toEqual({ok: false, problem: 'eval_count=-5 is negative'});
		expect(checkNumber('prompt_eval_count', -30, 'tokens')).toEqual({ok: false, problem: 'prompt_eval_count=-30 is negative'});
		expect(checkNumber('cached_tokens', -7, 'tokens')).toEqual({ok: false, problem: 'cached_tokens=-7 is negative'});
		expect(checkNumber('eval_count', 1e308, 'tokens')).toEqual({ok: false, problem: 'eval_count=1e+308 is beyond 1e9'});
		expect(checkNumber('eval_duration', Number.POSITIVE_INFINITY, 'ms')).toEqual({ok: false, problem: 'eval_duration=Infinity is not a finite number'});
		expect(checkNumber('eval_count', '12', 'tokens')).toEqual({ok: true, value: 12});
		expect(checkNumber('eval_count', undefined, 'tokens')).toEqual({ok: true, value: undefined});
		expect(checkNumber('eval_count', null, 'tokens')).toEqual({ok: true, value: undefined});
		expect(checkNumber('eval_count', '1.2.3', 'tokens')).toEqual({ok: false, problem: 'eval_count=1.2.3 is not a finite number'});
		expect(checkNumber('eval_count', {n: 1}, 'tokens')).toEqual({ok: false, problem: 'eval_count={"n":1} is not a number'});
		expect(checkNumber('n', 2.5, 'tokens', {integer: true})).toEqual({ok: false, problem: 'n=2.5 is not a whole number'});
		expect(checkNumber('tps', 'nan', 'tps', {nanIsUnknown: true})).toEqual({ok: true, value: undefined});
		expect(checkNumber('tps', 'nan', 'tps')).toEqual({ok: false, problem: 'tps=nan is not a finite number'});
		expect(validNumber(BOUNDS.tps, 'tps')).toBe(1e6);
		expect(validNumber(BOUNDS.tps + 1, 'tps')).toBeUndefined();
	});

	it('a checker collects every problem of one answer, in order; control characters in a value never pass', () => {
		const c = numberCheck();
		expect(c.count('eval_count', -5)).toBeUndefined();
		expect(c.count('prompt_eval_count', 30)).toBe(30);
		expect(c.num('x', '\u001b]52;c;aGk=\u0007', 'ms')).toBeUndefined();
		expect(c.reason()).toBe('eval_count=-5 is negative; x= is not a finite number');
		expect(numberCheck().reason()).toBeUndefined();
	});
});

describe('log parsers: the issue\'s lines', () => {
	it('Ollama MLX iterations=-5: passes unknown, the line counted', () => {
		const ev = parse('ollama', [`${SLOG} iterations=-5 drafted=458 accepted=287 acceptance=0.63`]);
		const r = request(ev);
		expect(r.passes).toBeUndefined();
		expect(r.decodedTokens).toBeUndefined();
		expect(r.drafted).toBe(458);
		expect(r.accepted).toBe(287);
		expect(reasons(ev)).toEqual(['iterations=-5 is negative']);
	});

	it('Ollama MLX accepted=-287: acceptance and decoded tokens unknown', () => {
		const ev = parse('ollama', [`${SLOG} iterations=225 drafted=458 accepted=-287 acceptance=0.63`]);
		const r = request(ev);
		expect(r.accepted).toBeUndefined();
		expect(r.decodedTokens).toBeUndefined();
		expect(r.passes).toBe(225);
		expect(reasons(ev)).toEqual(['accepted=-287 is negative']);
	});

	it('Ollama MLX cached=-1500: cached tokens unknown (not 0 either)', () => {
		const ev = parse('ollama', [`${HIT} total=5321 matched=5120 cached=-1500 left=201`]);
		const r = request(ev);
		expect(r.cachedTokens).toBeUndefined();
		expect(r.promptTokens).toBe(5321);
		expect(r.prefillTokens).toBe(201);
		expect(reasons(ev)).toEqual(['cached=-1500 is negative']);
	});

	it('lithos decode_gpu_ms: -1500 → ms per pass unknown; 1e308 steps → passes unknown', () => {
		// Generations before uvicorn speaks are held back as possible warmups: start serving first.
		const serving = 'INFO:     Application startup complete.';
		const ev = parse('lithos', [serving, "INFO:monolith.serve:Generation: {'steps': 37, 'cached_prompt_tokens': 12, 'decode_gpu_ms': -1500, 'prefill_wall_ms': 80.5}"]);
		const r = request(ev);
		expect(r.decodeMs).toBeUndefined();
		expect(r.passes).toBe(37);
		expect(r.prefillMs).toBe(80.5);
		expect(reasons(ev)).toEqual(['decode_gpu_ms=-1500 is negative']);
		const big = parse('lithos', [serving, "INFO:monolith.serve:Generation: {'steps': 1e308, 'cached_prompt_tokens': 12, 'decode_gpu_ms': 900.0}"]);
		expect(request(big).passes).toBeUndefined();
		expect(reasons(big)).toEqual(['steps=1e+308 is beyond 1e9']);
	});

	it('llama.cpp prompt eval time = -210.70 ms / -345 tokens: both unknown, one line counted', () => {
		const ev = parse('llamacpp', ['slot print_timing: id  0 | task 6 | prompt eval time =    -210.70 ms /  -345 tokens (    0.61 ms per token,  1637.38 tokens per second)']);
		const r = request(ev);
		expect(r.prefillMs).toBeUndefined();
		expect(r.prefillTokens).toBeUndefined();
		expect(reasons(ev)).toEqual(['prompt eval time=-210.70 is negative; prompt eval tokens=-345 is negative']);
		// llama.cpp's own `nan` over 0 tokens is "no value", not an inconsistency.
		const zero = parse('llamacpp', ['slot print_timing: id  0 | task 7 | prompt eval time =       0.00 ms /     0 tokens (    -nan ms per token,     -nan tokens per second)']);
		expect(reasons(zero)).toEqual([]);
		expect(request(zero)).toMatchObject({prefillMs: 0, prefillTokens: 0});
	});

	it('llama.cpp eval time with an absurd count and draft acceptance with a negative count', () => {
		const ev = parse('llamacpp', [
			'slot print_timing: id  0 | task 6 |        eval time =    5211.49 ms / 99999999999 tokens (   20.44 ms per token,    48.93 tokens per second)',
			'slot print_timing: id  0 | task 6 | draft acceptance = 0.86029 (  -117 accepted /   136 generated), mean len =  1.87',
		]);
		const r = request(ev);
		expect(r.generatedTokens).toBeUndefined();
		expect(r.decodedTokens).toBeUndefined();
		expect(r.decodeMs).toBe(5211.49);
		expect(r.accepted).toBeUndefined();
		expect(r.drafted).toBe(136);
		expect(reasons(ev)).toEqual(['eval tokens=99999999999 is beyond 1e9', 'accepted=-117 is negative']);
	});

	it('vLLM negative throughput and SGLang negative accept len', () => {
		const v = parse('vllm', ['(APIServer pid=1) INFO 05-07 04:56:17 [loggers.py:271] Engine 000: Avg prompt throughput: 2.5 tokens/s, Avg generation throughput: -123.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 17.5%, Prefix cache hit rate: 0.0%']);
		const stats = v.find(e => e.type === 'interval-stats') as Record<string, unknown>;
		expect(stats.genTps).toBeUndefined();
		expect(stats.promptTps).toBe(2.5);
		expect(reasons(v)).toEqual(['Avg generation throughput=-123.8 is negative']);
		const s = parse('sglang', ['[2026-05-07 04:56:17] Decode batch, #running-req: 1, #token: 20800, token usage: 0.29, accept len: -2.50, gen throughput (token/s): 88.10, #queue-req: 0']);
		const d = s.find(e => e.type === 'interval-stats') as Record<string, unknown>;
		expect(d.meanAcceptLen).toBeUndefined();
		expect(d.genTps).toBe(88.1);
		expect(reasons(s)).toEqual(['accept len=-2.50 is negative']);
	});

	it('the shipped samples hold no inconsistent line', () => {
		const dir = fileURLToPath(new URL('../../samples/', import.meta.url));
		const engines: Record<string, EngineKind> = {'llama-server.log': 'llamacpp', 'ollama-gguf.log': 'ollama', 'ollama-mlx.log': 'ollama', 'vllm.log': 'vllm', 'sglang.log': 'sglang', 'mlxlm.log': 'mlxlm', 'lithos.log': 'lithos'};
		for (const [file, engine] of Object.entries(engines)) {
			const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(l => l.length > 0);
			expect({file, reasons: reasons(parse(engine, lines))}).toEqual({file, reasons: []});
		}
	});
});

describe('API readers (pollers): an absurd number is unknown', () => {
	it('/api/ps size 1e308 and size_vram -5: sizes, PROCESSOR and residency unknown', () => {
		const models = ollamaPsModels({models: [{name: 'qwen3:8b', size: 1e308, size_vram: -5, context_length: -4096, details: {format: 'gguf'}}]});
		expect(models).toHaveLength(1);
		expect(models![0]!.sizeBytes).toBeUndefined();
		expect(models![0]!.sizeVramBytes).toBeUndefined();
		expect(models![0]!.gpuResidency).toBeUndefined();
		expect(models![0]!.processor).toBeUndefined();
		expect(models![0]!.contextLength).toBeUndefined();
	});

	it('llama-server meta.size -1 and n_ctx 1e308; /v1/models max_model_len 1e12', () => {
		const [m] = llamaServerModels({total_slots: 1e308, default_generation_settings: {n_ctx: 1e308}}, [], {data: [{id: 'm', meta: {size: -1, n_params: 8e9}}]})!;
		expect(m!.modelBytes).toBeUndefined();
		expect(m!.parameterCount).toBe(8e9);
		expect(m!.contextPerSlot).toBeUndefined();
		expect(m!.slots).toBeUndefined();
		const [o] = openAiModels({data: [{id: 'x', max_model_len: 1e12}]})!;
		expect(o!.contextLength).toBeUndefined();
	});
});

describe('API answers with impossible numbers are counted per server', () => {
	it('readAnswer collects the problems of one answer', () => {
		const r = readAnswer(() => ollamaPsModels({models: [{name: 'a', size: -5, size_vram: 1e308}]}));
		expect(r.problems).toEqual(['size=-5 is negative', 'size_vram=1e+308 is beyond 1e15']);
		expect(r.value![0]!.sizeBytes).toBeUndefined();
		expect(readAnswer(() => ollamaPsModels({models: [{name: 'a', size: 5, size_vram: 5}]})).problems).toEqual([]);
	});

	it('a scripted Ollama whose /api/ps says size -5: the poll says why, the store counts it, snapshot shows it', async () => {
		const server = await startServer({
			'GET /api/ps': (_q, res) => res.end(JSON.stringify({models: [{name: 'qwen3:8b', size: -5, size_vram: 4_000_000_000, details: {format: 'gguf'}}]})),
			'GET /api/version': (_q, res) => res.end('{"version":"0.33.0"}'),
		});
		try {
			const r = await pollServer('ollama', {url: server.url, timeoutMs: 5000, checkIdentity: true});
			expect(r).toMatchObject({ok: true, inconsistent: 'size=-5 is negative'});
			const store = createStore({host: 'h', demo: false});
			const id = server.url;
			store.dispatch({type: 'server-seen', t: 1, server: {id, engine: 'ollama', url: server.url, source: 'flag'}});
			const poller = createPoller({server: {id, engine: 'ollama', url: server.url, source: 'flag'}, dispatch: a => store.dispatch(a), intervalMs: 3_600_000});
			await poller.pollNow();
			await poller.pollNow();
			await poller.stop();
			const s = store.getSnapshot().servers[id]!;
			expect(s.answersInconsistent).toBe(2);
			expect(s.models[0]!.sizeBytes).toBeUndefined();
			expect(s.models[0]!.gpuResidency).toBeUndefined();
			const snap = toSnapshot(store.getSnapshot(), 'test');
			expect(snap.servers[0]).toMatchObject({answersInconsistent: 2, lastInconsistent: 'size=-5 is negative'});
		} finally {
			await server.close();
		}
	});
});

describe('snapshot --json counts inconsistent lines per log', () => {
	it('linesInconsistent is exact; the impossible figures are null; the log pane carries the reason', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-numbers-'));
		try {
			const log = path.join(dir, 'ollama.log');
			fs.writeFileSync(log, [
				`${HIT} total=5321 matched=5120 cached=-1500 left=201`,
				`${SLOG} iterations=-5 drafted=458 accepted=287 acceptance=0.63`,
				`${HIT} total=5321 matched=5120 cached=5120 left=201`,
				`${SLOG} iterations=225 drafted=458 accepted=287 acceptance=0.63`,
			].join('\n') + '\n');
			let out = '';
			const stdout = new Writable({write(chunk, _e, done) { out += String(chunk); done(); }});
			const config = mergeConfig(DEFAULTS, {}, {logs: [`ollama=${log}`], demo: false, history: '/dev/null'});
			expect(await runSnapshot({config, scan: false, system: false, json: true, seconds: 0.5, stdout})).toBe(0);
			const snap = JSON.parse(out) as {servers: {log: {linesParsed: number; linesUnparsed: number; linesInconsistent: number}}[]; requests: {passes: number | null; cachedTokens: number | null; tokensPerPass: number | null}[]};
			expect(snap.servers[0]!.log).toMatchObject({linesParsed: 4, linesUnparsed: 0, linesInconsistent: 2});
			expect(snap.requests).toHaveLength(2);
			const [bad, good] = snap.requests;
			expect(bad!.passes).toBeNull();
			expect(bad!.cachedTokens).toBeNull();
			expect(bad!.tokensPerPass).toBeNull();
			expect(good!.passes).toBe(225);
			expect(good!.cachedTokens).toBe(5120);
			expect(good!.tokensPerPass).toBe(Math.round((512 / 225) * 1e4) / 1e4);
			for (const r of snap.requests) for (const v of Object.values(r)) if (typeof v === 'number') expect(v).toBeGreaterThanOrEqual(0);
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	});
});
