/**
 * The wall-clocked probe (DESIGN §1 timing rules). Owned by source/probe/; stored wholesale.
 */

export type ProbePromptKind = 'code' | 'prose' | 'repeat' | 'hex' | 'long' | 'file';

/**
 * The NDJSON protocol of Ollama's `/api/generate` (a wire protocol other servers speak too, not the
 * engine): its name in results and JSON, and `ServerCounts.source` of its done line.
 */
export const OLLAMA_PROTOCOL = 'ollama';

export type ProbeProtocol = typeof OLLAMA_PROTOCOL | 'openai-chat' | 'openai-completions';

/** What the server said about the request, in its own units, normalised to ms. */
export interface ServerCounts {
	completionTokens?: number;
	promptTokens?: number;
	cachedTokens?: number;
	/** Uncached prompt tokens (llama.cpp `timings.prompt_n`). */
	prefillTokens?: number;
	prefillMs?: number;
	/** Engine's own decode rate (tok/s). */
	reportedTps?: number;
	/** Time the engine spent loading the model for this request (Ollama `load_duration`), ms. */
	loadMs?: number;
	decodeMs?: number;
	drafted?: number;
	accepted?: number;
	/** Target passes counted by the engine (lithos Decode-Steps). */
	passes?: number;
	/**
	 * Where the figures came from: `ollama` (the done line of Ollama's NDJSON protocol), `usage`
	 * (OpenAI's), or the field of an engine's answer block (engines' `answerBlocks`: llama.cpp
	 * `timings`, LM Studio `stats`, vLLM `metrics`).
	 */
	source?: string;
	/** llama.cpp build number from `system_fingerprint` (`b10587-3f545be`). */
	llamaBuild?: number;
	/** TTFT the engine reports (LM Studio `time_to_first_token`), ms. */
	engineTtftMs?: number;
	/** The model the server says answered. */
	model?: string;
	doneReason?: string;
	/** Numbers of the answer that were not believable (`eval_count -5`): left unknown. */
	inconsistent?: string[];
}

/** How a number of an answer is checked: a whole count, a duration (ns, ms, s), or a rate (tok/s). */
export type AnswerNumberKind = 'count' | 'ns' | 'ms' | 's' | 'rate';

/** The figures of one finished probe run. JSON keys are the DESIGN §1 names. */
export interface ProbeResult {
	readonly t: number;
	readonly engine: string;
	readonly url: string;
	readonly model?: string;
	readonly protocol: ProbeProtocol;
	readonly prompt: string;
	readonly ttftMs?: number;
	readonly decodeTps?: number;
	readonly reportedTps?: number;
	readonly prefillTps?: number;
	readonly promptTokens?: number;
	readonly cachedTokens?: number;
	readonly completionTokens?: number;
	readonly tokensPerPass?: number;
	readonly acceptance?: number;
	readonly passes?: number;
	readonly ceilingTps?: number;
	readonly pctOfCeiling?: number;
	/** The bytes one pass reads and where that came from (`gguf header`, `ollama /api/show`…), for the ceiling. */
	readonly bytesPerToken?: number;
	readonly bytesPerTokenSource?: string;
	readonly bandwidthGBs?: number;
	/** Wall vs reported differ by more than 5 %. */
	readonly disagree?: boolean;
	readonly run?: number;
	/** Where tokens per pass came from: `timings`, `lithos header`, `lmstudio stats`, `log`, `no draft`. */
	readonly tokensPerPassSource?: string;
	readonly drafted?: number;
	readonly accepted?: number;
	/** The prompt kind (`code`, `prose`, `repeat`, `hex`, `long`, `file`). */
	readonly promptKind?: ProbePromptKind;
	/** Wall time from the request leaving to the last token (ms). */
	readonly totalMs?: number;
	/** The engine's own load time for this request (Ollama `load_duration`), ms. */
	readonly loadMs?: number;
	/** HTTP 429 answers waited out before this run got the server. */
	readonly busyRetries?: number;
	/** Wall time spent on those 429 answers and the back-off between them (ms), before the request that streamed. */
	readonly busyWaitMs?: number;
	/** The comparison this run belongs to (`infertop compare`, key `c`); CSV column `run_id`. */
	readonly runId?: string;
	readonly serverId?: string;
	/** Numbers of the server's answer that were not believable (`eval_count -5`): their figures are unknown. */
	readonly inconsistent?: readonly string[];
	/**
	 * Requests of this server already in flight when the run left (from its log): the run may have
	 * waited behind them. Absent when none was seen (or the server has no log to say so).
	 */
	readonly queuedBehind?: number;
	/** Of the TTFT, the time until the last of those requests finished (ms); absent when they ran on beside the probe. */
	readonly queuedMs?: number;
	/** Why the log gives no figures for this probe's request (`no log line for this request`, `2 candidates`). */
	readonly logNote?: string;
}

/** One row of the probe history CSV, read back (source/probe/history.ts readHistory). Unknown cells are undefined. */
export interface ProbeHistoryEntry {
	readonly t: number;
	readonly server: string;
	readonly engine: string;
	readonly model?: string;
	readonly promptKind: string;
	readonly promptTokens?: number;
	readonly cachedTokens?: number;
	readonly ttftMs?: number;
	readonly decodeTps?: number;
	readonly reportedTps?: number;
	readonly tokensPerPass?: number;
	readonly acceptance?: number;
	readonly ceilingTps?: number;
	readonly pctOfCeiling?: number;
}

export interface ProbeProgress {
	readonly serverId: string;
	readonly startedAt: number;
	readonly prompt: string;
	readonly tokens: number;
	readonly liveTps?: number;
	readonly ttftMs?: number;
	/** e.g. `server busy (HTTP 429), retrying in 2 s` */
	readonly status?: string;
	readonly run?: number;
	readonly runs?: number;
	/** ms since startedAt at the last update. */
	readonly elapsedMs?: number;
	/** The run's overall limit (`--timeout`), ms: the pane shows it while the probe runs. */
	readonly timeoutMs?: number;
	readonly engine?: string;
	readonly model?: string;
}

export interface ProbeState {
	readonly running?: ProbeProgress;
	/** Newest last. */
	readonly results: readonly ProbeResult[];
	readonly lastError?: string;
	readonly prompt: ProbePromptKind;
}

/** Probe results kept in state (newest last). */
export const MAX_PROBE_RESULTS = 20;

export const emptyProbe = (): ProbeState => ({results: [], prompt: 'code'});
