/**
 * Fuzz, fixed seed (issue 14): a few thousand mutated lines through every parser, the reducer and
 * the snapshot, and mutated NDJSON/SSE bodies through the probe's stream readers. No exception,
 * no negative or non-finite figure. The long run: `npm run bench -- fuzz`.
 */
import {describe, expect, it} from 'vitest';
import {badNumbers, fuzz, fuzzNames, hostileName, mutate, prng, unsafeIn} from '../helpers/fuzz.js';

describe('fuzz (seed 14)', () => {
	it('no exception, no negative or non-finite figure, over 7 × 600 lines and 300 stream bodies', () => {
		const r = fuzz(14, 600, 300);
		expect(r.failures).toEqual([]);
		expect(r.lines).toBe(4200);
		// The mutations reach the checks: lines were parsed, and some were counted as inconsistent.
		expect(r.events).toBeGreaterThan(500);
		expect(r.inconsistent).toBeGreaterThan(20);
	});

	it('hostile paths, process arguments and model names (issue 34): nothing unsafe leaves, over 1,000 names', async () => {
		const r = await fuzzNames(34, 1000);
		expect(r.failures).toEqual([]);
		expect(r.names).toBe(1000);
	});

	it('the name fuzzer makes hostile names and its checker sees them', () => {
		const rnd = prng(34);
		const names = Array.from({length: 200}, () => hostileName(rnd));
		expect(names.filter(n => unsafeIn(n).length > 0).length).toBeGreaterThan(100);
		expect(unsafeIn('a\u200bb')).toEqual(['zero-width or filler']);
		expect(unsafeIn('"x\\u001b]0;t"')).toEqual(['JSON-escaped control']);
	});

	it('the fuzzer is deterministic and its checker sees what it must', () => {
		const a = prng(7);
		const b = prng(7);
		expect(mutate('slot print_timing: id  0 | task 6 | eval time = 10.00 ms / 5 tokens', a)).toBe(mutate('slot print_timing: id  0 | task 6 | eval time = 10.00 ms / 5 tokens', b));
		expect(badNumbers({type: 'request', task: -1, passes: -5, x: {y: Number.NaN}, ok: 3})).toEqual(['passes=-5', 'x.y=NaN']);
	});
});
