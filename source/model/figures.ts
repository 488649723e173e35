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

/** Ollama's reported tok/s: eval_count / eval_duration (ns). */
export function ollamaReportedTps(evalCount: number | undefined, evalDurationNs: number | undefined): number | undefined {
	if (!known(evalDurationNs)) return undefined;
	return rate(evalCount, evalDurationNs / 1e6);
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

/** Cache reuse: cached ÷ prompt tokens (0..1). */
export function cacheReuse(cachedTokens: number | undefined, promptTokens: number | undefined): number | undefined {
	if (!known(cachedTokens) || !known(promptTokens) || promptTokens <= 0) return undefined;
	return cachedTokens / promptTokens;
}

/** Counts rule: every pass yields one token of its own plus the drafts it accepts: passes = decoded − accepted. */
export function passesFromCounts(decoded: number | undefined, accepted: number | undefined): number | undefined {
	if (!known(decoded)) return undefined;
	const acc = known(accepted) ? accepted : 0;
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

/** Drafted tokens per pass (seed 000: 458 drafted over 225 iterations = 2.04). */
export function draftedPerPass(drafted: number | undefined, passes: number | undefined): number | undefined {
	if (!known(drafted) || !known(passes) || passes <= 0) return undefined;
	return drafted / passes;
}

/** ms per pass = decode time ÷ passes. */
export function msPerPass(decodeMs: number | undefined, passes: number | undefined): number | undefined {
	if (!known(decodeMs) || !known(passes) || passes <= 0) return undefined;
	return decodeMs / passes;
}

/** ms per pass from a rate: 1000 ÷ passes per second. */
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

export function requestFigures(r: RequestCounts): RequestFigures {
	const decoded = r.decodedTokens ?? r.generatedTokens;
	// Passes: the engine's own count where it has one (MLX iterations, lithos steps), else the counts rule.
	// Without any speculation figures, one token is one pass.
	const passes = r.passes ?? passesFromCounts(decoded, r.accepted ?? (r.drafted === undefined ? 0 : undefined));
	const tpp = r.passes !== undefined ? tokensPerPassFromPasses(decoded, r.passes) : passes === undefined || decoded === undefined ? undefined : decoded / passes;
	// The uncached count: stated (prefillTokens), or prompt − cached where both are known. A prompt
	// count with an unknown cache is not the uncached count (a hit would read as a huge prefill rate).
	const uncached = r.prefillTokens ?? (known(r.promptTokens) && known(r.cachedTokens) ? r.promptTokens - r.cachedTokens : undefined);
	// A failed request has no figures of its own (llama.cpp send_error); a cancelled one only partial ones.
	if (r.outcome !== undefined) return {};
	return {
		// The evaluated count is the prompt only where the cached count is known (llama.cpp at
		// default verbosity logs the uncached part alone): never report it as the prompt.
		promptTokens: r.promptTokens ?? (known(r.prefillTokens) && known(r.cachedTokens) ? r.prefillTokens + r.cachedTokens : undefined),
		cachedTokens: r.cachedTokens,
		...(r.promptEstimated === true ? {promptEstimated: true} : {}),
		prefillTps: uncached !== undefined && uncached > 0 ? rate(uncached, r.prefillMs) : undefined,
		decodeTps: rate(decoded, r.decodeMs),
		tokensPerPass: tpp,
		acceptance: acceptance(r.accepted, r.drafted),
		msPerPass: msPerPass(r.decodeMs, passes),
		passes,
		engineMeanLen: r.engineMeanLen,
	};
}
