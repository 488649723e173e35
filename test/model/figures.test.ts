import {describe, expect, it} from 'vitest';
import * as f from '../../source/model/figures.js';

describe('DESIGN §1 worked examples', () => {
	it('512 tokens in 225 passes → 2.28 tokens per pass, 45–48 ms per pass at 47.6–50.6 tok/s', () => {
		expect(f.tokensPerPassFromPasses(512, 225)!.toFixed(2)).toBe('2.28');
		// counts rule on the same request: 225 passes + 287 accepted = 512 decoded
		expect(f.tokensPerPass(512, 287)!.toFixed(2)).toBe('2.28');
		expect(f.msPerPassFromRate(50.6, 512 / 225)!).toBeCloseTo(44.97, 1);
		expect(f.msPerPassFromRate(47.6, 512 / 225)!).toBeCloseTo(47.8, 1);
	});
	it('ceiling 44 tok/s from 14.45 GB at 638 GB/s; effective 290–320 GB/s', () => {
		expect(Math.round(f.ceilingTps(638, 14.45e9)!)).toBe(44);
		const pps = 225 / 10.5;
		const eff = f.effectiveBandwidthGBs(pps, 14.45e9)!;
		expect(eff).toBeGreaterThanOrEqual(290);
		expect(eff).toBeLessThanOrEqual(320);
	});
	it('4.9 GB at 273 and 546 GB/s → 56 and 111', () => {
		expect(Math.round(f.ceilingTps(273, 4.9e9)!)).toBe(56);
		expect(Math.round(f.ceilingTps(546, 4.9e9)!)).toBe(111);
	});
	it('iterations=225 drafted=458 accepted=287 → acceptance 0.63, 2.04 drafted per pass', () => {
		expect(f.acceptance(287, 458)!.toFixed(2)).toBe('0.63');
		// 2.04 drafted per pass: the figure test/model/figure-table.test.ts adds to the table.
	});
	it('counts rule: 127 decoded, 99 accepted → 28 passes, 4.54; 47/38 → 9 passes, 5.22', () => {
		expect(f.passesFromCounts(127, 99)).toBe(28);
		expect(f.tokensPerPass(127, 99)!.toFixed(2)).toBe('4.54');
		expect(f.passesFromCounts(47, 38)).toBe(9);
		expect(f.tokensPerPass(47, 38)!.toFixed(2)).toBe('5.22');
	});
	it('above 100 % of the ceiling only with more than one token per pass', () => {
		expect(f.pctOfCeiling(49, 44)!).toBeGreaterThan(1);
		expect(f.passesPerSec(49, 2.28)! * 14.45e9 / 1e9).toBeLessThan(638);
	});
});

describe('unknown stays unknown', () => {
	it('never turns missing inputs into 0', () => {
		expect(f.decodeTpsWall(undefined, 0, 10)).toBeUndefined();
		expect(f.decodeTpsWall(1, 0, 10)).toBeUndefined();
		expect(f.decodeTpsWall(11, 5, 5)).toBeUndefined();
		expect(f.ceilingTps(undefined, 1e9)).toBeUndefined();
		expect(f.acceptance(3, 0)).toBeUndefined();
		expect(f.tokensPerPass(undefined, 3)).toBeUndefined();
		expect(f.pctOfCeiling(10, undefined)).toBeUndefined();
		expect(f.prefillTps(100, 100, 50)).toBeUndefined();
	});
	it('decode tok/s wall is (n − 1) / (t_last − t_first)', () => {
		expect(f.decodeTpsWall(101, 1000, 3000)).toBe(50);
	});
	it('prefill subtracts cached tokens (Ollama prompt_eval_count includes them)', () => {
		expect(f.prefillTps(1000, 800, 100)).toBe(2000);
	});
	it('prefill with an unknown cached count is unknown, not the whole prompt over the time', () => {
		// An Ollama cache hit: prompt_eval_count 1000 includes 900 cached, evaluated in 50 ms.
		expect(f.prefillTps(1000, undefined, 50)).toBeUndefined();
		expect(f.prefillTps(1000, 0, 50)).toBe(20000);
		expect(f.requestFigures({promptTokens: 1000, prefillMs: 50}).prefillTps).toBeUndefined();
		expect(f.requestFigures({promptTokens: 1000, cachedTokens: 900, prefillMs: 50}).prefillTps).toBe(2000);
		expect(f.requestFigures({prefillTokens: 100, prefillMs: 50}).prefillTps).toBe(2000);
	});
});

describe('requestFigures', () => {
	it('counts win over the engine mean len, which is kept beside', () => {
		const r = f.requestFigures({decodedTokens: 47, accepted: 38, drafted: 60, decodeMs: 900, engineMeanLen: 5.75});
		expect(r.tokensPerPass!.toFixed(2)).toBe('5.22');
		expect(r.engineMeanLen).toBe(5.75);
		expect(r.passes).toBe(9);
		expect(r.msPerPass).toBe(100);
	});
	it('no speculation: one token per pass', () => {
		const r = f.requestFigures({generatedTokens: 64, decodeMs: 1000});
		expect(r.tokensPerPass).toBe(1);
		expect(r.decodeTps).toBe(64);
	});
	it('MLX stats: passes given, no decode time → decode tok/s unknown', () => {
		const r = f.requestFigures({passes: 225, decodedTokens: 512, drafted: 458, accepted: 287});
		expect(r.tokensPerPass!.toFixed(2)).toBe('2.28');
		expect(r.decodeTps).toBeUndefined();
		expect(r.acceptance!.toFixed(2)).toBe('0.63');
	});
});
