/**
 * Issue 30, "older and quieter formats": from the log line to the figure (parser → reducer →
 * snapshot), as `infertop snapshot --log …` shows it. vLLM ≤ 0.6's `Speculative metrics` (vllm/engine/
 * metrics.py, vllm/spec_decode/metrics.py of that era); samples/mlxlm.log (mlx_lm.server at
 * --log-level DEBUG, mlx_lm/server.py @ d78bf58).
 */
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {sanitize} from '../../source/util/sanitize.js';
import type {EngineKind} from '../../source/types/events.js';
import type {MonitorState} from '../../source/types/state.js';

const T0 = Date.parse('2026-08-21T18:48:00Z');

function fed(engine: EngineKind, lines: readonly string[], stepMs = 100): MonitorState {
	const id = 'log:server.log';
	let s = reduce(initialState({now: T0}), {type: 'server-seen', t: T0, server: {id, engine, source: 'log', logLabel: 'server.log'}});
	const p = createParser(engine);
	lines.forEach((raw, i) => {
		const t = T0 + i * stepMs;
		const text = sanitize(raw);
		const events = p.push(text);
		s = reduce(s, {type: 'log-line', serverId: id, t, text, parsed: events !== null});
		for (const event of events ?? []) s = reduce(s, {type: 'engine-event', serverId: id, t, event});
	});
	return reduce(s, {type: 'tick', t: T0 + lines.length * stepMs});
}

describe('older and quieter formats reach the figures', () => {
	it('vLLM 0.6: `Speculative metrics` with counts → acceptance and tokens per pass', () => {
		const s = fed('vllm', [
			'INFO 10-16 19:05:40 metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 52.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 3.1%, CPU KV cache usage: 0.0%.',
			'INFO 10-16 19:05:47 metrics.py:367] Speculative metrics: Draft acceptance rate: 0.642, System efficiency: 0.598, Number of speculative tokens: 3, Number of accepted tokens: 8547, Number of draft tokens: 13311, Number of emitted tokens: 10616.',
		]);
		const [m] = toSnapshot(s, 'test').models;
		expect([m!.tokensPerPass, m!.acceptance]).toEqual([Math.round((10616 / 4437) * 1e4) / 1e4, Math.round((8547 / 13311) * 1e4) / 1e4]);
	});

	it('samples/mlxlm.log: five requests of one named model, prompt and cached known, on the GPU (unified)', () => {
		const lines = readFileSync(new URL('../../samples/mlxlm.log', import.meta.url), 'utf8').split('\n').filter(l => l.length > 0);
		const snap = toSnapshot(fed('mlxlm', lines), 'test');
		expect(snap.requests.map(r => [r.model, r.promptTokens, r.cachedTokens, r.generatedTokens])).toEqual([
			['Qwen3-8B-4bit', 2262, 0, 180],
			['Qwen3-8B-4bit', 6342, 2300, 210],
			['Qwen3-8B-4bit', 8340, 6500, 150],
			['Qwen3-8B-4bit', 10397, 8400, 160],
			['Qwen3-8B-4bit', 13970, 10300, 200],
		]);
		expect(snap.models.map(m => [m.model, m.requests, m.gpuResidency])).toEqual([['Qwen3-8B-4bit', 5, 1]]);
	});
});
