/**
 * oMLX log lines, built from the upstream format strings (jundot/omlx: logging_config.py 8d20731,
 * cli.py + server.py v0.3.5, scheduler.py 010c769, engine_pool.py 003dad6), and its API answers.
 */
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {createParser, detectEngine, engineOf, engineProcessKind} from '../../source/engines/index.js';
import {createOmlxParser, isOmlxHealth, isOmlxServer, omlxLogLocations, omlxStatus, omlxStatusModels} from '../../source/engines/omlx.js';
import {sanitize} from '../../source/util/sanitize.js';
import {one, requests, run} from '../helpers/engines.js';
import path from 'node:path';

const sample = (name: string): string[] =>
	readFileSync(fileURLToPath(new URL(`../../samples/${name}`, import.meta.url)), 'utf8').split('\n').filter(l => l.length > 0);

const ID = '0f6c2a8e-5b1d-4e7a-9c33-81d2f04b6a19';

describe('oMLX log lines', () => {
	it('server.log format (with [request_id]) and the service log format (without) both parse', () => {
		const p = createOmlxParser();
		expect(one(p, '2026-04-16 10:02:15,877 - omlx.engine_pool - INFO - [-] - Loaded model: Qwen3-8B-4bit (actual: 4.58GB, local estimate: 4.71GB, full model: 4.71GB, total: 4.71GB)'))
			.toEqual([{type: 'model-loaded', model: 'Qwen3-8B-4bit'}]);
		expect(one(p, '2026-04-16 09:13:06,771 - omlx.engine_pool - INFO - Loaded model: Qwen3-8B-4bit (actual: 4.58GB, local estimate: 4.71GB, full model: 4.71GB, total: 5.90GB)'))
			.toEqual([{type: 'model-loaded', model: 'Qwen3-8B-4bit'}]);
		expect(one(p, '2026-04-16 09:12:03,481 - omlx.server - INFO - CORS origins: [\'*\']')).toEqual([]);
		expect(one(p, 'something else entirely')).toBeNull();
		expect(one(p, '2026-04-16 09:12:03 - omlx.server - INFO - no milliseconds')).toBeNull();
	});

	it('a non-streaming request: completion tokens only (its tok/s includes prefill, so it is no decode rate)', () => {
		const p = createOmlxParser();
		expect(one(p, '2026-04-16 09:13:11,935 - omlx.server - INFO - Chat completion: 187 tokens in 4.92s (38.0 tok/s)'))
			.toEqual([{type: 'request', key: 'omlx#1', started: true, done: true, generatedTokens: 187}]);
		expect(one(p, '2026-04-16 09:14:05,229 - omlx.server - INFO - Completion: 256 tokens in 5.88s (43.5 tok/s)'))
			.toEqual([{type: 'request', key: 'omlx#2', started: true, done: true, generatedTokens: 256}]);
	});

	it('scheduler debug lines: prompt, cached prefix, finish; the server line for the same request is not counted again', () => {
		const p = createOmlxParser();
		const lines = [
			`2026-04-16 10:02:40,300 - omlx.scheduler - DEBUG - [-] - Request ${ID}: paged cache hit, 1792 tokens in 7 blocks, 309 tokens remaining, cache reconstructed`,
			`2026-04-16 10:02:40,301 - omlx.scheduler - DEBUG - [-] - Added request ${ID} with 2101 prompt tokens`,
			`2026-04-16 10:02:40,303 - omlx.scheduler - DEBUG - [-] - Scheduled request ${ID} (uid=1) with 309 tokens to process (2101 total), 1792 cached, with cache`,
			`2026-04-16 10:02:43,118 - omlx.scheduler - DEBUG - [-] - Request ${ID} finished: stop, 96 tokens`,
			'2026-04-16 10:02:43,121 - omlx.server - INFO - [-] - Chat completion: 96 tokens in 2.82s (34.0 tok/s)',
		];
		const {events, unparsed} = run(p, lines);
		expect(unparsed).toEqual([]);
		const reqs = requests(events);
		expect([...reqs.keys()]).toEqual([`omlx/${ID}`]);
		expect(reqs.get(`omlx/${ID}`)).toEqual({key: `omlx/${ID}`, cachedTokens: 1792, prefillTokens: 309, started: true, promptTokens: 2101, generatedTokens: 96, done: true});
	});

	it('partial hits, and "no cache" says 0 cached (the count is printed only when above 0)', () => {
		const p = createOmlxParser();
		expect(one(p, `2026-04-16 10:03:05,770 - omlx.scheduler - DEBUG - [-] - Request ${ID}: partial cache hit, 1536 tokens in 6 blocks (originally 2048 tokens), 700 tokens remaining`))
			.toEqual([{type: 'request', key: `omlx/${ID}`, cachedTokens: 1536, prefillTokens: 700}]);
		expect(one(p, `2026-04-16 10:02:16,012 - omlx.scheduler - DEBUG - [-] - Scheduled request ${ID} (uid=0) with 1843 tokens to process (1843 total), no cache`))
			.toEqual([{type: 'request', key: `omlx/${ID}`, promptTokens: 1843, cachedTokens: 0}]);
		// cached > total contradicts itself: the counts are dropped, never shown.
		expect(one(p, `2026-04-16 10:02:16,012 - omlx.scheduler - DEBUG - [-] - Scheduled request ${ID} (uid=0) with 1 tokens to process (10 total), 99 cached, with cache`))
			.toEqual([{type: 'request', key: `omlx/${ID}`}]);
	});

	it('engine pool: LRU eviction, prefill-headroom eviction, TTL unload, unload, DFlash', () => {
		const p = createOmlxParser();
		expect(one(p, "2026-04-16 10:05:00,118 - omlx.engine_pool - INFO - [-] - Evicting 'Qwen3-8B-4bit' to fit 'gemma-3-27b-it-4bit' under the admission soft target (21.93GB > 21.60GB)"))
			.toEqual([{type: 'model-unloaded', model: 'Qwen3-8B-4bit', reason: 'evicted', by: 'gemma-3-27b-it-4bit'}]);
		expect(one(p, "2026-04-16 10:05:00,118 - omlx.engine_pool - INFO - [-] - Evicting idle model 'Qwen3-8B-4bit' for prefill headroom on 'gemma-3-27b-it-4bit' (request=abc, projected=30.00GB > target=28.00GB)"))
			.toEqual([{type: 'model-unloaded', model: 'Qwen3-8B-4bit', reason: 'evicted', by: 'gemma-3-27b-it-4bit'}]);
		expect(one(p, "2026-04-16 10:31:00,004 - omlx.engine_pool - INFO - [-] - TTL expired for model 'gemma-3-27b-it-4bit' (idle 1500s > ttl 1500s)"))
			.toEqual([{type: 'model-unloaded', model: 'gemma-3-27b-it-4bit', reason: 'ttl'}]);
		expect(one(p, '2026-04-16 10:31:01,377 - omlx.engine_pool - INFO - [-] - Unloaded model: gemma-3-27b-it-4bit, freed=16.71GB (expected>=16.44GB), active_memory: 0.29GB (settled)'))
			.toEqual([{type: 'model-unloaded', model: 'gemma-3-27b-it-4bit', reason: 'unloaded'}]);
		expect(one(p, '2026-04-16 10:05:00,950 - omlx.engine_pool - INFO - [-] - DFlash enabled for gemma-3-27b-it-4bit, draft=/m/gemma-3-dflash-draft'))
			.toEqual([{type: 'spec-init', kind: 'dflash', detail: 'gemma-3-27b-it-4bit, draft /m/gemma-3-dflash-draft'}]);
	});

	it('service log: banner (ANSI stripped), start line, uvicorn lines', () => {
		const p = createOmlxParser();
		expect(one(p, '\x1b[33m└─ Version: 0.3.5\x1b[0m')).toEqual([{type: 'server-start', version: '0.3.5'}]);
		expect(one(p, '\x1b[33moMLX - LLM inference, optimized for your Mac\x1b[0m')).toEqual([]);
		expect(one(p, 'Starting server at http://127.0.0.1:8000')).toEqual([{type: 'server-start', listen: 'http://127.0.0.1:8000'}]);
		expect(one(p, 'INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)')).toEqual([{type: 'server-start', listen: 'http://127.0.0.1:8000'}]);
		expect(one(p, 'INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
			.toEqual([{type: 'http', client: '127.0.0.1', method: 'POST', path: '/v1/chat/completions', status: 200}]);
	});

	it('DFlash: tokens over verify passes (cycles); the model only while exactly one has DFlash on', () => {
		const p = createOmlxParser();
		const done = '2026-04-16 10:05:31,660 - omlx.engine.dflash - INFO - [-] - DFlash generation complete: 412 tokens, 61.3 tok/s, acceptance=78.4%, cycles=97';
		expect(one(p, done)).toEqual([{type: 'request', key: 'omlx#1', started: true, done: true, generatedTokens: 412, passes: 97}]);
		one(p, '2026-04-16 10:05:00,950 - omlx.engine_pool - INFO - [-] - DFlash enabled for gemma-3-27b-it-4bit, draft=/m/d');
		expect(one(p, done)).toEqual([{type: 'request', key: 'omlx#2', model: 'gemma-3-27b-it-4bit', started: true, done: true, generatedTokens: 412, passes: 97}]);
		one(p, '2026-04-16 10:05:00,950 - omlx.engine_pool - INFO - [-] - DFlash enabled for qwen3-32b, draft=/m/e');
		expect(one(p, done)).toMatchObject([{key: 'omlx#3', passes: 97}]);
		expect((one(p, done)![0] as {model?: string}).model).toBeUndefined();
		one(p, "2026-04-16 10:31:00,004 - omlx.engine_pool - INFO - [-] - TTL expired for model 'qwen3-32b' (idle 1500s > ttl 1500s)");
		expect(one(p, done)).toMatchObject([{model: 'gemma-3-27b-it-4bit'}]);
		expect(one(p, '2026-04-16 10:05:31,660 - omlx.engine.dflash - INFO - [-] - DFlash generation complete: 30 tokens, 20.0 tok/s, acceptance=0.0%, cycles=30, fallback=AR'))
			.toMatchObject([{generatedTokens: 30, passes: 30}]);
		expect(one(p, '2026-04-16 10:05:14,398 - omlx.engine.dflash - INFO - [-] - DFlashEngine loaded: target=/m/gemma, draft=/m/d, max_ctx=4096, fallback=vlm'))
			.toEqual([{type: 'spec-init', kind: 'dflash', detail: 'target /m/gemma, draft /m/d'}]);
	});

	it('numbers that are not counts are dropped', () => {
		const p = createOmlxParser();
		expect(one(p, `2026-04-16 10:02:16,010 - omlx.scheduler - DEBUG - [-] - Added request ${ID} with 99999999999999999999 prompt tokens`))
			.toEqual([{type: 'request', key: `omlx/${ID}`, started: true}]);
	});
});

describe('oMLX samples', () => {
	for (const file of ['omlx-service.log', 'omlx-server.log']) {
		it(`${file} is detected as omlx and every line is understood`, () => {
			const lines = sample(file);
			expect(detectEngine(lines.slice(0, 20).map(l => sanitize(l)))).toBe('omlx');
			const {events, unparsed} = run(createParser('omlx'), lines);
			expect(unparsed).toEqual([]);
			expect(events.length).toBeGreaterThan(0);
		});
	}

	it('omlx-server.log: three requests with their cached prefixes, one DFlash request, one eviction, one TTL unload', () => {
		const {events} = run(createParser('omlx'), sample('omlx-server.log'));
		const reqs = [...requests(events).values()];
		expect(reqs.map(r => [r.promptTokens, r.cachedTokens, r.generatedTokens, r.passes, r.done])).toEqual([
			[1843, 0, 212, undefined, true],
			[2101, 1792, 96, undefined, true],
			[2236, 1536, 300, undefined, true],
			[undefined, undefined, 412, 97, true],
		]);
		expect(reqs[3]!.model).toBe('gemma-3-27b-it-4bit');
		expect(events.filter(e => e.type === 'model-unloaded').map(e => e.type === 'model-unloaded' && [e.model, e.reason])).toEqual([
			['Qwen3-8B-4bit', 'evicted'],
			['Qwen3-8B-4bit', 'unloaded'],
			['gemma-3-27b-it-4bit', 'ttl'],
			['gemma-3-27b-it-4bit', 'unloaded'],
		]);
	});

	it('omlx-service.log: three non-streaming requests, version 0.3.5', () => {
		const {events} = run(createParser('omlx'), sample('omlx-service.log'));
		expect([...requests(events).values()].map(r => r.generatedTokens)).toEqual([187, 64, 256]);
		expect(events.find(e => e.type === 'server-start' && e.version !== undefined)).toEqual({type: 'server-start', version: '0.3.5'});
	});

	it('the mlx-lm and vLLM signatures do not take an oMLX log', () => {
		expect(detectEngine(['2026-04-16 09:12:03,481 - omlx.server - INFO - CORS origins: [\'*\']', 'INFO:     Started server process [4242]', 'INFO:     Application startup complete.'])).toBe('omlx');
	});
});

describe('oMLX answers (server.py v0.3.5, engine_pool get_status)', () => {
	const status = {
		final_ceiling: 0, current_model_memory: 4917845606, model_count: 2, loaded_count: 1,
		models: [
			{id: 'Qwen3-8B-4bit', model_path: '/Users/demo/.omlx/models/Qwen3-8B-4bit', loaded: true, is_loading: false, estimated_size: 5057323008, actual_size: 4917845606, pinned: false, engine_type: 'batched', model_type: 'llm', model_context_length: 40960, max_context_window: 32768, max_tokens: 32768},
			{id: 'Qwen3-Embedding-0.6B', model_path: '/Users/demo/.omlx/models/Qwen3-Embedding-0.6B', loaded: false, is_loading: false, estimated_size: 1277752934, actual_size: null, pinned: true, engine_type: 'embedding', model_type: 'embedding', model_context_length: null, max_context_window: 32768, max_tokens: 32768},
		],
	};

	it('/v1/models/status: loaded and pinned models; size is the measured size of a loaded model, never the estimate', () => {
		expect(omlxStatusModels(status)).toEqual([
			{name: 'Qwen3-8B-4bit', loaded: true, pinned: false, sizeBytes: 4917845606, contextLength: 32768, modelPath: '/Users/demo/.omlx/models/Qwen3-8B-4bit'},
			{name: 'Qwen3-Embedding-0.6B', loaded: false, pinned: true, contextLength: 32768, modelPath: '/Users/demo/.omlx/models/Qwen3-Embedding-0.6B'},
		]);
		expect(omlxStatusModels({models: [{id: 'x', loaded: true, actual_size: -5}]})).toEqual([{name: 'x', loaded: true}]);
		expect(omlxStatusModels({detail: 'API key required'})).toBeUndefined();
	});

	it('/api/status: running and waiting requests, pool memory and its limit (null = none)', () => {
		expect(omlxStatus({status: 'ok', version: '0.3.5', uptime_seconds: 812.4, models_discovered: 2, models_loaded: 1, models_loading: 0, default_model: 'Qwen3-8B-4bit', loaded_models: ['Qwen3-8B-4bit'], total_requests: 14, active_requests: 3, waiting_requests: 1, model_memory_used: 4917845606, model_memory_max: null}))
			.toEqual({version: '0.3.5', uptimeSeconds: 812.4, running: 3, waiting: 1, loadedModels: ['Qwen3-8B-4bit'], modelMemoryBytes: 4917845606, modelMemoryLimitBytes: null});
		expect(omlxStatus({status: 'ok', active_requests: -1, waiting_requests: 1.5, model_memory_max: 34359738368})).toEqual({modelMemoryLimitBytes: 34359738368});
		expect(omlxStatus({status: 'healthy'})).toBeUndefined();
	});

	it('the poll plan reads both answers; a restart is the uptime going back', () => {
		const read = engineOf('omlx').poll.read({json: {'/v1/models/status': status, '/api/status': {status: 'ok', version: '0.3.5', uptime_seconds: 12}}});
		expect(read.version).toBe('0.3.5');
		expect(read.marker).toEqual({version: '0.3.5', counters: {uptime: 12}});
		expect(read.models?.map(m => m.name)).toEqual(['Qwen3-8B-4bit', 'Qwen3-Embedding-0.6B']);
	});

	it('/health shape', () => {
		expect(isOmlxHealth({status: 'healthy', default_model: 'Qwen3-8B-4bit', engine_pool: {model_count: 2, loaded_count: 1, max_model_memory: null, current_model_memory: 0}, mcp: null})).toBe(true);
		expect(isOmlxHealth({status: 'healthy'})).toBe(false);
		expect(isOmlxHealth({status: 'ok', default_model: null, engine_pool: {model_count: 1, loaded_count: 1, current_model_memory: 0}})).toBe(false);
	});
});

describe('oMLX on this machine', () => {
	it('process: `omlx serve` is the server; other omlx commands and the word alone are not', () => {
		const cmd = '/opt/homebrew/Cellar/omlx/0.3.5/libexec/bin/python3.11 /opt/homebrew/bin/omlx serve --port 8000';
		expect(engineProcessKind('Python', cmd)).toBe('omlx');
		expect(isOmlxServer('Python', cmd)).toBe(true);
		expect(engineProcessKind('python3', 'python3 -m omlx.cli serve')).toBe('omlx');
		expect(engineProcessKind('Python', '/opt/homebrew/bin/omlx launch codex')).toBeUndefined();
		expect(engineProcessKind('vim', 'vim notes-about-omlx-serve.md')).toBeUndefined();
	});

	it('log locations: the server log under the base path, the Homebrew service log; macOS only', () => {
		const ctx = {platform: 'darwin' as const, env: {}, homedir: '/Users/demo', join: path.posix.join};
		expect(omlxLogLocations(ctx).map(l => l.path)).toEqual(['/Users/demo/.omlx/logs/server.log', '/opt/homebrew/var/log/omlx.log', '/usr/local/var/log/omlx.log']);
		expect(omlxLogLocations({...ctx, env: {OMLX_BASE_PATH: '/Volumes/fast/omlx'}})[0]!.path).toBe('/Volumes/fast/omlx/logs/server.log');
		expect(omlxLogLocations({...ctx, platform: 'linux'})).toEqual([]);
	});

	it('descriptor: port 8000, unified memory, OpenAI probe', () => {
		const d = engineOf('omlx');
		expect(d.defaultPorts).toEqual([8000]);
		expect(d.unifiedMemory).toBe(true);
		expect(d.probe.map(s => s.path)).toEqual(['/v1/chat/completions', '/v1/completions', '/api/generate']);
	});
});

describe('oMLX through the rest of infertop', () => {
	it('the reducer: a log line that a model left memory does not override what the status API says (it may be old)', async () => {
		const {applyEvent, newServer} = await import('../../source/model/reducer.js');
		const s0 = {...newServer({id: 'omlx@127.0.0.1:8000', engine: 'omlx', url: 'http://127.0.0.1:8000', source: 'port-scan'}, 1), models: [{name: 'a', loaded: true}]};
		const s1 = applyEvent(s0, 2, {type: 'model-unloaded', model: 'a', reason: 'ttl'});
		expect(s1.models).toBe(s0.models);
		// Kept only as the agent view's reload cause (issue 28).
		expect(s1.signals).toEqual([{kind: 'unloaded', model: 'a', reason: 'ttl', evidence: 'a unloaded: idle TTL ran out', t: 2}]);
	});

	it('the probe: oMLX usage (server.py v0.3.5) gives cached tokens and the reported rate', async () => {
		const {createSseParser} = await import('../../source/probe/protocols.js');
		const p = createSseParser();
		const chunk = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
		p.feed(chunk({id: 'chatcmpl-1a2b3c4d', object: 'chat.completion.chunk', model: 'Qwen3-8B-4bit', choices: [{index: 0, delta: {content: 'Hi'}}]}));
		p.feed(chunk({id: 'chatcmpl-1a2b3c4d', object: 'chat.completion.chunk', model: 'Qwen3-8B-4bit', choices: [],
			usage: {prompt_tokens: 2101, completion_tokens: 96, total_tokens: 2197, cached_tokens: 1792, time_to_first_token: 0.41, total_time: 2.82, prompt_eval_duration: 0.41, generation_duration: 2.41, prompt_tokens_per_second: 5124.39, generation_tokens_per_second: 39.83}}));
		p.feed('data: [DONE]\n\n');
		expect(p.counts).toMatchObject({promptTokens: 2101, completionTokens: 96, cachedTokens: 1792, reportedTps: 39.83});
		const q = createSseParser();
		q.feed(chunk({choices: [], usage: {prompt_tokens: 5, completion_tokens: 2, cached_tokens: -3, generation_tokens_per_second: 0}}));
		expect(q.counts.cachedTokens).toBeUndefined();
		expect(q.counts.reportedTps).toBeUndefined();
	});
});

describe('oMLX residency', () => {
	it('unified memory for a loaded model; none for a listed model that is not loaded', async () => {
		const {initialState, reduce} = await import('../../source/model/reducer.js');
		const {deriveServer} = await import('../../source/model/derive.js');
		let state = reduce(initialState(), {type: 'server-seen', t: 1, server: {id: 's', engine: 'omlx', url: 'http://s', source: 'flag'}});
		state = reduce(state, {type: 'server-models', t: 2, serverId: 's', models: [{name: 'a', loaded: true}, {name: 'b', loaded: false, pinned: true}]});
		expect(deriveServer(state, 's').map(f => [f.model, f.gpuResidency, f.processor])).toEqual([
			['a', 1, '100% GPU (unified)'],
			['b', undefined, undefined],
		]);
	});
});
