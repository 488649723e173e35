import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {bufferDevice} from '../../source/engines/answers.js';
import {createLlamaCppParser, decodedFromEval, timestampLength} from '../../source/engines/llamacpp.js';
import {requestFigures} from '../../source/model/figures.js';
import type {RequestPatch} from '../../source/types/events.js';
import {fixture, one, readLines, requests, run} from '../helpers/engines.js';

interface Timings {
	cache_n: number;
	prompt_n: number;
	prompt_ms: number;
	predicted_n: number;
	predicted_ms: number;
	predicted_per_second: number;
	draft_n?: number;
	draft_n_accepted?: number;
}
const timings = JSON.parse(readFileSync(fixture('llama.cpp/timings.json'), 'utf8')) as Record<string, Timings>;

// Each real log with the capture holding the same request's timings JSON.
const PAIRS: Array<[string, string]> = [
	['chat-stream-repeat.log', 'chat-stream-repeat.sse'],
	['chat-stream-usage-timings.log', 'chat-stream-usage-timings.sse'],
	['chat-stream.log', 'chat-stream.sse'],
	['chat.log', 'chat.json'],
	['completion-long.log', 'completion-long.sse'],
	['completion-stream-repeat.log', 'completion-stream-repeat.sse'],
	['completion-stream.log', 'completion-stream.sse'],
	['completion.log', 'completion.json'],
	['spec-chat-stream.log', 'spec-chat-stream.sse'],
	['spec-chat.log', 'spec-chat.json'],
	['spec-completion-stream.log', 'spec-completion-stream.sse'],
	['spec-tinydraft-completion-stream.log', 'spec-tinydraft-completion-stream.sse'],
	['spec-trace-completion-stream.log', 'spec-trace-completion-stream.sse'],
	['tiny-chat-stream.log', 'tiny-chat-stream.sse'],
	['tiny-completion-stream.log', 'tiny-completion-stream.sse'],
	['verbose-chat-stream.log', 'verbose-chat-stream.sse'],
];

const TIMING_LINE = /(?:eval time|total time|graphs reused|draft acceptance|acc per pos|statistics|n_gen =|n_decoded =)/;

function expectMatchesTimings(r: RequestPatch, t: Timings): void {
	expect(r.prefillTokens).toBe(t.prompt_n);
	expect(r.prefillMs).toBeCloseTo(t.prompt_ms, 1);
	expect(r.generatedTokens).toBe(t.predicted_n);
	expect(r.decodeMs).toBeCloseTo(t.predicted_ms, 1);
	expect(r.drafted).toBe(t.draft_n);
	expect(r.accepted).toBe(t.draft_n_accepted);
	if (r.cachedTokens !== undefined) expect(r.cachedTokens).toBe(t.cache_n);
	// b10587 prints t/s over n_gen − 1 decode steps.
	expect(r.decodedTokens).toBe(t.predicted_n - 1);
	const f = requestFigures(r);
	expect(f.decodeTps).toBeCloseTo(t.predicted_per_second, 1);
	if (t.draft_n !== undefined) {
		expect(f.acceptance).toBeCloseTo(t.draft_n_accepted! / t.draft_n, 6);
		expect(f.passes).toBe(t.predicted_n - 1 - t.draft_n_accepted!);
	}
}

describe('llama.cpp parser on the real llama-server captures', () => {
	for (const [log, cap] of PAIRS) {
		it(`${log}: no timing line left unparsed, figures equal ${cap} timings`, () => {
			const lines = readLines(fixture(`llama.cpp/${log}`));
			const {events, unparsed} = run(createLlamaCppParser(), lines);
			expect(unparsed.filter(l => TIMING_LINE.test(l))).toEqual([]);
			const reqs = [...requests(events).values()].filter(r => r.generatedTokens !== undefined);
			expect(reqs).toHaveLength(1);
			const r = reqs[0]!;
			expectMatchesTimings(r, timings[cap]!);
			expect(r.done).toBe(true);
			expect(r.started).toBe(true);
		});
	}

	it('interleaved slots (overload.log, -np 2) never mix figures', () => {
		const {events, unparsed} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/overload.log')));
		expect(unparsed).toEqual([]);
		const reqs = requests(events);
		expect([...reqs.keys()].sort()).toEqual(['s0/t782', 's0/t784', 's1/t780', 's1/t783']);
		const byMs = new Map(Object.entries(timings).filter(([k]) => k.startsWith('overload-')).map(([, t]) => [t.predicted_ms.toFixed(2), t]));
		for (const r of reqs.values()) {
			const t = byMs.get((r.decodeMs!).toFixed(2));
			expect(t, `timings for ${r.key}`).toBeDefined();
			expectMatchesTimings(r, t!);
			expect(r.done).toBe(true);
		}
	});

	it('trace-level log: cached prefix and prompt size come from the cache lines', () => {
		const {events} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/spec-trace-completion-stream.log')));
		const r = requests(events).get('s1/t1')!;
		expect(r).toMatchObject({promptTokens: 12, cachedTokens: 0, prefillTokens: 12, generatedTokens: 128, decodedTokens: 127, decodeMs: 2888.32, engineTps: 43.97, accepted: 99, drafted: 221, engineMeanLen: 4.54});
		// DESIGN §1: 127 decoded, 99 accepted → 28 passes, 4.54 tokens per pass.
		const f = requestFigures(r);
		expect(f.passes).toBe(28);
		expect(f.tokensPerPass!.toFixed(2)).toBe('4.54');
	});

	it('cache reuse at default verbosity: `n_past was set to 39` is the cached prefix', () => {
		const {events} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/chat-stream-repeat.log')));
		const r = requests(events).get('s1/t67')!;
		expect(r.cachedTokens).toBe(timings['chat-stream-repeat.sse']!.cache_n);
		expect(r.promptTokens).toBe(40);
	});

	it('log format variants parse the same request', () => {
		for (const f of ['log-colors-on.stderr.log', 'log-noprefix-notimestamps.stderr.log', 'log-prefix-only.stderr.log']) {
			const {events} = run(createLlamaCppParser(), readLines(fixture(`llama.cpp/${f}`)));
			const reqs = [...requests(events).values()].filter(r => r.generatedTokens !== undefined);
			expect(reqs, f).toHaveLength(1);
			expect(reqs[0]!.generatedTokens).toBe(16);
			expect(events.some(e => e.type === 'server-start')).toBe(true);
		}
	});

	it('startup: slots, context, listening, draft model', () => {
		const {events} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/spec-trace-startup.stderr.log')));
		expect(events).toContainEqual({type: 'context', slots: 2, nCtxPerSlot: 1024});
		expect(events).toContainEqual({type: 'context', nCtx: 2048});
		expect(events).toContainEqual({type: 'context', nCtxPerSlot: 1024});
		expect(events).toContainEqual({type: 'buffer', device: 'CPU', kind: 'model', mib: 170.6, onGpu: false});
		expect(events).toContainEqual({type: 'spec-init', kind: 'draft-model', detail: 'models/big-random-llama-draft-2L-1024d-q8_0.gguf'});
		expect(events).toContainEqual({type: 'server-start', listen: 'http://127.0.0.1:18080'});
		expect(events).toContainEqual({type: 'model-loaded', model: 'models/big-random-llama-8L-1024d-q8_0.gguf'});
	});

	it('live rate from the long generation', () => {
		const {events} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/completion-long.log')));
		const live = events.filter(e => e.type === 'live-rate');
		expect(live.length).toBeGreaterThan(0);
		expect(live[0]).toMatchObject({type: 'live-rate', generated: expect.any(Number), tps: expect.any(Number), tps3s: expect.any(Number)});
	});
});

describe('llama.cpp engines.md example lines', () => {
	it('b9232+ print_timing block (PR #24536), before b10424: n printed over n − 1 timed steps', () => {
		const p = createLlamaCppParser();
		expect(one(p, '0.06.895.980 I slot print_timing: id  1 | task 0 | prompt eval time =     300.11 ms /    20 tokens (   15.01 ms per token,    66.64 tokens per second)'))
			.toEqual([{type: 'request', key: 's1/t0', slot: 1, task: 0, prefillMs: 300.11, prefillTokens: 20}]);
		expect(one(p, '0.06.895.998 I slot print_timing: id  1 | task 0 |        eval time =    2296.72 ms /   256 tokens (    8.97 ms per token,   111.46 tokens per second)'))
			.toEqual([{type: 'request', key: 's1/t0', slot: 1, task: 0, generatedTokens: 256, decodedTokens: 255, decodeMs: 2296.72, engineTps: 111.46}]);
		expect(one(p, '0.06.895.999 I slot print_timing: id  1 | task 0 |       total time =    2596.83 ms /   276 tokens')).toEqual([]);
		expect(one(p, '0.06.896.009 I slot print_timing: id  1 | task 0 |    graphs reused =         85')).toEqual([]);
		expect(one(p, '0.06.896.015 I slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)'))
			.toEqual([{type: 'request', key: 's1/t0', slot: 1, task: 0, accepted: 167, drafted: 259, engineMeanLen: 2.92}]);
		expect(one(p, '0.06.896.057 I statistics     draft-eagle3: #calls(b,g,a) =    1     87     87, #gen drafts =     87, #acc drafts =    70, #gen tokens =    259, #acc tokens =   167, #mean acc len = 2.92, #acc rate/pos = (0.805, 0.632, 0.483), dur(b,g,a) = 0.005, 325.555, 0.114 ms')).toEqual([]);
	});

	it('pre-b9232 multi-line timings remember slot/task from the empty header', () => {
		const p = createLlamaCppParser();
		const lines = [
			'slot print_timing: id  0 | task 0 | ',
			'prompt eval time =     123.45 ms /    57 tokens (    2.17 ms per token,   461.72 tokens per second)',
			'       eval time =    1234.56 ms /   200 tokens (    6.17 ms per token,   162.00 tokens per second)',
			'      total time =    1358.01 ms /   257 tokens',
			'draft acceptance rate = 0.81250 (  130 accepted /   160 generated)',
		];
		const {events, unparsed} = run(p, lines);
		expect(unparsed).toEqual([]);
		expect(requests(events).get('s0/t0')).toEqual({key: 's0/t0', slot: 0, task: 0, prefillMs: 123.45, prefillTokens: 57, generatedTokens: 200, decodedTokens: 199, decodeMs: 1234.56, engineTps: 162, accepted: 130, drafted: 160});
	});

	it('draft acceptance: router child prefix and all four eras', () => {
		const p = createLlamaCppParser();
		expect(one(p, '[64126] 1.46.429.747 I slot print_timing: id  0 | task 70 | draft acceptance = 0.78616 (  250 accepted /   318 generated), mean len =  2.57'))
			.toEqual([{type: 'request', key: '64126:s0/t70', slot: 0, task: 70, accepted: 250, drafted: 318, engineMeanLen: 2.57}]);
		expect(one(p, 'slot print_timing: id  2 | task 9 | draft acceptance = 0.50000 (   10 accepted /    20 generated)'))
			.toEqual([{type: 'request', key: 's2/t9', slot: 2, task: 9, accepted: 10, drafted: 20}]);
		expect(one(p, 'slot print_timing: id  0 | task 1 |      acc per pos = (0.786, 0.679)')).toEqual([]);
	});

	it('DESIGN §1 vector: 47 decoded, 38 accepted → 9 passes, 5.22 while llama.cpp prints 5.75', () => {
		const p = createLlamaCppParser();
		// b10424+: 48 tokens printed, t/s over 47 steps.
		const {events} = run(p, [
			'slot print_timing: id  0 | task 5 |        eval time =    1000.00 ms /    48 tokens (   21.28 ms per token,    47.00 tokens per second)',
			'slot print_timing: id  0 | task 5 | draft acceptance = 0.80851 (   38 accepted /    47 generated), mean len =  5.75',
		]);
		const r = requests(events).get('s0/t5')!;
		expect(r.decodedTokens).toBe(47);
		const f = requestFigures(r);
		expect(f.passes).toBe(9);
		expect(f.tokensPerPass!.toFixed(2)).toBe('5.22');
		expect(f.engineMeanLen).toBe(5.75);
	});

	it('live generation speed, all eras', () => {
		const p = createLlamaCppParser();
		expect(one(p, '1.33.700.364 I slot print_timing: id  0 | task 0 | n_gen =    100, tg =  21.82 t/s, tg_3s =  22.04 t/s'))
			.toEqual([{type: 'live-rate', key: 's0/t0', generated: 100, tps: 21.82, tps3s: 22.04}]);
		expect(one(p, 'slot print_timing: id  0 | task 3 | n_decoded =    200, tg =  30.00 t/s'))
			.toEqual([{type: 'live-rate', key: 's0/t3', generated: 200, tps: 30}]);
	});

	it('prompt processing progress, all forms', () => {
		const p = createLlamaCppParser();
		expect(one(p, 'slot print_timing: id  0 | task 0 | prompt processing, n_tokens =   1536, progress = 0.10, t =   3.42 s / 448.61 tokens per second'))
			.toEqual([{type: 'prefill-progress', key: 's0/t0', processed: 1536, progress: 0.1, tps: 448.61}]);
		expect(one(p, 'slot update_slots: id  0 | task 4 | prompt processing progress, n_tokens = 2048, batch.n_tokens = 2048, progress = 0.137552'))
			.toEqual([{type: 'prefill-progress', key: 's0/t4', processed: 2048, progress: 0.137552}]);
		expect(one(p, 'slot update_slots: id  0 | task 4 | prompt processing progress, n_past = 512, n_tokens = 512, progress = 0.5'))
			.toEqual([{type: 'prefill-progress', key: 's0/t4', processed: 512, progress: 0.5}]);
		expect(one(p, 'slot update_slots: id  0 | task 4 | prompt processing done, n_tokens = 14892, batch.n_tokens = 300'))
			.toEqual([{type: 'prefill-progress', key: 's0/t4', processed: 14892, progress: 1}]);
	});

	it('Ollama-era request lines (ollama #18123) and cache forms', () => {
		const p = createLlamaCppParser();
		expect(one(p, 'slot launch_slot_: id  0 | task 0 | processing task, is_child = 0')).toEqual([{type: 'request', key: 's0/t0', slot: 0, task: 0, started: true}]);
		expect(one(p, 'slot   operator(): id  0 | task 0 | new prompt, n_ctx_slot = 131072, n_keep = 4, task.n_tokens = 14892')).toEqual([{type: 'request', key: 's0/t0', slot: 0, task: 0, promptTokens: 14892, contextWindow: 131072}]);
		expect(one(p, 'slot   operator(): id  0 | task 0 | cached n_tokens = 0, memory_seq_rm [0, end)')).toEqual([{type: 'request', key: 's0/t0', slot: 0, task: 0, cachedTokens: 0}]);
		// Only the first cache line of a request counts.
		expect(one(p, 'slot   operator(): id  0 | task 0 | cached n_tokens = 512, memory_seq_rm [512, end)')).toEqual([]);
		expect(one(p, 'slot update_slots: id  1 | task 7 | n_past = 33, memory_seq_rm [33, end)')).toEqual([{type: 'request', key: 's1/t7', slot: 1, task: 7, cachedTokens: 33}]);
		expect(one(p, 'slot update_slots: id  1 | task 8 | kv cache rm [12, end)')).toEqual([{type: 'request', key: 's1/t8', slot: 1, task: 8, cachedTokens: 12}]);
		expect(one(p, '[64126] 2.17.677.124 I slot get_availabl: id  0 | task -1 | selected slot by LCP similarity, f_sim_best = 0.973 (> 0.100 thold), f_keep = 0.973')).toEqual([]);
		expect(one(p, 'slot      release: id  0 | task 0 | stop processing: n_tokens = 15000, truncated = 0')).toEqual([{type: 'request', key: 's0/t0', slot: 0, task: 0, done: true}]);
		expect(one(p, 'slot update_slots: id  3 | task 0 | accepted 3/4 draft tokens, new n_tokens = 702')).toEqual([]);
	});

	it('offload, buffer (Ollama llama_server_test fixtures) and context lines', () => {
		const p = createLlamaCppParser();
		expect(one(p, 'load_tensors: offloaded 48/49 layers to GPU')).toEqual([{type: 'offload', layersOnGpu: 48, layersTotal: 49}]);
		expect(one(p, 'llm_load_tensors: offloaded 33/33 layers to GPU')).toEqual([{type: 'offload', layersOnGpu: 33, layersTotal: 33}]);
		expect(one(p, 'load_tensors:        CUDA0 model buffer size = 12900.00 MiB')).toEqual([{type: 'buffer', device: 'CUDA0', kind: 'model', mib: 12900, onGpu: true}]);
		expect(one(p, 'load_tensors:   CPU_Mapped model buffer size = 13260.00 MiB')).toEqual([{type: 'buffer', device: 'CPU', kind: 'model', mib: 13260, onGpu: false}]);
		expect(one(p, 'load_tensors:  MTL0_Mapped model buffer size =  1918.35 MiB')).toEqual([{type: 'buffer', device: 'MTL0', kind: 'model', mib: 1918.35, onGpu: true}]);
		expect(one(p, 'llama_kv_cache:      CUDA0 KV buffer size =  2000.00 MiB')).toEqual([{type: 'buffer', device: 'CUDA0', kind: 'KV', mib: 2000, onGpu: true}]);
		expect(one(p, 'llama_memory_recurrent:      CUDA0 RS buffer size =    20.00 MiB')).toEqual([{type: 'buffer', device: 'CUDA0', kind: 'RS', mib: 20, onGpu: true}]);
		expect(one(p, 'sched_reserve:      CUDA0 compute buffer size =   300.00 MiB')).toEqual([{type: 'buffer', device: 'CUDA0', kind: 'compute', mib: 300, onGpu: true}]);
		expect(one(p, 'sched_reserve:  CUDA_Host compute buffer size =   400.00 MiB')).toEqual([{type: 'buffer', device: 'CUDA_Host', kind: 'compute', mib: 400, onGpu: false}]);
		expect(one(p, 'llama_context: n_seq_max             = 4')).toEqual([{type: 'context', slots: 4}]);
		expect(one(p, 'llama_context: n_ctx                 = 16384')).toEqual([{type: 'context', nCtx: 16384}]);
		expect(one(p, 'llama_context: n_ctx_seq             = 4096')).toEqual([{type: 'context', nCtxPerSlot: 4096}]);
		expect(one(p, 'llama_new_context_with_model: n_ctx_per_seq = 4096')).toEqual([{type: 'context', nCtxPerSlot: 4096}]);
		expect(one(p, 'llama_context: n_ctx_seq (1024) < n_ctx_train (4096) -- the full capacity of the model will not be utilized')).toEqual([]);
		expect(one(p, 'load_tensors: offloading 32 repeating layers to GPU')).toEqual([]);
		expect(bufferDevice('BLAS')).toEqual({device: 'BLAS', onGpu: false});
		expect(bufferDevice('CUDA0_REPACK')).toEqual({device: 'CUDA0', onGpu: true});
		expect(bufferDevice('Metal_Private')).toEqual({device: 'Metal', onGpu: true});
	});

	it('startup, slots, request log lines and spec init', () => {
		const p = createLlamaCppParser();
		expect(one(p, '0.08.526.749 I srv  llama_server: listening on http://127.0.0.1:8080')).toEqual([{type: 'server-start', listen: 'http://127.0.0.1:8080'}]);
		expect(one(p, 'srv    load_model: initializing slots, n_slots = 4')).toEqual([{type: 'context', slots: 4}]);
		expect(one(p, 'slot   load_model: id  0 | task -1 | new slot, n_ctx = 4096')).toEqual([{type: 'context', nCtxPerSlot: 4096}]);
		expect(one(p, 'main: server is listening on http://127.0.0.1:8080 - starting the main loop')).toEqual([{type: 'server-start', listen: 'http://127.0.0.1:8080'}]);
		expect(one(p, 'srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200')).toEqual([{type: 'http', method: 'POST', path: '/v1/chat/completions', client: '127.0.0.1', status: 200}]);
		expect(one(p, 'srv  log_server_r: done request: POST /v1/chat/completions 127.0.0.1 200')).toEqual([{type: 'http', method: 'POST', path: '/v1/chat/completions', client: '127.0.0.1', status: 200}]);
		expect(one(p, 'srv    load_model: creating MTP draft context against the target model \'/m/q.gguf\'')).toEqual([{type: 'spec-init', kind: 'mtp', detail: '/m/q.gguf'}]);
		expect(one(p, 'common_speculative_init_result: creating MTP draft context against the target model \'/path/model.gguf\'')).toEqual([{type: 'spec-init', kind: 'mtp', detail: '/path/model.gguf'}]);
		expect(one(p, 'common_speculative_init_result: adding speculative implementation \'draft-dspark\'')).toEqual([{type: 'spec-init', kind: 'dspark', detail: 'draft-dspark'}]);
		expect(one(p, 'common_speculative_init_result: adding speculative implementation \'draft-dflash\'')).toEqual([{type: 'spec-init', kind: 'dflash', detail: 'draft-dflash'}]);
		expect(one(p, 'spec common_specu: auto-detected speculative type \'draft-mtp\' from the draft model metadata')).toEqual([{type: 'spec-init', kind: 'mtp', detail: 'draft-mtp'}]);
	});

	it('seed 000 grep output (no id/task) still yields the acceptance counts, 4.47 per pass', () => {
		const p = createLlamaCppParser();
		expect(one(p, 'slot print_timing: draft acceptance = 0.86695 ( 2906 accepted / 3352 generated), mean len = 4.47'))
			.toEqual([{type: 'request', key: 's?/t?', accepted: 2906, drafted: 3352, engineMeanLen: 4.47}]);
	});

	it('cache/checkpoint/proxy lines are understood and carry no figure', () => {
		const p = createLlamaCppParser();
		for (const l of [
			'slot update_slots: id  0 | task 12 | reusing chunk with size 128, shifting KV cache [300, 428) -> [200, 328)',
			'slot update_slots: id  0 | task 12 | restored context checkpoint (pos_min = 0, pos_max = 4095, n_tokens = 4096, n_past = 4096, size = 62.813 MiB)',
			'slot update_slots: id  0 | task 12 | forcing full prompt re-processing due to lack of cache data (likely due to SWA or hybrid/recurrent memory, see https://github.com/ggml-org/llama.cpp/pull/13194#issuecomment-2868343055)',
			'srv  get_availabl: updating prompt cache',
			'2.17.729.943 I srv  proxy_reques: proxying request to model qwen3.8-27B on port 64126',
			'slot get_availabl: id  0 | task -1 | selected slot by LRU, t_last = 2699656552',
			'llama_prepare_model_devices: using device CUDA0 (NVIDIA GeForce RTX 4090) (0000:01:00.0) - 23582 MiB free',
		]) expect(one(p, l), l).toEqual([]);
	});

	it('a restarted server (task ids from 0 again) never merges into the old requests', () => {
		const p = createLlamaCppParser();
		const block = (ms: string) => [
			'slot launch_slot_: id  0 | task 0 | processing task, is_child = 0',
			`slot print_timing: id  0 | task 0 |        eval time = ${ms} ms /    11 tokens (  100.00 ms per token,    10.00 tokens per second)`,
			'slot      release: id  0 | task 0 | stop processing: n_tokens = 20, truncated = 0',
		];
		const {events} = run(p, [
			...block('1000.00'),
			"srv    load_model: loading model '/m/b.gguf'",
			'srv  llama_server: listening on http://127.0.0.1:41000',
			...block('2000.00'),
			// No startup lines at all, just a reused id: still a new run.
			...block('3000.00'),
		]);
		const reqs = requests(events);
		expect([...reqs.keys()]).toEqual(['s0/t0', 'r1:s0/t0', 'r2:s0/t0']);
		expect([...reqs.values()].map(r => r.decodeMs)).toEqual([1000, 2000, 3000]);
	});

	it('timestamp prefix length', () => {
		expect(timestampLength('0.06.895.980 I slot')).toBe(13);
		expect(timestampLength('123.06.895.980 I')).toBe(15);
		expect(timestampLength('0.06.895.98 I')).toBe(0);
		expect(timestampLength('2026-08-21 18:48')).toBe(0);
		expect(timestampLength('7')).toBe(0);
	});

	it('decoded count: the first token comes from the prompt pass in every era', () => {
		expect(decodedFromEval(128)).toBe(127);
		expect(decodedFromEval(256)).toBe(255);
		expect(decodedFromEval(1)).toBe(0);
	});
});
