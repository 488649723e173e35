// @ts-check
/**
 * One grapheme segmenter for the four modules under Ink that each built their own as they loaded
 * (string-width 8 and 7, slice-ansi, ansi-tokenize; their patches import this instead). Each
 * construction loads ICU's break-iterator data again (~12 ms on a 2-core machine, before the first
 * frame). All four are grapheme segmenters of the default locale and only ever call segment(), which
 * is stateless: one instance serves them all, built on the first segment() call (a first frame of
 * plain text, box drawing and braille calls none, see ansi-tokenize.js).
 */

/** @type {Intl.Segmenter | undefined} */
let segmenter;

/** What the four modules call segment() on. */
export const graphemeSegmenter = {
	/** @param {string} text */
	segment: (text) => (segmenter ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})).segment(text),
};

/** Whether the one segmenter has been built yet. */
export function graphemeSegmenterBuilt() {
	return segmenter !== undefined;
}

/** Forget it (a test starts from none). */
export function forgetGraphemeSegmenter() {
	segmenter = undefined;
}
