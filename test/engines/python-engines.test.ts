import {describe, expect, it} from 'vitest';
import {createLithosParser, parsePythonDict} from '../../source/engines/lithos.js';
import {createMlxLmParser} from '../../source/engines/mlxlm.js';
import {createSglangParser} from '../../source/engines/sglang.js';
import {createVllmParser} from '../../source/engines/vllm.js';
import {requestFigures} from '../../source/model/figures.js';
import {one, run} from '../helpers/engines.js';

describe('vLLM (engines.md §4)', () => {
	it('captured club-3090 #93 lines', () => {
		const p = createVllmParser();
		expect(one(p, '(APIServer pid=1) INFO 05-07 04:56:17 [loggers.py:271] Engine 000: Avg prompt throughput: 2.5 tokens/s, Avg generation throughput: 123.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 17.5%, Prefix cache hit rate: 0.0%'))
			.toEqual([{type: 'interval-stats', promptTps: 2.5, genTps: 123.8, running: 1, waiting: 0, kvUsage: 0.175, prefixHitRate: 0}]);
		expect(one(p, '(APIServer pid=1) INFO 05-07 04:56:17 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.63, Accepted throughput: 76.80 tokens/s, Drafted throughput: 235.49 tokens/s, Accepted: 768 tokens, Drafted: 2355 tokens, Per-position acceptance rate: 0.726, 0.467, 0.240, 0.134, 0.064, Avg Draft acceptance rate: 32.6%'))
			.toEqual([{type: 'interval-stats', meanAcceptLen: 2.63, accepted: 768, drafted: 2355, acceptRate: expect.closeTo(0.326, 9)}]);
		expect(one(p, '(APIServer pid=1) INFO:     172.31.0.1:37016 - "POST /v1/chat/completions HTTP/1.1" 200 OK'))
			.toEqual([{type: 'http', client: '172.31.0.1', method: 'POST', path: '/v1/chat/completions', status: 200}]);
	});

	it('older stats/spec forms', () => {
		const p = createVllmParser();
		expect(one(p, 'INFO 08-15 10:00:00 [metrics.py:100] Avg prompt throughput: 871.4 tokens/s, Avg generation throughput: 88.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.2%, CPU KV cache usage: 0.0%.'))
			.toEqual([{type: 'interval-stats', promptTps: 871.4, genTps: 88.1, running: 1, waiting: 0, kvUsage: 0.002}]);
		expect(one(p, 'INFO 04-10 10:00:00 [metrics.py:80] SpecDecoding metrics: Draft acceptance rate: 64.2%, Accepted: 642 tokens, Drafted: 1000 tokens'))
			.toEqual([{type: 'interval-stats', accepted: 642, drafted: 1000, acceptRate: expect.closeTo(0.642, 9)}]);
		expect(one(p, 'INFO 05-10 10:00:00 [metrics.py:80] SpecDecoding metrics: Draft acceptance rate: 50.0%, Mean acceptance length: 2.50, Accepted: 300 tokens, Drafted: 600 tokens, Per-position acceptance rate: 0.700, 0.300'))
			.toEqual([{type: 'interval-stats', meanAcceptLen: 2.5, accepted: 300, drafted: 600, acceptRate: 0.5}]);
		// vLLM ≤ 0.6 logger.py `_FORMAT = "%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s"` (no opening bracket).
		expect(one(p, 'INFO 10-20 10:00:00 metrics.py:400] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3'))
			.toEqual([{type: 'interval-stats', acceptRate: 0.642}]);
		expect(one(p, 'INFO 10-20 10:00:00 [metrics.py:400] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3'))
			.toEqual([{type: 'interval-stats', acceptRate: 0.642}]);
		expect(one(p, '(APIServer pid=1) INFO 05-07 04:56:27 [loggers.py:271] 2 Engines Aggregated: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 240.0 tokens/s, Running: 2 reqs, Waiting: 1 reqs, Deferred: 0 reqs, Preemptions: 0, GPU KV cache usage: 20.0%, Prefix cache hit rate: 50.0%, External prefix cache hit rate: 10.0%'))
			.toEqual([{type: 'interval-stats', promptTps: 0, genTps: 240, running: 2, waiting: 1, preemptions: 0, kvUsage: 0.2, prefixHitRate: 0.5}]);
		expect(one(p, '(EngineCore_DP0 pid=7) INFO 05-07 04:50:00 [core.py:100] something else')).toEqual([]);
		expect(one(p, 'random text')).toBeNull();
	});
});

describe('SGLang (engines.md §5)', () => {
	it('captured decode lines, both separators', () => {
		const p = createSglangParser();
		expect(one(p, '[2026-04-08 14:05:21 TP0] Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0'))
			.toEqual([{type: 'interval-stats', genTps: 144.95, running: 5, waiting: 0, kvUsage: 0.29}]);
		expect(one(p, '[2025-02-27 04:46:39 TP0] Decode batch. #running-req: 8, #token: 62531, token usage: 0.12, gen throughput (token/s): 186.64, #queue-req: 0'))
			.toEqual([{type: 'interval-stats', genTps: 186.64, running: 8, waiting: 0, kvUsage: 0.12}]);
	});

	it('accept len (reconstructed from the format string) and prefill with #cached-token', () => {
		const p = createSglangParser();
		expect(one(p, '[2026-04-05 20:02:51] Decode batch, #running-req: 1, #token: 4200, token usage: 0.05, accept len: 3.42, accept rate: 0.61, cuda graph: True, gen throughput (token/s): 160.20, #queue-req: 0, '))
			.toEqual([{type: 'interval-stats', genTps: 160.2, running: 1, waiting: 0, kvUsage: 0.05, meanAcceptLen: 3.42, acceptRate: 0.61}]);
		expect(one(p, '[2026-04-05 20:02:50 TP0] Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, token usage: 0.08, #running-req: 31, #queue-req: 0, cuda graph: True, input throughput (token/s): 559.53'))
			.toEqual([{type: 'interval-stats', promptTps: 559.53, running: 31, waiting: 0, kvUsage: 0.08, prefixHitRate: 0, cachedTokens: 0, newTokens: 158}]);
		expect(one(p, '[2025-01-10 10:00:00 TP0] Prefill batch. #new-seq: 1, #new-token: 100, #cached-token: 300, cache hit rate: 75.00%, token usage: 0.01, #running-req: 0, #queue-req: 0'))
			.toEqual([{type: 'interval-stats', running: 0, waiting: 0, kvUsage: 0.01, prefixHitRate: 0.75, cachedTokens: 300, newTokens: 100}]);
		expect(one(p, '[2026-04-08 14:06:00 TP0] Decode batch, #running-req: 2, #full token: 9000, full token usage: 0.12, #swa token: 3000, swa token usage: 0.30, cuda graph: True, gen throughput (token/s): 99.00, #queue-req: 1'))
			.toEqual([{type: 'interval-stats', genTps: 99, running: 2, waiting: 1, kvUsage: 0.12}]);
		expect(one(p, 'INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK')).toEqual([{type: 'http', client: '127.0.0.1', method: 'POST', path: '/generate', status: 200}]);
	});
});

describe('mlx-lm (engines.md §3)', () => {
	it('reconstructed lines', () => {
		const p = createMlxLmParser();
		// mlx_lm/server.py @ d78bf58: `Prompt Cache:` opens a request (see mlxlm.test.ts).
		expect(one(p, '2026-08-21 18:48:22,123 - INFO - Prompt Cache: 3 sequences, 1.42 GB')).toEqual([{type: 'request', key: 'mlxlm#1', started: true}]);
		expect(one(p, '2026-08-21 18:48:22,124 - INFO - - KVCache: 3 sequences, 1.42 GB')).toEqual([]);
		expect(one(p, '2026-08-21 18:48:22,530 - INFO - Prompt processing progress: 2048/5321'))
			.toEqual([{type: 'prefill-progress', key: 'mlxlm#1', processed: 2048, total: 5321, progress: 2048 / 5321}]);
		expect(one(p, '127.0.0.1 - - [21/Aug/2026 18:48:30] "POST /v1/chat/completions HTTP/1.1" 200 -'))
			.toEqual([{type: 'http', client: '127.0.0.1', method: 'POST', path: '/v1/chat/completions', status: 200}, {type: 'request', key: 'mlxlm#1', done: true, client: '127.0.0.1'}]);
		expect(one(p, 'Starting httpd at 127.0.0.1 on port 8080...')).toEqual([{type: 'server-start', listen: '127.0.0.1:8080'}]);
	});
});

describe('lithos-metal (engines.md §7)', () => {
	it('Generation dict → finished request with passes = steps', () => {
		const p = createLithosParser();
		expect(one(p, 'INFO:monolith.serve:lithos-metal ready: http://127.0.0.1:8000 — model=nvidia/Qwen3.8-27B-NVFP4; DSpark=LithosAI/Qwen3.8-27B-DSpark-NVFP4; verification rows=8')).toEqual([
			{type: 'server-start', listen: 'http://127.0.0.1:8000'},
			{type: 'model-loaded', model: 'nvidia/Qwen3.8-27B-NVFP4'},
			{type: 'spec-init', kind: 'dspark', detail: 'LithosAI/Qwen3.8-27B-DSpark-NVFP4 (verification rows 8)'},
		]);
		const ev = one(p, "INFO:monolith.serve:Generation: {'steps': 37, 'decode_gpu_ms': 612.4, 'wall_ms': 1580.2, 'prefill_gpu_ms': 301.7, 'prefill_wall_ms': 355.0, 'state_reset_ms': 0.4, 'checkpoint_ms': 12.1, 'setup_ms': 0.0, 'first_text_ms': 402.3, 'cached_prompt_tokens': 14993, 'prefill_encode_ms': 3.2, 'prefill_commit_ms': 0.8, 'prefill_wait_ms': 340.1, 'verify_tokens': 8, 'decode_step_ms': 16.55}");
		expect(ev).toEqual([{type: 'request', key: 'lithos#1', model: 'nvidia/Qwen3.8-27B-NVFP4', started: true, done: true, passes: 37, cachedTokens: 14993, decodeMs: 612.4, prefillMs: 355, wallMs: 1580.2}]);
		// No token count in the log: tokens per pass stays unknown, ms per pass is known.
		const f = requestFigures(ev![0] as never);
		expect(f.tokensPerPass).toBeUndefined();
		expect(f.msPerPass!.toFixed(2)).toBe('16.55');
		expect(one(p, 'INFO:     127.0.0.1:52345 - "POST /v1/chat/completions HTTP/1.1" 200 OK')).toEqual([
			{type: 'http', client: '127.0.0.1', method: 'POST', path: '/v1/chat/completions', status: 200},
			// uvicorn logs the response after the Generation line: the request's client (agent view).
			{type: 'request', key: 'lithos#1', client: '127.0.0.1'},
		]);
	});

	it('429 model_busy → busy', () => {
		const p = createLithosParser();
		expect(one(p, 'INFO:     127.0.0.1:52346 - "POST /v1/chat/completions HTTP/1.1" 429 Too Many Requests')).toEqual([
			{type: 'http', client: '127.0.0.1', method: 'POST', path: '/v1/chat/completions', status: 429},
			{type: 'busy', status: 429, reason: 'model_busy', client: '127.0.0.1'},
		]);
		expect(parsePythonDict("{'a': None, 'b': 'it\\'s', 'c': True}")).toEqual({a: null, b: "it's", c: true});
		expect(parsePythonDict('{broken')).toBeUndefined();
	});
});

describe('lithos-metal 0.1.2 warmups and DSpark=disabled (monolith/serve.py main(): warmup, then the ready line, then uvicorn)', () => {
	const READY_ON = 'INFO:monolith.serve:lithos-metal ready: http://127.0.0.1:8000 — model=nvidia/Qwen3.8-27B-NVFP4; DSpark=LithosAI/Qwen3.8-27B-DSpark-NVFP4; verification rows=8';
	const READY_OFF = 'INFO:monolith.serve:lithos-metal ready: http://127.0.0.1:8000 — model=nvidia/Qwen3.8-27B-NVFP4; DSpark=disabled; verification rows=1';
	const gen = (steps: number, verify: number) => `INFO:monolith.serve:Generation: {'steps': ${steps}, 'decode_gpu_ms': 500.0, 'wall_ms': 900.0, 'prefill_wall_ms': 100.0, 'cached_prompt_tokens': 0, 'verify_tokens': ${verify}}`;

	it('Generations before ready are warmups, not requests', () => {
		const {events} = run(createLithosParser(), [gen(4, 8), gen(4, 8), READY_ON, 'INFO:     Started server process [4242]', gen(37, 8), 'INFO:     127.0.0.1:52345 - "POST /v1/chat/completions HTTP/1.1" 200 OK']);
		const reqs = events.filter(e => e.type === 'request');
		// The Generation, then its access line's client (the agent view's sessions): one request.
		expect(reqs).toHaveLength(2);
		expect(reqs[0]).toMatchObject({key: 'lithos#3', passes: 37});
		expect(reqs[1]).toEqual({type: 'request', key: 'lithos#3', client: '127.0.0.1'});
		expect(events).toContainEqual({type: 'spec-init', kind: 'dspark', detail: 'LithosAI/Qwen3.8-27B-DSpark-NVFP4 (verification rows 8)'});
	});

	it('a tail that began after ready: the first uvicorn line shows it is serving, earlier Generations are requests', () => {
		const {events} = run(createLithosParser(), [gen(37, 8), 'INFO:     127.0.0.1:52345 - "POST /v1/chat/completions HTTP/1.1" 200 OK']);
		expect(events.filter(e => e.type === 'request')).toHaveLength(1);
	});

	it('DSpark=disabled: no speculation, one token per step (decode rate known)', () => {
		const {events} = run(createLithosParser(), [READY_OFF, gen(120, 1)]);
		expect(events.some(e => e.type === 'spec-init')).toBe(false);
		const r = events.find(e => e.type === 'request')!;
		expect(r).toMatchObject({passes: 120, decodedTokens: 120, decodeMs: 500});
		const f = requestFigures(r as never);
		expect([f.tokensPerPass, f.decodeTps]).toEqual([1, 240]);
	});
});

describe('vLLM ≤ 0.6 `Speculative metrics` with its counts (issue 30)', () => {
	// vllm/engine/metrics.py `_format_spec_decode_metrics_str` (0.6.3, as vllm-project/vllm#9539 quotes
	// it) and vllm/spec_decode/metrics.py: running totals since start; draft ÷ k = passes.
	const line = (accepted: number, draft: number, emitted: number, k = 3) =>
		`INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: ${(accepted / draft).toFixed(3)}, System efficiency: ${(emitted / ((draft / k) * (k + 1))).toFixed(3)}, Number of speculative tokens: ${k}, Number of accepted tokens: ${accepted}, Number of draft tokens: ${draft}, Number of emitted tokens: ${emitted}.`;

	it('first line: its totals (10616 emitted over 13311 / 3 = 4437 passes → 2.39 per pass); next: the window between the two', () => {
		const p = createVllmParser();
		expect(one(p, line(8547, 13311, 10616))).toEqual([{type: 'interval-stats', meanAcceptLen: 10616 / 4437, accepted: 8547, drafted: 13311, acceptRate: 8547 / 13311}]);
		// +390 accepted, +600 drafted (200 passes), +500 emitted → 2.5 per pass, 0.65 accepted.
		expect(one(p, line(8937, 13911, 11116))).toEqual([{type: 'interval-stats', meanAcceptLen: 2.5, accepted: 390, drafted: 600, acceptRate: 0.65}]);
		// No new drafts in the window: nothing to say (not 0, not the old figure).
		expect(one(p, line(8937, 13911, 11116))).toEqual([]);
	});

	it('the early form ("Number of draft tokens tokens", vllm/engine/metrics.py @ 00c33e81b) reads the same', () => {
		const p = createVllmParser();
		expect(one(p, 'INFO 05-20 10:00:00 metrics.py:300] Speculative metrics: Draft acceptance rate: 0.500, System efficiency: 0.500, Number of speculative tokens: 4, Number of accepted tokens: 200, Number of draft tokens tokens: 400, Number of emitted tokens tokens: 250.'))
			.toEqual([{type: 'interval-stats', meanAcceptLen: 2.5, accepted: 200, drafted: 400, acceptRate: 0.5}]);
	});

	it('accepted above drafted is inconsistent, never a figure', () => {
		const p = createVllmParser();
		expect(one(p, line(500, 300, 400))).toEqual([{type: 'inconsistent', reason: 'accepted 500 above drafted 300'}]);
	});
});
