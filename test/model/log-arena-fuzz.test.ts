/**
 * The log ring's arena against a plain model of it (model/log-ring.ts, issue 32), fuzzed: random
 * caps, line widths (empty to tens of thousands of characters, multi-byte and astral), batches
 * (a copy of the ring appended to in place), branches from earlier rings, and pins moved at random
 * (as the store pins each state it publishes). What must hold at every step: the newest ring reads
 * exactly its last `cap` lines; the pinned ring reads exactly what it held, however far behind; any
 * other ring seen earlier reads exactly what it held or throws a RangeError, never other lines; an
 * arena holds line slots for at most the pinned ring and the newest (two rings and a line, rounded
 * up to a power of two).
 */
import {describe, expect, it} from 'vitest';
import {appendTo, emptyLog, logLines, pinLogs, PIN_LAG, type DraftRing} from '../../source/model/log-ring.js';
import type {LogRing} from '../../source/types/state.js';
import {prng} from '../helpers/fuzz.js';

const PARTS = ['a', 'slot 0 | task 12 ', 'é', '€', '😀', '漢字', ' ', 'ΕΛΛΗΝΙΚΆ'];

function textOf(r: () => number, i: number): string {
	const roll = r();
	const n = roll < 0.01 ? 5000 + Math.floor(r() * 20_000) : roll < 0.05 ? 0 : Math.floor(r() * 60);
	let s = `${i}:`;
	for (let k = 0; k < n; k++) s += PARTS[Math.floor(r() * PARTS.length)]!;
	return s;
}

/** The ring's texts, or undefined where its lines were reused since (any other error fails). */
function read(ring: LogRing): string[] | undefined {
	try {
		return logLines(ring).map(l => l.text);
	} catch (error) {
		if (error instanceof RangeError) return undefined;
		throw error;
	}
}

describe('the log arena against a plain model (fuzz)', () => {
	it('newest and pinned rings read exactly; earlier ones exactly or not at all; slots stay bounded', () => {
		let reused = 0;
		let readOld = 0;
		let pinnedReads = 0;
		for (let seed = 1; seed <= 12; seed++) {
			const r = prng(9000 + seed);
			const cap = [1, 2, 5, 17, 100, 1000][seed % 6]!;
			let ring = {...emptyLog()} as DraftRing;
			let all: string[] = [];
			const seen: [LogRing, string[]][] = [];
			let pinned: [LogRing, string[]] | undefined;
			const steps = cap * 8 + 200;
			// reads cost a ring's length: checked less often where the ring is long
			const every = Math.max(13, Math.floor(cap / 3));
			for (let i = 0; i < steps; i++) {
				if (r() < 0.1) {
					// a batch ends: the ring is seen (and sometimes published: pinned), the next batch copies it
					const held = all.slice(-cap);
					seen.push([ring, held]);
					if (r() < 0.5) {
						pinLogs({servers: {s: {log: ring}}} as never);
						pinned = [ring, held];
					}
					ring = {...ring};
				}
				if (r() < 0.01 && seen.length > 0) {
					// a branch from an earlier ring: its own copy, or a RangeError where its lines were reused
					const [old, was] = seen[Math.floor(r() * seen.length)]!;
					let branch: LogRing | undefined;
					try {
						branch = appendTo({...old}, i, 'branch', 0, cap);
					} catch (error) {
						expect(error).toBeInstanceOf(RangeError);
					}
					if (branch) expect(read(branch)).toEqual([...was, 'branch'].slice(-cap));
				}
				const text = textOf(r, i);
				ring = appendTo(ring, i, text, 0, cap);
				all.push(text);
				if (all.length > 4 * cap + 64) all = all.slice(-cap);
				if (i % every === 0 || i === steps - 1) {
					expect(read(ring)).toEqual(all.slice(-cap));
					if (pinned) {
						expect(read(pinned[0])).toEqual(pinned[1]);
						pinnedReads++;
					}
					const arena = ring.arena!;
					expect(arena.at.length).toBeLessThanOrEqual(Math.max(64, 2 ** Math.ceil(Math.log2(2 * ((PIN_LAG + 1) * cap + 2)))));
				}
			}
			for (const [old, was] of seen) {
				const now = read(old);
				if (now === undefined) reused++;
				else {
					expect(now).toEqual(was);
					readOld++;
				}
			}
		}
		// every path was taken
		expect(reused).toBeGreaterThan(20);
		expect(readOld).toBeGreaterThan(20);
		expect(pinnedReads).toBeGreaterThan(50);
	});
});
