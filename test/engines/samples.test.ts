import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {createParser, detectEngine} from '../../source/engines/index.js';
import {requestFigures} from '../../source/model/figures.js';
import {inconsistency} from '../../source/model/consistency.js';
import type {EngineKind} from '../../source/types/events.js';
import {sanitize} from '../../source/util/sanitize.js';
import {requests, run} from '../helpers/engines.js';

const sample = (name: string): string[] =>
	readFileSync(fileURLToPath(new URL(`../../samples/${name}`, import.meta.url)), 'utf8').split('\n').filter(l => l.length > 0);

const SAMPLES: Array<[string, EngineKind]> = [
	['ollama-gguf.log', 'ollama'],
	['ollama-mlx.log', 'ollama'],
	['llama-server.log', 'llamacpp'],
	['vllm.log', 'vllm'],
	['sglang.log', 'sglang'],
	['mlxlm.log', 'mlxlm'],
	['lithos.log', 'lithos'],
	['lmstudio.log', 'lmstudio'],
	['llama-server-default.log', 'llamacpp'],
	['vllm-v0.log', 'vllm'],
	['ollama-v024.log', 'ollama'],
];

describe('samples/ replay logs', () => {
	for (const [file, engine] of SAMPLES) {
		it(`${file} is detected as ${engine} and parses`, () => {
			const lines = sample(file);
			expect(detectEngine(lines.slice(0, 20).map(l => sanitize(l)))).toBe(engine);
			const {events, unparsed} = run(createParser(engine), lines);
			expect(events.length).toBeGreaterThan(0);
			// Reconstructed samples: every line understood. The captured llama-server log keeps its multi-line dumps.
			if (file !== 'llama-server.log' && file !== 'llama-server-default.log') expect(unparsed).toEqual([]);
			else expect(unparsed.filter(l => /time =|acceptance|statistics/.test(l))).toEqual([]);
		});
	}

	for (const [file, engine] of SAMPLES) {
		it(`${file}: no request contradicts itself (cached ≤ prompt, no negative counts, accepted ≤ drafted)`, () => {
			const reqs = [...requests(run(createParser(engine), sample(file)).events).values()];
			expect(reqs.map(r => [r.key, inconsistency(r)]).filter(([, why]) => why !== undefined)).toEqual([]);
		});
	}

	it('ollama-gguf: every request closes with consistent counts', () => {
		const reqs = [...requests(run(createParser('ollama'), sample('ollama-gguf.log')).events).values()];
		expect(reqs.length).toBeGreaterThanOrEqual(5);
		for (const r of reqs) {
			expect(r).toMatchObject({runner: 'gguf', model: 'qwen3.6:27b', done: true});
			expect(r.decodedTokens).toBe(r.generatedTokens! - 1);
			const f = requestFigures(r);
			expect(f.tokensPerPass).toBeGreaterThan(1);
			expect(f.decodeTps).toBeCloseTo(r.engineTps!, 0);
		}
	});

	it('ollama-mlx: the seed-000 request is 512 tokens over 225 passes', () => {
		const reqs = requests(run(createParser('ollama'), sample('ollama-mlx.log')).events);
		expect(reqs.get('mlx#1')).toMatchObject({decodedTokens: 512, passes: 225, drafted: 458, accepted: 287, done: true, runner: 'mlx'});
	});

	it('ollama-mlx: a request without a draft head still counts (prompt, cache, wall time)', () => {
		const reqs = requests(run(createParser('ollama'), sample('ollama-mlx.log')).events);
		expect(reqs.size).toBe(5);
		expect(reqs.get('mlx#5')).toMatchObject({promptTokens: 1320, cachedTokens: 1200, prefillTokens: 120, wallMs: 4601, done: true});
		expect(reqs.get('mlx#5')!.passes).toBeUndefined();
		for (const r of reqs.values()) expect(r.cachedTokens!).toBeLessThanOrEqual(r.promptTokens!);
	});

	it('llama-server-default (v2 capture, default verbosity): four requests, prompts worked out (~) except the full-reuse one', () => {
		const reqs = [...requests(run(createParser('llamacpp'), sample('llama-server-default.log')).events).values()];
		expect(reqs.map(r => [r.promptTokens, r.cachedTokens, r.promptEstimated ?? false])).toEqual([[1559, 0, true], [1569, 1531, true], [1559, 1531, true], [1559, 1558, false]]);
	});

	it('vllm-v0 (≤ 0.6 prefix): windows, pending, cumulative preemptions', () => {
		const ev = run(createParser('vllm'), sample('vllm-v0.log')).events.filter(e => e.type === 'interval-stats');
		expect(ev).toContainEqual({type: 'interval-stats', preemptedTotal: 1});
		expect(ev.at(-1)).toMatchObject({genTps: 95.3, running: 1, waiting: 0});
	});

	it('ollama-v024 (Go engine runner): residency from the offload line, no request figures invented', () => {
		const {events} = run(createParser('ollama'), sample('ollama-v024.log'));
		expect(events).toContainEqual(expect.objectContaining({type: 'offload', layersOnGpu: 37, layersTotal: 37}));
		expect(events.filter(e => e.type === 'request')).toEqual([]);
	});
});
