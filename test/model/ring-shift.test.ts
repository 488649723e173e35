/**
 * ringShift/heldAt: where a request ring's records stood in the ring the server had before (the
 * reducer drops the oldest, appends, and replaces a changed record in its place). Sessions' timelines
 * and the table's entries keep what they made for a record found there.
 */
import {describe, expect, it} from 'vitest';
import {heldAt, ringShift} from '../../source/model/ring-shift.js';

const recs = (n: number, from = 0) => Array.from({length: n}, (_, i) => ({key: `r${from + i}`}));

/** For each place of `ring`, the place in `old` heldAt finds (-1: made anew). */
const places = (old: readonly object[], ring: readonly object[]) => {
	const shift = ringShift(old, ring);
	return ring.map((_, k) => heldAt(old, ring, shift, k));
};

describe('ringShift and heldAt', () => {
	it('finds the records still held after the oldest were dropped and new ones appended', () => {
		const old = recs(200);
		const ring = [...old.slice(3), ...recs(3, 200)];
		expect(ringShift(old, ring)).toBe(3);
		const at = places(old, ring);
		expect(at.slice(0, 197)).toEqual(Array.from({length: 197}, (_, k) => k + 3));
		expect(at.slice(197)).toEqual([-1, -1, -1]);
	});

	it('a record replaced in its place (a new object) is not held; the rest are', () => {
		const old = recs(50);
		const ring = [...old.slice(1)];
		ring[0] = {...ring[0]!};
		ring[30] = {...ring[30]!};
		expect(ringShift(old, ring)).toBe(1);
		const at = places(old, ring);
		expect(at[0]).toBe(-1);
		expect(at[30]).toBe(-1);
		expect(at.filter(k => k >= 0)).toHaveLength(47);
	});

	it('nothing held: a ring that turned over, an empty one, an empty old one', () => {
		expect(ringShift(recs(10), recs(10, 10))).toBe(-1);
		expect(ringShift(recs(10), [])).toBe(-1);
		expect(ringShift([], recs(3))).toBe(-1);
		expect(places(recs(10), recs(10, 10))).toEqual(Array.from({length: 10}, () => -1));
	});

	it('the same ring: every record at its own place', () => {
		const old = recs(20);
		expect(places(old, old)).toEqual(old.map((_, k) => k));
	});

	it('a record dropped from the middle (an inconsistent request): the places after it are not matched by the shift, and are made anew', () => {
		const old = recs(10);
		const ring = old.filter((_, i) => i !== 4);
		const at = places(old, ring);
		expect(at.slice(0, 4)).toEqual([0, 1, 2, 3]);
		expect(at.slice(4)).toEqual([-1, -1, -1, -1, -1]);
	});
});
