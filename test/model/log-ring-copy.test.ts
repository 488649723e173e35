/**
 * The log ring keeps its lines in an arena of bytes reused in a circle (model/log-ring.ts, issue 32).
 * The lines read back must be exactly those appended (fractional, -0, NaN and huge times included),
 * across the arena's growth and many laps of it. Texts of every width (multi-byte, astral, empty,
 * thousands of characters) read back as written. A ring seen earlier reads what it read, or, once
 * its lines were reused, throws (never other lines); a pinned one (the screen's) always reads.
 */
import {describe, expect, it} from 'vitest';
import {appendTo, emptyLog, logLines, logTextAt, LOG_NOTE, LOG_PARSED, pinLogs, PIN_LAG, utf8Of, type DraftRing} from '../../source/model/log-ring.js';
import type {LogLine, LogRing} from '../../source/types/state.js';
import {prng} from '../helpers/fuzz.js';

/** Whether a ring still reads its lines (a RangeError: some were reused since; any other error fails). */
function readable(ring: LogRing): boolean {
	try {
		logLines(ring);
		return true;
	} catch (error) {
		if (error instanceof RangeError) return false;
		throw error;
	}
}

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

	it('a pinned ring reads its lines while the newest moves on, then from a copy of its own; the arena stays small', () => {
		for (const cap of [1, 10, 100]) {
			let ring = {...emptyLog()} as DraftRing;
			for (let i = 0; i < cap * 3; i++) ring = appendTo(ring, i, `line ${i} ${'x'.repeat(i % 50)}`, LOG_PARSED, cap);
			const pinned = ring;
			const was = logLines(pinned);
			pinLogs({servers: {s: {log: pinned}}} as never);
			ring = {...ring};
			const arena = ring.arena!;
			let copied = false;
			for (let i = cap * 3; i < cap * 3 + cap * PIN_LAG * 3; i++) {
				ring = appendTo(ring, i, `line ${i} ${'y'.repeat(i % 70)}`, 0, cap);
				// read back all along, with the arena at work under it
				if (i % 7 === 0) expect(logLines(pinned)).toEqual(was);
				copied ||= pinned.arena !== arena;
			}
			expect(logLines(pinned)).toEqual(was);
			// lagging PIN_LAG × cap lines, it was given a copy; the arena it left holds about one window
			expect(copied).toBe(true);
			expect(ring.arena).toBe(arena);
			expect(arena.at.length).toBeLessThanOrEqual(Math.max(64, 2 ** Math.ceil(Math.log2(2 * ((PIN_LAG + 1) * cap + 2)))));
			expect(logLines(ring).map(l => l.t)).toEqual(Array.from({length: cap}, (_, k) => cap * 3 + cap * PIN_LAG * 3 - cap + k));
		}
	});

	it('Buffer\'s own UTF-8 methods and the documented ones (where a Node lacks them) write and read the same bytes', () => {
		const own = utf8Of(Buffer.prototype);
		const documented = utf8Of({});
		expect(own.write).not.toBe(documented.write);
		expect([own.own, documented.own]).toEqual([true, false]);
		for (const text of ['plain ascii', 'é€😀漢字', '', 'cut \ud83d', 'x'.repeat(5000)]) {
			const a = Buffer.alloc(20_000);
			const b = Buffer.alloc(20_000);
			const n = own.write(a, text, 7);
			expect(documented.write(b, text, 7)).toBe(n);
			expect(a.equals(b)).toBe(true);
			expect(own.read(a, 7, 7 + n)).toBe(documented.read(b, 7, 7 + n));
			expect(own.read(a, 7, 7 + n)).toBe(text.replace(/\ud83d$/, '\ufffd'));
		}
	});

	it('a burst of long lines grows the arena; once they have left the ring it shrinks back', () => {
		const cap = 100;
		let ring = {...emptyLog()} as DraftRing;
		const short = (i: number) => `short line ${i}`;
		for (let i = 0; i < cap; i++) ring = appendTo(ring, i, short(i), 0, cap);
		const small = ring.arena!.bytes.length;
		for (let i = 0; i < cap; i++) ring = appendTo(ring, i, `long ${i} ${'€'.repeat(20_000)}`, 0, cap);
		const large = ring.arena!.bytes.length;
		expect(large).toBeGreaterThan(100 * 20_000 * 3);
		// within 1,024 lines of the last long one leaving the ring
		for (let i = 0; i < 1200; i++) ring = appendTo(ring, i, short(i), 0, cap);
		expect(ring.arena!.bytes.length).toBeLessThan(4 * small);
		expect(logLines(ring).map(l => l.text)).toEqual(Array.from({length: cap}, (_, k) => short(1100 + k)));
	});

	it('a lone surrogate (a character cut in two) reads back as U+FFFD; whole pairs as written', () => {
		let ring = {...emptyLog()} as DraftRing;
		for (const text of ['cut \ud83d', '\ude00 tail', 'whole 😀', '\ud83d\ude00']) ring = appendTo(ring, 0, text, 0, 10);
		expect(logLines(ring).map(l => l.text)).toEqual(['cut \ufffd', '\ufffd tail', 'whole 😀', '😀']);
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
		let kept = 0;
		let reused = 0;
		let branches = 0;
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
					// a ring seen earlier appended to again (a branch): it must copy, not overwrite; one whose
					// lines were reused since cannot be (and says so)
					const [old, was] = seen[Math.floor(r() * seen.length)]!;
					if (readable(old)) {
						const branch = appendTo({...old}, i, 'branch', 0, cap);
						expect(logLines(branch).map(l => l.text)).toEqual([...was, 'branch'].slice(-cap));
						branches++;
					} else expect(() => appendTo({...old}, i, 'branch', 0, cap)).toThrow(RangeError);
				}
				const t = text();
				ring = appendTo(ring, i, t, 0, cap);
				want.push(t);
				expect(logTextAt(ring, ring.length - 1)).toBe(t);
			}
			expect(logLines(ring).map(l => l.text)).toEqual(want.slice(-cap));
			for (const [old, was] of seen) {
				if (readable(old)) {
					expect(logLines(old).map(l => l.text)).toEqual(was);
					kept++;
				} else reused++;
			}
		}
		// all three happened: rings read as they were, rings whose lines were reused, branches
		expect(kept).toBeGreaterThan(10);
		expect(reused).toBeGreaterThan(10);
		expect(branches).toBeGreaterThan(3);
	});
});
