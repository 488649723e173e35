/** DESIGN §1 worked examples (seeds 000 and 001), through model/figures.ts. */
import {describe, expect, it} from 'vitest';
import {
	acceptance, ceilingTps, draftedPerPass, effectiveBandwidthGBs, msPerPass, msPerPassFromRate, passesPerSec, pctOfCeiling,
	requestFigures, tokensPerPass, tokensPerPassFromPasses,
} from '../../source/model/figures.js';
import {passesVerdict} from '../../source/model/verdict.js';

const GB = 1e9;
const r2 = (x: number | undefined): number => Math.round((x ?? NaN) * 100) / 100;
const r0 = (x: number | undefined): number => Math.round(x ?? NaN);

describe('DESIGN §1 worked examples', () => {
	it('512 tokens in 225 passes → 2.28 tokens per pass; 45–48 ms per pass at 47.6–50.6 tok/s', () => {
		const tpp = tokensPerPassFromPasses(512, 225);
		expect(r2(tpp)).toBe(2.28);
		expect(r0(msPerPassFromRate(50.6, tpp))).toBe(45);
		expect(r0(msPerPassFromRate(47.6, tpp))).toBe(48);
		// the same through requestFigures (MLX runner: passes = iterations)
		const f = requestFigures({generatedTokens: 512, passes: 225, drafted: 458, accepted: 287, decodeMs: 10_500});
		expect(r2(f.tokensPerPass)).toBe(2.28);
		expect(r2(f.acceptance)).toBe(0.63);
		expect(r0(f.msPerPass)).toBe(47);
	});

	it('14.45 GB per token at 638 GB/s → ceiling 44 tok/s', () => {
		expect(r0(ceilingTps(638, 14.45 * GB))).toBe(44);
	});

	it('4.9 GB at 273 GB/s → ≈ 56 tok/s; at 546 GB/s ≈ 111', () => {
		expect(r0(ceilingTps(273, 4.9 * GB))).toBe(56);
		expect(r0(ceilingTps(546, 4.9 * GB))).toBe(111);
	});

	it('225 passes in ~10.5 s × 14.45 GB ≈ 310 GB/s effective, inside 290–320', () => {
		const eff = effectiveBandwidthGBs(225 / 10.5, 14.45 * GB);
		expect(r0(eff)).toBe(310);
		// the seed's spread: 217–225 passes for 512 tokens at 47.6–50.6 tok/s
		const low = effectiveBandwidthGBs(passesPerSec(47.6, tokensPerPassFromPasses(512, 217)), 14.45 * GB) as number;
		const high = effectiveBandwidthGBs(passesPerSec(50.6, tokensPerPassFromPasses(512, 225)), 14.45 * GB) as number;
		expect(low).toBeGreaterThan(290);
		expect(low).toBeLessThan(292);
		expect(high).toBeGreaterThan(320);
		expect(high).toBeLessThan(322);
		expect(r0(msPerPass(10_500, 225))).toBe(47);
	});

	it('iterations=225 drafted=458 accepted=287 → acceptance 0.63, 2.04 drafted per pass', () => {
		expect(r2(acceptance(287, 458))).toBe(0.63);
		expect(r2(draftedPerPass(458, 225))).toBe(2.04);
	});

	it('draft acceptance = 0.86695 ( 2906 accepted / 3352 generated), mean len = 4.47 → 4.47 tokens per pass', () => {
		expect(Math.round((acceptance(2906, 3352) as number) * 1e5) / 1e5).toBe(0.86695);
		const f = requestFigures({accepted: 2906, drafted: 3352, engineMeanLen: 4.47});
		expect(f.engineMeanLen).toBe(4.47);
		// the counts rule agrees where the passes that drafted are all the passes: 837 passes + 2906 accepted
		expect(r2(tokensPerPass(837 + 2906, 2906))).toBe(4.47);
	});

	it('the counts rule examples: 127/99 → 4.54, 47/38 → 5.22', () => {
		expect(r2(tokensPerPass(127, 99))).toBe(4.54);
		expect(r2(tokensPerPass(47, 38))).toBe(5.22);
	});

	it('the verdicts for seed 000', () => {
		const bw = 638;
		const bpt = 14.45 * GB;
		const ceiling = ceilingTps(bw, bpt);
		const tps = 49.6;
		const tpp = tokensPerPassFromPasses(512, 225);
		const eff = effectiveBandwidthGBs(passesPerSec(tps, tpp), bpt);
		const figs = {decodeTps: tps, tokensPerPass: tpp, ceilingTps: ceiling, pctOfCeiling: pctOfCeiling(tps, ceiling), effectiveBandwidthGBs: eff, bandwidthGBs: bw, acceptance: 0.63};
		expect(passesVerdict(figs)).toBe('above the ceiling: 2.3 tokens per pass (acceptance 0.63)');
		// the GGUF engine: 27.5 tok/s at 4.47 tokens per pass on the 16.8 GB blob: passes far slower than the bandwidth allows
		const g = {decodeTps: 27.5, tokensPerPass: 4.47, bandwidthGBs: bw, ceilingTps: ceilingTps(bw, 16.8 * GB), effectiveBandwidthGBs: effectiveBandwidthGBs(passesPerSec(27.5, 4.47), 16.8 * GB)};
		expect(passesVerdict(g)).toBe('speculation on, but passes are slow: 103 GB/s of 638');
		// mlx-lm without speculation: 32.6 tok/s against 44
		expect(passesVerdict({decodeTps: 32.6, tokensPerPass: 1, ceilingTps: ceiling, bandwidthGBs: bw})).toBe('one token per pass at 74 % of the ceiling');
	});
});
