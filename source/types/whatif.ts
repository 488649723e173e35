/**
 * "What if" (issue 29): a server × model's measured profile — prefill and decode rates at several
 * context depths, its prompt-cache behaviour, its load time, whether it runs requests at once — and
 * the projection of an agent's recorded turns onto it. Measured by source/probe/depths.ts
 * (`compare --depths`), kept by source/probe/profiles.ts, projected by source/model/whatif.ts.
 *
 * Unknown is `undefined` here (`null` in JSON), never 0.
 */

/** One measured depth: a fresh prompt of about `depth` tokens (a nonce first, so nothing is reused). */
export interface DepthPoint {
	/** The depth asked for (tokens, `4k` = 4096), before the window's cap. */
	readonly nominal: number;
	/** The prompt's tokens by the server's own count: the point's real depth. */
	readonly promptTokens: number;
	/** Tokens the server said it reused (unknown where it does not say). */
	readonly cachedTokens?: number;
	/** Time to first token, wall clock (ms): the prefill's wall time (it includes the first token). */
	readonly ttftMs: number;
	/** Uncached tokens ÷ TTFT (wall), tok/s. */
	readonly prefillTps: number;
	/** The engine's own prefill rate (reported beside), tok/s. */
	readonly prefillTpsReported?: number;
	/** Decode rate after the first token (wall), tok/s, at this depth. */
	readonly decodeTps?: number;
	/** The engine's own decode rate (reported beside), tok/s. */
	readonly decodeTpsReported?: number;
	/** Generated tokens of the point's answer. */
	readonly generated?: number;
	/** When it was measured (ms epoch). */
	readonly t: number;
}

/** The second request with the same prompt: is the prefix reused, and how fast is the cached-prefix prefill. */
export interface CacheBehaviour {
	/** true: reused; false: not reused; undefined: the server said nothing and the time told nothing. */
	readonly reused?: boolean;
	/** How that was known: the server's cached count, or the second TTFT against the first. */
	readonly by?: 'count' | 'time';
	readonly promptTokens?: number;
	readonly cachedTokens?: number;
	/** TTFT of the first and second request (ms, wall). */
	readonly firstTtftMs?: number;
	readonly secondTtftMs?: number;
	/** Prompt tokens ÷ the second TTFT (the cached-prefix prefill, wall), tok/s. */
	readonly cachedPrefillTps?: number;
}

/** Two requests sent at once: run side by side, queued one after the other, or the second refused (429). */
export type Concurrency = 'parallel' | 'one-at-a-time' | 'refuses';

export interface Profile {
	readonly url: string;
	readonly engine: string;
	readonly model: string;
	/** When measured (ms epoch) and by which infertop. */
	readonly measuredAt: number;
	readonly version: string;
	/** The model's context window (tokens) where the server says. */
	readonly contextWindow?: number;
	/** Deepest first, never: sorted by promptTokens ascending. */
	readonly points: readonly DepthPoint[];
	readonly cache: CacheBehaviour;
	/** The model's load time (ms), where the engine states it (Ollama `load_duration`), with where it came from. */
	readonly loadMs?: number;
	readonly loadSource?: string;
	/** How long the server keeps the model after a request (ms, Ollama `expires_at` − now); undefined: unknown. */
	readonly keepAliveMs?: number;
	readonly concurrency?: Concurrency;
	/** Tokens the server counted for the tokenizer text (the depth-0 prompt), and which text it was. */
	readonly tokenizer?: {readonly textId: string; readonly tokens: number};
	/** What could not be measured, one line each. */
	readonly notes?: readonly string[];
	/** Set where the curve comes from the log's finished requests, not a measurement: where, in words. Never stored. */
	readonly passive?: string;
}

/** The profiles file (`profiles.json` in infertop's state folder). */
export interface ProfilesFile {
	readonly format: 1;
	readonly profiles: readonly Profile[];
}
