/**
 * llama.cpp eras and the v2 captures (issue 12 §2). Lines come from the real b10587 captures
 * (shared/fixtures/llama.cpp v2-*, copied to test/fixtures/engines/llama.cpp) or are built from the
 * format strings of tools/server/server-context.cpp (@ 3f545be = b10573 lineage, and @ decaf508b^ =
 * b10423 for the pre-b10424 timing convention).
 */
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser, decodedFromEval, eraOfEval} from '../../source/engines/llamacpp.js';
import {requestFigures} from '../../source/model/figures.js';
import {fixture, one, readLines, requests, run} from '../helpers/engines.js';

interface Truth {
	requests: {request: string; timings: {prompt_n: number; cache_n: number; predicted_n: number; predicted_per_second: number}; usage: {prompt_tokens: number}; log_task_id: number}[];
}
const truth = (name: string): Truth => JSON.parse(readFileSync(fixture(`llama.cpp/${name}`), 'utf8')) as Truth;

describe('llama.cpp default verbosity, partial prompt-cache reuse (v2 capture, b10587)', () => {
	const t = truth('v2-partial-reuse.truth.json');
	const p = createLlamaCppParser();
	const all = new Map<string, ReturnType<typeof requests> extends Map<string, infer V> ? V : never>();
	for (const n of [1, 2, 3, 4]) {
		const {events, unparsed} = run(p, readLines(fixture(`llama.cpp/v2-partial-reuse-req${n}.log`)));
		expect(unparsed).toEqual([]);
		for (const [k, v] of requests(events)) all.set(k, v);
	}

	it('the evaluated count is the prefill, never the prompt', () => {
		for (const r of t.requests) {
			const got = all.get(`s0/t${r.log_task_id}`)!;
			expect(got.prefillTokens).toBe(r.timings.prompt_n);
		}
	});

	it('requests 1-3: prompt and cached worked out from `stop processing: n_tokens` (marked ~), equal to the server\'s own usage', () => {
		for (const r of t.requests.slice(0, 3)) {
			const got = all.get(`s0/t${r.log_task_id}`)!;
			expect(got.promptTokens).toBe(r.usage.prompt_tokens);
			expect(got.cachedTokens).toBe(r.timings.cache_n);
			expect(got.promptEstimated).toBe(true);
			const f = requestFigures(got);
			expect(f.promptEstimated).toBe(true);
			expect(f.promptTokens).toBe(r.usage.prompt_tokens);
		}
	});

	it('request 4 (full reuse): the W lines state both counts, no estimate', () => {
		const r = t.requests[3]!;
		const got = all.get(`s0/t${r.log_task_id}`)!;
		expect([got.promptTokens, got.cachedTokens, got.promptEstimated]).toEqual([1559, 1558, undefined]);
		expect(r.timings.cache_n).toBe(1558);
	});

	it('an estimate that disagrees with f_sim_best is not made (prompt stays unknown)', () => {
		const q = createLlamaCppParser();
		const {events} = run(q, [
			'0.08.335.760 I slot get_availabl: id  0 | task -1 | selected slot by LCP similarity, f_sim_best = 0.500 (> 0.100 thold), f_keep = 0.963',
			'0.08.335.887 I slot launch_slot_: id  0 | task 33 | processing task, is_child = 0',
			'0.09.432.728 I slot print_timing: id  0 | task 33 | prompt eval time =     319.87 ms /    38 tokens (    8.42 ms per token,   118.80 tokens per second)',
			'0.09.432.733 I slot print_timing: id  0 | task 33 |        eval time =     776.78 ms /    32 tokens (   25.06 ms per token,    39.91 tokens per second)',
			'0.09.432.968 I slot      release: id  0 | task 33 | stop processing: n_tokens = 1600, truncated = 0',
		]);
		const r = requests(events).get('s0/t33')!;
		expect([r.promptTokens, r.cachedTokens, r.promptEstimated]).toEqual([undefined, undefined, undefined]);
		expect(requestFigures(r).promptTokens).toBeUndefined();
	});
});

describe('llama.cpp -lv 4, the same requests (v2 capture): counts stated, never estimated', () => {
	const t = truth('v2-partial-reuse-lv4.truth.json');
	it('prompt = task.n_tokens, cached = cached n_tokens', () => {
		const p = createLlamaCppParser();
		for (const [i, r] of t.requests.entries()) {
			const {events} = run(p, readLines(fixture(`llama.cpp/v2-partial-reuse-lv4-req${i + 1}.log`)));
			const got = requests(events).get(`s0/t${r.log_task_id}`)!;
			expect(got.promptTokens).toBe(r.usage.prompt_tokens);
			expect(got.cachedTokens).toBe(r.timings.cache_n);
			expect(got.promptEstimated).toBeUndefined();
		}
	});
});

describe('llama.cpp two slots speculating at once (v2 capture)', () => {
	it('each slot keeps its own figures; the estimate holds with drafts too', () => {
		const t = JSON.parse(readFileSync(fixture('llama.cpp/v2-spec-2slots.truth.json'), 'utf8')) as {requests: {id_slot: number; log_task_id: number; tokens_evaluated: number; timings: {prompt_n: number; cache_n: number; predicted_n: number; draft_n: number; draft_n_accepted: number; predicted_per_second: number}}[]};
		const {events, unparsed} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/v2-spec-2slots.log')));
		expect(unparsed).toEqual([]);
		const reqs = requests(events);
		for (const r of t.requests) {
			const got = reqs.get(`s${r.id_slot}/t${r.log_task_id}`)!;
			expect(got).toMatchObject({prefillTokens: r.timings.prompt_n, generatedTokens: r.timings.predicted_n, decodedTokens: r.timings.predicted_n - 1, drafted: r.timings.draft_n, accepted: r.timings.draft_n_accepted, promptTokens: r.tokens_evaluated, cachedTokens: 0, promptEstimated: true, done: true});
			expect(requestFigures(got).decodeTps).toBeCloseTo(r.timings.predicted_per_second, 1);
		}
	});
});

describe('llama.cpp failed and cancelled requests', () => {
	it('send_error (errors.log, b10587): a failed request with its message, no figures', () => {
		const {events} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/errors.log')));
		const r = requests(events).get('s1/t979')!;
		expect(r).toMatchObject({outcome: 'error', done: true});
		expect(r.error).toBe('request (3002 tokens) exceeds the available context size (1024 tokens), try increasing it');
		expect(r.promptTokens).toBeUndefined();
		expect(requestFigures(r)).toEqual({});
	});

	it('client closed mid-stream (v2-cancel-req.log): cancelled, n_tokens at stop is not turned into a prompt', () => {
		const p = createLlamaCppParser();
		const {events} = run(p, readLines(fixture('llama.cpp/v2-cancel-req.log')));
		const r = requests(events).get('s0/t0')!;
		expect(r).toMatchObject({outcome: 'cancelled', done: true});
		expect([r.promptTokens, r.cachedTokens, r.promptEstimated]).toEqual([undefined, undefined, undefined]);
		// The request after it is an ordinary one (cache_n 1: the BOS token only).
		const after = JSON.parse(readFileSync(fixture('llama.cpp/v2-cancel.truth.json'), 'utf8')) as {after: {tokens_cached: number; timings: {prompt_n: number; cache_n: number; predicted_n: number}; log_task_id: number}};
		const next = requests(run(p, readLines(fixture('llama.cpp/v2-cancel-after.log'))).events).get(`s0/t${after.after.log_task_id}`)!;
		expect(next.outcome).toBeUndefined();
		expect([next.prefillTokens, next.cachedTokens, next.promptTokens]).toEqual([after.after.timings.prompt_n, after.after.timings.cache_n, after.after.timings.prompt_n + after.after.timings.cache_n]);
	});

	it('a cancel after a request closed normally changes nothing', () => {
		const p = createLlamaCppParser();
		const {events} = run(p, [
			'0.01.160.120 I slot launch_slot_: id  0 | task 3 | processing task, is_child = 0',
			'0.01.200.000 I slot print_timing: id  0 | task 3 | prompt eval time =      32.18 ms /    10 tokens (    3.22 ms per token,   310.79 tokens per second)',
			'0.01.300.000 I slot print_timing: id  0 | task 3 |        eval time =     349.55 ms /    32 tokens (   11.28 ms per token,    88.68 tokens per second)',
			'0.01.300.100 I slot      release: id  0 | task 3 | stop processing: n_tokens = 42, truncated = 0',
			'0.01.300.200 W srv          stop: cancel task, id_task = 3',
		]);
		expect(requests(events).get('s0/t3')!.outcome).toBeUndefined();
	});

	it('bind error (v2-bind-error.stderr.log): no request at all', () => {
		const {events} = run(createLlamaCppParser(), readLines(fixture('llama.cpp/v2-bind-error.stderr.log')));
		expect(events.filter(e => e.type === 'request')).toEqual([]);
	});
});

describe('llama.cpp eval timing convention: before and after b10424', () => {
	// server-context.cpp @ decaf508b^ (b10423): "       eval time = %10.2f ms / %5d tokens (%8.2f ms per token, %8.2f tokens per second)\n"
	// with t_token_generation from n_decoded == 1 and 1e3 / t_token_generation * n_decoded.
	const PRE = 'slot print_timing: id  0 | task 7 |        eval time =    2296.72 ms /   256 tokens (    8.97 ms per token,   111.46 tokens per second)';
	// b10424+ (server-common.h n_gen_steps = n_gen − 1), captured b10587 (v2-partial-reuse-req2.log).
	const POST = '0.09.432.733 I slot print_timing: id  0 | task 33 |        eval time =     776.78 ms /    32 tokens (   25.06 ms per token,    39.91 tokens per second)';

	it('both eras time n − 1 decode steps: decoded = n − 1, decode rate over n − 1', () => {
		const pre = requests(run(createLlamaCppParser(), [PRE]).events).get('s0/t7')!;
		expect([pre.generatedTokens, pre.decodedTokens, pre.engineTps]).toEqual([256, 255, 111.46]);
		expect(requestFigures(pre).decodeTps!.toFixed(2)).toBe('111.03');
		expect(requestFigures(pre).passes).toBe(255);
		const post = requests(run(createLlamaCppParser(), [POST]).events).get('s0/t33')!;
		expect([post.generatedTokens, post.decodedTokens]).toEqual([32, 31]);
		expect(requestFigures(post).decodeTps!.toFixed(2)).toBe('39.91');
	});

	it('the era is read from the line itself', () => {
		expect(eraOfEval(256, 2296.72, 111.46, 8.97)).toBe('pre-b10424');
		expect(eraOfEval(32, 776.78, 39.91, 25.06)).toBe('b10424+');
		expect(eraOfEval(1, 10, 100, 10)).toBeUndefined();
		expect(decodedFromEval(1)).toBe(0);
		expect(decodedFromEval(0)).toBe(0);
	});

	it('pre-b9232 multi-line block with `draft acceptance rate` (b4747 examples/server format): passes over n − 1', () => {
		const {events} = run(createLlamaCppParser(), [
			'slot print_timing: id  0 | task 0 | ',
			'prompt eval time =     123.45 ms /    57 tokens (    2.17 ms per token,   461.72 tokens per second)',
			'       eval time =    1234.56 ms /   200 tokens (    6.17 ms per token,   162.00 tokens per second)',
			'      total time =    1358.01 ms /   257 tokens',
			'draft acceptance rate = 0.81250 (  130 accepted /   160 generated)',
		]);
		const r = requests(events).get('s0/t0')!;
		expect(r.decodedTokens).toBe(199);
		expect(requestFigures(r).passes).toBe(69);
	});
});

describe('llama.cpp router-mode child prefix (b10587)', () => {
	it('send_error in a child names that child\'s task', () => {
		const p = createLlamaCppParser();
		one(p, '[64126] 0.22.157.988 I slot launch_slot_: id  1 | task 979 | processing task, is_child = 0');
		expect(one(p, '[64126] 0.22.160.413 E srv    send_error: task id = 979, error: boom')).toEqual([{type: 'request', key: '64126:s1/t979', outcome: 'error', error: 'boom'}]);
		expect(one(p, '0.22.160.413 E srv    send_error: task id = 979, error: boom')).toEqual([]);
	});
});
