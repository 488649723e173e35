/**
 * Text from logs and servers is untrusted: strip ANSI/OSC/control sequences before it reaches the
 * screen, cap its length, and never let invalid UTF-8 or CR break a line. Bidi controls are
 * stripped as well: a right-to-left override must not reorder what the user reads.
 */
import stripAnsi from 'strip-ansi';

/** Longest line kept (characters). Longer lines are cut with a marker; never grow without bound. */
export const MAX_LINE_CHARS = 4096;

// C0 controls except TAB, plus DEL and C1 controls. ESC sequences are removed by strip-ansi first.
// Bidi controls too (Trojan-source display tricks, CVE-2021-42574): LRM/RLM U+200E/U+200F, ALM
// U+061C, embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function sanitize(text: string, max = MAX_LINE_CHARS): string {
	let s = text.length > max * 2 ? text.slice(0, max * 2) : text;
	if (s.includes('\u001b') || s.includes('\u009b')) s = stripAnsi(s);
	s = s.replace(/\r$/, '').replace(CONTROL, '').replace(/\t/g, '  ');
	if (s.length > max) s = `${s.slice(0, max)}…[+${text.length - max} chars]`;
	return s;
}
