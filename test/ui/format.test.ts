import {describe, expect, it} from 'vitest';
import {DASH, duration, est, fit, gb, gbs, interval, ms, pct, right, tpp, tps, until} from '../../source/ui/format.js';

describe('format', () => {
	it('shows -- for unknown, never 0', () => {
		for (const f of [tps, tpp, pct, gb, gbs, ms, duration, interval]) {
			expect(f(undefined)).toBe(DASH);
			expect(f(Number.NaN)).toBe(DASH);
		}
		expect(tps(0)).toBe('0.0');
	});

	it('keeps fixed decimals so digits do not jitter', () => {
		expect(tps(47.6)).toBe('47.6');
		expect(tps(50)).toBe('50.0');
		expect(tpp(2.2755)).toBe('2.28');
		expect(pct(0.63)).toBe('63%');
		expect(pct(1.08)).toBe('108%');
		expect(pct(0.627, 1)).toBe('62.7%');
		expect(gb(14.45e9)).toBe('14.45 GB');
		expect(gb(142e9)).toBe('142 GB');
		expect(gb(4.9e9)).toBe('4.90 GB');
		expect(gbs(546)).toBe('546 GB/s');
		expect(gbs(68.25)).toBe('68.3 GB/s');
		expect(ms(47.94)).toBe('48 ms');
		expect(ms(1240)).toBe('1.24 s');
		expect(duration(180_000)).toBe('3 min');
		expect(duration(3_900_000)).toBe('1 h 05 min');
		expect(interval(1000)).toBe('1.0 s');
		expect(interval(250)).toBe('250 ms');
	});

	it('marks estimates with ~ but never the dash', () => {
		expect(est('4.90 GB', true)).toBe('~4.90 GB');
		expect(est(DASH, true)).toBe(DASH);
	});

	it('counts UNTIL down like ollama ps', () => {
		const now = Date.parse('2026-03-01T12:00:00Z');
		const at = (s: number) => new Date(now + s * 1000).toISOString();
		expect(until(at(4 * 60 + 30), now)).toBe('4 minutes from now');
		expect(until(at(90), now)).toBe('About a minute from now');
		expect(until(at(30), now)).toBe('30 seconds from now');
		expect(until(at(-1), now)).toBe('Stopping...');
		expect(until('2318-01-01T00:00:00Z', now)).toBe('Forever');
		expect(until('0001-01-01T00:00:00Z', now)).toBe('Never');
		expect(until(undefined, now)).toBe(DASH);
		expect(until('garbage', now)).toBe(DASH);
	});

	it('fits and right-aligns cells', () => {
		expect(fit('qwen3:8b', 5)).toBe('qwen…');
		expect(fit('ab', 4, true)).toBe('ab  ');
		expect(right('7', 3)).toBe('  7');
	});
});
