/**
 * The log ring copies its newest lines to fresh backing arrays once per `cap` lines; the times go as
 * one block where they are a Float64Array (issue 32: no heap number a line under the interpreter).
 * The lines read back must be exactly those appended (fractional, -0, NaN and huge times included),
 * across many copies, from a ring made by appendTo and from one whose times are a plain array.
 */
import {describe, expect, it} from 'vitest';
import {appendTo, emptyLog, logLines, LOG_NOTE, LOG_PARSED, type DraftRing} from '../../source/model/log-ring.js';
import type {LogLine, LogRing} from '../../source/types/state.js';
import {prng} from '../helpers/fuzz.js';

const TIMES = [0, -0, 1.5, 1_796_000_000_000.125, Number.NaN, 1e300, 12.3456789];

function check(start: LogRing, cap: number, n: number, seed: number, before: readonly LogLine[]): void {
	const r = prng(seed);
	let ring = {...start} as DraftRing;
	const want: LogLine[] = [...before];
	for (let i = 0; i < n; i++) {
		const t = r() < 0.3 ? TIMES[Math.floor(r() * TIMES.length)]! : 1_796_000_000_000 + i * 0.125;
		const flags = Math.floor(r() * 4) & (LOG_PARSED | LOG_NOTE);
		ring = appendTo(ring, t, `line ${i}`, flags, cap);
		want.push((flags & LOG_NOTE) === 0 ? {t, text: `line ${i}`, parsed: (flags & LOG_PARSED) !== 0} : {t, text: `line ${i}`, parsed: (flags & LOG_PARSED) !== 0, note: true});
		if (i % 97 === 0 || i === n - 1) {
			const got = logLines(ring);
			const tail = want.slice(-cap);
			expect(got.length).toBe(tail.length);
			for (let k = 0; k < tail.length; k++) {
				expect(Object.is(got[k]!.t, tail[k]!.t), `line ${k} of ${i}`).toBe(true);
				expect(got[k]).toEqual(tail[k]);
			}
		}
	}
}

describe('log ring copies', () => {
	it('the lines appended, across many copies of the backing arrays', () => {
		for (const cap of [1, 2, 7, 100]) check(emptyLog(), cap, cap * 9 + 3, cap, []);
	});

	it('a ring whose times and flags are plain arrays (made elsewhere) reads the same after its copy', () => {
		const before: LogLine[] = [{t: 1.25, text: 'a', parsed: true}, {t: -0, text: 'b', parsed: false}, {t: 3.5, text: 'c', parsed: true, note: true}];
		const ring: LogRing = {buffer: ['a', 'b', 'c'], times: [1.25, -0, 3.5], flags: [LOG_PARSED, 0, LOG_PARSED | LOG_NOTE], start: 0, end: 3, length: 3};
		check(ring, 5, 40, 9, before);
	});
});
