/**
 * vLLM and SGLang batch figures from their stats lines to the engine row, PASSES and JSON (issue 12 §2).
 * vLLM lines follow vllm/v1/metrics/loggers.py `log_parts` ("Avg prompt throughput: %.1f tokens/s",
 * "Avg generation throughput: %.1f tokens/s", "Running: %d reqs", "Waiting: %d reqs", "Preemptions: %d"
 * only when > 0, "GPU KV cache usage: %.1f%%", "Prefix cache hit rate: %.1f%%"; search-index copies of
 * 2025–2026), the V0/V1 scheduler preemption warning (`total_num_cumulative_preemption=%d`, v0.6.6
 * core/scheduler.py) and vllm/logger.py `_FORMAT` of both eras. SGLang lines follow
 * scheduler_metrics_mixin.py `Prefill batch` / `Decode batch` and scheduler.py's retraction warning.
 */
import {describe, expect, it} from 'vitest';
import {createSglangParser, parseSglangFinish} from '../../source/engines/sglang.js';
import {createVllmParser} from '../../source/engines/vllm.js';
import {deriveServer} from '../../source/model/derive.js';
import {reduce, initialState} from '../../source/model/reducer.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {engineRows} from '../../source/ui/panes/engines.js';
import {passesLines} from '../../source/ui/panes/passes.js';
import type {EngineEvent} from '../../source/types/events.js';
import type {MonitorState} from '../../source/types/state.js';
import {run} from '../helpers/engines.js';

function stateOf(engine: 'vllm' | 'sglang', events: readonly EngineEvent[]): MonitorState {
	let s = reduce(initialState({now: 1000, host: 'h'}), {type: 'server-seen', t: 1000, server: {id: 'srv', engine, url: 'http://127.0.0.1:8000', source: 'port-scan'}});
	for (const event of events) s = reduce(s, {type: 'engine-event', serverId: 'srv', t: 1001, event});
	return s;
}

const V1 = [
	'(APIServer pid=1) INFO 05-07 04:56:17 [loggers.py:271] Engine 000: Avg prompt throughput: 120.4 tokens/s, Avg generation throughput: 640.0 tokens/s, Running: 12 reqs, Waiting: 3 reqs, Preemptions: 2, GPU KV cache usage: 29.0%, Prefix cache hit rate: 45.0%',
];

describe('vLLM batch figures', () => {
	it('640 tok/s over 12 running: an aggregate, so decode per sequence is --', () => {
		const {events} = run(createVllmParser(), V1);
		const s = stateOf('vllm', events);
		const [f] = deriveServer(s, 'srv');
		expect(f!.decodeTps).toBeUndefined();
		expect(f!.msPerPass).toBeUndefined();
		expect(f!.batch).toEqual({genTps: 640, promptTps: 120.4, running: 12, waiting: 3, kvUsage: 0.29, prefixHitRate: 0.45, preemptions: 2});
		const row = engineRows(s.servers, s.order, s.now)[0]!;
		expect(row.batch).toBe('640.0 tok/s over 12 running · 3 waiting · prompt 120.4 tok/s · KV 29% · hit 45% · 2 preempted');
		expect(passesLines(f).flat().map(([a, b]) => a + b).join('')).toContain('batch 640.0 tok/s over 12 running');
		const snap = toSnapshot(s, 'test');
		expect(snap.models[0]!.batch).toEqual({genTps: 640, promptTps: 120.4, running: 12, waiting: 3, kvUsage: 0.29, prefixHitRate: 0.45, preemptions: 2, preemptedTotal: null, cachedTokens: null, newTokens: null});
		expect(snap.models[0]!.decodeTps).toBeNull();
	});

	it('one running sequence: the window rate is that sequence\'s', () => {
		const {events} = run(createVllmParser(), ['INFO 05-07 04:56:17 [loggers.py:271] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 88.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.2%, Prefix cache hit rate: 0.0%']);
		const [f] = deriveServer(stateOf('vllm', events), 'srv');
		expect(f!.decodeTps).toBe(88.1);
	});

	it('preemptions: absent before any is seen = unknown, then 0; the cumulative warning; V0 and ≤ 0.6 forms', () => {
		const p = createVllmParser();
		const line = (extra: string) => `INFO 05-07 04:56:17 [loggers.py:271] Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, ${extra}GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%`;
		expect(p.push(line(''))![0]).not.toHaveProperty('preemptions');
		expect(p.push(line('Preemptions: 4, '))![0]).toMatchObject({preemptions: 4});
		expect(p.push(line(''))![0]).toMatchObject({preemptions: 0});
		expect(p.push('WARNING 05-07 04:56:20 [scheduler.py:1190] request cmpl-1 is preempted by RECOMPUTE mode because there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more KV cache memory. total_num_cumulative_preemption=51'))
			.toEqual([{type: 'interval-stats', preemptedTotal: 51}]);
		// ≤ 0.6: no bracket before the file name; V0: Swapped/Pending.
		expect(p.push('INFO 08-15 10:00:00 metrics.py:351] Avg prompt throughput: 871.4 tokens/s, Avg generation throughput: 88.1 tokens/s, Running: 3 reqs, Swapped: 0 reqs, Pending: 2 reqs, GPU KV cache usage: 0.2%, CPU KV cache usage: 0.0%.'))
			.toEqual([{type: 'interval-stats', promptTps: 871.4, genTps: 88.1, running: 3, waiting: 2, preemptions: 0, kvUsage: 0.002}]);
	});
});

describe('SGLang batch figures', () => {
	it('#cached-token of the last prefill batch and retractions reach the engine row and JSON', () => {
		const {events} = run(createSglangParser(), [
			'[2026-04-05 20:02:50 ATTN_CP0 TP0] Prefill batch, #new-seq: 1, #new-token: 38, #cached-token: 1531, token usage: 0.08, #running-req: 4, #queue-req: 1, input throughput (token/s): 559.53',
			'[2026-04-05 20:02:51 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_tokens_gained: 646, #new_token_ratio: 0.0980 -> 0.3487',
			'[2026-04-05 20:02:51 TP0] Decode out of memory happened. #retracted_reqs: 2, #new_token_ratio: 0.3487 -> 0.5000',
			'[2026-04-05 20:02:52 TP0] Decode batch. #running-req: 4, #token: 4200, token usage: 0.05, gen throughput (token/s): 160.20, #queue-req: 0',
		]);
		const s = stateOf('sglang', events);
		const [f] = deriveServer(s, 'srv');
		expect(f!.batch).toMatchObject({cachedTokens: 1531, newTokens: 38, preemptedTotal: 3, running: 4, waiting: 0, genTps: 160.2});
		expect(f!.decodeTps).toBeUndefined();
		expect(engineRows(s.servers, s.order, s.now)[0]!.batch).toContain('1,531 cached / 38 new');
		expect(toSnapshot(s, 'test').models[0]!.batch).toMatchObject({cachedTokens: 1531, preemptedTotal: 3});
	});

	it('--log-requests Finish: one finished request from meta_info (tokenizer_manager.py)', () => {
		const {events} = run(createSglangParser(), [
			"[2026-04-05 20:03:00] Finish: obj=GenerateReqInput(rid='a1', stream=False), out={'meta_info': {'id': 'a1', 'finish_reason': {'type': 'length', 'length': 64}, 'prompt_tokens': 1569, 'completion_tokens': 64, 'cached_tokens': 1531, 'spec_verify_ct': 20, 'e2e_latency': 1.25}}",
		]);
		expect(events).toEqual([{type: 'request', key: 'sglang#1', started: true, done: true, promptTokens: 1569, generatedTokens: 64, cachedTokens: 1531, passes: 20, wallMs: 1250}]);
		expect(parseSglangFinish("Finish: obj=X(), out={'meta_info': {'finish_reason': {'type': 'abort'}, 'prompt_tokens': 5}}", 2)).toMatchObject({outcome: 'cancelled', promptTokens: 5});
	});
});

describe('the tok/s history of a batch engine', () => {
	it('samples the window rate only when one sequence runs', () => {
		const {events} = run(createVllmParser(), [
			...V1,
			'INFO 05-07 04:56:27 [loggers.py:271] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 88.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.2%, Prefix cache hit rate: 0.0%',
		]);
		const s = stateOf('vllm', events);
		expect(s.servers.srv!.history.map(h => h.decodeTps)).toEqual([88.1]);
	});
});
