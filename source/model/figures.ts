/**
 * The figures of DESIGN §1, each defined once. Pure functions; `undefined` = cannot be known (`--`).
 * No function here ever turns an unknown into 0.
 */
import type {RequestPatch} from '../types/events.js';

const known = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);

/** decode tok/s (wall): (n − 1) / (t_last − t_first), n as the server counts it, times in ms. */
export function decodeTpsWall(n: number | undefined, tFirstMs: number | undefined, tLastMs: number | undefined): number | undefined {
	if (!known(n) || !known(tFirstMs) || !known(tLastMs) || n < 2) return undefined;
	const dt = tLastMs - tFirstMs;
	if (dt <= 0) return undefined;
	return ((n - 1) * 1000) / dt;
}

/** A rate from a count and a duration in ms (engine-reported rates: eval_count / eval_duration). */
export function rate(count: number | undefined, ms: number | undefined): number | undefined {
	if (!known(count) || !known(ms) || ms <= 0 || count < 0) return undefined;
	return (count * 1000) / ms;
}

/**
 * prefill tok/s: uncached prompt tokens ÷ prompt time. A prompt count that includes cached tokens
 * (Ollama's prompt_eval_count, OpenAI's usage.prompt_tokens) while the time does not: pass
 * `cachedTokens` and it is subtracted. An unknown cached count makes the rate unknown, never a
 * rate over the whole prompt (a cache hit would read as a prefill far above the machine's); a
 * count that is already the uncached part (llama.cpp's prompt_n) is passed with cachedTokens 0.
 */
export function prefillTps(promptTokens: number | undefined, cachedTokens: number | undefined, promptMs: number | undefined): number | undefined {
	if (!known(promptTokens) || !known(cachedTokens)) return undefined;
	const uncached = promptTokens - cachedTokens;
	if (uncached <= 0) return undefined;
	return rate(uncached, promptMs);
}

/**
 * Counts rule (DESIGN §1), the one place it is written: every pass yields one token of its own plus
 * the drafts it accepts, so passes = decoded − accepted. Without any speculation figures (neither
 * accepted nor drafted known) one token is one pass; drafts counted but their acceptance not: unknown.
 */
export function passesFromCounts(decoded: number | undefined, accepted: number | undefined, drafted?: number): number | undefined {
	if (!known(decoded)) return undefined;
	const acc = known(accepted) ? accepted : drafted === undefined ? 0 : undefined;
	if (acc === undefined) return undefined;
	const passes = decoded - acc;
	return passes > 0 ? passes : undefined;
}

/** tokens per pass = decoded ÷ (decoded − accepted) = 1 + accepted / passes. */
export function tokensPerPass(decoded: number | undefined, accepted: number | undefined): number | undefined {
	const passes = passesFromCounts(decoded, accepted);
	if (!known(decoded) || passes === undefined) return undefined;
	return decoded / passes;
}

/** tokens per pass from generated tokens and passes counted by the engine (Ollama MLX iterations, lithos steps). */
export function tokensPerPassFromPasses(tokens: number | undefined, passes: number | undefined): number | undefined {
	if (!known(tokens) || !known(passes) || passes <= 0) return undefined;
	return tokens / passes;
}

/** acceptance = accepted draft tokens ÷ drafted tokens. */
export function acceptance(accepted: number | undefined, drafted: number | undefined): number | undefined {
	if (!known(accepted) || !known(drafted) || drafted <= 0) return undefined;
	return accepted / drafted;
}

/** ms per pass = decode time ÷ passes. */
export function msPerPass(decodeMs: number | undefined, passes: number | undefined): number | undefined {
	if (!known(decodeMs) || !known(passes) || passes <= 0) return undefined;
	return decodeMs / passes;
}

/** ms per pass from a rate: 1000 ÷ passes per second (a probe or an engine window: no decode time of their own). */
export function msPerPassFromRate(tps: number | undefined, tpp: number | undefined): number | undefined {
	const pps = passesPerSec(tps, tpp);
	return pps === undefined || pps <= 0 ? undefined : 1000 / pps;
}

/** ceiling = BW / B tok/s (BW in GB/s = 1e9 B/s, B in bytes). */
export function ceilingTps(bandwidthGBs: number | undefined, bytesPerToken: number | undefined): number | undefined {
	if (!known(bandwidthGBs) || !known(bytesPerToken) || bytesPerToken <= 0 || bandwidthGBs <= 0) return undefined;
	return (bandwidthGBs * 1e9) / bytesPerToken;
}

/** passes per second = tok/s ÷ tokens per pass. */
export function passesPerSec(tps: number | undefined, tpp: number | undefined): number | undefined {
	if (!known(tps) || !known(tpp) || tpp <= 0) return undefined;
	return tps / tpp;
}

/** effective bandwidth (GB/s) = passes per second × B. */
export function effectiveBandwidthGBs(pps: number | undefined, bytesPerToken: number | undefined): number | undefined {
	if (!known(pps) || !known(bytesPerToken)) return undefined;
	return (pps * bytesPerToken) / 1e9;
}

/** % of ceiling = decode tok/s ÷ ceiling (a fraction; 1 = 100 %). */
export function pctOfCeiling(tps: number | undefined, ceiling: number | undefined): number | undefined {
	if (!known(tps) || !known(ceiling) || ceiling <= 0) return undefined;
	return tps / ceiling;
}

/** GPU residency from llama.cpp's `offloaded N/M layers to GPU`. */
export function residencyFromLayers(onGpu: number | undefined, total: number | undefined): number | undefined {
	if (!known(onGpu) || !known(total) || total <= 0) return undefined;
	return Math.min(1, onGpu / total);
}

/** Wall vs reported differ by more than 5 %. */
export function ratesDisagree(wall: number | undefined, reported: number | undefined, tolerance = 0.05): boolean | undefined {
	if (!known(wall) || !known(reported) || reported <= 0) return undefined;
	return Math.abs(wall - reported) / reported > tolerance;
}

/**
 * The per-request figures of DESIGN §1 from raw counts, as the requests table and snapshot show them.
 * Counts win over the engine's own figure; the engine's figure is kept beside it.
 */
export interface RequestFigures {
	readonly promptTokens?: number;
	readonly cachedTokens?: number;
	readonly prefillTps?: number;
	readonly decodeTps?: number;
	readonly tokensPerPass?: number;
	readonly acceptance?: number;
	readonly msPerPass?: number;
	readonly passes?: number;
	readonly engineMeanLen?: number;
	/** promptTokens/cachedTokens are worked out, not stated by the engine: shown `~`. */
	readonly promptEstimated?: boolean;
}

/** The raw counts of one request (see RequestPatch) that the figures are computed from. */
export type RequestCounts = Pick<
	RequestPatch,
	'promptTokens' | 'cachedTokens' | 'prefillTokens' | 'prefillMs' | 'generatedTokens' | 'decodedTokens' | 'decodeMs' | 'passes' | 'drafted' | 'accepted' | 'engineMeanLen' | 'promptEstimated' | 'outcome'
>;

/**
 * A request's counts as every figure reads them (requestFigures, the figure table's sums, the
 * probe's log match): the counts rule and "prompt = prefill + cached" are applied here only.
 */
export interface RequestTotals {
	/** Tokens the target's passes produced: the engine's decoded count, else its generated count. */
	readonly decoded?: number;
	/** The engine's own pass count where it has one (MLX iterations, lithos steps), else the counts rule. */
	readonly passes?: number;
	/**
	 * Uncached prompt tokens: stated (prefillTokens), else prompt − cached where both are known. A
	 * prompt count with an unknown cache is not the uncached count (a hit would read as a huge prefill rate).
	 */
	readonly uncached?: number;
	/**
	 * The whole prompt: stated, else prefill + cached where both are known. The evaluated count alone
	 * is never the prompt (llama.cpp at default verbosity logs the uncached part only).
	 */
	readonly prompt?: number;
}

/**
 * The four counts of RequestTotals, each written once: totalsOf, requestFigures and endFigures read
 * them through these (no object made where a figure needs one or two of them).
 */
const decodedOf = (r: RequestCounts): number | undefined => r.decodedTokens ?? r.generatedTokens;
const passesOf = (r: RequestCounts, decoded: number | undefined): number | undefined => r.passes ?? passesFromCounts(decoded, r.accepted, r.drafted);
const uncachedOf = (r: RequestCounts): number | undefined =>
	r.prefillTokens ?? (known(r.promptTokens) && known(r.cachedTokens) ? r.promptTokens - r.cachedTokens : undefined);
const promptOf = (r: RequestCounts): number | undefined =>
	r.promptTokens ?? (known(r.prefillTokens) && known(r.cachedTokens) ? r.prefillTokens + r.cachedTokens : undefined);

export function totalsOf(r: RequestCounts): RequestTotals {
	const decoded = decodedOf(r);
	return {decoded, passes: passesOf(r, decoded), uncached: uncachedOf(r), prompt: promptOf(r)};
}

/** The figures a finished request is counted by in the store: its totals, histograms and pass sample. */
export type EndFigures = Pick<RequestFigures, 'promptTokens' | 'decodeTps' | 'tokensPerPass'>;

const NO_END_FIGURES: EndFigures = Object.freeze({});

/**
 * requestFigures's promptTokens, decodeTps and tokensPerPass (the same counts, the same formulas),
 * without the rest: the store counts every finished request by these three only, and the whole
 * figures object (eleven fields, and the rates it does not need) was ~230 B allocated a request
 * on a busy log (V8's sampling heap profiler; the reducer over the traffic bench's llama.cpp lines).
 * test/model/end-figures.test.ts compares it with requestFigures.
 */
export function endFigures(r: RequestCounts): EndFigures {
	if (r.outcome !== undefined) return NO_END_FIGURES;
	const decoded = decodedOf(r);
	return {promptTokens: promptOf(r), decodeTps: rate(decoded, r.decodeMs), tokensPerPass: tokensPerPassFromPasses(decoded, passesOf(r, decoded))};
}

export function requestFigures(r: RequestCounts): RequestFigures {
	// A failed request has no figures of its own (llama.cpp send_error); a cancelled one only partial ones.
	if (r.outcome !== undefined) return {};
	// totalsOf's four counts, without its object: requestFigures runs for each request the screen or a
	// snapshot makes an entry of, and under the app's V8 (no TurboFan) the object was garbage at once
	// (~70 B a request).
	const cachedTokens = r.cachedTokens;
	const decoded = decodedOf(r);
	const passes = passesOf(r, decoded);
	const uncached = uncachedOf(r);
	const promptTokens = promptOf(r);
	const prefill = uncached !== undefined && uncached > 0 ? rate(uncached, r.prefillMs) : undefined;
	const decodeTps = rate(decoded, r.decodeMs);
	const perPass = tokensPerPassFromPasses(decoded, passes);
	const accepted = acceptance(r.accepted, r.drafted);
	const ms = msPerPass(r.decodeMs, passes);
	// Two literals, not a spread of an optional part (a copy per call in the app's V8 without its
	// optimizing compiler); the same fields in the same order.
	return r.promptEstimated === true
		? {promptTokens, cachedTokens, promptEstimated: true, prefillTps: prefill, decodeTps, tokensPerPass: perPass, acceptance: accepted, msPerPass: ms, passes, engineMeanLen: r.engineMeanLen}
		: {promptTokens, cachedTokens, prefillTps: prefill, decodeTps, tokensPerPass: perPass, acceptance: accepted, msPerPass: ms, passes, engineMeanLen: r.engineMeanLen};
}
