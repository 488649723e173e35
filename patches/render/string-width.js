// @ts-check
/**
 * What patches/string-width+8.3.0.patch makes string-width 8 (Ink's text measurer) import.
 */

/**
 * A single code point is RGI_Emoji exactly when it has Emoji_Presentation and is not a regional
 * indicator (UTS #51: the single-code-point members are Basic_Emoji; a lone regional indicator is a
 * flag's half). test/platform/render-patches.test.ts checks it on every code point of the running Node.
 */
export const ONE_CODE_POINT_EMOJI = '^(?![\\u{1F1E6}-\\u{1F1FF}])\\p{Emoji_Presentation}$';

const oneCodePointEmoji = new RegExp(ONE_CODE_POINT_EMOJI, 'u');
/** @type {RegExp | undefined} */
let rgi;

/**
 * string-width's `/^\p{RGI_Emoji}$/v`, built on first use: V8 expands the property of strings
 * (every emoji sequence ICU knows) into a set as the regex is made, ~20–30 ms on a 2-core machine
 * before the first frame. A grapheme of one code point is answered from its properties without it.
 * string-width calls nothing but test() on it.
 */
export const rgiEmoji = {
	/** @param {string} segment */
	test: (segment) => (segment.length === 1 || (segment.length === 2 && /** @type {number} */ (segment.codePointAt(0)) > 0xffff) ? oneCodePointEmoji.test(segment) : (rgi ??= new RegExp('^\\p{RGI_Emoji}$', 'v')).test(segment)),
};

/**
 * Single-column code points a monitor draws, beside printable ASCII: Latin-1 but the soft hyphen,
 * general punctuation, letterlike symbols, arrows, mathematical operators, box drawing, block
 * elements, geometric shapes but ◽◾, braille, and the marks infertop's own lines carry (⏱ ⚒ ⚠ ✂ ✓ ✖
 * ⧗: text-presentation symbols, one column unless an emoji selector follows, which is outside the
 * class). None of them joins a grapheme cluster and each is one
 * column by string-width's own rules (checked on every one of them against the unpatched module).
 */
export const NARROW_CLASS = '\\u0020-\\u007E\\u00A0-\\u00AC\\u00AE-\\u00FF\\u2010-\\u2027\\u2030-\\u205E\\u2100-\\u214F\\u2190-\\u22FF\\u23F1\\u2500-\\u25FC\\u25FF\\u2692\\u26A0\\u2702\\u2713\\u2716\\u2800-\\u28FF\\u29D7';

/**
 * A string of NARROW_CLASS only: its width is its length. string-width answered only printable
 * ASCII so; anything else (a border, a sparkline, a `·`: most of infertop's lines) went through the
 * segmenter, one object per grapheme, on every miss of Ink's width caches.
 */
export const narrowText = new RegExp(`^[${NARROW_CLASS}]*$`);

/**
 * NARROW_CLASS for string-width 7 (wrap-ansi's, which Ink's word wrap calls a word and a character
 * at a time, with no fast path of its own: every call went through the segmenter): the same blocks
 * but the 25 code points its emoji-regex counts two columns although they default to text
 * (© ® ‼ ⁉ ™ ℹ ↔ ↕ ↖ ↗ ↘ ↙ ↩ ↪ ▪ ▫ ▶ ◀ ◻ ◼ ⏱ ⚒ ⚠ ✂ ✖; string-width 8, Ink's measurer, counts them one). test/platform/render-patches.test.ts checks every one
 * against the unpatched module.
 */
export const NARROW_CLASS_V7 = '\\u0020-\\u007E\\u00A0-\\u00A8\\u00AA-\\u00AC\\u00AF-\\u00FF\\u2010-\\u2027\\u2030-\\u203B\\u203D-\\u2048\\u204A-\\u205E\\u2100-\\u2121\\u2123-\\u2138\\u213A-\\u214F\\u2190-\\u2193\\u219A-\\u21A8\\u21AB-\\u22FF\\u2500-\\u25A9\\u25AC-\\u25B5\\u25B7-\\u25BF\\u25C1-\\u25FA\\u25FF\\u2713\\u2800-\\u28FF\\u29D7';

/** A string of NARROW_CLASS_V7 only: string-width 7 measures it as its length. */
export const narrowTextV7 = new RegExp(`^[${NARROW_CLASS_V7}]*$`);

/**
 * The code points of NARROW_CLASS that string-width 7 counts as two columns (its emoji-regex matches
 * them alone): each is a grapheme of its own beside NARROW_CLASS_V7's, so a string of both is its
 * length plus one for each of these.
 */
export const WIDE_V7 = '\\u00A9\\u00AE\\u203C\\u2049\\u2122\\u2139\\u2194-\\u2199\\u21A9\\u21AA\\u23F1\\u25AA\\u25AB\\u25B6\\u25C0\\u25FB\\u25FC\\u2692\\u26A0\\u2702\\u2716';
const mixedV7 = new RegExp(`^[${NARROW_CLASS_V7}${WIDE_V7}]*$`);
const wideV7 = new RegExp(`[${WIDE_V7}]`, 'g');

/**
 * string-width 7's width of `text` (ANSI codes already stripped) where it is made of NARROW_CLASS_V7
 * and WIDE_V7 only; -1 for anything else (string-width measures it). A finding's line begins with a
 * ✖, and wrap-ansi measures the row so far at each word: one mark sent the whole row through the
 * segmenter, word after word.
 * @param {string} text
 */
export function widthV7(text) {
	if (narrowTextV7.test(text)) return text.length;
	if (!mixedV7.test(text)) return -1;
	return text.length + (text.match(wideV7)?.length ?? 0);
}
