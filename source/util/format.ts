/**
 * Number formats of the figures, shared by the screen and the figure table (model/figure-table.ts):
 * fixed decimals (digits don't jitter), `--` for unknown (never 0). Pure. The screen's other formats
 * (durations, clocks, widths) are in ui/format.ts, which re-exports these.
 */

/** What an unknown figure looks like. */
export const DASH = '--';

const known = (x: number | undefined | null): x is number => typeof x === 'number' && Number.isFinite(x);

/** A number with fixed decimals, or `--`. */
export function num(x: number | undefined | null, decimals = 1): string {
	return known(x) ? x.toFixed(decimals) : DASH;
}

/** Integer with thousands grouping (`12,345`), or `--`. */
export function int(x: number | undefined | null): string {
	if (!known(x)) return DASH;
	return Math.round(x).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Token rate, one decimal: `47.6`. */
export function tps(x: number | undefined | null): string {
	return num(x, 1);
}

/** Tokens per pass, two decimals: `2.28`. */
export function tpp(x: number | undefined | null): string {
	return num(x, 2);
}

/** A fraction (0..1) as a percentage: `63%` (decimals 0) or `63.0%`. */
export function pct(fraction: number | undefined | null, decimals = 0): string {
	return known(fraction) ? `${(fraction * 100).toFixed(decimals)}%` : DASH;
}

/** Decimal gigabytes from bytes: `14.45 GB`, `4.90 GB`, `142 GB`. */
export function gb(bytes: number | undefined | null): string {
	if (!known(bytes)) return DASH;
	const v = bytes / 1e9;
	if (v >= 100) return `${v.toFixed(0)} GB`;
	if (v >= 0.1) return `${v.toFixed(2)} GB`;
	return `${(bytes / 1e6).toFixed(0)} MB`;
}

/** Bandwidth: `546 GB/s`, `68.3 GB/s`. */
export function gbs(x: number | undefined | null): string {
	if (!known(x)) return DASH;
	return x >= 100 ? `${x.toFixed(0)} GB/s` : `${x.toFixed(1)} GB/s`;
}

/**
 * vLLM/SGLang windowed batch figures, as one line: `640 tok/s over 12 running · 3 waiting · prompt
 * 120 tok/s · KV 29% · hit 45% · 2 preempted · 1531 cached`. Each part only where the engine said it.
 */
export function batchSummary(b: {genTps?: number; promptTps?: number; running?: number; waiting?: number; kvUsage?: number; prefixHitRate?: number; preemptions?: number; preemptedTotal?: number; cachedTokens?: number; newTokens?: number} | undefined): string {
	if (!b) return '';
	const parts: string[] = [];
	if (b.genTps !== undefined) parts.push(b.running !== undefined ? `${tps(b.genTps)} tok/s over ${b.running} running` : `${tps(b.genTps)} tok/s batch`);
	else if (b.running !== undefined) parts.push(`${b.running} running`);
	if (b.waiting !== undefined) parts.push(`${b.waiting} waiting`);
	if (b.promptTps !== undefined) parts.push(`prompt ${tps(b.promptTps)} tok/s`);
	if (b.kvUsage !== undefined) parts.push(`KV ${pct(b.kvUsage)}`);
	if (b.prefixHitRate !== undefined) parts.push(`hit ${pct(b.prefixHitRate)}`);
	if (b.preemptions !== undefined) parts.push(`${b.preemptions} preempted`);
	if (b.preemptedTotal !== undefined) parts.push(`${b.preemptedTotal} preempted in all`);
	if (b.cachedTokens !== undefined) parts.push(`${int(b.cachedTokens)} cached${b.newTokens !== undefined ? ` / ${int(b.newTokens)} new` : ''}`);
	return parts.join(' · ');
}

/**
 * Strings in the order of their UTF-16 code units (what `<` compares), for keys that are ASCII by
 * construction (ISO times, PCI slots): `localeCompare` would load ICU's collator (~2 MB of node's
 * binary paged in for the rest of the run) to order them the same way.
 */
export function codeUnitOrder(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * An integer with thousands commas, as `n.toLocaleString('en-US')` writes it (`61,204`), without
 * ICU: the REQUESTS header formats its counts every frame, and toLocaleString was ~0.8 % of
 * infertop's CPU with 8 busy servers (CPU profile, bundle, interpreter). In util so the model's
 * per-turn evidence text may use it too. Anything but a safe integer goes to toLocaleString itself.
 */
export function grouped(n: number): string {
	// only for what no count reaches (lint keeps ICU out of the rest of source/)
	// eslint-disable-next-line no-restricted-properties
	if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
	const digits = String(Math.abs(n));
	let out = digits.length > 3 ? digits.slice(0, ((digits.length - 1) % 3) + 1) : digits;
	for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
	return n < 0 ? `-${out}` : out;
}
