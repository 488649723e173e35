/**
 * Ink's test for control characters (ink/build/ansi-tokenizer.js hasAnsiControlCharacters), patched
 * to a native search (patches/ink+6.8.0.patch; issue 32: Ink runs the text of every text node of every
 * frame through it, a function call a code point before). Beside the random strings of
 * render-patches.test.ts, exhaustively: the published function's answer for every code point alone,
 * each between others, surrogate pairs and lone halves, and fuzzed strings of the kinds a frame holds.
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {stockSource} from '../../scripts/patches.mjs';
import {prng} from '../helpers/fuzz.js';

type Tokenizer = {hasAnsiControlCharacters: (text: string) => boolean; tokenizeAnsi: (text: string) => unknown[]};
const FILE = 'node_modules/ink/build/ansi-tokenizer.js';

async function load(text: string): Promise<Tokenizer> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-ansi-'));
	try {
		const out = path.join(dir, 'ansi-tokenizer.mjs');
		writeFileSync(out, text.replace(/^\/\/# sourceMappingURL=.*$/m, ''));
		return (await import(pathToFileURL(out).href)) as Tokenizer;
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}

describe('Ink\'s control-character test, a native search', () => {
	it('answers as the published one for every code point, pairs, halves and fuzzed frame text', async () => {
		const patched = (await import(pathToFileURL(path.resolve(FILE)).href)) as Tokenizer;
		const stock = await load(stockSource(FILE));
		expect(patched.hasAnsiControlCharacters).not.toBe(stock.hasAnsiControlCharacters);
		expect(stockSource(FILE)).toContain('for (const character of text)');
		const same = (s: string) => {
			if (patched.hasAnsiControlCharacters(s) !== stock.hasAnsiControlCharacters(s)) expect([...s].map(c => c.codePointAt(0)!.toString(16))).toBe('the same answer');
		};
		let hits = 0;
		for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x3000 ? 1 : 97) {
			const c = String.fromCodePoint(cp);
			same(c);
			same(`ab${c}cd`);
			if (stock.hasAnsiControlCharacters(c)) hits++;
		}
		// ESC and the 32 C1 controls
		expect(hits).toBe(33);
		for (const s of ['', 'plain', '\u{1F642} emoji', '\uD83D', '\uDE42x', 'x\uD800\uDC80', '\u0080', '\u009f', '\u00a0', '\u001b[31mred\u001b[0m', 'a\u009b31mb', '\u2502 box ·']) same(s);
		const rnd = prng(3207);
		const alphabet = ['a', ' ', '·', '•', '▶', '┄', '⣿', '漢', '\u{1F642}', '\u001b', '\u009b', '\u0085', '\u007f', '\u00ad', '\uD83D', '\u200b', '\t'];
		for (let i = 0; i < 20_000; i++) same(Array.from({length: Math.floor(rnd() * 40)}, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(''));
		// the tokens of a frame's text are the same too
		for (const s of ['\u001b[1mbold\u001b[22m and \u009b4m', '\u001b]8;;http://x\u0007link\u001b]8;;\u0007']) expect(patched.tokenizeAnsi(s)).toEqual(stock.tokenizeAnsi(s));
	});
});
