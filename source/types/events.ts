/**
 * What engines say: the contract between sources (impure) and engines (pure line → EngineEvent),
 * DESIGN §2. Every figure is optional: `undefined` means "not known" and is shown as `--` (never 0).
 */
/**
 * The engine kinds, declared by the engines themselves: each `source/engines/<engine>.ts` adds its
 * own kind to this interface by declaration merging —
 *
 *     declare module '../types/events.js' {interface EngineKinds {ollama: true}}
 *
 * — so the kind is written once, in its engine's file, and types/ (the leaf) imports nothing of
 * engines/. The registry (engines/registry.ts) is checked by the compiler to list every declared
 * kind; engines/index.ts `ENGINE_KINDS` is the list at run time.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by each engine file
export interface EngineKinds {}

/** Which engine wrote a log or answers a server (one of the declared kinds). JSON key `engine`. */
export type EngineKind = keyof EngineKinds;

/** Ollama runs each model on one of two engines: llama-server over GGUF, or its own MLX runner. */
export type OllamaRunner = 'gguf' | 'mlx';

/**
 * What one finished (or partly reported) generation request says about itself.
 * Engines report a request over several lines; a parser emits one `request` event per line
 * it understands, all with the same `key`, and the reducer merges them.
 * Counts are raw engine counts; derived figures come only from model/figures.ts.
 */
export interface RequestPatch {
	/** Unique within one log source, e.g. `s0/t31` (slot/task) or `mlx#12`. */
	readonly key: string;
	readonly model?: string;
	readonly runner?: OllamaRunner;
	readonly slot?: number;
	readonly task?: number;
	/** Prompt tokens in total (cached + processed) where the engine says so. */
	readonly promptTokens?: number;
	/** Prompt tokens served from the prefix cache. */
	readonly cachedTokens?: number;
	/** Prompt tokens actually processed (uncached). */
	readonly prefillTokens?: number;
	readonly prefillMs?: number;
	/** Tokens generated as the engine counts them (llama.cpp `eval time … / N tokens`, n_gen). */
	readonly generatedTokens?: number;
	/**
	 * Tokens produced by decode passes: generatedTokens minus a first token that came out of the
	 * prompt pass (llama.cpp since b10424). Counts rule of DESIGN §1 uses this.
	 */
	readonly decodedTokens?: number;
	readonly decodeMs?: number;
	/** Target-model forward passes (verify steps) during decode, where the engine says so. */
	readonly passes?: number;
	readonly drafted?: number;
	readonly accepted?: number;
	/** The engine's own tokens-per-pass figure (llama.cpp `mean len`, SGLang `accept len`…), shown beside ours. */
	readonly engineMeanLen?: number;
	/** The engine's own decode rate for this request (llama.cpp `eval time … tokens per second`). */
	readonly engineTps?: number;
	/**
	 * `promptTokens` and `cachedTokens` are worked out from other counts, not stated by the log
	 * (llama.cpp default verbosity: `stop processing: n_tokens` + 1 − generated − prefill): shown `~`.
	 */
	readonly promptEstimated?: boolean;
	/** Time to first token as the engine reports it (LM Studio `timeToFirstTokenSec`). */
	readonly ttftMs?: number;
	/** Wall time of the whole request as the engine logged it (Ollama MLX runner `ServeHTTP took=`, lithos `wall_ms`). */
	readonly wallMs?: number;
	/** Wall time of the request as its HTTP access line logged it (Ollama `[GIN]` latency): queueing and model load included. */
	readonly accessMs?: number;
	/** The client address an access log gave for this request (Ollama `[GIN]`, uvicorn); undefined = not known. */
	readonly client?: string;
	/** Time the request waited for a slot as the engine logged it (llama.cpp deferred task → launch); 0 only where the log would have said. */
	readonly queueMs?: number;
	/**
	 * How the request ended where it did not end normally: `error` (llama.cpp `send_error`, a failed
	 * request: no figures), `cancelled` (client went away: partial figures are not the request's).
	 */
	readonly outcome?: 'error' | 'cancelled';
	/** The engine's error message for an `error` outcome (sanitized, capped). */
	readonly error?: string;
	/** The context window the engine held this request's prompt in (llama-server `new prompt, n_ctx_slot = N`). */
	readonly contextWindow?: number;
	/**
	 * Tokens of this prompt that the slot's previous prompt also began with, where the engine says
	 * (Ollama MLX `cache hit … matched=`; llama-server `f_sim_best` × prompt): the cache reuse's basis.
	 */
	readonly sharedPrefixTokens?: number;
	/** How generation ended where the engine says: `length` (its own limit or the window), `stop`. */
	readonly finishReason?: 'stop' | 'length';
	/** Tokens the request asked for at most (llama-server `n_predict`, `-v`), where the engine says. */
	readonly outputLimit?: number;
	/** Set on the line that closes the request (llama.cpp `release`, Ollama MLX stats, lithos Generation). */
	readonly done?: boolean;
	/** Set on the line that opens the request. */
	readonly started?: boolean;
}

export type EngineEvent =
	| ({readonly type: 'request'} & RequestPatch)
	/** A request in flight: live generation speed (llama.cpp `n_gen = …, tg = …`). */
	| {readonly type: 'live-rate'; readonly key?: string; readonly generated: number; readonly tps: number; readonly tps3s?: number}
	/** Prompt processing progress of a request in flight. */
	| {readonly type: 'prefill-progress'; readonly key?: string; readonly processed: number; readonly total?: number; readonly progress?: number; readonly tps?: number}
	/** Layers offloaded to the GPU (llama.cpp, Ollama all eras), of the model being loaded where the log says. */
	| {readonly type: 'offload'; readonly layersOnGpu: number; readonly layersTotal: number; readonly model?: string}
	/** One buffer line: `CUDA0 model buffer size = 4403.49 MiB`. `onGpu` by Ollama's rule. */
	| {readonly type: 'buffer'; readonly device: string; readonly kind: 'model' | 'KV' | 'compute' | 'output' | 'RS'; readonly mib: number; readonly onGpu: boolean}
	/** Context sizes: total, per slot/sequence, number of slots. */
	| {readonly type: 'context'; readonly nCtx?: number; readonly nCtxPerSlot?: number; readonly slots?: number}
	/** A model finished loading / the runner is ready; `evidence`: the engine's line (sanitized). */
	| {readonly type: 'model-loaded'; readonly model?: string; readonly runner?: OllamaRunner; readonly seconds?: number; readonly evidence?: string}
	/** What went wrong for an agent's request, in the engine's own words (issue 28; model/findings.ts places it on a turn). */
	| {readonly type: 'agent-signal'; readonly signal: AgentSignal}
	/** A model left memory: LRU eviction to fit another, its idle TTL ran out, or an unload (oMLX engine pool). */
	| {readonly type: 'model-unloaded'; readonly model?: string; readonly reason: 'evicted' | 'ttl' | 'unloaded'; readonly by?: string}
	/** The server announced itself (Ollama `Listening on … (version …)`, llama-server `listening on`). */
	| {readonly type: 'server-start'; readonly version?: string; readonly listen?: string}
	/** An HTTP request line (gin, uvicorn, llama-server request log). */
	| {readonly type: 'http'; readonly method: string; readonly path: string; readonly status: number; readonly latencyMs?: number; readonly client?: string}
	/** The server refused or deferred work (429 model_busy, deferred task). */
	| {readonly type: 'busy'; readonly status?: number; readonly reason: string; readonly client?: string}
	/** A windowed statistics line (vLLM every 10 s, SGLang every N decode steps). */
	| {
		readonly type: 'interval-stats';
		readonly promptTps?: number;
		readonly genTps?: number;
		readonly running?: number;
		readonly waiting?: number;
		readonly kvUsage?: number;
		readonly prefixHitRate?: number;
		/** Tokens per pass over the window (vLLM mean acceptance length, SGLang accept len). */
		readonly meanAcceptLen?: number;
		readonly accepted?: number;
		readonly drafted?: number;
		readonly acceptRate?: number;
		/** Requests preempted in the window (vLLM V1 `Preemptions: N`; absent from the line = 0). */
		readonly preemptions?: number;
		/** Requests preempted since the log began (vLLM `total_num_cumulative_preemption`, SGLang `#retracted_reqs` summed). */
		readonly preemptedTotal?: number;
		/** Prompt tokens of the last prefill batch served from the prefix cache (SGLang `#cached-token`). */
		readonly cachedTokens?: number;
		/** Prompt tokens of the last prefill batch computed (SGLang `#new-token`). */
		readonly newTokens?: number;
	}
	/** Speculative decoding configured (MTP / DFlash / DSpark / draft model). */
	| {readonly type: 'spec-init'; readonly kind: string; readonly detail?: string}
	/**
	 * The engine said the GPU's memory limit (Metal's recommendedMaxWorkingSetSize, which follows
	 * `iogpu.wired_limit_mb` on macOS), with the bytes its model needs where it says (mlx-lm's
	 * "requires X MB which is close to the maximum recommended size of Y MB").
	 */
	| {readonly type: 'gpu-limit'; readonly limitBytes: number; readonly requiredBytes?: number}
	/**
	 * The line carried a number that cannot be true (negative, not finite, beyond a sane bound —
	 * util/numbers.ts): that field was left unknown; the line is counted as inconsistent, with why.
	 */
	| {readonly type: 'inconsistent'; readonly reason: string};

/**
 * What an engine's line says went wrong for a request (model/findings.ts turns these into findings
 * on the turn they belong to): the prompt was cut, refused or shifted for context; another model was
 * evicted; a tool call failed to parse; the runner shrank its context to fit. Figures as the line
 * states them; the line itself (sanitized) is the evidence.
 */
export type AgentSignalKind = 'truncated' | 'context-exceeded' | 'context-shifted' | 'evicting' | 'tool-call-failed' | 'context-shrunk';

export interface AgentSignal {
	readonly kind: AgentSignalKind;
	/** The request it belongs to where the line names it (llama-server task ids); else by time. */
	readonly key?: string;
	readonly model?: string;
	/** The engine's line, sanitized, capped (one line). */
	readonly evidence: string;
	/** Ollama `truncating input prompt`: limit, prompt, keep, new. */
	readonly limit?: number;
	readonly prompt?: number;
	readonly keep?: number;
	readonly kept?: number;
	/** Context figures: the window (`n_ctx`, `num_ctx`), the prompt it refused (`n_prompt_tokens`), tokens discarded by a shift. */
	readonly window?: number;
	readonly discarded?: number;
}

/**
 * A pure, stateful line parser for one engine's log (source/engines/<engine>.ts).
 * push() takes one sanitized line (no newline) and returns the events it carries:
 * `[]` when the line is understood but carries no figure, `null` when not understood at all
 * (counted as unparsed, still kept for the log pane). Stateful only for multi-line formats and
 * per-slot/task bookkeeping; interleaved slots must not mix figures.
 */
export interface LineParser {
	readonly engine: EngineKind;
	push(line: string): EngineEvent[] | null;
	/**
	 * The longest line it is given whole (sanitized, not cut); default MAX_LINE_CHARS (util/sanitize.ts),
	 * past which the line reaches it cut, as the log pane keeps it. An engine whose figures sit at the
	 * end of long lines says more (SGLang's `Finish` lines at `--log-requests-level 2`).
	 */
	readonly maxChars?: number;
}
