/**
 * sanitize's shortcut for plain printable-ASCII lines (issue 32: it ran five regex passes over
 * every line read) gives exactly what the full path gives: on every log line we ship or test
 * against, and on fuzzed text mixing plain ASCII with everything the full path strips or replaces
 * (controls, CR, TAB, ANSI/OSC, bidi, zero-width, lone surrogates), at every length around the cap.
 */
import {describe, expect, it} from 'vitest';
import {sanitize, sanitizeFull} from '../../source/util/sanitize.js';
import {logCorpus, prng} from '../helpers/fuzz.js';

const SPECIAL = ['\t', '\r', '\n', '\u0000', '\u0007', '\u001b[31m', '\u001b]0;title\u0007', '\u009b1m', '\u007f', '\u0085', '\u00a0', 'é', '\u061c', '\u200b', '\u200d', '\u202e', '\u2066', '\u2028', '\ufeff', '\ud800', '\udc00', '😀', '\u034f', '~', ' ', '\u001f'];

describe('sanitize: the plain-ASCII shortcut', () => {
	it('the same as the full path on every shipped and fixture log line', () => {
		const lines = logCorpus();
		expect(lines.length).toBeGreaterThan(100);
		for (const line of lines) expect(sanitize(line)).toBe(sanitizeFull(line));
	});

	it('the same as the full path on fuzzed text, at every length around the cap', () => {
		const rnd = prng(3232);
		let plain = 0;
		for (let i = 0; i < 20_000; i++) {
			const len = Math.floor(rnd() * 60);
			let text = '';
			const mixed = rnd() < 0.5;
			for (let k = 0; k < len; k++) text += mixed && rnd() < 0.15 ? SPECIAL[Math.floor(rnd() * SPECIAL.length)] : String.fromCharCode(0x20 + Math.floor(rnd() * 95));
			if (!/[^\u0020-\u007e]/.test(text)) plain++;
			for (const max of [1, 7, 16, 29, 4096]) expect(sanitize(text, max), JSON.stringify(text)).toBe(sanitizeFull(text, max));
			expect(sanitize(text)).toBe(sanitizeFull(text));
		}
		// Both paths were taken.
		expect(plain).toBeGreaterThan(5000);
		expect(plain).toBeLessThan(15_000);
	});

	it('a plain line over the cap is cut as before (its full length in the marker)', () => {
		const long = 'x'.repeat(20_000);
		expect(sanitize(long)).toBe(`${'x'.repeat(4096)}…[+${20_000 - 4096} chars]`);
		expect(sanitize(long)).toBe(sanitizeFull(long));
	});
});
