import {describe, expect, it} from 'vitest';
import {codeUnitOrder} from '../../source/util/format.js';

// codeUnitOrder replaces localeCompare where the keys are ASCII by construction (ISO times in the
// JSON snapshot's requests, PCI slots): the same order, without loading ICU's collator (issue 32).
describe('codeUnitOrder', () => {
	it('orders ISO times as localeCompare does, the empty string (no time) first', () => {
		const times = ['2026-12-06T09:00:00.000Z', '', '2026-12-06T08:59:59.999Z', '2025-01-31T23:00:00.000Z', '2026-12-06T09:00:00.001Z', '2026-02-01T00:00:00.000Z', ''];
		expect([...times].sort(codeUnitOrder)).toEqual([...times].sort((a, b) => a.localeCompare(b)));
		expect([...times].sort(codeUnitOrder)[0]).toBe('');
		expect([...times].sort(codeUnitOrder).at(-1)).toBe('2026-12-06T09:00:00.001Z');
	});

	it('orders PCI slots (lower-case hex) as localeCompare does', () => {
		const slots = ['0000:c1:00.0', '0000:01:00.0', '0000:41:00.0', '0000:0a:00.0', '0001:00:00.0', '0000:81:00.1', '0000:81:00.0'];
		expect([...slots].sort(codeUnitOrder)).toEqual([...slots].sort((a, b) => a.localeCompare(b)));
	});

	it('is a comparator: 0 for equal, antisymmetric', () => {
		expect(codeUnitOrder('a', 'a')).toBe(0);
		expect(codeUnitOrder('a', 'b')).toBe(-1);
		expect(codeUnitOrder('b', 'a')).toBe(1);
	});
});
