import {describe, expect, it} from 'vitest';
import {grouped} from '../../source/ui/format.js';

// grouped() replaces toLocaleString('en-US') on the REQUESTS header's counts: the same text for every number.
describe('grouped (thousands commas without ICU)', () => {
	it('writes what toLocaleString("en-US") writes, on edges and on random integers', () => {
		const edges = [0, -0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10_000, 61_204, 99_999, 100_000, 999_999, 1_000_000, 123_456_789, Number.MAX_SAFE_INTEGER, -1, -999, -1000, -1_234_567];
		let seed = 7;
		const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
		const random = Array.from({length: 2000}, (_, i) => Math.floor(rand() * 10 ** (i % 16)) * (i % 7 === 0 ? -1 : 1));
		for (const n of [...edges, ...random]) expect(grouped(n)).toBe(n.toLocaleString('en-US'));
	});
	it('leaves what is not a safe integer to toLocaleString', () => {
		for (const n of [1.5, 1234.5678, 2 ** 60, Number.NaN, Infinity, -Infinity]) expect(grouped(n)).toBe(n.toLocaleString('en-US'));
	});
});
