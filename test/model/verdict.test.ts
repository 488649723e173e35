import {describe, expect, it} from 'vitest';
import {createScale, nextScale, passesVerdict} from '../../source/model/verdict.js';

describe('passesVerdict', () => {
	it('honest when figures are unknown', () => {
		expect(passesVerdict({})).toBe('no decode figures yet');
		expect(passesVerdict({decodeTps: 40})).toBe('ceiling unknown: pass --bandwidth');
		expect(passesVerdict({decodeTps: 40, bandwidthGBs: 273})).toBe('ceiling unknown: bytes per token unknown');
		expect(passesVerdict({decodeTps: 40, tokensPerPass: 2.28})).toBe('2.3 tokens per pass; ceiling unknown: pass --bandwidth');
	});

	it('one token per pass, and a low share', () => {
		expect(passesVerdict({decodeTps: 34.7, tokensPerPass: 1, ceilingTps: 56})).toBe('one token per pass at 62 % of the ceiling');
		expect(passesVerdict({decodeTps: 34.7, ceilingTps: 56})).toBe('62 % of the ceiling');
		expect(passesVerdict({decodeTps: 20, tokensPerPass: 1, ceilingTps: 56})).toBe('one token per pass at 36 % of the ceiling, below the usual 60–85 %');
	});

	it('above the ceiling without speculation figures says what to check', () => {
		expect(passesVerdict({decodeTps: 60, ceilingTps: 44})).toBe('above the ceiling (136 %) with no speculation figures: check bytes per token and the log');
		expect(passesVerdict({decodeTps: 60, tokensPerPass: 1, ceilingTps: 44})).toBe('above the ceiling (136 %) at one token per pass: check bytes per token and the log');
	});

	it('speculation paying with healthy passes', () => {
		expect(passesVerdict({decodeTps: 40, tokensPerPass: 2, ceilingTps: 44, effectiveBandwidthGBs: 400, bandwidthGBs: 638})).toBe('2.0 tokens per pass at 91 % of the ceiling');
	});
});

describe('graph scale', () => {
	it('grows at once, holds, shrinks slowly', () => {
		expect(nextScale(0, [])).toBe(0);
		expect(nextScale(0, [undefined, 10])).toBeCloseTo(11);
		expect(nextScale(11, [12])).toBeCloseTo(13.2);
		expect(nextScale(100, [80])).toBe(100); // 88 still fills the scale
		const s = nextScale(100, [10]);
		expect(s).toBeLessThan(100);
		expect(s).toBeGreaterThan(80);
	});

	it('createScale converges down over many ticks without going under the data', () => {
		const sc = createScale();
		sc.next([100]);
		expect(sc.max).toBeCloseTo(110);
		let prev = sc.max;
		for (let i = 0; i < 100; i++) {
			const m = sc.next([10, undefined]);
			expect(m).toBeLessThanOrEqual(prev);
			expect(m).toBeGreaterThanOrEqual(11);
			prev = m;
		}
		expect(prev).toBeLessThan(20);
	});
});
