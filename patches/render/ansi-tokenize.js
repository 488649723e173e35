// @ts-check
/**
 * What patches/@alcalzone+ansi-tokenize+0.2.5.patch makes ansi-tokenize (Ink turns every line of a
 * frame into glyphs with it, and glyphs back into text) import.
 */
import {NARROW_CLASS} from './string-width.js';

/**
 * @typedef {{type: 'ansi', code: string, endCode: string}} AnsiCode
 * @typedef {{type: 'char', value: string, fullWidth: boolean}} CharToken
 * @typedef {{type: 'char', value: string, fullWidth: boolean, styles: AnsiCode[]}} StyledChar
 */

/**
 * Code points that are each a grapheme of their own: C0 controls but CR (ESC's sequences
 * included), printable ASCII and NARROW_CLASS.
 */
export const SIMPLE_GRAPHEMES = `\\u0000-\\u000C\\u000E-\\u007F${NARROW_CLASS.replace('\\u0020-\\u007E', '')}`;
const simple = new RegExp(`^[${SIMPLE_GRAPHEMES}]*$`);

/**
 * tokenize()'s graphemes: in a line of SIMPLE_GRAPHEMES they are its UTF-16 units, handed out as
 * the segmenter would ({segment, index}) without it; any other line goes to the segmenter.
 * @param {string} str
 * @param {{segment(text: string): Iterable<{segment: string, index: number}>}} segmenter
 * @returns {Iterable<{segment: string, index: number}>}
 */
export function graphemesOf(str, segmenter) {
	if (!simple.test(str)) return segmenter.segment(str);
	const out = new Array(str.length);
	for (let i = 0; i < str.length; i++) out[i] = {segment: str[i], index: i};
	return out;
}

/**
 * The one answer for "no codes" (frozen: its one caller, styledCharsToString, only reads it; the
 * build checks that diffAnsiCodes has no other).
 * @type {readonly AnsiCode[]}
 */
export const NO_CODES = Object.freeze([]);

/**
 * diffAnsiCodes(from, to) is empty when both hold the same codes in the same order (every code of
 * each is in the other), and neighbouring characters nearly always share their style: answered
 * before three Sets and two arrays are built for every glyph. A loop, not every(): no closure each.
 * @param {readonly AnsiCode[]} from
 * @param {readonly AnsiCode[]} to
 */
export function sameCodes(from, to) {
	if (from.length !== to.length) return false;
	for (let i = 0; i < from.length; i++) {
		const a = /** @type {AnsiCode} */ (from[i]);
		const b = /** @type {AnsiCode} */ (to[i]);
		if (a.code !== b.code || a.endCode !== b.endCode) return false;
	}
	return true;
}

/**
 * styledCharsFromTokens, as ansi-tokenize 0.2.5 writes it but with glyphs that share: a run of
 * characters between two codes shares one styles array (the codes themselves:
 * reduceAnsiCodesIncremental makes a new array each time and never changes it after), equal
 * characters in a run are one glyph, and each glyph is an object literal, not a spread (on Node 20
 * each spread copy got a V8 hidden class of its own). Glyphs are only read (Output.get places them,
 * styledCharsToString and diffAnsiCodes read them).
 * @param {readonly (AnsiCode | CharToken)[]} tokens
 * @param {(codes: AnsiCode[], next: AnsiCode[]) => AnsiCode[]} reduceAnsiCodesIncremental ansi-tokenize's
 * @returns {StyledChar[]}
 */
export function sharedStyledChars(tokens, reduceAnsiCodesIncremental) {
	/** @type {AnsiCode[]} */
	let codes = [];
	/** @type {Map<string, StyledChar>} */
	let run = new Map();
	/** @type {StyledChar[]} */
	const ret = [];
	for (const token of tokens) {
		if (token.type === 'ansi') {
			codes = reduceAnsiCodesIncremental(codes, [token]);
			if (run.size > 0) run = new Map();
		} else if (token.type === 'char') {
			let glyph = run.get(token.value);
			if (glyph === undefined || glyph.fullWidth !== token.fullWidth) {
				glyph = {type: token.type, value: token.value, fullWidth: token.fullWidth, styles: codes};
				run.set(token.value, glyph);
			}
			ret.push(glyph);
		}
	}
	return ret;
}
