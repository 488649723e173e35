/**
 * Formatting for the screen: fixed decimals (digits don't jitter), `--` for unknown (never 0),
 * `~` for estimates. Pure; no Ink. The figures' number formats live in util/format.ts (the figure
 * table uses them too) and are re-exported here.
 */
import {DASH, gb} from '../util/format.js';

export {batchSummary, DASH, gb, gbs, grouped, int, num, pct, tpp, tps} from '../util/format.js';

const known = (x: number | undefined | null): x is number => typeof x === 'number' && Number.isFinite(x);

/** A percentage already on the 0..100 scale (CPU % as top shows it). */
export function pct100(value: number | undefined | null, decimals = 0): string {
	return known(value) ? `${value.toFixed(decimals)}%` : DASH;
}

/** Bytes in the best decimal unit with fixed decimals: `812 MB`, `1.25 GB`. */
export function bytes(b: number | undefined | null): string {
	if (!known(b)) return DASH;
	if (b >= 1e9) return gb(b);
	if (b >= 1e6) return `${(b / 1e6).toFixed(0)} MB`;
	if (b >= 1e3) return `${(b / 1e3).toFixed(0)} KB`;
	return `${Math.round(b)} B`;
}

/** MiB figure (GPU memory) as GiB with one decimal: `23.4 GiB`. */
export function mib(m: number | undefined | null): string {
	if (!known(m)) return DASH;
	return m >= 1024 ? `${(m / 1024).toFixed(1)} GiB` : `${m.toFixed(0)} MiB`;
}

/** Milliseconds: `47.9 ms` below 1 s, `1.24 s` above. */
export function ms(x: number | undefined | null): string {
	if (!known(x)) return DASH;
	if (x < 1000) return `${x.toFixed(x < 10 ? 1 : 0)} ms`;
	return `${(x / 1000).toFixed(2)} s`;
}

/** A duration for "hot for …" / elapsed: `8 s`, `3 min`, `1 h 05 min`. */
export function duration(msValue: number | undefined | null): string {
	if (!known(msValue) || msValue < 0) return DASH;
	const s = Math.floor(msValue / 1000);
	if (s < 60) return `${s} s`;
	const m = Math.floor(s / 60);
	if (m < 60) return `${m} min`;
	const h = Math.floor(m / 60);
	return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Elapsed with one decimal second: `12.3 s`. */
export function elapsed(msValue: number | undefined | null): string {
	if (!known(msValue) || msValue < 0) return DASH;
	return `${(msValue / 1000).toFixed(1)} s`;
}

/** The refresh interval as the header shows it: `1.0 s`, `250 ms`. */
export function interval(msValue: number | undefined | null): string {
	if (!known(msValue)) return DASH;
	return msValue < 1000 ? `${msValue.toFixed(0)} ms` : `${(msValue / 1000).toFixed(1)} s`;
}

/** `ollama ps` humanDuration (format/time.go). */
function humanDuration(deltaMs: number): string {
	const seconds = Math.trunc(deltaMs / 1000);
	if (seconds < 1) return 'Less than a second';
	if (seconds === 1) return '1 second';
	if (seconds < 60) return `${seconds} seconds`;
	const minutes = Math.trunc(deltaMs / 60_000);
	if (minutes === 1) return 'About a minute';
	if (minutes < 60) return `${minutes} minutes`;
	const hours = Math.round(deltaMs / 3_600_000);
	if (hours === 1) return 'About an hour';
	if (hours < 48) return `${hours} hours`;
	if (hours < 24 * 7 * 2) return `${Math.trunc(hours / 24)} days`;
	if (hours < 24 * 30 * 2) return `${Math.trunc(hours / 24 / 7)} weeks`;
	if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24 / 30)} months`;
	return `${Math.trunc(hours / 24 / 365)} years`;
}

/**
 * The UNTIL column of `ollama ps`: `Stopping...` once past, `Never` for the zero time,
 * `Forever` more than 20 years away, else `4 minutes from now`. `--` when unknown.
 */
export function until(expiresAt: string | undefined, nowMs: number): string {
	if (expiresAt === undefined || expiresAt === '') return DASH;
	if (/^0001-01-01/.test(expiresAt)) return 'Never';
	const t = Date.parse(expiresAt);
	if (!Number.isFinite(t)) return DASH;
	const delta = nowMs - t;
	if (delta > 0) return 'Stopping...';
	if (-delta > 20 * 365 * 24 * 3_600_000) return 'Forever';
	return `${humanDuration(-delta)} from now`;
}

/** A log line's time as the panes print it; `--:--:--` where it cannot be known (a backlog line before any stamp): never the time it was read. */
export function logClock(line: {readonly t: number; readonly earlier?: boolean}): string {
	return line.earlier ? '--:--:--' : clock(line.t);
}

/** Clock time `HH:MM:SS` (local). */
export function clock(tMs: number | undefined): string {
	if (!known(tMs)) return DASH;
	const d = new Date(tMs);
	const p = (n: number) => String(n).padStart(2, '0');
	return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Prefix `~` to an estimated figure (never to `--`). */
export function est(text: string, estimated: boolean | undefined): string {
	return estimated && text !== DASH ? `~${text}` : text;
}

/** Cut to a display width with an ellipsis; pad to width when `pad`. Glyph widths are taken as 1. */
export function fit(text: string, width: number, pad = false): string {
	if (width <= 0) return '';
	const chars = Array.from(text);
	let out = chars.length > width ? `${chars.slice(0, Math.max(0, width - 1)).join('')}…` : text;
	if (pad) out = out + ' '.repeat(Math.max(0, width - Array.from(out).length));
	return out;
}

/** Right-align in a column of `width`. */
export function right(text: string, width: number): string {
	const n = Array.from(text).length;
	return n >= width ? fit(text, width) : ' '.repeat(width - n) + text;
}

/** Short host part of a URL: `127.0.0.1:11434`. */
export function shortUrl(url: string | undefined): string {
	if (!url) return DASH;
	return url.replace(/^[a-z]+:\/\//i, '').replace(/\/$/, '');
}

/** One line cut at spaces into pieces of at most `width` characters (a word longer than that stays whole, to be cut). */
function wordPieces(text: string, width: number): string[] {
	const out: string[] = [];
	let cur = '';
	for (const word of text.split(' ')) {
		const next = cur === '' ? word : `${cur} ${word}`;
		if (Array.from(next).length <= width || cur === '') cur = next;
		else {
			out.push(cur);
			cur = word;
		}
	}
	out.push(cur);
	return out;
}

/**
 * Lines fitted into `rows` rows of `width`: a line too long for the width continues on the next row
 * while rows are left for the lines after it (the last row a line gets is cut, `…`, by the pane). Pure.
 */
export function fitRows<T extends {readonly text: string}>(lines: readonly T[], width: number, rows: number): T[] {
	const out: T[] = [];
	for (let i = 0; i < lines.length && out.length < rows; i++) {
		const line = lines[i]!;
		const left = rows - out.length - (lines.length - i - 1);
		const pieces = width > 0 ? wordPieces(line.text, width) : [line.text];
		const n = Math.max(1, Math.min(pieces.length, left));
		const head = pieces.slice(0, n - 1);
		const tail = pieces.slice(n - 1).join(' ');
		for (const p of [...head, tail]) out.push({...line, text: p});
	}
	return out.slice(0, rows);
}
