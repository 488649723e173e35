/**
 * LineSplitter decodes a read DECODE_BYTES at a time (issue 32: a 256 KiB string is a large object
 * in V8, ~30× the cost to make) and splits whole lines inline: the lines must be the same whatever
 * the reads and the pieces cut (a multi-byte character, a CRLF, a line longer than a piece).
 */
import {StringDecoder} from 'node:string_decoder';
import {describe, expect, it} from 'vitest';
import {DECODE_BYTES, LineSplitter, MAX_PARTIAL_CHARS} from '../../source/sources/log-tail.js';
import {prng} from '../helpers/fuzz.js';

/** The lines of `bytes` decoded at once: split on LF, a CR before it dropped, the last one unterminated. */
function reference(bytes: Buffer): string[] {
	const d = new StringDecoder('utf8');
	const text = d.write(bytes) + d.end();
	const parts = text.split('\n');
	const rest = parts.pop()!;
	const lines = parts.map(l => (l.endsWith('\r') ? l.slice(0, -1) : l));
	if (rest.length > 0) lines.push(rest.replace(/\r$/, ''));
	return lines;
}

function split(bytes: Buffer, rnd: () => number): string[] {
	const out: string[] = [];
	const s = new LineSplitter(l => out.push(l));
	let at = 0;
	while (at < bytes.length) {
		const r = rnd();
		const n = r < 0.3 ? 1 + Math.floor(rnd() * 5) : r < 0.8 ? Math.floor(rnd() * 3 * DECODE_BYTES) : 256 * 1024;
		s.write(bytes.subarray(at, at + n));
		at += n;
	}
	s.flush();
	return out;
}

describe('LineSplitter in pieces', () => {
	it('the same lines as one decode of the whole, however reads and pieces cut', () => {
		for (let seed = 1; seed <= 6; seed++) {
			const rnd = prng(seed);
			const parts: string[] = [];
			for (let i = 0; i < 3000; i++) {
				const r = rnd();
				const len = r < 0.02 ? DECODE_BYTES + Math.floor(rnd() * DECODE_BYTES) : Math.floor(rnd() * 200);
				const alphabet = ['a', ' ', 'é', '→', '😀', '\t', '\r', '\u202e'];
				const piece = Array.from({length: 16}, () => (rnd() < 0.8 ? 'x' : alphabet[Math.floor(rnd() * alphabet.length)])).join('');
				const line = piece.repeat(Math.ceil(len / 16)).slice(0, len);
				parts.push(line + (rnd() < 0.3 ? '\r\n' : '\n'));
			}
			const bytes = Buffer.from(parts.join(''));
			// Some invalid bytes too (each a U+FFFD, whatever the cut).
			for (let k = 0; k < 20; k++) bytes[Math.floor(rnd() * bytes.length)] = 0xff;
			const lines = split(bytes, rnd);
			expect(lines.length, `seed ${seed}`).toBe(reference(bytes).length);
			expect(lines, `seed ${seed}`).toEqual(reference(bytes));
		}
	});

	it('a line longer than MAX_PARTIAL_CHARS is cut the same way whatever the reads', () => {
		const bytes = Buffer.from(`first\n${'y'.repeat(MAX_PARTIAL_CHARS + 5000)}\nlast\r\n`);
		const one: string[] = [];
		const s = new LineSplitter(l => one.push(l));
		s.write(bytes);
		for (let seed = 1; seed <= 3; seed++) expect(split(bytes, prng(seed))).toEqual(one);
		expect(one).toHaveLength(3);
		expect(one[1]!.endsWith('…[line cut]')).toBe(true);
		expect(one[2]).toBe('last');
	});
});
