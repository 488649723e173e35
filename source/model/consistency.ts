/**
 * Cross-field consistency of one request's numbers (DESIGN §1, issue 11 item 5). A request whose
 * numbers contradict each other or physics is never shown as figures: it is counted as
 * inconsistent, with the reason this returns. Pure; used for log requests and probe answers alike.
 */

import type {RequestPatch} from '../types/events.js';

/** No single local sequence decodes or prefills faster than this (tok/s). */
export const MAX_PLAUSIBLE_TPS = 1e6;

/** The numbers of one request that are checked against each other (a request patch's, or a probe answer's). */
export type CountsToCheck = Partial<Pick<
	RequestPatch,
	'promptTokens' | 'cachedTokens' | 'prefillTokens' | 'prefillMs' | 'generatedTokens' | 'decodedTokens' | 'decodeMs' | 'passes' | 'drafted' | 'accepted' | 'engineMeanLen' | 'engineTps'
>>;

const FIELDS: readonly (keyof CountsToCheck)[] = [
	'promptTokens', 'cachedTokens', 'prefillTokens', 'prefillMs', 'generatedTokens', 'decodedTokens', 'decodeMs', 'passes', 'drafted', 'accepted', 'engineMeanLen', 'engineTps',
];

const NAMES: Readonly<Record<keyof CountsToCheck, string>> = {
	promptTokens: 'prompt tokens', cachedTokens: 'cached tokens', prefillTokens: 'prefill tokens', prefillMs: 'prompt time',
	generatedTokens: 'generated tokens', decodedTokens: 'decoded tokens', decodeMs: 'decode time', passes: 'passes',
	drafted: 'drafted', accepted: 'accepted', engineMeanLen: 'mean len', engineTps: 'engine tok/s',
};

/** Absent, or a finite number ≥ 0 (what the loop in `inconsistency` lets pass). */
const fine = (v: unknown): boolean => v === undefined || (typeof v === 'number' && v >= 0 && v < Infinity);

/** Why these numbers cannot all be true, or undefined when they can. */
export function inconsistency(c: CountsToCheck): string | undefined {
	// Each field is read once, by name. Under the app's V8 (no TurboFan) a loop of keyed reads over
	// FIELDS cost ~270 ns a call, and every read of a field that holds a fraction (a time, a rate)
	// makes a new number object: reading them again in each check made ~150 bytes of garbage a call,
	// once a request event. The loop below only names the first field that fails.
	const prompt = c.promptTokens;
	const cached = c.cachedTokens;
	const prefill = c.prefillTokens;
	const prefillMs = c.prefillMs;
	const generated = c.generatedTokens;
	const decodedTokens = c.decodedTokens;
	const decodeMs = c.decodeMs;
	const passes = c.passes;
	const drafted = c.drafted;
	const accepted = c.accepted;
	const meanLen = c.engineMeanLen;
	const engineTps = c.engineTps;
	const fieldsFine = fine(prompt) && fine(cached) && fine(prefill) && fine(prefillMs) && fine(generated) && fine(decodedTokens)
		&& fine(decodeMs) && fine(passes) && fine(drafted) && fine(accepted) && fine(meanLen) && fine(engineTps);
	if (!fieldsFine) {
		for (const k of FIELDS) {
			const v = c[k];
			if (v === undefined) continue;
			if (typeof v !== 'number' || !Number.isFinite(v)) return `${NAMES[k]} not a number`;
			if (v < 0) return `negative ${NAMES[k]} (${v})`;
		}
	}
	if (prompt !== undefined && cached !== undefined && cached > prompt) return `cached ${cached} > prompt ${prompt}`;
	if (prompt !== undefined && prefill !== undefined && prefill > prompt) return `processed ${prefill} > prompt ${prompt}`;
	if (drafted !== undefined && accepted !== undefined && accepted > drafted) return `accepted ${accepted} > drafted ${drafted}`;
	const decoded = decodedTokens ?? generated;
	if (decoded !== undefined && passes !== undefined && passes > decoded) return `tokens per pass < 1 (${decoded} tokens in ${passes} passes)`;
	if (decoded !== undefined && accepted !== undefined && accepted > decoded) return `accepted ${accepted} > generated ${decoded}`;
	if (meanLen !== undefined && meanLen < 1) return `tokens per pass < 1 (mean len ${meanLen})`;
	if (decoded !== undefined && decodeMs !== undefined && decodeMs > 0 && (decoded * 1000) / decodeMs > MAX_PLAUSIBLE_TPS) return `decode above ${MAX_PLAUSIBLE_TPS.toExponential(0)} tok/s`;
	// Uncached tokens are known only when the engine says them, or says both prompt and cached: Ollama's
	// prompt_eval_count includes a cache hit its duration does not, so prompt ÷ time is no prefill rate.
	const uncached = prefill ?? (prompt !== undefined && cached !== undefined ? prompt - cached : undefined);
	if (uncached !== undefined && prefillMs !== undefined && prefillMs > 0 && (uncached * 1000) / prefillMs > MAX_PLAUSIBLE_TPS) return `prefill above ${MAX_PLAUSIBLE_TPS.toExponential(0)} tok/s`;
	if (engineTps !== undefined && engineTps > MAX_PLAUSIBLE_TPS) return `engine tok/s above ${MAX_PLAUSIBLE_TPS.toExponential(0)}`;
	return undefined;
}
