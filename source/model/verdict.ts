/**
 * The passes pane's one-line verdict: how the decode rate stands against the physical ceiling, in
 * words. Pure; honest when figures are unknown. Also the graph scale that does not breathe.
 */

const known = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);

export interface VerdictFigures {
	readonly decodeTps?: number;
	readonly tokensPerPass?: number;
	readonly ceilingTps?: number;
	/** decode tok/s ÷ ceiling, a fraction (1 = 100 %). */
	readonly pctOfCeiling?: number;
	readonly effectiveBandwidthGBs?: number;
	readonly bandwidthGBs?: number;
	readonly acceptance?: number;
}

/** More than this many tokens per pass means speculation is paying. */
const SPECULATING = 1.05;
/** A pass pulling under this share of the machine's bandwidth is slow (seed 000: 290 of 638). */
const SLOW_PASS = 0.5;
/** Real one-token-per-pass decoders land at 60–85 % of the ceiling (DESIGN §1). */
const LOW_PCT = 0.5;

const pct = (f: number): string => `${Math.round(f * 100)} %`;
const tpp = (x: number): string => `${x.toFixed(1)} tokens per pass`;
const acc = (a: number | undefined): string => (known(a) ? ` (acceptance ${a.toFixed(2)})` : '');

export function passesVerdict(f: VerdictFigures): string {
	if (!known(f.decodeTps) || f.decodeTps <= 0) return 'no decode figures yet';
	const speculating = known(f.tokensPerPass) && f.tokensPerPass > SPECULATING;
	const ratio = known(f.pctOfCeiling) ? f.pctOfCeiling : known(f.ceilingTps) && f.ceilingTps > 0 ? f.decodeTps / f.ceilingTps : undefined;
	if (ratio === undefined) {
		const why = known(f.bandwidthGBs) ? 'ceiling unknown: bytes per token unknown' : 'ceiling unknown: pass --bandwidth';
		return speculating ? `${tpp(f.tokensPerPass as number)}${acc(f.acceptance)}; ${why}` : why;
	}
	if (ratio > 1) {
		if (speculating) return `above the ceiling: ${tpp(f.tokensPerPass as number)}${acc(f.acceptance)}`;
		const why = known(f.tokensPerPass) ? 'at one token per pass' : 'with no speculation figures';
		return `above the ceiling (${pct(ratio)}) ${why}: check bytes per token and the log`;
	}
	const effShare = known(f.effectiveBandwidthGBs) && known(f.bandwidthGBs) && f.bandwidthGBs > 0 ? f.effectiveBandwidthGBs / f.bandwidthGBs : undefined;
	if (speculating) {
		if (effShare !== undefined && effShare < SLOW_PASS) {
			return `speculation on, but passes are slow: ${Math.round(f.effectiveBandwidthGBs as number)} GB/s of ${Math.round(f.bandwidthGBs as number)}`;
		}
		return `${tpp(f.tokensPerPass as number)}${acc(f.acceptance)} at ${pct(ratio)} of the ceiling`;
	}
	const lead = known(f.tokensPerPass) ? 'one token per pass at ' : '';
	const low = ratio < LOW_PCT ? ', below the usual 60–85 %' : '';
	return `${lead}${pct(ratio)} of the ceiling${low}`;
}

/** Head room above the largest value. */
const HEADROOM = 1.1;
/** Keep the scale while the data fills at least this share of it. */
const KEEP = 0.6;
/** Share of the gap closed per step when shrinking. */
const SHRINK = 0.15;

/**
 * The next maximum of a graph scale: grows at once (with head room), holds while the data still
 * fills most of it, and shrinks slowly otherwise. Pure; `prevMax` ≤ 0 means no scale yet.
 */
export function nextScale(prevMax: number, values: readonly (number | undefined)[]): number {
	let max = -Infinity;
	for (const v of values) if (known(v) && v > max) max = v;
	const prev = known(prevMax) && prevMax > 0 ? prevMax : 0;
	if (max === -Infinity || max <= 0) return prev;
	const target = max * HEADROOM;
	if (target > prev) return target;
	if (target >= prev * KEEP) return prev;
	return prev - (prev - target) * SHRINK;
}

export interface Scale {
	/** Feed this tick's values; returns the scale maximum to draw with. */
	next(values: readonly (number | undefined)[]): number;
	readonly max: number;
}

export function createScale(initial = 0): Scale {
	let max = initial;
	return {
		next(values) {
			max = nextScale(max, values);
			return max;
		},
		get max() {
			return max;
		},
	};
}
