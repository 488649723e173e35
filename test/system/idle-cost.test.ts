/**
 * The pieces of the idle monitor's cost that are structure, not time: what wakes the system scan,
 * the in-place /proc stat parser, Linux power from sysfs, nvidia-smi looked up before it is spawned,
 * and the start-up patches finding their lines in the installed dependencies (and answering what the
 * originals answer).
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import {pathToFileURL} from 'node:url';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {isWork} from '../../source/runtime.js';
import {parseProcStat, parseProcStatBytes} from '../../source/sources/process-sampler.js';
import {parseLinuxPowerSupplies} from '../../source/system/power.js';
import {onPath} from '../../source/sources/nvidia-smi.js';
import {INK_RECONCILER_PATCHES, patchInkOutput, patchInkReconciler} from '../../scripts/ink-incremental-fix.mjs';
import {NARROW_CLASS, ONE_CODE_POINT_EMOJI, SIMPLE_GRAPHEMES, YOGA_INDEX_PATCHES, YOGA_PATCHES, patchAnsiCodesToString, patchAnsiDiff, patchGlyphCopy, patchNarrowWidth, patchRgiEmoji, patchRestoreCursor, patchTokenizeGraphemes, patchUndoCopy, patchYogaIndex, patchSegmenter, patchYoga} from '../../scripts/startup-patches.mjs';

const root = path.resolve(import.meta.dirname, '..', '..');
const id = 'http://127.0.0.1:11434';

describe('what wakes the system scan', () => {
	it('an engine echoing a GET (infertop polling it) is not work; a POST, a request event, an unparsed line are', () => {
		const http = (method: string) => ({type: 'engine-event' as const, serverId: id, t: 0, event: {type: 'http' as const, method, path: '/api/ps', status: 200}});
		expect(isWork(http('GET'))).toBe(false);
		expect(isWork(http('HEAD'))).toBe(false);
		expect(isWork(http('POST'))).toBe(true);
		expect(isWork({type: 'engine-event', serverId: id, t: 0, event: {type: 'busy', reason: 'x'}} as never)).toBe(true);
		expect(isWork({type: 'log-line', serverId: id, t: 0, text: '[GIN] …', parsed: true})).toBe(false);
		expect(isWork({type: 'log-line', serverId: id, t: 0, text: 'something else', parsed: false})).toBe(true);
		expect(isWork({type: 'tick', t: 0})).toBe(false);
	});
});

describe('/proc/PID/stat read in place', () => {
	it('reads what the line parser reads, comm with spaces and parentheses included', () => {
		const line = '4242 (tmux: (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 300 45 0 0 20 0 1 0 987654 12345678 512 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n';
		const b = Buffer.from(line, 'latin1');
		expect(parseProcStatBytes(b, b.length)).toEqual({pid: 4242, comm: 'tmux: (x) y', ppid: 1, ticks: 345, start: 987654, rssPages: 512});
		// only the bytes read count (the buffer is reused: what lies past the length is the last file's)
		const big = Buffer.alloc(4096, 0x41);
		b.copy(big);
		expect(parseProcStatBytes(big, b.length)).toEqual(parseProcStatBytes(b, b.length));
		expect(parseProcStat('12 (x) S 1 a b')).toBeUndefined();
		expect(parseProcStat('garbage')).toBeUndefined();
	});

	it.runIf(process.platform === 'linux')('agrees with a split of this process\'s own stat file', () => {
		const text = readFileSync('/proc/self/stat', 'latin1');
		const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
		const b = Buffer.from(text, 'latin1');
		const s = parseProcStatBytes(b, b.length)!;
		expect(s.ppid).toBe(Number(f[1]));
		expect(s.ticks).toBe(Number(f[11]) + Number(f[12]));
		expect(s.start).toBe(Number(f[19]));
		expect(s.rssPages).toBe(Number(f[21]));
	});
});

describe('Linux power from /sys/class/power_supply', () => {
	it('AC when mains is online or a battery charges; battery when discharging; unknown when nothing is listed', () => {
		expect(parseLinuxPowerSupplies([])).toEqual({});
		expect(parseLinuxPowerSupplies([{type: 'Mains\n', online: '1\n'}])).toEqual({source: 'ac'});
		expect(parseLinuxPowerSupplies([{type: 'Mains', online: '0'}, {type: 'Battery', status: 'Discharging\n', capacity: '57\n'}])).toEqual({source: 'battery', percent: 57});
		expect(parseLinuxPowerSupplies([{type: 'Mains', online: '1'}, {type: 'Battery', status: 'Charging', capacity: '80'}])).toEqual({source: 'ac', percent: 80});
		expect(parseLinuxPowerSupplies([{type: 'Battery', status: 'Full', capacity: '100'}])).toEqual({source: 'ac', percent: 100});
		// an impossible capacity is unknown, not a number
		expect(parseLinuxPowerSupplies([{type: 'Battery', status: 'Unknown', capacity: '250'}])).toEqual({});
		// a USB supply offline and a battery that does not say: on battery (nothing else feeds it)
		expect(parseLinuxPowerSupplies([{type: 'USB', online: '0'}, {type: 'Battery', status: 'Not charging'}])).toEqual({source: 'battery'});
	});
});

describe('nvidia-smi is looked up before it is spawned', () => {
	it.runIf(process.platform !== 'win32')('a name on PATH is found, one that is not is missing; a path is left to the spawn', () => {
		const dir = path.dirname(process.execPath);
		expect(onPath(path.basename(process.execPath), dir)).toBe(true);
		expect(onPath('infertop-no-such-tool-xyz', dir)).toBe(false);
		expect(onPath('nvidia-smi', '')).toBe(false);
		expect(onPath('/opt/x/nvidia-smi', '')).toBe(true);
		expect(onPath('nvidia-smi', '', 'win32')).toBe(true);
	});
});

describe('start-up patches find their lines in the installed dependencies', () => {
	it('yoga-layout: no fetch of its own wasm', () => {
		const yoga = readFileSync(path.join(root, 'node_modules/yoga-layout/dist/binaries/yoga-wasm-base64-esm.js'), 'utf8');
		for (const [from] of YOGA_PATCHES) expect(yoga.split(from)).toHaveLength(2);
		const patched = patchYoga(yoga);
		expect(patched).not.toMatch(/"function"!=typeof fetch/);
		expect(() => patchYoga(patched)).toThrow(/not found exactly once/);
	});

	it('no top-level await is left in Ink (under isDev()) nor in yoga (its wasm instantiated synchronously): the bundle can be CommonJS', () => {
		const tla = /^(?:await\s|(?:var|let|const)\s+\w+\s*=\s*(?:\w+\(\s*)?await\s|\s+await import\()/m;
		const reconciler = readFileSync(path.join(root, 'node_modules/ink/build/reconciler.js'), 'utf8');
		const index = readFileSync(path.join(root, 'node_modules/yoga-layout/dist/src/index.js'), 'utf8');
		expect(reconciler).toMatch(tla);
		expect(index).toMatch(tla);
		for (const [from] of INK_RECONCILER_PATCHES) expect(reconciler.split(from)).toHaveLength(2);
		for (const [from] of YOGA_INDEX_PATCHES) expect(index.split(from)).toHaveLength(2);
		expect(patchInkReconciler(reconciler)).not.toMatch(tla);
		expect(patchYogaIndex(index)).not.toMatch(tla);
	});

	it('each of the four modules under Ink builds exactly one grapheme segmenter, which the patch shares', () => {
		for (const f of ['string-width/index.js', 'wrap-ansi/node_modules/string-width/index.js', 'slice-ansi/tokenize-ansi.js', '@alcalzone/ansi-tokenize/build/tokenize.js']) {
			const patched = patchSegmenter(readFileSync(path.join(root, 'node_modules', f), 'utf8'), f);
			expect(patched).toContain('globalThis.__infertopSegmenter ??=');
			expect(patched.match(/new Intl\.Segmenter\(/g)).toHaveLength(1);
			// built on the first segment() call, not as the module loads
			expect(patched).toMatch(/\{segment: \(text\) => \(globalThis\.__infertopSegmenter \?\?= new Intl\.Segmenter\(/);
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

/** A dependency's module's text with a patch applied, its imports pointing at the installed modules. */
function patchedSource(file: string, patch: (source: string) => string): string {
	const abs = path.join(root, 'node_modules', file);
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
	return patch(readFileSync(abs, 'utf8'))
		.replace(/from (['"])([^'"]+)\1/g, (m, q: string, spec: string) => (spec.startsWith('node:') ? m : `from ${q}${pathToFileURL(resolve(spec)).href}${q}`))
		.replace(/^\/\/# sourceMappingURL=.*$/m, '');
}

/** A dependency's module with a patch applied, loaded from a temporary file. */
async function loadPatched<T>(file: string, patch: (source: string) => string): Promise<T> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-patched-'));
	try {
		const out = path.join(dir, path.basename(file).replace(/\.js$/, '.mjs'));
		writeFileSync(out, patchedSource(file, patch));
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
		const original = (await import('string-width')) as Sw;
		// both of the build's patches (the RGI_Emoji set on first use, the single-column fast path)
		const patched = await loadPatched<Sw>('string-width/index.js', (t) => patchNarrowWidth(patchRgiEmoji(t)));
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
		const original = (await import('string-width')) as Sw;
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
		const original = (await import('string-width')) as Sw;
		const patched = await loadPatched<Sw>('string-width/index.js', (t) => patchNarrowWidth(patchRgiEmoji(t)));
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

describe("ansi-tokenize's lines of one-unit graphemes, without the segmenter", () => {
	it('tokens are the original\'s on random lines of the class with SGR codes and links, and with a code point outside it; the shared segmenter is built only for those', async () => {
		type Tok = {tokenize: (s: string, end?: number) => unknown[]};
		const file = '@alcalzone/ansi-tokenize/build/tokenize.js';
		const original = (await import(pathToFileURL(path.join(root, 'node_modules', file)).href)) as Tok;
		const g = globalThis as {__infertopSegmenter?: unknown};
		delete g.__infertopSegmenter;
		// as the build loads it: the one segmenter shared (and built on first use), then the fast path
		const patched = await loadPatched<Tok>(file, (t) => patchTokenizeGraphemes(patchSegmenter(t, file)));
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
		expect(g.__infertopSegmenter).toBeUndefined();
		const outside = ['e\u0301', '\r\n', '👍🏽', '🇫🇷', '한국', '日本', '✔️', '\u200d', '\u009b31m'];
		for (let i = 0; i < 600; i++) {
			const text = line() + outside[i % outside.length]! + line();
			expect(patched.tokenize(text), JSON.stringify(text)).toEqual(original.tokenize(text));
		}
		expect(g.__infertopSegmenter).toBeInstanceOf(Intl.Segmenter);
		delete g.__infertopSegmenter;
	});
});

describe("ansi-tokenize's codes to text without a Set", () => {
	it('returns what the original returns for none, one and several codes, an undefined code included', async () => {
		type Codes = {ansiCodesToString: (codes: unknown[]) => string};
		const original = (await import(pathToFileURL(path.join(root, 'node_modules/@alcalzone/ansi-tokenize/build/ansiCodes.js')).href)) as Codes;
		const patched = await loadPatched<Codes>('@alcalzone/ansi-tokenize/build/ansiCodes.js', patchAnsiCodesToString);
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
		type Caches = {styledChars: Map<string, unknown>; __infertopOld?: Map<string, unknown>};
		const original = (await import(pathToFileURL(path.join(root, 'node_modules/ink/build/output.js')).href)) as OutputModule;
		const patched = await loadPatched<OutputModule>('ink/build/output.js', patchInkOutput);
		const g = globalThis as {__infertopInkCaches?: Caches};
		delete g.__infertopInkCaches;
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
			const c = g.__infertopInkCaches!;
			glyphs ??= c.styledChars.get(kept);
			expect(c.styledChars.get(kept)).toBe(glyphs);
			// bounded: at most 400 lines a generation (checked as a frame starts, so one frame's lines over)
			expect(c.styledChars.size).toBeLessThanOrEqual(403);
			expect(c.__infertopOld?.size ?? 0).toBeLessThanOrEqual(403);
			if (c.__infertopOld) generations.add(c.__infertopOld);
		}
		// the generations turned over (a new line or two a frame: one turn in ~350 frames)
		expect(generations.size).toBeGreaterThanOrEqual(3);
		delete g.__infertopInkCaches;
	});
});

describe("ansi-tokenize's diff of equal styles", () => {
	it('returns what the original returns, on random styles', async () => {
		type Diff = {diffAnsiCodes: (a: unknown[], b: unknown[]) => unknown[]};
		const original = (await import(pathToFileURL(path.join(root, 'node_modules/@alcalzone/ansi-tokenize/build/diff.js')).href)) as Diff;
		const patched = await loadPatched<Diff>('@alcalzone/ansi-tokenize/build/diff.js', patchAnsiDiff);
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
		const original = (await import(pathToFileURL(path.join(root, tok, 'styledChars.js')).href)) as Styled;
		const originalUndo = (await import(pathToFileURL(path.join(root, tok, 'undo.js')).href)) as Undo;
		const patched = await loadPatched<Styled>('@alcalzone/ansi-tokenize/build/styledChars.js', patchGlyphCopy);
		const patchedUndo = await loadPatched<Undo>('@alcalzone/ansi-tokenize/build/undo.js', patchUndoCopy);
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
		const original = (await import(pathToFileURL(path.join(root, tok, 'styledChars.js')).href)) as Styled;
		const patched = await loadPatched<Styled>('@alcalzone/ansi-tokenize/build/styledChars.js', patchGlyphCopy);
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
			writeFileSync(path.join(dir, 'patched.mjs'), patchedSource('@alcalzone/ansi-tokenize/build/styledChars.js', patchGlyphCopy));
			writeFileSync(path.join(dir, 'patched-undo.mjs'), patchedSource('@alcalzone/ansi-tokenize/build/undo.js', patchUndoCopy));
			const url = (f: string) => JSON.stringify(pathToFileURL(path.join(root, tok, f)).href);
			// distinct maps among the objects, counted with V8's own %HaveSameMap (at most 50)
			writeFileSync(path.join(dir, 'count.mjs'), `
				import {tokenize} from ${url('tokenize.js')};
				import * as original from ${url('styledChars.js')};
				import * as originalUndo from ${url('undo.js')};
				import * as patched from './patched.mjs';
				import * as patchedUndo from './patched-undo.mjs';
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

describe("restore-cursor's exit write (restore-cursor 5's fix, patched in at build time)", () => {
	/** Load restore-cursor (patched or not) in a child whose stdout and stderr are pipes, call it, exit: what was on stderr. */
	function stderrAtExit(patch: (source: string) => string): string {
		const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-cursor-'));
		try {
			const file = path.join(dir, 'restore-cursor.mjs');
			writeFileSync(file, patchedSource('restore-cursor/index.js', patch));
			const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const {default: restore} = await import(${JSON.stringify(pathToFileURL(file).href)}); restore(); console.log('done');`], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000});
			expect(r.status, r.stderr).toBe(0);
			expect(r.stdout).toBe('done\n');
			return r.stderr;
		} finally {
			rmSync(dir, {recursive: true, force: true});
		}
	}

	it('writes nothing to a stderr that is not a terminal (restore-cursor 4 wrote ESC[?25h there)', () => {
		expect(stderrAtExit(s => s)).toBe('\u001B[?25h');
		expect(stderrAtExit(patchRestoreCursor)).toBe('');
	});
});
