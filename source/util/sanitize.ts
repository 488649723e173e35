/**
 * Text from logs and servers is untrusted: strip ANSI/OSC/control sequences before it reaches the
 * screen, cap its length, and never let invalid UTF-8 or CR break a line. Bidi controls are
 * stripped as well: a right-to-left override must not reorder what the user reads; so are
 * zero-width and filler characters, which take no column or a blank one and would shift the
 * columns a width count gives.
 *
 * Paths, process arguments, command names and model names are untrusted the same way: a file may
 * be named `x<ESC>]0;title<BEL>.log` and any local process may name one on its command line.
 * `sanitizeName` shows them as `ls` does: every such character becomes a visible `?`, so the user
 * sees that the name holds something it cannot show (the real name is still used to open the
 * file). `sanitizeDeep` is the last step before JSON: every string, keys included.
 */
import stripAnsi from 'strip-ansi';

/** Longest line kept (characters). Longer lines are cut with a marker; never grow without bound. */
export const MAX_LINE_CHARS = 4096;

// C0 controls except TAB, plus DEL and C1 controls. ESC sequences are removed by strip-ansi first.
// Bidi controls too (Trojan-source display tricks, CVE-2021-42574): LRM/RLM U+200E/U+200F, ALM
// U+061C, embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069. Line and paragraph
// separators U+2028/U+2029 (some terminals break the line on them).
const CONTROL_CLASS = '\\u0000-\\u0008\\u000a-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
// Zero-width and filler characters (Unicode Default_Ignorable_Code_Point and the Hangul fillers
// that terminals draw as a blank of one or two columns): soft hyphen U+00AD, combining grapheme
// joiner U+034F, Hangul choseong/jungseong fillers U+115F/U+1160, Khmer vowels inherent
// U+17B4/U+17B5, Mongolian vowel separator U+180E, ZWSP/ZWNJ/ZWJ U+200B–U+200D, word joiner and
// invisible operators U+2060–U+2064, inhibit/activate controls U+206A–U+206F, Hangul filler U+3164,
// BOM/ZWNBSP U+FEFF, halfwidth Hangul filler U+FFA0, interlinear annotation U+FFF9–U+FFFB.
const INVISIBLE_CLASS = '\\u00ad\\u115f\\u1160\\u180e\\u200b\\u200c\\u2060-\\u2064\\u206a-\\u206f\\u3164\\ufeff\\uffa0\\ufff9-\\ufffb';
// The combining marks U+034F, U+17B4, U+17B5 and the ZWJ U+200D stand outside the class: inside one
// they would join the character before them.
const JOINERS = '|\\u034f|\\u17b4|\\u17b5|\\u200d';
const CONTROL = new RegExp(`[${CONTROL_CLASS}${INVISIBLE_CLASS}]${JOINERS}`, 'g');
/** Characters a name shows as `?` (everything CONTROL strips, and TAB). */
const UNSHOWABLE = new RegExp(`[\\t${CONTROL_CLASS}${INVISIBLE_CLASS}]${JOINERS}`, 'g');
/** Lone UTF-16 surrogates (a name read as bytes that were not UTF-8 may carry them). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A character outside printable ASCII (space to `~`): only then has `sanitize` anything to strip or replace. */
const NOT_PLAIN = /[^\u0020-\u007e]/;

export function sanitize(text: string, max = MAX_LINE_CHARS): string {
	const s = text.length > max * 2 ? text.slice(0, max * 2) : text;
	// Nearly every log line is plain printable ASCII: one native scan, and none of the five passes
	// below (each a scan of its own, on every line read: issue 32). Same result: none of them
	// matches such a line (test/faults/sanitize-plain.test.ts).
	if (!NOT_PLAIN.test(s)) return s.length > max ? `${s.slice(0, max)}…[+${text.length - max} chars]` : s;
	return sanitizeFull(text, max);
}

/** `sanitize` without the plain-ASCII shortcut (the reference its shortcut is tested against). */
export function sanitizeFull(text: string, max = MAX_LINE_CHARS): string {
	let s = text.length > max * 2 ? text.slice(0, max * 2) : text;
	if (s.includes('\u001b') || s.includes('\u009b')) s = stripAnsi(s);
	s = s.replace(/\r$/, '').replace(CONTROL, '').replace(LONE_SURROGATE, '\ufffd').replace(/\t/g, '  ');
	if (s.length > max) s = `${s.slice(0, max)}…[+${text.length - max} chars]`;
	return s;
}

/**
 * A path, process argument, command or model name for display: each control, bidi, zero-width or
 * filler character becomes `?` (as `ls` shows such names), the rest is kept; capped at `max`.
 */
export function sanitizeName(text: string, max = 1024): string {
	let s = text.length > max * 2 ? text.slice(0, max * 2) : text;
	s = s.replace(UNSHOWABLE, '?').replace(LONE_SURROGATE, '\ufffd');
	if (s.length > max) s = `${s.slice(0, max)}…[+${text.length - max} chars]`;
	return s;
}

/** Whether a string holds anything `sanitizeName` would change (a cheap test before copying). */
export const needsSanitizing = (text: string): boolean => {
	UNSHOWABLE.lastIndex = 0;
	LONE_SURROGATE.lastIndex = 0;
	return UNSHOWABLE.test(text) || LONE_SURROGATE.test(text);
};

/**
 * A value about to become JSON, with every string (object keys too) passed through sanitizeName
 * (and a URL's userinfo redacted: redactUserinfo):
 * whatever entered unchecked, no control, bidi or invisible character reaches the JSON, escaped or
 * not. Long strings are kept whole (the JSON is a result, not a screen line).
 */
export function sanitizeDeep<T>(value: T): T {
	const walk = (v: unknown, depth: number): unknown => {
		if (typeof v === 'string') return redactUserinfo(needsSanitizing(v) ? sanitizeName(v, Math.max(v.length, 1)) : v);
		if (v === null || typeof v !== 'object' || depth > 64) return v;
		if (Array.isArray(v)) return v.map(x => walk(x, depth + 1));
		const proto = Object.getPrototypeOf(v) as unknown;
		if (proto !== Object.prototype && proto !== null) return v;
		const out: Record<string, unknown> = {};
		for (const [k, x] of Object.entries(v)) out[needsSanitizing(k) ? sanitizeName(k, Math.max(k.length, 1)) : k] = walk(x, depth + 1);
		return out;
	};
	return walk(value, 0) as T;
}

/** `scheme://user:password@` in any text: the userinfo (everything before the host's `@`). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*(?:@[^\s/@]*)*@/gi;

/**
 * A URL, or any text holding URLs, with each URL's userinfo (`alice:password@`) replaced by `***@`.
 * What infertop prints or stores (the probe's JSON and CSV, the screen, stderr, --print-config)
 * never carries a password given in a URL; the request itself is still sent with it.
 */
export function redactUserinfo(text: string): string {
	return text.includes('@') ? text.replace(USERINFO, '$1***@') : text;
}

/**
 * `text` as a string of its own, sharing no memory with the line it was cut from. In V8 a cut of 13
 * characters or more (a slice, a regular expression's capture) is a view onto its parent, and a log
 * line is itself a view onto the whole piece of the read it came from (log-tail.ts, up to 32 KiB
 * of text). A name a parser keeps for the rest of the run (the model being loaded, the block being
 * read) kept that piece alive with it (issue 32; test/engines/line-retention.test.ts). For what is
 * kept beyond its line, never for every line: the copy costs ~0.1 µs.
 */
export function own(text: string): string;
export function own(text: string | undefined): string | undefined;
export function own(text: string | undefined): string | undefined {
	// Shorter than V8's views (SlicedString::kMinLength, 13), a cut is already a copy of its own.
	if (text === undefined || text.length < 13) return text;
	// A string joined with another is flat once cut again: the cut is then a view onto the join.
	return ` ${text}`.slice(1);
}
