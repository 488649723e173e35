/**
 * The tail's LineLedger (issue 32: its per-byte FNV-1a loop was ~17 % of the app's CPU under
 * traffic; now a word-at-a-time hash over an aligned copy, and typed-array rings). What it must
 * keep: the hash tells apart lines that differ in one byte wherever it lies, at every alignment;
 * a line hashes the same however the reads cut it; the rings keep the last N lines; and resumeAt /
 * spotCheck answer as the per-byte ledger did (kept below as the reference) on cut-mid-line,
 * cut-at-line-start, cut-to-zero, regrown-longer and unchanged files.
 */
import {describe, expect, it} from 'vitest';
import {LineLedger, lineHash, READ_CHUNK} from '../../source/sources/log-tail.js';
import {prng} from '../helpers/fuzz.js';

/** The ledger as it was before issue 32 (per-byte FNV-1a, JS arrays, nothing forgotten): the reference. */
class ReferenceLedger {
	starts: number[] = [];
	ends: number[] = [];
	hashes: number[] = [];
	lineStart = -1;
	hash = 0x811c9dc5;
	reset(at: number): void {
		this.starts = [];
		this.ends = [];
		this.hashes = [];
		this.lineStart = at;
		this.hash = 0x811c9dc5;
	}

	feed(chunk: Uint8Array, offset: number): void {
		let h = this.hash;
		for (let i = 0; i < chunk.length; i++) {
			const b = chunk[i]!;
			h = Math.imul(h ^ b, 0x01000193) >>> 0;
			if (b === 0x0a) {
				if (this.lineStart >= 0) {
					this.starts.push(this.lineStart);
					this.ends.push(offset + i + 1);
					this.hashes.push(h);
				}
				this.lineStart = offset + i + 1;
				h = 0x811c9dc5;
			}
		}
		this.hash = h;
	}

	async spotCheck(read: (length: number, position: number) => Promise<Buffer>, size: number): Promise<boolean> {
		const n = this.starts.length;
		for (const at of n >= 4 ? [n >> 2, n >> 1, (3 * n) >> 2] : []) {
			const start = this.starts[at]!;
			const end = this.ends[at]!;
			if (end > size) return false;
			if (end - start > 64 * 1024) continue;
			const bytes = await read(end - start, start);
			let h = 0x811c9dc5;
			for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
			if (bytes.length !== end - start || h !== this.hashes[at]) return false;
		}
		return true;
	}

	async resumeAt(read: (length: number, position: number) => Promise<Buffer>, size: number): Promise<{offset: number; lost: boolean}> {
		const n = this.starts.length;
		let j = 0;
		let h = 0x811c9dc5;
		let pos = n > 0 ? this.starts[0]! : 0;
		const last = n > 0 ? Math.min(size, this.ends[n - 1]!) : 0;
		let mismatch = false;
		while (!mismatch && pos < last && j < n) {
			const chunk = await read(Math.min(READ_CHUNK, last - pos), pos);
			if (chunk.length === 0) break;
			for (let i = 0; i < chunk.length && j < n; i++) {
				const b = chunk[i]!;
				h = Math.imul(h ^ b, 0x01000193) >>> 0;
				const end = pos + i + 1;
				if (b === 0x0a || end === this.ends[j]) {
					if (b !== 0x0a || end !== this.ends[j] || h !== this.hashes[j]) {
						mismatch = true;
						break;
					}
					j++;
					h = 0x811c9dc5;
				}
			}
			pos += chunk.length;
		}
		const offset = n === 0 ? 0 : j === n ? this.ends[n - 1]! : j > 0 ? this.starts[j]! : 0;
		this.starts.length = j;
		this.ends.length = j;
		this.hashes.length = j;
		this.lineStart = offset;
		this.hash = 0x811c9dc5;
		return {offset, lost: false};
	}
}

const reader = (file: Buffer) => async (length: number, position: number) => file.subarray(position, Math.min(file.length, position + length));

/** Feed `file` from `from` to `to` in reads cut at random places (mid-word, mid-line, 1 byte). */
function feedCut(ledgers: {feed(chunk: Uint8Array, offset: number): void}[], file: Buffer, from: number, to: number, rnd: () => number): void {
	let at = from;
	while (at < to) {
		const n = Math.min(to - at, 1 + Math.floor(rnd() * (rnd() < 0.3 ? 7 : 900)));
		// A read lands in a buffer at any alignment (Node's pool): copy it to a random offset in a fresh one.
		const pad = Math.floor(rnd() * 4);
		const buf = Buffer.alloc(pad + n);
		file.copy(buf, pad, at, at + n);
		for (const l of ledgers) l.feed(buf.subarray(pad), at);
		at += n;
	}
}

/** A log of `n` lines: request-like lines of varied length, some empty, some long, some non-ASCII. */
function makeLog(n: number, rnd: () => number, tag = 'a'): string {
	const out: string[] = [];
	for (let i = 0; i < n; i++) {
		const r = rnd();
		if (r < 0.05) out.push('');
		else if (r < 0.1) out.push(`${tag} é→ ${'x'.repeat(Math.floor(rnd() * 300))}`);
		else out.push(`slot release: id  ${i % 8} | task ${1000 + i} | ${tag} n_tokens = ${Math.floor(rnd() * 5000)}`);
	}
	return out.join('\n') + '\n';
}

describe('lineHash', () => {
	it('tells apart lines that differ in one byte, at every position and every alignment', () => {
		const rnd = prng(32);
		let compared = 0;
		for (let len = 1; len <= 41; len++) {
			const line = Buffer.from(Array.from({length: len}, () => 32 + Math.floor(rnd() * 95)));
			for (let start = 0; start < 16; start++) {
				const h = lineHash(line, start);
				for (let i = 0; i < len; i++) {
					const other = Buffer.from(line);
					for (const delta of [1, 0x80, 0xff]) {
						other[i] = (line[i]! + delta) & 0xff;
						expect(lineHash(other, start), `len ${len} start ${start} byte ${i}`).not.toBe(h);
						compared++;
					}
				}
			}
		}
		expect(compared).toBe(3 * 16 * ((41 * 42) / 2));
	});

	it('hashes equal bytes at the same place equal, whatever buffer or copy holds them', () => {
		const line = Buffer.from('0.00.000.042 I slot print_timing: id  0 | task 1000 |        eval time =     902.40 ms\n');
		for (let start = 0; start < 16; start++) {
			const copy = Buffer.alloc(line.length + 3);
			line.copy(copy, 3);
			expect(lineHash(copy.subarray(3), start)).toBe(lineHash(line, start));
			expect(lineHash(new Uint8Array(line), start + 1024 * 1024 * 1024 * 3)).toBe(lineHash(line, start));
		}
	});
});

describe('LineLedger', () => {
	it('remembers each line where it lies, with the hash of its bytes there, however the reads cut it', () => {
		for (let seed = 1; seed <= 20; seed++) {
			const rnd = prng(seed);
			const file = Buffer.from(makeLog(300, rnd));
			const ledger = new LineLedger();
			ledger.reset(0);
			feedCut([ledger], file, 0, file.length, rnd);
			const lines = file.toString('latin1').split('\n').slice(0, -1);
			expect(ledger.size).toBe(lines.length);
			let at = 0;
			for (let i = 0; i < lines.length; i++) {
				const end = at + lines[i]!.length + 1;
				expect(ledger.line(i)).toEqual({start: at, end, hash: lineHash(file.subarray(at, end), at)});
				at = end;
			}
		}
	});

	it('the ring keeps the last N lines, in order, and says it forgot the others', () => {
		const file = Buffer.from(Array.from({length: 3000}, (_, i) => `line ${i}`).join('\n') + '\n');
		for (const capacity of [1, 5, 1024, 1025, 2500, 4096]) {
			const ledger = new LineLedger(capacity);
			ledger.reset(0);
			feedCut([ledger], file, 0, file.length, prng(capacity));
			const kept = Math.min(capacity, 3000);
			expect(ledger.size).toBe(kept);
			expect(ledger.forgot).toBe(capacity < 3000);
			const text = (i: number) => file.toString('latin1', ledger.line(i).start, ledger.line(i).end);
			expect(text(0)).toBe(`line ${3000 - kept}\n`);
			expect(text(kept - 1)).toBe('line 2999\n');
			for (let i = 1; i < kept; i++) expect(ledger.line(i).start).toBe(ledger.line(i - 1).end);
		}
	});

	it('a file read from mid-line: the cut first line is not remembered', () => {
		const file = Buffer.from('partial tail of a line\nsecond\nthird\n');
		const ledger = new LineLedger();
		ledger.reset(-1);
		ledger.feed(file.subarray(5), 5);
		expect(ledger.size).toBe(2);
		expect(ledger.line(0)).toEqual({start: 23, end: 30, hash: lineHash(file.subarray(23, 30), 23)});
	});

	it('a read that does not follow the last one (the tail skipped ahead): the lines before are forgotten', async () => {
		const file = Buffer.from(Array.from({length: 40}, (_, i) => `request ${i}`).join('\n') + '\n');
		const ledger = new LineLedger();
		ledger.reset(0);
		ledger.feed(file.subarray(0, 100), 0);
		expect(ledger.size).toBe(file.subarray(0, 100).toString().split('\n').length - 1);
		ledger.feed(file.subarray(200), 200);
		// The line cut at 200 is not one; the first remembered is the one after it.
		const first = file.indexOf(0x0a, 200) + 1;
		expect(ledger.forgot).toBe(true);
		expect(ledger.line(0).start).toBe(first);
		expect(ledger.line(ledger.size - 1).end).toBe(file.length);
		// Cut to zero and regrown: the new text began somewhere before the first remembered line.
		const regrown = Buffer.from('x'.repeat(file.length + 50));
		expect(await ledger.resumeAt(reader(regrown), regrown.length)).toEqual({offset: first, lost: true});
	});

	it('lines forgotten, and the file now ends before the first remembered line (copytruncate to 0): read from 0', async () => {
		const file = Buffer.from(Array.from({length: 100}, (_, i) => `request ${i}`).join('\n') + '\n');
		const ledger = new LineLedger(10);
		ledger.reset(0);
		ledger.feed(file, 0);
		expect(ledger.forgot).toBe(true);
		const start0 = ledger.line(0).start;
		const now = Buffer.from('new 1\nnew 2\n');
		expect(now.length).toBeLessThan(start0);
		expect(await ledger.resumeAt(reader(now), now.length)).toEqual({offset: 0, lost: false});
		// Regrown past it (the first remembered line changed): from there, the lines between not read.
		const ledger2 = new LineLedger(10);
		ledger2.reset(0);
		ledger2.feed(file, 0);
		const longer = Buffer.from('x'.repeat(file.length));
		expect(await ledger2.resumeAt(reader(longer), longer.length)).toEqual({offset: start0, lost: true});
	});

	describe('resumeAt and spotCheck answer as the per-byte ledger did', () => {
		type Case = (old: Buffer, rnd: () => number) => Buffer;
		const lineStarts = (b: Buffer) => [0, ...Array.from(b.toString('latin1').matchAll(/\n/g), m => m.index! + 1)];
		const pick = <T>(xs: readonly T[], rnd: () => number) => xs[Math.floor(rnd() * xs.length)]!;
		const cases: Record<string, Case> = {
			'unchanged, appended to': (old, rnd) => Buffer.concat([old, Buffer.from(makeLog(5, rnd, 'b'))]),
			'cut at a line start, regrown longer': (old, rnd) => Buffer.concat([old.subarray(0, pick(lineStarts(old), rnd)), Buffer.from(makeLog(400, rnd, 'b'))]),
			'cut at a line start, regrown shorter': (old, rnd) => Buffer.concat([old.subarray(0, pick(lineStarts(old), rnd)), Buffer.from(makeLog(3, rnd, 'b'))]),
			'cut mid-line, regrown longer': (old, rnd) => Buffer.concat([old.subarray(0, Math.floor(rnd() * old.length)), Buffer.from(makeLog(400, rnd, 'b'))]),
			'cut mid-line, the rest of the line rewritten the same length': (old, rnd) => {
				const cut = Math.floor(rnd() * old.length);
				const next = old.indexOf(0x0a, cut);
				const same = Buffer.from(old.subarray(cut));
				for (let i = 0; i < next - cut; i++) if (same[i] !== 0x0a) same[i] = 0x41 + (i % 26);
				return Buffer.concat([old.subarray(0, cut), same]);
			},
			'one byte changed anywhere': (old, rnd) => {
				const b = Buffer.from(old);
				const at = Math.floor(rnd() * b.length);
				b[at] = b[at] === 0x0a ? 0x20 : b[at] === 0x41 ? 0x42 : 0x41;
				return b;
			},
			'cut to zero, regrown': (old, rnd) => Buffer.from(makeLog(500, rnd, 'b')),
			'cut and not regrown': (old, rnd) => old.subarray(0, Math.floor(rnd() * old.length)),
			'lines of one length, same places, other text': old => Buffer.from(old.toString('latin1').replace(/task 1(\d)/g, 'task 2$1'), 'latin1'),
		};
		for (const [name, make] of Object.entries(cases)) {
			it(name, async () => {
				for (let seed = 1; seed <= 25; seed++) {
					const rnd = prng(seed * 7919);
					const old = Buffer.from(makeLog(200, rnd));
					// From the start, or (as at start-up) mid-file with the cut line dropped.
					const from = seed % 3 === 0 ? Math.floor(rnd() * old.length) : 0;
					const ledger = new LineLedger();
					const reference = new ReferenceLedger();
					ledger.reset(from === 0 ? 0 : -1);
					reference.reset(from === 0 ? 0 : -1);
					feedCut([ledger, reference], old, from, old.length, rnd);
					const now = make(old, rnd);
					const what = `${name}, seed ${seed}`;
					expect(await ledger.spotCheck(reader(now), now.length), what).toBe(await reference.spotCheck(reader(now), now.length));
					const r = await ledger.resumeAt(reader(now), now.length);
					expect(r, what).toEqual(await reference.resumeAt(reader(now), now.length));
					// Reading goes on from there: both remember the same lines after it.
					feedCut([ledger, reference], now, r.offset, now.length, rnd);
					expect(ledger.size, what).toBe(reference.starts.length);
					for (let i = 0; i < ledger.size; i++) {
						const {start, end} = ledger.line(i);
						expect([start, end], what).toEqual([reference.starts[i], reference.ends[i]]);
					}
				}
			});
		}
	});
});
