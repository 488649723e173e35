/**
 * The patches of Ink's dependencies (patches/*.patch, applied at install; their code in
 * patches/render) answer what the modules they replace answer, and do what they are for: the
 * installed, patched module beside the published one (scripts/patches.mjs stockSource: the
 * installed file with its patch undone), loaded from a temporary file.
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import {pathToFileURL} from 'node:url';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {stockSource} from '../../scripts/patches.mjs';
import {ONE_CODE_POINT_EMOJI, NARROW_CLASS, NARROW_CLASS_V7, WIDE_V7} from '../../patches/render/string-width.js';
import {SIMPLE_GRAPHEMES} from '../../patches/render/ansi-tokenize.js';
import {forgetGraphemeSegmenter, graphemeSegmenterBuilt} from '@infertop/render-patches/segmenter.js';
import {currentOutputCaches, forgetOutputCaches} from '@infertop/render-patches/ink.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const nm = (file: string) => path.join(root, 'node_modules', file);
/** The installed (patched) module, as Ink loads it. */
const installed = async <T>(file: string): Promise<T> => (await import(pathToFileURL(nm(file)).href)) as T;

describe('the patches find their lines, and leave no top-level await nor a segmenter per module', () => {
	const tla = /^(?:await\s|(?:var|let|const)\s+\w+\s*=\s*(?:\w+\(\s*)?await\s|\s+await import\()/m;

	it('yoga-layout: no fetch of its own wasm', () => {
		const file = 'node_modules/yoga-layout/dist/binaries/yoga-wasm-base64-esm.js';
		expect(stockSource(file)).toMatch(/function ya\(\)\{return w\|\|"function"!=typeof fetch\?/);
		const text = readFileSync(path.join(root, file), 'utf8');
		expect(text).not.toMatch(/function ya\(\)\{return w\|\|"function"!=typeof fetch/);
		expect(text).toContain('function ya(){return true?');
	});

	it('no top-level await is left in Ink (under isDev()) nor in yoga (its wasm instantiated synchronously): the bundle can be CommonJS', () => {
		for (const file of ['node_modules/ink/build/reconciler.js', 'node_modules/yoga-layout/dist/src/index.js']) {
			expect(stockSource(file), file).toMatch(tla);
			expect(readFileSync(path.join(root, file), 'utf8'), file).not.toMatch(tla);
		}
	});

	it('each of the four modules under Ink built exactly one grapheme segmenter; each now takes the one shared', () => {
		for (const f of ['string-width/index.js', 'wrap-ansi/node_modules/string-width/index.js', 'slice-ansi/tokenize-ansi.js', '@alcalzone/ansi-tokenize/build/tokenize.js']) {
			expect(stockSource(`node_modules/${f}`).match(/new Intl\.Segmenter\(/g), f).toHaveLength(1);
			const text = readFileSync(nm(f), 'utf8');
			expect(text, f).not.toMatch(/new Intl\.Segmenter\(/);
			expect(text, f).toMatch(/= graphemeSegmenter;/);
			expect(text, f).toMatch(/import \{ graphemeSegmenter \} from ['"]@infertop\/render-patches\/segmenter\.js['"]/);
		}
	});
});

/** A seeded linear congruential generator: rnd(n) is in [0, n), the same sequence every run. */
function lcg(seed: number): (n: number) => number {
	let x = seed;
	return (n) => {
		x = (x * 1103515245 + 12345) % 2147483648;
		return x % n;
	};
}

/** The BMP code points (surrogates left out) that a character class of a patch holds, as strings. */
function membersOf(cls: string): string[] {
	const re = new RegExp(`^[${cls}]$`);
	const out: string[] = [];
	for (let cp = 0; cp < 0x10000; cp++) if (!(cp >= 0xd800 && cp <= 0xdfff) && re.test(String.fromCodePoint(cp))) out.push(String.fromCodePoint(cp));
	return out;
}

/** A dependency's module as it was published, its imports pointing at the installed modules. */
function stockText(file: string): string {
	const abs = nm(file);
	const req = createRequire(abs);
	// a package that exports only an "import" condition (ansi-tokenize) is found through its package.json
	const resolve = (spec: string) => {
		try {
			return req.resolve(spec);
		} catch {
			const json = req.resolve(`${spec}/package.json`);
			const main = (JSON.parse(readFileSync(json, 'utf8')) as {exports: {'.': string | {import: string}}}).exports['.'];
			return path.join(path.dirname(json), typeof main === 'string' ? main : main.import);
		}
	};
	return stockSource(abs)
		.replace(/from (['"])([^'"]+)\1/g, (m, q: string, spec: string) => (spec.startsWith('node:') ? m : `from ${q}${pathToFileURL(resolve(spec)).href}${q}`))
		.replace(/^\/\/# sourceMappingURL=.*$/m, '');
}

/** A dependency's module as it was published, loaded from a temporary file. */
async function loadStock<T>(file: string): Promise<T> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-stock-'));
	try {
		const out = path.join(dir, path.basename(file).replace(/\.js$/, '.mjs'));
		writeFileSync(out, stockText(file));
		return (await import(pathToFileURL(out).href)) as T;
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}

describe("string-width's RGI_Emoji set, built on first use", () => {
	it('one code point: Emoji_Presentation and not a regional indicator is RGI_Emoji, for every code point', () => {
		const rgi = new RegExp(String.raw`^\p{RGI_Emoji}$`, 'v');
		const one = new RegExp(ONE_CODE_POINT_EMOJI, 'u');
		const differ: number[] = [];
		let emoji = 0;
		for (let cp = 0; cp <= 0x10ffff; cp++) {
			const s = String.fromCodePoint(cp);
			const a = rgi.test(s);
			if (a) emoji++;
			if (a !== one.test(s)) differ.push(cp);
		}
		expect(differ).toEqual([]);
		// the property is not empty on this Node (an ICU without emoji data would make the test vacuous)
		expect(emoji).toBeGreaterThan(1000);
	});

	it('the patched string-width measures what the original measures', async () => {
		type Sw = {default: (s: string) => number};
		// the installed module (both patches: the RGI_Emoji set on first use, the single-column fast path)
		const patched = (await import('string-width')) as Sw;
		const original = await loadStock<Sw>('string-width/index.js');
		expect(patched.default).not.toBe(original.default);
		const samples = [
			'', 'plain ascii', '│ box ─ drawing ┼', '⣿⡇ braille ▁▂▃▅▇ blocks', '· → ✔ ✘ ⚠', '✔️ ☕ ⌚ 👍 👍🏽 👨‍👩‍👧 🇫🇷 🇫 #️⃣ 1⃣',
			'한국어 한글', '日本語テキスト', 'é (e + U+0301)', '\u001b[31mred\u001b[0m 🔥', 'ﾊﾝｶｸ ＦＵＬＬ', '\u200d\ufe0f', '🏴󠁧󠁢󠁳󠁣󠁴󠁿 flag', '\ud83d lone',
		];
		for (const s of samples) expect(patched.default(s), s).toBe(original.default(s));
		// every code point of the planes with emoji, one at a time and after a letter
		for (let cp = 0x80; cp < 0x20000; cp++) {
			if (cp >= 0xd800 && cp <= 0xdfff) continue;
			const s = String.fromCodePoint(cp);
			if (patched.default(s) !== original.default(s)) expect(patched.default(s), cp.toString(16)).toBe(original.default(s));
			if (cp % 7 === 0 && patched.default(`a${s}`) !== original.default(`a${s}`)) expect(patched.default(`a${s}`), cp.toString(16)).toBe(original.default(`a${s}`));
		}
	});
});

describe("string-width's single-column fast path", () => {
	const members = membersOf(NARROW_CLASS);

	it('every code point of the class is one column by the unpatched string-width, and none joins a grapheme cluster', async () => {
		type Sw = {default: (s: string) => number};
		const original = await loadStock<Sw>('string-width/index.js');
		// the blocks it names (the test would pass on an empty class)
		expect(members.length).toBeGreaterThan(1200);
		const wide = members.filter(c => original.default(c) !== 1).map(c => c.codePointAt(0)!.toString(16));
		expect(wide).toEqual([]);
		// each is a grapheme of its own beside any other member: the width of a string of them is its length
		const segmenter = new Intl.Segmenter(undefined, {granularity: 'grapheme'});
		for (let i = 0; i < members.length; i++) {
			const pair = members[i]! + members[(i * 7919) % members.length]!;
			expect([...segmenter.segment(pair)].length, pair).toBe(2);
		}
	});

	it('strings of the class, and strings with one code point outside it, measure what the original measures', async () => {
		type Sw = {default: (s: string) => number};
		const patched = (await import('string-width')) as Sw;
		const original = await loadStock<Sw>('string-width/index.js');
		const rnd = lcg(11);
		const outside = ['\u0301', '\u00ad', '\u200d', '\ufe0f', '◽', '⌚', '☕', '日', '한', '👍', '\u001b[31m', '\t', '\u2028'];
		for (let i = 0; i < 3000; i++) {
			const chars = Array.from({length: 1 + rnd(40)}, () => members[rnd(members.length)]!);
			if (i % 2 === 1) chars.splice(rnd(chars.length + 1), 0, outside[rnd(outside.length)]!);
			const text = chars.join('');
			expect(patched.default(text), JSON.stringify(text)).toBe(original.default(text));
		}
	});
});

describe("wrap-ansi's string-width 7: the single-column fast path", () => {
	const file = 'wrap-ansi/node_modules/string-width/index.js';
	const members = membersOf(NARROW_CLASS_V7);

	it('every code point of its class is one column by the unpatched string-width 7; NARROW_CLASS\'s others are two there', async () => {
		type Sw = {default: (s: string) => number};
		const original = await loadStock<Sw>(file);
		expect(members.length).toBe(membersOf(NARROW_CLASS).length - 25);
		expect(members.filter(c => original.default(c) !== 1).map(c => c.codePointAt(0)!.toString(16))).toEqual([]);
		// what it leaves out of NARROW_CLASS is exactly what string-width 7 counts otherwise
		const v7 = new Set(members);
		const left = membersOf(NARROW_CLASS).filter(c => !v7.has(c));
		expect(left.map(c => c.codePointAt(0)!.toString(16))).toEqual(['a9', 'ae', '203c', '2049', '2122', '2139', '2194', '2195', '2196', '2197', '2198', '2199', '21a9', '21aa', '23f1', '25aa', '25ab', '25b6', '25c0', '25fb', '25fc', '2692', '26a0', '2702', '2716']);
		for (const c of left) expect(original.default(c), c).toBe(2);
		// and those are WIDE_V7, no more
		expect(membersOf(WIDE_V7)).toEqual(left);
	});

	it('lines of both (a finding\'s ✖, a ▶), and with one code point outside them, measure what the original measures', async () => {
		type Sw = {default: (s: string) => number};
		const patched = await installed<Sw>(file);
		const original = await loadStock<Sw>(file);
		const wide = membersOf(WIDE_V7);
		const rnd = lcg(17);
		const outside = ['\u0301', '\ufe0f', '\u200d', '\u20e3', '☕', '日', '👍', '\t'];
		for (let i = 0; i < 3000; i++) {
			const chars = Array.from({length: 1 + rnd(40)}, () => (rnd(5) === 0 ? wide[rnd(wide.length)]! : members[rnd(members.length)]!));
			if (i % 3 === 2) chars.splice(rnd(chars.length + 1), 0, outside[rnd(outside.length)]!);
			const text = chars.join('');
			expect(patched.default(text), JSON.stringify(text)).toBe(original.default(text));
		}
		expect(patched.default('✖ prompt cache missed: 3 of 20 turns · fix: …')).toBe(original.default('✖ prompt cache missed: 3 of 20 turns · fix: …'));
	});

	it('strings of its class, words as wrap-ansi cuts them, and strings with one code point outside it, measure what the original measures', async () => {
		type Sw = {default: (s: string) => number};
		const patched = await installed<Sw>(file);
		const original = await loadStock<Sw>(file);
		const rnd = lcg(13);
		const outside = ['\u0301', '\u00ad', '\u200d', '\ufe0f', '©', '▶', '↔', '◽', '⌚', '☕', '日', '한', '👍', '\u001b[31m', '\t', '\u2028'];
		for (let i = 0; i < 3000; i++) {
			const chars = Array.from({length: 1 + rnd(40)}, () => members[rnd(members.length)]!);
			if (i % 2 === 1) chars.splice(rnd(chars.length + 1), 0, outside[rnd(outside.length)]!);
			const text = chars.join('');
			expect(patched.default(text), JSON.stringify(text)).toBe(original.default(text));
			for (const word of text.split(' ')) expect(patched.default(word), JSON.stringify(word)).toBe(original.default(word));
		}
	});
});

describe("Ink's test for control characters (each Text, each render)", () => {
	it('answers what the original answers: ESC, C1 controls, their neighbours, lone surrogates, astral code points', async () => {
		type Tok = {hasAnsiControlCharacters: (s: string) => boolean};
		const patched = await installed<Tok>('ink/build/ansi-tokenizer.js');
		const original = await loadStock<Tok>('ink/build/ansi-tokenizer.js');
		const pool = ['a', ' ', '·', '⣿', '\u001b', '\u007f', '\u0080', '\u0085', '\u009b', '\u009f', '\u00a0', '\ud83d', '\ude00', '😀', '\u2028', '日'];
		const rnd = lcg(19);
		let hits = 0;
		for (let i = 0; i < 5000; i++) {
			const text = Array.from({length: rnd(30)}, () => pool[rnd(rnd(3) === 0 ? pool.length : 4)]!).join('');
			const want = original.hasAnsiControlCharacters(text);
			if (want) hits++;
			expect(patched.hasAnsiControlCharacters(text), JSON.stringify(text)).toBe(want);
		}
		expect(hits).toBeGreaterThan(500);
	});
});

describe("ansi-tokenize's lines of one-unit graphemes, without the segmenter", () => {
	it('tokens are the original\'s on random lines of the class with SGR codes and links, and with a code point outside it; the shared segmenter is built only for those', async () => {
		type Tok = {tokenize: (s: string, end?: number) => unknown[]};
		const file = '@alcalzone/ansi-tokenize/build/tokenize.js';
		const original = await loadStock<Tok>(file);
		// as Ink loads it: the one segmenter shared (and built on first use), then the fast path
		const patched = await installed<Tok>(file);
		forgetGraphemeSegmenter();
		const members = membersOf(SIMPLE_GRAPHEMES);
		expect(members).not.toContain('\r');
		expect(members.length).toBeGreaterThan(1200);
		const codes = ['\u001b[1m', '\u001b[22m', '\u001b[31m', '\u001b[39m', '\u001b[38;5;208m', '\u001b[48;2;1;2;3m', '\u001b[0m', '\u001b[1;4;31m', '\u001b]8;;https://example.com/a?b=1\u0007', '\u001b]8;;\u0007', '\u001b[', '\u001b'];
		const rnd = lcg(5);
		const line = () => Array.from({length: rnd(50)}, () => (rnd(5) === 0 ? codes[rnd(codes.length)]! : members[rnd(members.length)]!)).join('');
		for (let i = 0; i < 3000; i++) {
			const text = line();
			expect(patched.tokenize(text), JSON.stringify(text)).toEqual(original.tokenize(text));
			if (i % 10 === 0) expect(patched.tokenize(text, 7)).toEqual(original.tokenize(text, 7));
		}
		// none of those lines needed the segmenter
		expect(graphemeSegmenterBuilt()).toBe(false);
		const outside = ['e\u0301', '\r\n', '👍🏽', '🇫🇷', '한국', '日本', '✔️', '\u200d', '\u009b31m'];
		for (let i = 0; i < 600; i++) {
			const text = line() + outside[i % outside.length]! + line();
			expect(patched.tokenize(text), JSON.stringify(text)).toEqual(original.tokenize(text));
		}
		expect(graphemeSegmenterBuilt()).toBe(true);
	});
});

describe("ansi-tokenize's codes to text without a Set", () => {
	it('returns what the original returns for none, one and several codes, an undefined code included', async () => {
		type Codes = {ansiCodesToString: (codes: unknown[]) => string};
		const original = await loadStock<Codes>('@alcalzone/ansi-tokenize/build/ansiCodes.js');
		const patched = await installed<Codes>('@alcalzone/ansi-tokenize/build/ansiCodes.js');
		expect(patched.ansiCodesToString).not.toBe(original.ansiCodesToString);
		const pool = [
			{type: 'ansi', code: '\u001b[1m', endCode: '\u001b[22m'}, {type: 'ansi', code: '\u001b[31m', endCode: '\u001b[39m'},
			{type: 'ansi', code: '\u001b]8;;https://example.com\u0007', endCode: '\u001b]8;;\u0007'}, {type: 'ansi', code: undefined, endCode: undefined},
			{type: 'ansi', code: null, endCode: '\u001b[39m'},
		];
		const cases: unknown[][] = [[], ...pool.map(c => [c]), [pool[0], pool[0]], [pool[0], pool[1], pool[0]], [pool[3], pool[1]], pool];
		for (const codes of cases) expect(patched.ansiCodesToString(codes), JSON.stringify(codes)).toBe(original.ansiCodesToString(codes));
	});
});

describe("Ink's glyph cache, in two generations", () => {
	it('a line drawn on every frame keeps its glyphs (and its row) while hundreds of other lines come and go; the frames are the unpatched Output\'s', async () => {
		type Out = {get: () => {output: string}; write: (x: number, y: number, text: string, o: {transformers: unknown[]}) => void};
		type OutputModule = {default: new (o: {width: number; height: number}) => Out};
		const original = await loadStock<OutputModule>('ink/build/output.js');
		const patched = await installed<OutputModule>('ink/build/output.js');
		forgetOutputCaches();
		const kept = '\u001b[1m│ tok/s\u001b[22m 42.0 ─ ⣀⣤';
		const frame = (Output: OutputModule['default'], i: number) => {
			const o = new Output({width: 40, height: 3});
			o.write(0, 0, kept, {transformers: []});
			o.write(0, 1, `\u001b[32mline ${i}\u001b[39m · ${i * 7}`, {transformers: []});
			o.write(0, 2, `req ${i % 50}`, {transformers: []});
			return o.get().output;
		};
		let glyphs: unknown;
		const generations = new Set<unknown>();
		for (let i = 0; i < 1300; i++) {
			expect(frame(patched.default, i)).toBe(frame(original.default, i));
			const c = currentOutputCaches()!;
			glyphs ??= c.styledChars.get(kept);
			expect(c.styledChars.get(kept)).toBe(glyphs);
			// bounded: at most 400 lines a generation (checked as a frame starts, so one frame's lines over)
			expect(c.styledChars.size).toBeLessThanOrEqual(403);
			expect(c.infertopOld?.size ?? 0).toBeLessThanOrEqual(403);
			if (c.infertopOld) generations.add(c.infertopOld);
		}
		// the generations turned over (a new line or two a frame: one turn in ~350 frames)
		expect(generations.size).toBeGreaterThanOrEqual(3);
		forgetOutputCaches();
	});
});

describe("ansi-tokenize's diff of equal styles", () => {
	it('returns what the original returns, on random styles', async () => {
		type Diff = {diffAnsiCodes: (a: unknown[], b: unknown[]) => unknown[]};
		const original = await loadStock<Diff>('@alcalzone/ansi-tokenize/build/diff.js');
		const patched = await installed<Diff>('@alcalzone/ansi-tokenize/build/diff.js');
		// codes as ansi-tokenize reduces them: bold/dim share 22m, colours end with 39m/49m
		const pool = [
			{type: 'ansi', code: '\u001b[1m', endCode: '\u001b[22m'}, {type: 'ansi', code: '\u001b[2m', endCode: '\u001b[22m'},
			{type: 'ansi', code: '\u001b[31m', endCode: '\u001b[39m'}, {type: 'ansi', code: '\u001b[32m', endCode: '\u001b[39m'},
			{type: 'ansi', code: '\u001b[44m', endCode: '\u001b[49m'}, {type: 'ansi', code: '\u001b[4m', endCode: '\u001b[24m'},
			{type: 'ansi', code: '\u001b[7m', endCode: '\u001b[27m'},
		];
		const rnd = lcg(7);
		const pick = () => Array.from({length: rnd(4)}, () => ({...pool[rnd(pool.length)]!}));
		let equalCases = 0;
		for (let i = 0; i < 5000; i++) {
			const a = pick();
			const b = i % 3 === 0 ? a.map(c => ({...c})) : pick();
			if (i % 3 === 0) equalCases++;
			expect(patched.diffAnsiCodes(a, b)).toEqual(original.diffAnsiCodes(a, b));
		}
		expect(equalCases).toBeGreaterThan(1000);
	});
});

describe("ansi-tokenize's copies of tokens, as literals", () => {
	const tok = 'node_modules/@alcalzone/ansi-tokenize/build';
	// lines as Ink draws them: colours, bold and dim, a link, wide and combining characters
	const lines = Array.from({length: 120}, (_, i) =>
		[`\u001b[3${i % 8}mline ${i}\u001b[39m`, i % 3 ? '\u001b[1mbold\u001b[22m' : '\u001b[2mdim\u001b[22m', '日本 é', '\u001b]8;;http://x\u0007link\u001b]8;;\u0007', 'x'.repeat(i % 17)].join(' '));

	it('glyphs and undone codes are what the originals make, field for field and in the same order', async () => {
		type Styled = {styledCharsFromTokens: (t: unknown[]) => Record<string, unknown>[]};
		type Undo = {undoAnsiCodes: (c: unknown[]) => Record<string, unknown>[]};
		const {tokenize} = (await import(pathToFileURL(path.join(root, tok, 'tokenize.js')).href)) as {tokenize: (s: string) => Record<string, unknown>[]};
		const original = await loadStock<Styled>('@alcalzone/ansi-tokenize/build/styledChars.js');
		const originalUndo = await loadStock<Undo>('@alcalzone/ansi-tokenize/build/undo.js');
		const patched = (await import(pathToFileURL(path.join(root, tok, 'styledChars.js')).href)) as Styled;
		const patchedUndo = (await import(pathToFileURL(path.join(root, tok, 'undo.js')).href)) as Undo;
		let glyphs = 0;
		for (const line of lines) {
			const tokens = tokenize(line);
			const [a, b] = [patched.styledCharsFromTokens(tokens), original.styledCharsFromTokens(tokens)];
			expect(a).toEqual(b);
			expect(a.map(g => Object.keys(g).join())).toEqual(b.map(g => Object.keys(g).join()));
			glyphs += a.length;
			const codes = tokens.filter(t => t.type === 'ansi');
			expect(patchedUndo.undoAnsiCodes(codes)).toEqual(originalUndo.undoAnsiCodes(codes));
			expect(patchedUndo.undoAnsiCodes(codes).map(c => Object.keys(c).join())).toEqual(originalUndo.undoAnsiCodes(codes).map(c => Object.keys(c).join()));
		}
		expect(glyphs).toBeGreaterThan(3000);
	});

	it('a run of characters between two codes shares one styles array, equal characters in a run are one glyph, and no line shares with another', async () => {
		type Glyph = {value: string; styles: unknown[]};
		type Styled = {styledCharsFromTokens: (t: unknown[]) => Glyph[]};
		const {tokenize} = (await import(pathToFileURL(path.join(root, tok, 'tokenize.js')).href)) as {tokenize: (s: string) => unknown[]};
		const original = await loadStock<Styled>('@alcalzone/ansi-tokenize/build/styledChars.js');
		const patched = (await import(pathToFileURL(path.join(root, tok, 'styledChars.js')).href)) as Styled;
		const count = (m: Styled): {glyphs: number; objects: number; arrays: number} => {
			const objects = new Set<Glyph>();
			const arrays = new Set<unknown[]>();
			let glyphs = 0;
			for (const line of lines) for (const g of m.styledCharsFromTokens(tokenize(line))) {
				glyphs++;
				objects.add(g);
				arrays.add(g.styles);
			}
			return {glyphs, objects: objects.size, arrays: arrays.size};
		};
		const [a, b] = [count(patched), count(original)];
		expect(a.glyphs).toBe(b.glyphs);
		expect(b.objects).toBe(b.glyphs);
		expect(b.arrays).toBe(b.glyphs);
		// 'xxxx…', the spaces of a run and the repeated letters collapse; at most one array per run of a style
		expect(a.objects).toBeLessThan(b.objects * 0.75);
		const runs = lines.reduce((n, l) => n + 1 + (tokenize(l) as {type: string}[]).filter((t) => t.type === 'ansi').length, 0);
		expect(a.arrays).toBeLessThanOrEqual(runs);
		expect(a.arrays).toBeLessThan(b.arrays * 0.25);
		// within one line: 'x'.repeat(16) after the last code is one glyph sixteen times
		const last = patched.styledCharsFromTokens(tokenize(lines[16]!));
		const xs = last.slice(-16);
		expect(xs.every((g) => g === xs[0] && g.value === 'x')).toBe(true);
		// a code changes the run: 'line 0' (red) and ' ' after its end code are other arrays
		const first = patched.styledCharsFromTokens(tokenize(lines[0]!));
		expect(first[0]!.styles).toBe(first[3]!.styles);
		expect(first[0]!.styles).not.toBe(first[6]!.styles);
		// the same line tokenized twice shares nothing with the first (Ink's cache compares rows by identity)
		const again = patched.styledCharsFromTokens(tokenize(lines[0]!));
		expect(again.some((g, i) => g === first[i])).toBe(false);
	});

	it('all glyphs share one hidden class (the spread gave most of them one of their own)', () => {
		const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-maps-'));
		try {
			writeFileSync(path.join(dir, 'original.mjs'), stockText('@alcalzone/ansi-tokenize/build/styledChars.js'));
			writeFileSync(path.join(dir, 'original-undo.mjs'), stockText('@alcalzone/ansi-tokenize/build/undo.js'));
			const url = (f: string) => JSON.stringify(pathToFileURL(path.join(root, tok, f)).href);
			// distinct maps among the objects, counted with V8's own %HaveSameMap (at most 50)
			writeFileSync(path.join(dir, 'count.mjs'), `
				import {tokenize} from ${url('tokenize.js')};
				import * as original from './original.mjs';
				import * as originalUndo from './original-undo.mjs';
				import * as patched from ${url('styledChars.js')};
				import * as patchedUndo from ${url('undo.js')};
				const lines = ${JSON.stringify(lines)};
				const maps = objects => { const reps = []; for (const o of objects) { if (!reps.some(r => %HaveSameMap(r, o))) reps.push(o); if (reps.length >= 50) break; } return reps.length; };
				const glyphs = m => lines.flatMap(l => m.styledCharsFromTokens(tokenize(l)));
				const undone = m => lines.flatMap(l => m.undoAnsiCodes(tokenize(l).filter(t => t.type === 'ansi')));
				console.log(JSON.stringify({patched: maps(glyphs(patched)), original: maps(glyphs(original)), patchedUndo: maps(undone(patchedUndo)), originalUndo: maps(undone(originalUndo))}));
			`);
			const r = spawnSync(process.execPath, ['--allow-natives-syntax', path.join(dir, 'count.mjs')], {encoding: 'utf8', timeout: 30_000});
			expect(r.stderr).toBe('');
			const n = JSON.parse(r.stdout) as {patched: number; original: number; patchedUndo: number; originalUndo: number};
			expect(n.patched).toBe(1);
			expect(n.patchedUndo).toBe(1);
			// the reason for the patch, on the Node this project runs (V8 11.3); a later V8 may not need it
			if (process.versions.node.startsWith('20.')) {
				expect(n.original).toBeGreaterThanOrEqual(50);
				expect(n.originalUndo).toBeGreaterThan(1);
			}
		} finally {
			rmSync(dir, {recursive: true, force: true});
		}
	});
});

describe("restore-cursor's exit write (restore-cursor 5's fix, patched in at install)", () => {
	/** Load restore-cursor (installed or as published) in a child whose stdout and stderr are pipes, call it, exit: what was on stderr. */
	function stderrAtExit(stock: boolean): string {
		const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-cursor-'));
		try {
			let file = nm('restore-cursor/index.js');
			if (stock) {
				file = path.join(dir, 'restore-cursor.mjs');
				writeFileSync(file, stockText('restore-cursor/index.js'));
			}
			const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const {default: restore} = await import(${JSON.stringify(pathToFileURL(file).href)}); restore(); console.log('done');`], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000});
			expect(r.status, r.stderr).toBe(0);
			expect(r.stdout).toBe('done\n');
			return r.stderr;
		} finally {
			rmSync(dir, {recursive: true, force: true});
		}
	}

	it('writes nothing to a stderr that is not a terminal (restore-cursor 4 wrote ESC[?25h there)', () => {
		expect(stderrAtExit(true)).toBe('\u001B[?25h');
		expect(stderrAtExit(false)).toBe('');
	});
});
