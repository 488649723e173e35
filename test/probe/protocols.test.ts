import {describe, expect, it} from 'vitest';
import {
	createOllamaParser,
	createSseParser,
	crossCheck,
	protocolPlan,
	requestBody,
	type StreamParser,
	type StreamEvent,
} from '../../source/probe/protocols.js';
import {computeFigures, newClock, markToken} from '../../source/probe/timing.js';
// The engines' own answer readers, which the probe takes from their descriptors.
import {lithosDecodeSteps} from '../../source/engines/lithos.js';
import {llamaBuildNumber} from '../../source/engines/llamacpp.js';
import {fixture} from '../helpers/probe-server.js';

function feedAll(p: StreamParser, text: string, step?: number): StreamEvent[] {
	const out: StreamEvent[] = [];
	if (step === undefined) out.push(...p.feed(text));
	else for (let i = 0; i < text.length; i += step) out.push(...p.feed(text.slice(i, i + step)));
	out.push(...p.end());
	return out;
}

const tokens = (evs: StreamEvent[]): number => evs.filter((e) => e.type === 'token').length;

describe('request bodies', () => {
	it('Ollama native: num_predict, temperature 0, seed in options', () => {
		expect(requestBody('ollama', {model: 'm', prompt: 'hi', maxTokens: 256, seed: 42})).toEqual({
			model: 'm',
			prompt: 'hi',
			stream: true,
			options: {num_predict: 256, temperature: 0, seed: 42},
		});
	});
	it('OpenAI chat asks for usage in the stream', () => {
		const b = requestBody('openai-chat', {model: 'm', prompt: 'hi', maxTokens: 64, seed: 1});
		expect(b).toMatchObject({stream: true, stream_options: {include_usage: true}, max_tokens: 64, temperature: 0, seed: 1, messages: [{role: 'user', content: 'hi'}]});
		expect(requestBody('openai-completions', {prompt: 'x', maxTokens: 8, seed: 1})).toMatchObject({prompt: 'x'});
	});
	it('plans: Ollama native first for Ollama, OpenAI first otherwise', () => {
		expect(protocolPlan('ollama').map((p) => p.path)).toEqual(['/api/generate', '/v1/chat/completions']);
		expect(protocolPlan('llamacpp')[0]!.path).toBe('/v1/chat/completions');
		expect(protocolPlan('lmstudio')[0]!.path).toBe('/api/v0/chat/completions');
	});
});

describe('llama.cpp SSE captures', () => {
	it('chat-stream: 64 content chunks, timings in the last chunk, any chunking', () => {
		for (const step of [undefined, 1, 7, 100]) {
			const p = createSseParser();
			const evs = feedAll(p, fixture('chat-stream.sse'), step);
			expect(tokens(evs)).toBe(64);
			expect(evs.some((e) => e.type === 'done')).toBe(true);
			expect(p.counts).toMatchObject({completionTokens: 64, cachedTokens: 0, prefillTokens: 40, promptTokens: 40, prefillMs: 116.453, decodeMs: 946.406, source: 'timings', llamaBuild: 10587});
			expect(p.counts.reportedTps).toBeCloseTo(66.56762531091309, 10);
			expect(p.garbage).toBe(0);
		}
	});

	it('spec-chat-stream: counts rule gives 63 decoded − 50 accepted = 13 passes, 4.85 tokens per pass (= mean len)', () => {
		const p = createSseParser();
		feedAll(p, fixture('spec-chat-stream.sse'));
		expect(p.counts).toMatchObject({drafted: 99, accepted: 50, completionTokens: 64});
		const f = computeFigures({clock: newClock(0), counts: p.counts});
		expect(f.passes).toBe(13);
		expect(f.tokensPerPass).toBeCloseTo(63 / 13, 10);
		expect(f.tokensPerPass!.toFixed(2)).toBe('4.85');
		expect(f.acceptance).toBeCloseTo(50 / 99, 10);
		expect(f.tokensPerPassSource).toBe('timings');
	});

	it('native /completion spec stream: 127 decoded, 99 accepted → 28 passes, 4.54', () => {
		const p = createSseParser();
		const evs = feedAll(p, fixture('spec-completion-stream.sse'));
		expect(tokens(evs)).toBe(128);
		const f = computeFigures({clock: newClock(0), counts: p.counts});
		expect(f.passes).toBe(28);
		expect(f.tokensPerPass!.toFixed(2)).toBe('4.54');
		expect(f.acceptance).toBeCloseTo(99 / 221, 10);
	});

	it('usage chunk: prompt_tokens includes cached; cached_tokens read', () => {
		const p = createSseParser();
		const evs = feedAll(p, fixture('chat-stream-usage-timings.sse'));
		expect(tokens(evs)).toBe(16);
		expect(p.counts).toMatchObject({completionTokens: 16, promptTokens: 24, cachedTokens: 7, prefillTokens: 17});
		const f = computeFigures({clock: newClock(0), counts: p.counts});
		expect(f.prefillTps).toBeCloseTo((17 * 1000) / 45.729, 6);
	});

	it('repeat run: cache_n 39 of 40 prompt tokens', () => {
		const p = createSseParser();
		feedAll(p, fixture('chat-stream-repeat.sse'));
		expect(p.counts).toMatchObject({cachedTokens: 39, promptTokens: 40, prefillTokens: 1});
	});

	it('timings without draft fields: one token per pass', () => {
		const p = createSseParser();
		feedAll(p, fixture('chat-stream.sse'));
		const f = computeFigures({clock: newClock(0), counts: p.counts});
		expect(f.tokensPerPass).toBe(1);
		expect(f.acceptance).toBeUndefined();
	});

	it('an error event in the stream is reported', () => {
		const p = createSseParser();
		const evs = feedAll(p, 'data: {"error":{"code":500,"message":"boom"}}\n\n');
		expect(evs).toEqual([{type: 'error', message: 'boom'}]);
	});

	it('build number from system_fingerprint', () => {
		expect(llamaBuildNumber('b10587-3f545be')).toBe(10587);
		expect(llamaBuildNumber('fp_123')).toBeUndefined();
	});
});

describe('Ollama NDJSON', () => {
	const docs =
		'{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","response":"The","done":false}\n' +
		'{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","response":"","done":true,"context":[1,2,3],"total_duration":10706818083,"load_duration":6338219291,"prompt_eval_count":26,"prompt_eval_duration":130079000,"eval_count":259,"eval_duration":4232710000}\n';

	it('reads the docs example: ns durations → ms, eval_count / eval_duration', () => {
		for (const step of [undefined, 3]) {
			const p = createOllamaParser();
			const evs = feedAll(p, docs, step);
			expect(tokens(evs)).toBe(1);
			expect(p.counts).toMatchObject({completionTokens: 259, promptTokens: 26, prefillMs: 130.079, decodeMs: 4232.71, source: 'ollama'});
			expect(p.counts.reportedTps).toBeCloseTo(259 / 4.23271, 6);
		}
	});

	it('prefill tok/s is unknown without the cached count (prompt_eval_count includes cached), subtracts it when the log says', () => {
		const p = createOllamaParser();
		feedAll(p, docs);
		expect(computeFigures({clock: newClock(0), counts: p.counts}).prefillTps).toBeUndefined();
		expect(computeFigures({clock: newClock(0), counts: p.counts, log: {cached: 16}}).prefillTps).toBeCloseTo((10 * 1000) / 130.079, 6);
	});

	it('chat shape, thinking counts as a token, error lines, garbage', () => {
		const p = createOllamaParser();
		const evs = feedAll(p, '{"message":{"role":"assistant","content":"","thinking":"hm"},"done":false}\n{"message":{"content":"Hi"},"done":false}\nnot json\n{"error":"model runner has unexpectedly stopped"}\n');
		expect(tokens(evs)).toBe(2);
		expect(evs.at(-1)).toEqual({type: 'error', message: 'model runner has unexpectedly stopped'});
		expect(p.garbage).toBe(1);
	});
});

describe('wall clock figures', () => {
	it('decode tok/s uses the server count, not chunks: (n − 1) / (t_last − t_first)', () => {
		const clock = newClock(1000);
		markToken(clock, 1250); // first token: TTFT 250 ms
		for (let i = 0; i < 10; i++) markToken(clock, 1260 + i * 10); // 11 chunks, last at 1350
		const f = computeFigures({clock, counts: {completionTokens: 51, reportedTps: 400, source: 'usage'}});
		expect(f.ttftMs).toBe(250);
		expect(f.decodeTps).toBeCloseTo(50 / 0.1, 6);
		expect(f.disagree).toBe(true);
		expect(computeFigures({clock, counts: {completionTokens: 51, reportedTps: 490}}).disagree).toBe(false);
		expect(computeFigures({clock, counts: {}}).decodeTps).toBeUndefined();
	});

	it('lithos Decode-Steps header (and LMK/Monolith brands): completion tokens ÷ steps', () => {
		const h = (m: Record<string, string>) => ({get: (k: string) => m[k.toLowerCase()] ?? null});
		expect(lithosDecodeSteps(h({'x-lithos-metal-decode-steps': '37'}))).toBe(37);
		expect(lithosDecodeSteps(h({'x-lmk-decode-steps': '12'}))).toBe(12);
		expect(lithosDecodeSteps(h({'x-monolith-decode-steps': '5'}))).toBe(5);
		expect(lithosDecodeSteps(h({}))).toBeUndefined();
		const f = computeFigures({clock: newClock(0), counts: {completionTokens: 256, source: 'usage'}, decodeSteps: 64});
		expect(f).toMatchObject({tokensPerPass: 4, passes: 64, tokensPerPassSource: 'lithos header'});
	});

	it('LM Studio stats: draft counts, seconds', () => {
		const p = createSseParser();
		feedAll(
			p,
			'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":100},"stats":{"tokens_per_second":51.43709529007664,"time_to_first_token":0.111,"generation_time":0.954,"stop_reason":"eosFound","accepted_draft_tokens_count":60,"total_draft_tokens_count":80}}\n\ndata: [DONE]\n\n',
		);
		expect(p.counts).toMatchObject({reportedTps: 51.43709529007664, engineTtftMs: 111, accepted: 60, drafted: 80, completionTokens: 100});
		const f = computeFigures({clock: newClock(0), counts: p.counts});
		expect(f.tokensPerPass).toBeCloseTo(100 / 40, 10);
		expect(f.acceptance).toBeCloseTo(0.75, 10);
		expect(f.tokensPerPassSource).toBe('lmstudio stats');
	});

	it('vLLM per-request metrics (PR #46768 timing, PR #48915 speculative_decoding) in the last chunk', () => {
		const p = createSseParser();
		feedAll(
			p,
			'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":11742,"completion_tokens":35,"total_tokens":11777},"metrics":{"time_to_first_token_ms":85.2,"generation_time_ms":1240.5,"queue_time_ms":12.3,"mean_itl_ms":9.1,"tokens_per_second":103.2,"speculative_decoding":{"mean_acceptance_length":1.2325581395348837,"draft_acceptance_rate":0.07751937984496124,"num_spec_steps":43,"num_accepted_draft_tokens":10,"num_draft_tokens":129,"num_spec_tokens":3}}}\n\ndata: [DONE]\n\n',
		);
		expect(p.counts).toMatchObject({reportedTps: 103.2, engineTtftMs: 85.2, drafted: 129, accepted: 10, completionTokens: 35, source: 'metrics'});
		const f = computeFigures({clock: newClock(0), counts: p.counts});
		expect([f.passes, f.tokensPerPassSource, f.reportedTps]).toEqual([25, 'vllm metrics', 103.2]);
		expect(f.acceptance).toBeCloseTo(10 / 129, 10);
		// Impossible counts (more accepted than drafted) are not taken.
		const q = createSseParser();
		feedAll(q, 'data: {"choices":[],"metrics":{"tokens_per_second":-1,"speculative_decoding":{"num_accepted_draft_tokens":10,"num_draft_tokens":5}}}\n\ndata: [DONE]\n\n');
		expect([q.counts.reportedTps, q.counts.drafted, q.counts.accepted]).toEqual([undefined, undefined, undefined]);
	});

	it('vLLM probe plan asks for include_metrics; other engines\' bodies are unchanged', () => {
		const plan = protocolPlan('vllm')[0]!;
		expect(plan.extraBody).toEqual({include_metrics: true});
		expect(requestBody(plan.protocol, {prompt: 'p', maxTokens: 8, seed: 1}, plan.extraBody)).toMatchObject({include_metrics: true, stream: true});
		expect(protocolPlan('llamacpp')[0]!.extraBody).toBeUndefined();
		expect(requestBody('openai-chat', {prompt: 'p', maxTokens: 8, seed: 1})).not.toHaveProperty('include_metrics');
	});

	it('llama.cpp timings before b10424: predicted_ms already covers n − 1 steps (decoded n − 1)', () => {
		const f = computeFigures({clock: newClock(0), counts: {completionTokens: 128, source: 'timings', llamaBuild: 10300}});
		expect(f.passes).toBe(127);
	});

	it('Ollama log figures: seed 000 (512 tokens in 225 passes → 2.28; 287/458 accepted → 0.63)', () => {
		const f = computeFigures({clock: newClock(0), counts: {completionTokens: 512, source: 'ollama'}, log: {passes: 225, drafted: 458, accepted: 287}});
		expect(f.tokensPerPass!.toFixed(2)).toBe('2.28');
		expect(f.acceptance!.toFixed(2)).toBe('0.63');
		// counts rule from the GGUF engine's draft line: 2906 accepted
		const g = computeFigures({clock: newClock(0), counts: {completionTokens: 127, source: 'ollama'}, log: {decoded: 127, accepted: 99}});
		expect(g.tokensPerPass!.toFixed(2)).toBe('4.54');
		// no log, no draft counts: unknown, never 1
		expect(computeFigures({clock: newClock(0), counts: {completionTokens: 512, source: 'ollama'}}).tokensPerPass).toBeUndefined();
	});

	it('ceiling and % of ceiling: 14.45 GB at 638 GB/s → 44 tok/s', () => {
		const clock = newClock(0);
		markToken(clock, 100);
		markToken(clock, 100 + 511 * 20);
		const f = computeFigures({clock, counts: {completionTokens: 512}, bandwidthGBs: 638, bytesPerToken: 14.45e9});
		expect(f.ceilingTps!.toFixed(0)).toBe('44');
		expect(f.pctOfCeiling).toBeCloseTo(50 / (638 / 14.45), 6);
	});
});

/** The fields of `o` named in `like` (undefined where absent), to compare with toEqual. */
const pick = (o: object, like: object): Record<string, unknown> => Object.fromEntries(Object.keys(like).map((k) => [k, (o as Record<string, unknown>)[k]]));

describe('numbers are checked where they enter (issue 14): impossible → unknown and named', () => {
	const done = (m: Record<string, unknown>) => JSON.stringify({model: 'm', response: '', done: true, ...m}) + '\n';

	it('Ollama: negative and absurd counts and durations are unknown, never 0, never a figure', () => {
		const p = createOllamaParser();
		feedAll(p, '{"response":"a","done":false}\n' + done({eval_count: -5, eval_duration: 1e308, prompt_eval_count: -30, prompt_eval_duration: 'x'}));
		expect(pick(p.counts, {completionTokens: undefined, decodeMs: undefined, reportedTps: undefined, promptTokens: undefined, prefillMs: undefined})).toEqual({completionTokens: undefined, decodeMs: undefined, reportedTps: undefined, promptTokens: undefined, prefillMs: undefined});
		expect(p.counts.inconsistent).toEqual(['eval_count -5', 'eval_duration 1e+308', 'prompt_eval_count -30', 'prompt_eval_duration a string']);
	});

	it('Ollama: an absent eval_count (omitempty) is still 0 when eval_duration is there; a fractional one is inconsistent', () => {
		const a = createOllamaParser();
		feedAll(a, done({eval_duration: 1000}));
		expect(a.counts.completionTokens).toBe(0);
		expect(a.counts.inconsistent).toBeUndefined();
		const b = createOllamaParser();
		feedAll(b, done({eval_count: 2.5, eval_duration: 1000}));
		expect(b.counts.completionTokens).toBeUndefined();
		expect(b.counts.inconsistent).toEqual(['eval_count 2.5']);
	});

	it('OpenAI usage: cached_tokens -7, prompt_tokens 1e308, completion_tokens -1 → unknown', () => {
		const p = createSseParser();
		feedAll(p, `data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'a'}, finish_reason: 'stop'}]})}\n\ndata: ${JSON.stringify({choices: [], usage: {prompt_tokens: 1e308, completion_tokens: -1, prompt_tokens_details: {cached_tokens: -7}}})}\n\ndata: [DONE]\n\n`);
		expect(pick(p.counts, {promptTokens: undefined, completionTokens: undefined, cachedTokens: undefined})).toEqual({promptTokens: undefined, completionTokens: undefined, cachedTokens: undefined});
		expect(p.counts.inconsistent).toEqual(['usage.completion_tokens -1', 'usage.prompt_tokens 1e+308', 'usage.prompt_tokens_details.cached_tokens -7']);
	});

	it('llama.cpp timings and LM Studio stats: negative fields are unknown', () => {
		const p = createSseParser();
		feedAll(p, `data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'a'}, finish_reason: 'stop'}], timings: {predicted_n: 10, prompt_n: -3, cache_n: 5, predicted_ms: -1, predicted_per_second: -66, draft_n: 4, draft_n_accepted: -2}})}\n\n`);
		expect(pick(p.counts, {completionTokens: 10, prefillTokens: undefined, cachedTokens: 5, decodeMs: undefined, reportedTps: undefined, drafted: 4, accepted: undefined})).toEqual({completionTokens: 10, prefillTokens: undefined, cachedTokens: 5, decodeMs: undefined, reportedTps: undefined, drafted: 4, accepted: undefined});
		expect(p.counts.inconsistent).toEqual(['timings.prompt_n -3', 'timings.predicted_ms -1', 'timings.predicted_per_second -66', 'timings.draft_n_accepted -2']);
		const q = createSseParser();
		feedAll(q, `data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'a'}, finish_reason: 'stop'}], stats: {tokens_per_second: -50, accepted_draft_tokens_count: 3, total_draft_tokens_count: 5}})}\n\n`);
		expect(pick(q.counts, {reportedTps: undefined, accepted: 3, drafted: 5})).toEqual({reportedTps: undefined, accepted: 3, drafted: 5});
		expect(q.counts.inconsistent).toEqual(['stats.tokens_per_second -50']);
	});

	it('contradictions: cached > prompt and accepted > drafted make both sides unknown', () => {
		const p = createSseParser();
		feedAll(p, `data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'a'}, finish_reason: 'stop'}], timings: {predicted_n: 10, prompt_n: 3, cache_n: 5, draft_n: 4, draft_n_accepted: 9}})}\n\n`);
		crossCheck(p.counts);
		// prompt_n counts the uncached tokens only, so 3 + 5 = 8 prompt tokens: cached 5 ≤ 8 holds.
		expect(pick(p.counts, {cachedTokens: 5, promptTokens: 8, accepted: undefined, drafted: undefined})).toEqual({cachedTokens: 5, promptTokens: 8, accepted: undefined, drafted: undefined});
		expect(p.counts.inconsistent).toEqual(['accepted 9 > drafted 4']);
		const q = createSseParser();
		feedAll(q, `data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'a'}, finish_reason: 'stop'}], usage: {prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: {cached_tokens: 11}}})}\n\n`);
		crossCheck(q.counts);
		expect(pick(q.counts, {cachedTokens: undefined, promptTokens: 10})).toEqual({cachedTokens: undefined, promptTokens: 10});
		expect(q.counts.inconsistent).toEqual(['cached 11 > prompt 10 tokens']);
	});

	it("the log's figures for the probe are checked too; the inconsistency reaches the figures", () => {
		const clock = newClock(0);
		markToken(clock, 100);
		markToken(clock, 200);
		const f = computeFigures({clock, counts: {source: 'ollama', completionTokens: 11, promptTokens: 20}, log: {accepted: -287, drafted: 458, passes: 225, cached: 1500}});
		expect(pick(f, {cachedTokens: undefined, acceptance: undefined, accepted: undefined, completionTokens: 11, decodeTps: 100})).toEqual({cachedTokens: undefined, acceptance: undefined, accepted: undefined, completionTokens: 11, decodeTps: 100});
		expect(f.inconsistent).toEqual(['log accepted -287', 'cached 1500 > prompt 20 tokens']);
	});
});
