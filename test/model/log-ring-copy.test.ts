/**
 * The log ring copies its newest lines to fresh backing arrays once per `cap` lines; the times go as
 * one block where they are a Float64Array (issue 32: no heap number a line under the interpreter).
 * The lines read back must be exactly those appended (fractional, -0, NaN and huge times included),
 * across many copies, from a ring made by appendTo and from one whose times are a plain array.
 * Texts of every width (multi-byte, astral, empty, thousands of characters) read back as written,
 * and a ring seen earlier never changes when a later one, or itself again (a branch), is appended to.
 */
import {describe, expect, it} from 'vitest';
import {appendTo, emptyLog, logLines, logTextAt, LOG_NOTE, LOG_PARSED, type DraftRing} from '../../source/model/log-ring.js';
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

	it('texts of every width (multi-byte, astral, empty, very long) read back as written, and earlier rings never change', () => {
		const r = prng(77);
		const parts = ['a', 'é', '€', '😀', 'słot 0 | task 12', ' ', 'ΕΛΛΗΝΙΚΆ', '漢字'];
		const text = (): string => {
			const n = r() < 0.05 ? 2000 + Math.floor(r() * 3000) : r() < 0.1 ? 0 : Math.floor(r() * 40);
			let s = '';
			for (let k = 0; k < n; k++) s += parts[Math.floor(r() * parts.length)]!;
			return s;
		};
		for (const cap of [1, 3, 50]) {
			let ring = {...emptyLog()} as DraftRing;
			const want: string[] = [];
			const seen: [LogRing, string[]][] = [];
			for (let i = 0; i < cap * 12 + 5; i++) {
				// a new batch (a copy of the ring, appended to in place) every few lines; a branch sometimes
				if (r() < 0.3) {
					seen.push([ring, logLines(ring).map(l => l.text)]);
					ring = {...ring};
				}
				if (r() < 0.05 && seen.length > 0) {
					// a ring seen earlier appended to again (a branch): it must copy, not overwrite
					const [old, was] = seen[Math.floor(r() * seen.length)]!;
					const branch = appendTo({...old}, i, 'branch', 0, cap);
					expect(logLines(branch).map(l => l.text)).toEqual([...was, 'branch'].slice(-cap));
				}
				const t = text();
				ring = appendTo(ring, i, t, 0, cap);
				want.push(t);
				expect(logTextAt(ring, ring.length - 1)).toBe(t);
			}
			expect(logLines(ring).map(l => l.text)).toEqual(want.slice(-cap));
			for (const [old, was] of seen) expect(logLines(old).map(l => l.text)).toEqual(was);
		}
	});
});
