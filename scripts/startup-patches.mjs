/**
 * Dependencies' start-up work that the first frame waited for, removed at build time (the
 * build fails when a line is not found exactly once: an upgrade moved it, and the patch is never
 * silently skipped). Measured with `node --cpu-prof` on `infertop --demo` to its first frame.
 *
 * - yoga-layout (Ink's layout engine) ships its WebAssembly as a base64 data: URL and, where a
 *   global `fetch` exists (Node ≥ 18), "downloads" it with fetch: Node then loads undici, its
 *   whole HTTP client (~30 ms on a 2-core machine), to decode 90 KB of base64. Here the data: URL
 *   is always decoded in place (emscripten's own fallback path), with Buffer instead of atob and a
 *   per-character loop, and compiled and instantiated synchronously, so that its index needs no
 *   top-level await and the bundle can be CommonJS (bin/infertop.js serves it from V8's code cache).
 */
import fs from 'node:fs';

function replaceOnce(source, from, to, file) {
	const at = source.indexOf(from);
	if (at < 0 || source.indexOf(from, at + 1) >= 0) throw new Error(`startup patch: ${JSON.stringify(from.slice(0, 80))} not found exactly once in ${file} (dependency changed?)`);
	return source.slice(0, at) + to + source.slice(at + from.length);
}

export const YOGA_PATCHES = [
	// ya(): use the in-place decoder, never fetch (a data: URL: nothing to download)
	['function ya(){return w||"function"!=typeof fetch?', 'function ya(){return true?'],
	// instantiate without instantiateStreaming (which needs fetch's Response)
	['return w||"function"!=typeof WebAssembly.instantiateStreaming||ua(H)||"function"!=typeof fetch?c(b):', 'return true?c(b):'],
	// decode the base64 with Buffer
	['var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c', 'var d=new Uint8Array(Buffer.from(a.slice(37),"base64"))'],
	// compile and instantiate synchronously (emscripten's own Module.instantiateWasm hook): the
	// module is ready when loadYoga returns, so yoga's index needs no top-level await (below)
	['if(h.instantiateWasm)try{', 'h.instantiateWasm||(h.instantiateWasm=function(i,r){r(new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(H.slice(37),"base64")),i));return{}});if(h.instantiateWasm)try{'],
];

/** yoga-layout's index: the module object, started synchronously by the patched loader, instead of `await loadYoga()`. */
export const YOGA_INDEX_PATCHES = [
	[
		'const Yoga = wrapAssembly(await loadYoga());',
		'const __infertopYoga = {};\nloadYoga(__infertopYoga); // infertop: instantiated synchronously (scripts/startup-patches.mjs)\nif (!__infertopYoga.calledRun) throw new Error("yoga-layout did not start synchronously");\nconst Yoga = wrapAssembly(__infertopYoga);',
	],
];

export function patchYogaIndex(source) {
	let out = source;
	for (const [from, to] of YOGA_INDEX_PATCHES) out = replaceOnce(out, from, to, 'yoga-layout/dist/src/index.js');
	return out;
}

export function patchYoga(source) {
	let out = source;
	for (const [from, to] of YOGA_PATCHES) out = replaceOnce(out, from, to, 'yoga-layout/dist/binaries/yoga-wasm-base64-esm.js');
	return out;
}

/**
 * Four modules under Ink (string-width twice, slice-ansi, ansi-tokenize) each build an
 * Intl.Segmenter when they load; each construction loads ICU's break-iterator data again
 * (~12 ms each on a 2-core machine, before the first frame). All four are grapheme segmenters of
 * the default locale (`new Intl.Segmenter()` defaults to granularity "grapheme"), and segment() is
 * stateless: one instance serves them all. It is built on the first segment() call (the four only
 * ever call segment()), and with ansi-tokenize's fast path below a first frame of plain text, box
 * drawing and braille calls none: the ~12 ms of its one construction are not in the first frame.
 */
const SHARED_SEGMENTER = '({segment: (text) => (globalThis.__infertopSegmenter ??= new Intl.Segmenter(undefined, {granularity: "grapheme"})).segment(text)})';

export function patchSegmenter(source, file) {
	const m = source.match(/new Intl\.Segmenter\((?:undefined|void 0)?(?:,\s*\{\s*granularity:\s*['"]grapheme['"]\s*\})?\)/g);
	if (!m || m.length !== 1) throw new Error(`startup patch: one grapheme Intl.Segmenter expected in ${file}, found ${m ? m.length : 0} (dependency changed?)`);
	return replaceOnce(source, m[0], SHARED_SEGMENTER, file);
}

/**
 * string-width 8 (Ink's text measurer) builds `/^\p{RGI_Emoji}$/v` when its module loads: V8 then
 * expands the property of strings (every emoji sequence ICU knows) into a set, ~20–30 ms on a 2-core
 * machine before the first frame. Here the set is built on first use, and a grapheme that is one code
 * point is answered without it: a single code point is RGI_Emoji exactly when it has
 * Emoji_Presentation and is not a regional indicator (UTS #51: the single-code-point members are
 * Basic_Emoji; a lone regional indicator is a flag's half). test/system/idle-cost.test.ts checks
 * that equivalence on every code point of the running Node, and the patched widths against the
 * unpatched module's. string-width calls nothing but `.test()` on it.
 */
export const ONE_CODE_POINT_EMOJI = '^(?![\\u{1F1E6}-\\u{1F1FF}])\\p{Emoji_Presentation}$';
const RGI_FROM = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const RGI_TO = [
	'// infertop (scripts/startup-patches.mjs): the RGI_Emoji set is built on first use; one code point is read from its properties.',
	'let __infertopRgi;',
	`const __infertopOneEmoji = new RegExp(${JSON.stringify(ONE_CODE_POINT_EMOJI)}, 'u');`,
	"const rgiEmojiRegex = {test: (segment) => (segment.length === 1 || (segment.length === 2 && segment.codePointAt(0) > 0xffff) ? __infertopOneEmoji.test(segment) : (__infertopRgi ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v')).test(segment))};",
].join('\n');

export function patchRgiEmoji(source) {
	return replaceOnce(source, RGI_FROM, RGI_TO, 'string-width/index.js');
}

/**
 * @alcalzone/ansi-tokenize's diffAnsiCodes (Ink turns every styled character of a frame back into
 * text with it) builds three Sets and two arrays per character, though neighbouring characters
 * nearly always share their style: 11 ms of the first frame's 50 at 120×40. When `from` and `to`
 * hold the same codes in the same order, every code of `from` is in `to` and every code of `to` is
 * in `from`, so the function's own answer is empty: that case returns an empty array (one frozen
 * array for all: the bundle's one caller, styledCharsToString, only reads it) before building anything.
 * test/system/idle-cost.test.ts compares the patched function with the original on random styles.
 */
const DIFF_FROM = 'export function diffAnsiCodes(from, to) {\n';
const DIFF_TO = `// infertop (scripts/startup-patches.mjs): one empty answer for all (its one caller, styledCharsToString, only reads it)
const __infertopNoCodes = Object.freeze([]);
${DIFF_FROM}    // infertop (scripts/startup-patches.mjs): the same styles in the same order need no codes.
    // (a loop, not every(): no closure for each of the frame's glyphs)
    if (from.length === to.length) {
        let same = true;
        for (let i = 0; same && i < from.length; i++) same = from[i].code === to[i].code && from[i].endCode === to[i].endCode;
        if (same) return __infertopNoCodes;
    }
`;

export function patchAnsiDiff(source) {
	return replaceOnce(source, DIFF_FROM, DIFF_TO, '@alcalzone/ansi-tokenize/build/diff.js');
}

/**
 * ansi-tokenize copies each token with an object spread: `{...token, styles}` for every glyph of a
 * line, `{...code, code: code.endCode}` for every code it undoes. On Node 20 (V8 11.3), once that
 * spread's inline cache has warmed up (after ~15 copies), each copy gets a hidden class (map) made
 * for it alone: measured in infertop after 90 s, 40,697 of the 41,844 plain objects had a map of
 * their own, 9.2 MB of maps beside 2.5 MB of objects, all of them glyphs in Ink's glyph cache
 * (with Ink's own per-frame cache they were garbage every frame, and maps live in the old space).
 * The same copy written as a literal of the same fields shares one map. A token of tokenize.js has
 * exactly these fields (a char: type, value, fullWidth; a code: type, code, endCode), so the
 * result is the same object. test/system/idle-cost.test.ts compares both with the originals and
 * counts the maps in a child node (--allow-natives-syntax).
 * And each glyph had its own copy of its styles: Ink's glyph cache (two generations of 400 lines)
 * held 58,456 glyphs and 61,096 arrays after 150 s under a request a second (3.3 MB of glyphs, 2.0 MB
 * of arrays, 2.4 MB of their elements: a third of the JS heap). A run of characters between two codes
 * now shares one styles array, and equal characters in a run share one glyph.
 */
const GLYPH_FROM = `    let codes = [];
    const ret = [];
    for (const token of tokens) {
        if (token.type === "ansi") {
            codes = reduceAnsiCodesIncremental(codes, [token]);
        }
        else if (token.type === "char") {
            ret.push({
                ...token,
                styles: [...codes],
            });
        }
    }
    return ret;`;
const GLYPH_TO = `    // infertop (scripts/startup-patches.mjs): glyphs are only read (Output.get places them, styledCharsToString
    // and diffAnsiCodes read them), so a run of characters between two codes shares one styles array (the
    // codes themselves: reduceAnsiCodesIncremental makes a new array each time and never changes it after),
    // and equal characters in a run are one glyph; each is a literal, not a spread: one hidden class for all.
    let codes = [];
    let run = new Map();
    const ret = [];
    for (const token of tokens) {
        if (token.type === "ansi") {
            codes = reduceAnsiCodesIncremental(codes, [token]);
            if (run.size > 0) run = new Map();
        }
        else if (token.type === "char") {
            let glyph = run.get(token.value);
            if (glyph === undefined || glyph.fullWidth !== token.fullWidth) {
                glyph = {type: token.type, value: token.value, fullWidth: token.fullWidth, styles: codes};
                run.set(token.value, glyph);
            }
            ret.push(glyph);
        }
    }
    return ret;`;
const UNDO_FROM = `        .map((code) => ({
        ...code,
        code: code.endCode,
    }));`;
const UNDO_TO = `        // infertop (scripts/startup-patches.mjs): a literal, not a spread: one hidden class for all codes
        .map((code) => ({type: code.type, code: code.endCode, endCode: code.endCode}));`;

export function patchGlyphCopy(source) {
	return replaceOnce(source, GLYPH_FROM, GLYPH_TO, '@alcalzone/ansi-tokenize/build/styledChars.js');
}

export function patchUndoCopy(source) {
	return replaceOnce(source, UNDO_FROM, UNDO_TO, '@alcalzone/ansi-tokenize/build/undo.js');
}

/**
 * ansi-tokenize's ansiCodesToString builds a Set and two arrays for every glyph Ink turns back into
 * text (each glyph of each changed row, with the diff to its neighbour's style, nearly always
 * none): sampled under a request a second, 18 MB of the 123 MB the monitor allocated in 40 s. With
 * no code the answer is '' and with one it is that code as join() writes it (null and undefined as
 * ''): both answered before building anything. test/system/idle-cost.test.ts compares it with the
 * original.
 */
const CODES_FROM = 'export function ansiCodesToString(codes) {\n';
const CODES_TO = `${CODES_FROM}    // infertop (scripts/startup-patches.mjs): none or one code need no Set
    if (codes.length < 2) return codes.length === 0 || codes[0].code == null ? '' : String(codes[0].code);
`;

export function patchAnsiCodesToString(source) {
	return replaceOnce(source, CODES_FROM, CODES_TO, '@alcalzone/ansi-tokenize/build/ansiCodes.js');
}

/**
 * string-width answers a printable-ASCII string by its length and sends anything else through
 * Intl.Segmenter, one object per grapheme: a line with a border, a sparkline or a `·` (most of
 * infertop's) took that path on every miss of Ink's width caches, 8–12 MB of the 123 MB above.
 * NARROW_CLASS adds the blocks of single-column code points a monitor draws (Latin-1 but the soft
 * hyphen, general punctuation, letterlike symbols, arrows, mathematical operators, box drawing,
 * block elements, geometric shapes but ◽◾, braille): none of them joins a grapheme cluster and
 * each is one column by string-width's own rules, so the width is the length.
 * test/system/idle-cost.test.ts checks every code point of the class, and random strings of it,
 * against the unpatched module.
 */
export const NARROW_CLASS = '\\u0020-\\u007E\\u00A0-\\u00AC\\u00AE-\\u00FF\\u2010-\\u2027\\u2030-\\u205E\\u2100-\\u214F\\u2190-\\u22FF\\u2500-\\u25FC\\u25FF\\u2800-\\u28FF';
const NARROW_FROM = 'if (/^[\\u0020-\\u007E]*$/.test(string)) {';
const NARROW_TO = 'if (__infertopNarrow.test(string)) {';
const NARROW_DEF_FROM = 'export default function stringWidth(';
const NARROW_DEF_TO = `// infertop (scripts/startup-patches.mjs): strings of single-column code points are their length
const __infertopNarrow = new RegExp(${JSON.stringify(`^[${NARROW_CLASS}]*$`)});

${NARROW_DEF_FROM}`;

export function patchNarrowWidth(source) {
	return replaceOnce(replaceOnce(source, NARROW_FROM, NARROW_TO, 'string-width/index.js'), NARROW_DEF_FROM, NARROW_DEF_TO, 'string-width/index.js');
}

/**
 * ansi-tokenize's tokenize (Ink turns each new line of a frame into glyphs with it) walks the line
 * grapheme by grapheme with Intl.Segmenter. In a line of code points that are each a grapheme of
 * their own (C0 controls but CR, ESC's sequences included, printable ASCII and NARROW_CLASS), the
 * graphemes are its UTF-16 units: they are handed out as the segmenter would ({segment, index}),
 * without it. test/system/idle-cost.test.ts compares the tokens with the original's on random
 * lines of the class, with SGR codes and links, and with one code point outside it.
 */
export const SIMPLE_GRAPHEMES = `\\u0000-\\u000C\\u000E-\\u007F${NARROW_CLASS.replace('\\u0020-\\u007E', '')}`;
const TOKENIZE_FROM = '    for (const { segment, index } of segmenter.segment(str)) {';
const TOKENIZE_TO = '    for (const { segment, index } of __infertopGraphemes(str)) {';
const TOKENIZE_DEF_FROM = 'export function tokenize(';
const TOKENIZE_DEF_TO = `// infertop (scripts/startup-patches.mjs): each unit of such a line is a grapheme of its own
const __infertopSimple = new RegExp(${JSON.stringify(`^[${SIMPLE_GRAPHEMES}]*$`)});
function __infertopGraphemes(str) {
    if (!__infertopSimple.test(str)) return segmenter.segment(str);
    const out = new Array(str.length);
    for (let i = 0; i < str.length; i++) out[i] = { segment: str[i], index: i };
    return out;
}
${TOKENIZE_DEF_FROM}`;

export function patchTokenizeGraphemes(source) {
	return replaceOnce(replaceOnce(source, TOKENIZE_FROM, TOKENIZE_TO, '@alcalzone/ansi-tokenize/build/tokenize.js'), TOKENIZE_DEF_FROM, TOKENIZE_DEF_TO, '@alcalzone/ansi-tokenize/build/tokenize.js');
}

/**
 * restore-cursor 4 (Ink's, through cli-cursor 4) writes "show the cursor" to stderr at exit even when
 * stderr is a file or a pipe (`infertop 2>errors.log` got an escape sequence). restore-cursor 5's fix
 * (sindresorhus/restore-cursor v5.0.0, "only write to a TTY"): the terminal among stderr and stdout.
 */
const CURSOR_FROM = "process.stderr.write('\\u001B[?25h');";
const CURSOR_TO = "(process.stderr.isTTY ? process.stderr : process.stdout.isTTY ? process.stdout : undefined)?.write('\\u001B[?25h');";
export function patchRestoreCursor(source) {
	return replaceOnce(source, CURSOR_FROM, CURSOR_TO, 'restore-cursor/index.js');
}

/**
 * esbuild plugin applying them all; `state` says which were applied (the build checks).
 * @param {{yoga?: boolean, yogaSync?: boolean, segmenters?: number, rgi?: boolean, narrow?: boolean, graphemes?: boolean, ansiDiff?: boolean, glyphCopy?: boolean, undoCopy?: boolean, codesToString?: boolean, cursor?: boolean}} [state]
 * @returns {import('esbuild').Plugin}
 */
export function startupPatches(state = {}) {
	return {
		name: 'infertop-startup-patches',
		setup(b) {
			b.onLoad({filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/}, async (a) => {
				state.yoga = true;
				return {contents: patchYoga(await fs.promises.readFile(a.path, 'utf8')), loader: 'js'};
			});
			b.onLoad({filter: /[\\/]yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/}, async (a) => {
				state.yogaSync = true;
				return {contents: patchYogaIndex(await fs.promises.readFile(a.path, 'utf8')), loader: 'js'};
			});
			b.onLoad({filter: /[\\/](string-width[\\/]index|slice-ansi[\\/]tokenize-ansi|ansi-tokenize[\\/]build[\\/]tokenize)\.js$/}, async (a) => {
				state.segmenters = (state.segmenters ?? 0) + 1;
				let contents = patchSegmenter(await fs.promises.readFile(a.path, 'utf8'), a.path);
				// string-width 8 (Ink's); wrap-ansi's string-width 7 has no RGI_Emoji set.
				if (contents.includes(RGI_FROM)) {
					contents = patchNarrowWidth(patchRgiEmoji(contents));
					state.rgi = true;
					state.narrow = true;
				}
				if (contents.includes(TOKENIZE_FROM)) {
					contents = patchTokenizeGraphemes(contents);
					state.graphemes = true;
				}
				return {contents, loader: 'js'};
			});
			b.onLoad({filter: /[\\/]restore-cursor[\\/]index\.js$/}, async (a) => {
				state.cursor = true;
				return {contents: patchRestoreCursor(await fs.promises.readFile(a.path, 'utf8')), loader: 'js'};
			});
			// ansi-tokenize: one file, one patch, one flag in `state` each
			for (const [file, patch, key] of [['diff', patchAnsiDiff, 'ansiDiff'], ['styledChars', patchGlyphCopy, 'glyphCopy'], ['undo', patchUndoCopy, 'undoCopy'], ['ansiCodes', patchAnsiCodesToString, 'codesToString']]) {
				b.onLoad({filter: new RegExp(`[\\\\/]@alcalzone[\\\\/]ansi-tokenize[\\\\/]build[\\\\/]${file}\\.js$`)}, async (a) => {
					state[key] = true;
					return {contents: patch(await fs.promises.readFile(a.path, 'utf8')), loader: 'js'};
				});
			}
		},
	};
}
