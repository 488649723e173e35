/**
 * ink#910 for Ink 6.8.0, patched at build time: its incremental renderer (`incrementalRendering`)
 * rewinds to the top of the last frame with `cursorUp(previousVisible - 1)`. Every frame Ink writes
 * below the terminal's full height ends with a newline, which leaves the cursor one row BELOW the
 * frame's last line, so the rewind stops one row short: each update lands one row lower, and the
 * lines it skips as unchanged stay behind as ghosts. Ink 7 rewinds by the full line count when the
 * previous frame ended with a newline (vadimdemedes/ink c32da0b); Ink 7 needs Node 22, so the same
 * one-line change is made here to node_modules/ink/build/log-update.js as esbuild loads it.
 *
 * The build fails when the line is not found (an Ink upgrade moved it): the patch is never silently
 * skipped, and the bundle only turns incremental rendering on through the `__INK_910_FIXED__`
 * constant this same build defines.
 */
import fs from 'node:fs';

/** The line in ink@6.8.0 build/log-update.js (createIncremental, same-or-taller branch). */
export const INK_910_BUGGY = 'buffer.push(ansiEscapes.cursorUp(previousVisible - 1));';

/** The fix: a frame that ended with a newline left the cursor below its last line. */
export const INK_910_FIXED = "buffer.push(ansiEscapes.cursorUp(previousVisible - (previousOutput.endsWith('\\n') ? 0 : 1)));";

/** Apply the fix to log-update.js's source; throws when the buggy line is not there exactly once. */
export function patchInkLogUpdate(source) {
	const at = source.indexOf(INK_910_BUGGY);
	if (at < 0 || source.indexOf(INK_910_BUGGY, at + 1) >= 0) {
		throw new Error('ink#910 patch: the line to fix was not found exactly once in ink/build/log-update.js (Ink changed?)');
	}
	return source.slice(0, at) + INK_910_FIXED + source.slice(at + INK_910_BUGGY.length);
}

/** The line in ink@6.8.0 build/output.js: a fresh width/glyph cache for every frame. */
export const INK_OUTPUT_CACHES = 'caches = new OutputCaches();';

/**
 * The caches shared by all frames instead (bounded: two generations of 400 lines of glyphs, 4,000
 * widths), so an unchanged line is not tokenized and measured again on every frame. The cached glyph arrays are
 * only read by Output.get() (placed in the grid, then turned into a string), never written.
 */
export const INK_OUTPUT_CACHES_SHARED = 'caches = __infertopSharedCaches(OutputCaches);';
const SHARED_CACHES_FN = `
function __infertopSharedCaches(Caches) {
	const c = (globalThis.__infertopInkCaches ??= new Caches());
	// a line's glyphs are ~80 bytes each: the glyph cache is bounded by lines (a 160×50 screen draws a
	// few hundred), in two generations of 400: past 400 the young one becomes the old one and the
	// oldest is dropped; a line found in the old one moves back to the young one (getStyledChars), so
	// the lines on screen keep their glyphs (and their rows' strings, __infertopRows) across the switch
	if (c.styledChars.size > 400) {
		c.__infertopOld = c.styledChars;
		c.styledChars = new Map();
	}
	if (c.widths.size + c.blockWidths.size > 4000) {
		c.widths.clear();
		c.blockWidths.clear();
	}
	return c;
}
`;

/** Share Ink's per-frame output caches across frames; throws when the line is not there exactly once. */
export function patchInkOutput(source) {
	const at = source.indexOf(INK_OUTPUT_CACHES);
	if (at < 0 || source.indexOf(INK_OUTPUT_CACHES, at + 1) >= 0) {
		throw new Error('ink output patch: the line to change was not found exactly once in ink/build/output.js (Ink changed?)');
	}
	const shared = source.slice(0, at) + INK_OUTPUT_CACHES_SHARED + source.slice(at + INK_OUTPUT_CACHES.length) + SHARED_CACHES_FN + OUTPUT_ROWS_FN;
	// A line that lies wholly inside its clip region needs no slicing (sliceAnsi re-tokenizes every glyph).
	let out = replaceOnce(shared, INK_CLIP_SLICE, INK_CLIP_SLICE_FAST, 'output.js');
	for (const [from, to] of INK_OUTPUT_ROWS) out = replaceOnce(out, from, to, 'output.js');
	return out;
}

/**
 * Output.get() built a fresh grid of width × height blank cell objects (each with its own styles
 * array) on every frame, then turned every row back into a string glyph by glyph. Here the blank
 * cell is one frozen object, and a row whose cells are the very same objects as the last frame's
 * (the shared glyph cache hands out the same objects for the same line) reuses the last frame's
 * string: a frame where one figure changed converts one row, not forty.
 */
export const INK_OUTPUT_ROWS = [
	[
		'            cached = styledCharsFromTokens(tokenize(line));',
		'            cached = this.__infertopOld?.get(line) ?? styledCharsFromTokens(tokenize(line));',
	],
	[
		`            const row = [];
            for (let x = 0; x < this.width; x++) {
                row.push({
                    type: 'char',
                    value: ' ',
                    fullWidth: false,
                    styles: [],
                });
            }
            output.push(row);`,
		'            output.push(new Array(this.width).fill(__infertopBlank));',
	],
	[
		`        const generatedOutput = output
            .map(line => {
            // See https://github.com/vadimdemedes/ink/pull/564#issuecomment-1637022742
            const lineWithoutEmptyItems = line.filter(item => item !== undefined);
            return styledCharsToString(lineWithoutEmptyItems).trimEnd();
        })
            .join('\\n');`,
		"        const generatedOutput = __infertopRows(this.caches, output).join('\\n');",
	],
	// an indexed loop over a line's glyphs: without TurboFan (bin/infertop.js) a for…of allocates an iterator result per glyph
	[
		`                    for (const character of characters) {
                        currentLine[offsetX] = character;`,
		`                    for (let __infertopI = 0; __infertopI < characters.length; __infertopI++) {
                        const character = characters[__infertopI];
                        currentLine[offsetX] = character;`,
	],
];
const OUTPUT_ROWS_FN = `
const __infertopBlank = Object.freeze({type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([])});
function __infertopRows(caches, output) {
	const prev = caches.__infertopRows ?? [];
	const next = [];
	for (let y = 0; y < output.length; y++) {
		const line = output[y];
		const p = prev[y];
		let same = p !== undefined && p.cells.length === line.length;
		for (let i = 0; same && i < line.length; i++) if (p.cells[i] !== line[i]) same = false;
		if (same) {
			next.push(p);
			continue;
		}
		// See https://github.com/vadimdemedes/ink/pull/564#issuecomment-1637022742
		const lineWithoutEmptyItems = line.filter(item => item !== undefined);
		next.push({cells: line, text: styledCharsToString(lineWithoutEmptyItems).trimEnd()});
	}
	caches.__infertopRows = next;
	return next.map(r => r.text);
}
`;

/** The clip of each line inside an overflow="hidden" box, on every frame. */
export const INK_CLIP_SLICE = 'return sliceAnsi(line, from, to);';
export const INK_CLIP_SLICE_FAST = 'return from === 0 && to >= width ? line : sliceAnsi(line, from, to);';

/**
 * Ink 6.8 keeps every text it ever measured or wrapped in two module-level caches that are never
 * emptied (build/measure-text.js, build/wrap-text.js). A monitor draws new figures every second,
 * so they grow for as long as it runs: the RSS growth over a soak. Bounded here: emptied whole
 * past 4,000 entries (a full 160×50 screen holds a few hundred texts).
 */
export const INK_TEXT_CACHES = {
	'measure-text.js': {
		from: '    const cachedDimensions = cache.get(text);',
		to: '    if (cache.size > 4000) cache.clear();\n    const cachedDimensions = cache.get(text);',
	},
	'wrap-text.js': {
		from: 'const cache = {};',
		to: 'const cache = new Map();',
		more: [
			['    const cachedText = cache[cacheKey];', '    if (cache.size > 4000) cache.clear();\n    const cachedText = cache.get(cacheKey);'],
			['    cache[cacheKey] = wrappedText;', '    cache.set(cacheKey, wrappedText);'],
		],
	},
};

function replaceOnce(source, from, to, file) {
	const at = source.indexOf(from);
	if (at < 0 || source.indexOf(from, at + 1) >= 0) throw new Error(`ink patch: ${JSON.stringify(from)} not found exactly once in ink/build/${file} (Ink changed?)`);
	return source.slice(0, at) + to + source.slice(at + from.length);
}

/** Bound one of Ink's text caches (`file` is measure-text.js or wrap-text.js). */
export function patchInkTextCache(file, source) {
	const p = INK_TEXT_CACHES[file];
	if (!p) throw new Error(`ink patch: no text-cache patch for ${file}`);
	let out = replaceOnce(source, p.from, p.to, file);
	for (const [from, to] of p.more ?? []) out = replaceOnce(out, from, to, file);
	return out;
}

/** The width of every text node, measured again on every frame (build/render-node-to-output.js). */
export const INK_WIDEST_LINE = 'const currentWidth = widestLine(text);';
const WIDEST_LINE_FN = `
const __infertopWidths = new Map();
function __infertopWidestLine(text) {
	let w = __infertopWidths.get(text);
	if (w === undefined) {
		if (__infertopWidths.size > 4000) __infertopWidths.clear();
		w = widestLine(text);
		__infertopWidths.set(text, w);
	}
	return w;
}
`;

/** Measure each text once (bounded cache) instead of on every frame. */
export function patchInkRenderNode(source) {
	return replaceOnce(source, INK_WIDEST_LINE, 'const currentWidth = __infertopWidestLine(text);', 'render-node-to-output.js') + WIDEST_LINE_FN;
}

/**
 * No frame when a commit changed nothing on screen. Ink 6.8 lays out and rasterises the whole tree
 * (yoga, then every glyph of every line) after EVERY React commit, even one whose host nodes came out
 * the same (a log line added while the log pane is hidden, a figure that re-rendered to the same
 * text); log-update then compares the string and writes nothing, but the work is done. Here the
 * reconciler's host config notes whether a commit touched a host node (a text changed, a node added,
 * moved, removed, hidden, or a prop or style that differs), and `resetAfterCommit` skips layout and
 * output when none did. Props are compared as Ink itself uses them: `style` and
 * `internal_accessibility` by their fields (Box and Text make new objects every render), `children`
 * not at all (text children are text nodes: their changes come as commitTextUpdate), everything
 * else by identity. Text's style function (`internal_transform`) is a new closure on every render,
 * so Text.js makes it once per set of style props (useMemo): a changed colour is still a change.
 */
export const INK_RECONCILER_PATCHES = [
	// Two top-level awaits, both under isDev() (false in the bundle: see build.mjs): without them the
	// bundle can be one CommonJS script, which V8's code cache can serve (bin/infertop.js).
	["        await import('./devtools.js');", '        void 0; // infertop: no DevTools in the bundle'],
	['const packageJson = isDev()\n    ? await loadPackageJson()\n    : { name: undefined, version: undefined };', 'const packageJson = { name: undefined, version: undefined }; // infertop: isDev() is false in the bundle'],
	['export default createReconciler({', 'export default createReconciler(__infertopTrackChanges({'],
	['    rendererVersion: packageJson.version,\n});', '    rendererVersion: packageJson.version,\n}));'],
	['    resetAfterCommit(rootNode) {\n', '    resetAfterCommit(rootNode) {\n        if (!__infertopChanges.changed && !rootNode.isStaticDirty) {\n            return;\n        }\n        __infertopChanges.changed = false;\n'],
];
const TRACK_CHANGES_FN = `
const __infertopChanges = (globalThis.__infertopInkChanges ??= {changed: true, skipped: 0});
// indexed loops: without TurboFan (bin/infertop.js) a for…of allocates an iterator result per key
function __infertopSame(a, b) {
	if (a === b) return true;
	if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
	const ka = Object.keys(a);
	if (ka.length !== Object.keys(b).length) return false;
	for (let i = 0; i < ka.length; i++) if (a[ka[i]] !== b[ka[i]] || !Object.hasOwn(b, ka[i])) return false;
	return true;
}
function __infertopPropsDiffer(before, after) {
	const ka = Object.keys(after);
	for (let i = 0; i < ka.length; i++) {
		const key = ka[i];
		if (key === 'children') continue;
		if (key === 'style' || key === 'internal_accessibility' ? !__infertopSame(before[key], after[key]) : before[key] !== after[key]) return true;
	}
	const kb = Object.keys(before);
	for (let i = 0; i < kb.length; i++) if (kb[i] !== 'children' && !Object.hasOwn(after, kb[i])) return true;
	return false;
}
function __infertopTrackChanges(config) {
	const mark = (name) => {
		const f = config[name];
		config[name] = function (...args) {
			__infertopChanges.changed = true;
			return f.apply(this, args);
		};
	};
	for (const name of ['appendChild', 'insertBefore', 'removeChild', 'appendChildToContainer', 'insertInContainerBefore', 'removeChildFromContainer', 'hideInstance', 'unhideInstance', 'hideTextInstance', 'unhideTextInstance']) mark(name);
	const update = config.commitUpdate;
	config.commitUpdate = function (node, type, oldProps, newProps) {
		if (node.internal_static || __infertopPropsDiffer(oldProps ?? {}, newProps ?? {})) __infertopChanges.changed = true;
		return update.call(this, node, type, oldProps, newProps);
	};
	const text = config.commitTextUpdate;
	config.commitTextUpdate = function (node, oldText, newText) {
		if (oldText !== newText) __infertopChanges.changed = true;
		return text.call(this, node, oldText, newText);
	};
	const reset = config.resetAfterCommit;
	config.resetAfterCommit = function (rootNode) {
		if (!__infertopChanges.changed && !rootNode.isStaticDirty) __infertopChanges.skipped++;
		return reset.call(this, rootNode);
	};
	return config;
}
`;

/** Skip layout and output after a commit that changed no host node; throws when a line is not there exactly once. */
export function patchInkReconciler(source) {
	let out = source;
	for (const [from, to] of INK_RECONCILER_PATCHES) out = replaceOnce(out, from, to, 'reconciler.js');
	return out + TRACK_CHANGES_FN;
}

/** Text's style function made once per set of style props (it was a new closure every render). */
export const INK_TEXT_PATCHES = [
	["import React, { useContext } from 'react';", "import React, { useContext, useMemo } from 'react';"],
	['    const transform = (children) => {', '    const transform = useMemo(() => (children) => {'],
	['        return children;\n    };\n', '        return children;\n    }, [dimColor, color, backgroundColor, inheritedBackgroundColor, bold, italic, underline, strikethrough, inverse]);\n'],
	// the hook must run on every render: the early return for empty children moves below it
	['    if (childrenOrAriaLabel === undefined || childrenOrAriaLabel === null) {\n        return null;\n    }\n    const transform', '    const transform'],
	['    if (isScreenReaderEnabled && ariaHidden) {', '    if (childrenOrAriaLabel === undefined || childrenOrAriaLabel === null) {\n        return null;\n    }\n    if (isScreenReaderEnabled && ariaHidden) {'],
];

export function patchInkText(source) {
	let out = source;
	for (const [from, to] of INK_TEXT_PATCHES) out = replaceOnce(out, from, to, 'components/Text.js');
	return out;
}

/**
 * esbuild plugin: patch Ink's log-update.js on load, and define `__INK_910_FIXED__` = true so the
 * monitor turns incremental rendering on only in a bundle that has the fix.
 * `state.applied` says whether Ink's log-update.js went through it (the build checks).
 * @param {{applied?: boolean}} [state]
 * @returns {import('esbuild').Plugin}
 */
export function inkIncrementalFix(state = {}) {
	return {
		name: 'ink-910-incremental-fix',
		setup(b) {
			b.initialOptions.define = {...b.initialOptions.define, __INK_910_FIXED__: 'true'};
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/]log-update\.js$/}, async (a) => {
				const contents = patchInkLogUpdate(await fs.promises.readFile(a.path, 'utf8'));
				state.applied = true;
				return {contents, loader: 'js'};
			});
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/]output\.js$/}, async (a) => {
				const contents = patchInkOutput(await fs.promises.readFile(a.path, 'utf8'));
				state.outputShared = true;
				return {contents, loader: 'js'};
			});
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/]render-node-to-output\.js$/}, async (a) => {
				const contents = patchInkRenderNode(await fs.promises.readFile(a.path, 'utf8'));
				state.widths = true;
				return {contents, loader: 'js'};
			});
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/}, async (a) => {
				const contents = patchInkReconciler(await fs.promises.readFile(a.path, 'utf8'));
				state.reconciler = true;
				return {contents, loader: 'js'};
			});
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/]components[\\/]Text\.js$/}, async (a) => {
				const contents = patchInkText(await fs.promises.readFile(a.path, 'utf8'));
				state.text = true;
				return {contents, loader: 'js'};
			});
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/](measure|wrap)-text\.js$/}, async (a) => {
				const file = a.path.slice(a.path.search(/(measure|wrap)-text\.js$/));
				const contents = patchInkTextCache(file, await fs.promises.readFile(a.path, 'utf8'));
				state.textCaches = (state.textCaches ?? 0) + 1;
				return {contents, loader: 'js'};
			});
		},
	};
}
