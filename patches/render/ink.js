// @ts-check
/**
 * What patches/ink+6.8.0.patch makes Ink 6.8.0 import: its reconciler told whether a commit changed
 * anything on screen, its output caches kept across frames (bounded), a row's text reused while its
 * cells are the same, and each text's width measured once. Plain JavaScript (Ink loads it as it is,
 * under node, tsx, vitest and esbuild alike), type-checked through its JSDoc (`// @ts-check`) and
 * linted. Why each exists, its measured win and what retires it: docs/dependencies.md.
 */

/**
 * Whether the commit under way changed a host node, and how many commits drew nothing. One record
 * for the process: Ink 6.8 has one reconciler, and React commits one root at a time (a host node is
 * changed and `resetAfterCommit` called in the same synchronous commit).
 */
export const hostChanges = {changed: true, skipped: 0};

/** The mutations of the host config that change what is on screen whenever they are called. */
const ALWAYS_CHANGE = ['appendChild', 'insertBefore', 'removeChild', 'appendChildToContainer', 'insertInContainerBefore', 'removeChildFromContainer', 'hideInstance', 'unhideInstance', 'hideTextInstance', 'unhideTextInstance'];

/**
 * Two objects with the same own keys holding the same values (Box and Text make a new `style`
 * object on every render). Indexed loops: without TurboFan (bin/infertop.js) a for…of allocates an
 * iterator result per key.
 * @param {unknown} a
 * @param {unknown} b
 */
export function sameFields(a, b) {
	if (a === b) return true;
	if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false;
	const x = /** @type {Record<string, unknown>} */ (a);
	const y = /** @type {Record<string, unknown>} */ (b);
	const keys = Object.keys(x);
	if (keys.length !== Object.keys(y).length) return false;
	for (let i = 0; i < keys.length; i++) {
		const key = /** @type {string} */ (keys[i]);
		if (x[key] !== y[key] || !Object.hasOwn(y, key)) return false;
	}
	return true;
}

/**
 * Whether a host node's props differ as Ink uses them: `style` and `internal_accessibility` by their
 * fields, `children` not at all (a text child is a text node: its change comes as commitTextUpdate),
 * everything else by identity (a function prop, `internal_transform`, is a change when it is a new
 * function: Text makes it once per set of style props, see the patch of components/Text.js).
 * @param {Record<string, unknown>} before
 * @param {Record<string, unknown>} after
 */
export function propsDiffer(before, after) {
	const keys = Object.keys(after);
	for (let i = 0; i < keys.length; i++) {
		const key = /** @type {string} */ (keys[i]);
		if (key === 'children') continue;
		if (key === 'style' || key === 'internal_accessibility' ? !sameFields(before[key], after[key]) : before[key] !== after[key]) return true;
	}
	const old = Object.keys(before);
	for (let i = 0; i < old.length; i++) if (old[i] !== 'children' && !Object.hasOwn(after, /** @type {string} */ (old[i]))) return true;
	return false;
}

/**
 * @typedef {(this: unknown, ...args: any[]) => unknown} HostMethod
 * @typedef {{internal_static?: boolean}} HostNode
 * @typedef {{isStaticDirty?: boolean}} RootNode
 */

/**
 * Ink's host config (build/reconciler.js), wrapped so that `resetAfterCommit` lays out and draws
 * only after a commit that changed a host node: a text changed; a node added, moved, removed,
 * hidden or shown; a prop that differs (`propsDiffer`); anything under `<Static>`. A commit of React
 * renders that came out the same (a log line while no log is shown, a figure re-rendered to the
 * same text) draws no frame: Ink 6.8 laid out and rasterised the whole tree after every commit, then
 * found the same string and wrote nothing. Every other method is Ink's own, called as before.
 * @template {object} C
 * @param {C} config
 * @returns {C}
 */
export function trackHostChanges(config) {
	const c = /** @type {Record<string, HostMethod>} */ (/** @type {unknown} */ (config));
	/** @param {string} name */
	const method = (name) => {
		const f = c[name];
		if (typeof f !== 'function') throw new Error(`infertop's Ink patch: the host config has no ${name}() (Ink changed?)`);
		return f;
	};
	for (const name of ALWAYS_CHANGE) {
		const f = method(name);
		c[name] = function (...args) {
			hostChanges.changed = true;
			return f.apply(this, args);
		};
	}
	const update = method('commitUpdate');
	c['commitUpdate'] = function (node, type, oldProps, newProps) {
		if (/** @type {HostNode} */ (node).internal_static || propsDiffer(oldProps ?? {}, newProps ?? {})) hostChanges.changed = true;
		return update.call(this, node, type, oldProps, newProps);
	};
	const text = method('commitTextUpdate');
	c['commitTextUpdate'] = function (node, oldText, newText) {
		if (oldText !== newText) hostChanges.changed = true;
		return text.call(this, node, oldText, newText);
	};
	const reset = method('resetAfterCommit');
	c['resetAfterCommit'] = function (rootNode) {
		// <Static> output is written at once (Ink's own escape hatch), changed or not
		if (!hostChanges.changed && !(/** @type {RootNode} */ (rootNode).isStaticDirty)) {
			hostChanges.skipped++;
			return;
		}
		hostChanges.changed = false;
		return reset.call(this, rootNode);
	};
	return config;
}

/**
 * @typedef {{type: string, value: string, fullWidth: boolean, styles: readonly unknown[]}} Glyph
 * @typedef {{cells: readonly (Glyph | undefined)[], text: string}} Row
 * @typedef {object} OutputCaches Ink's OutputCaches (build/output.js) and what the patch keeps on it
 * @property {Map<string, number>} widths
 * @property {Map<string, number>} blockWidths
 * @property {Map<string, Glyph[]>} styledChars the young generation of a line's glyphs
 * @property {Map<string, Glyph[]>} [infertopOld] the old generation: a line found here is moved back
 * @property {Row[]} [infertopRows] the last frame's rows
 */

/** Lines of glyphs a generation holds (a 160×50 screen draws a few hundred). */
export const GLYPH_LINES = 400;
/** Widths of texts and of blocks held, together. */
export const WIDTHS = 4000;

/** @type {OutputCaches | undefined} */
let shared;

/**
 * The output caches of every frame, instead of a new set per frame: an unchanged line is not
 * tokenized and measured again. Bounded: past GLYPH_LINES the young generation of glyphs becomes the
 * old one and the oldest is dropped (a line found in the old one moves back: the lines on screen keep
 * their glyphs, and their rows' strings, across the turn); past WIDTHS both width maps are emptied.
 * The glyph arrays are only read (placed in the grid, then turned into a string), never written.
 * @template {OutputCaches} T
 * @param {new () => T} Caches Ink's OutputCaches
 * @returns {T}
 */
export function sharedOutputCaches(Caches) {
	const c = /** @type {T} */ (shared ??= new Caches());
	if (c.styledChars.size > GLYPH_LINES) {
		c.infertopOld = c.styledChars;
		c.styledChars = new Map();
	}
	if (c.widths.size + c.blockWidths.size > WIDTHS) {
		c.widths.clear();
		c.blockWidths.clear();
	}
	return c;
}

/** The caches the frames share (tests look at them), or undefined before the first frame. */
export function currentOutputCaches() {
	return shared;
}

/** Forget the shared caches (a test starts from none). */
export function forgetOutputCaches() {
	shared = undefined;
}

/** The blank cell, one frozen object for every cell of every frame (Ink made width × height a frame). */
export const BLANK = Object.freeze({type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([])});

/** @param {number} width */
export function blankRow(width) {
	return new Array(width).fill(BLANK);
}

/**
 * The frame's rows as text. A row whose cells are the very objects of the last frame's row (the
 * shared glyph cache hands out the same objects for the same line) reuses that row's text: a frame
 * where one figure changed converts one row, not forty.
 * @param {OutputCaches} caches
 * @param {readonly (readonly (Glyph | undefined)[])[]} output the grid Output.get() filled
 * @param {(glyphs: Glyph[]) => string} styledCharsToString ansi-tokenize's
 * @returns {string[]}
 */
export function rowsToText(caches, output, styledCharsToString) {
	const prev = caches.infertopRows ?? [];
	/** @type {Row[]} */
	const next = [];
	for (let y = 0; y < output.length; y++) {
		const line = /** @type {readonly (Glyph | undefined)[]} */ (output[y]);
		const p = prev[y];
		let same = p !== undefined && p.cells.length === line.length;
		for (let i = 0; same && i < line.length; i++) if (/** @type {Row} */ (p).cells[i] !== line[i]) same = false;
		if (same) {
			next.push(/** @type {Row} */ (p));
			continue;
		}
		// See https://github.com/vadimdemedes/ink/pull/564#issuecomment-1637022742 (as Ink does)
		const glyphs = /** @type {Glyph[]} */ (line.filter((item) => item !== undefined));
		next.push({cells: line, text: styledCharsToString(glyphs).trimEnd()});
	}
	caches.infertopRows = next;
	return next.map((r) => r.text);
}

/** @type {Map<string, number>} */
const widestLines = new Map();

/**
 * The width of a text node's widest line, measured once per text (bounded: emptied past WIDTHS)
 * instead of on every frame (build/render-node-to-output.js).
 * @param {string} text
 * @param {(text: string) => number} widestLine Ink's own measure (widest-line)
 */
export function cachedWidestLine(text, widestLine) {
	let w = widestLines.get(text);
	if (w === undefined) {
		if (widestLines.size > WIDTHS) widestLines.clear();
		w = widestLine(text);
		widestLines.set(text, w);
	}
	return w;
}
