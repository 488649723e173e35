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
	// Every field by name first (the log's requests run this once an event): a loop over FIELDS reads
	// each by a key, and the app's V8 runs without its optimizing compiler, where those reads cost
	// ~0.25 ms per 1,000 llama.cpp lines. The loop below only names the first field that fails.
	const fieldsFine = fine(c.promptTokens) && fine(c.cachedTokens) && fine(c.prefillTokens) && fine(c.prefillMs) && fine(c.generatedTokens) && fine(c.decodedTokens)
		&& fine(c.decodeMs) && fine(c.passes) && fine(c.drafted) && fine(c.accepted) && fine(c.engineMeanLen) && fine(c.engineTps);
	if (!fieldsFine) {
		for (const k of FIELDS) {
			const v = c[k];
			if (v === undefined) continue;
			if (typeof v !== 'number' || !Number.isFinite(v)) return `${NAMES[k]} not a number`;
			if (v < 0) return `negative ${NAMES[k]} (${v})`;
		}
	}
	const {promptTokens: prompt, cachedTokens: cached, prefillTokens: prefill} = c;
	if (prompt !== undefined && cached !== undefined && cached > prompt) return `cached ${cached} > prompt ${prompt}`;
	if (prompt !== undefined && prefill !== undefined && prefill > prompt) return `processed ${prefill} > prompt ${prompt}`;
	if (c.drafted !== undefined && c.accepted !== undefined && c.accepted > c.drafted) return `accepted ${c.accepted} > drafted ${c.drafted}`;
	const decoded = c.decodedTokens ?? c.generatedTokens;
	if (decoded !== undefined && c.passes !== undefined && c.passes > decoded) return `tokens per pass < 1 (${decoded} tokens in ${c.passes} passes)`;
	if (decoded !== undefined && c.accepted !== undefined && c.accepted > decoded) return `accepted ${c.accepted} > generated ${decoded}`;
	if (c.engineMeanLen !== undefined && c.engineMeanLen < 1) return `tokens per pass < 1 (mean len ${c.engineMeanLen})`;
	if (decoded !== undefined && c.decodeMs !== undefined && c.decodeMs > 0 && (decoded * 1000) / c.decodeMs > MAX_PLAUSIBLE_TPS) return `decode above ${MAX_PLAUSIBLE_TPS.toExponential(0)} tok/s`;
	// Uncached tokens are known only when the engine says them, or says both prompt and cached: Ollama's
	// prompt_eval_count includes a cache hit its duration does not, so prompt ÷ time is no prefill rate.
	const uncached = prefill ?? (prompt !== undefined && cached !== undefined ? prompt - cached : undefined);
	if (uncached !== undefined && c.prefillMs !== undefined && c.prefillMs > 0 && (uncached * 1000) / c.prefillMs > MAX_PLAUSIBLE_TPS) return `prefill above ${MAX_PLAUSIBLE_TPS.toExponential(0)} tok/s`;
	if (c.engineTps !== undefined && c.engineTps > MAX_PLAUSIBLE_TPS) return `engine tok/s above ${MAX_PLAUSIBLE_TPS.toExponential(0)}`;
	return undefined;
}
