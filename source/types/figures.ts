/**
 * The live figures of a model (DESIGN §1 keys), as derive computes them and every output reads them.
 */
import type {EngineKind, OllamaRunner} from './events.js';

/** Windowed batch figures as the engine logs them (see ModelFigures.batch). */
export interface BatchFigures {
	readonly genTps?: number;
	readonly promptTps?: number;
	readonly running?: number;
	readonly waiting?: number;
	readonly kvUsage?: number;
	readonly prefixHitRate?: number;
	readonly preemptions?: number;
	readonly preemptedTotal?: number;
	readonly cachedTokens?: number;
	readonly newTokens?: number;
}

/**
 * The live figures of one model on one server, DESIGN §1 keys (source/model/derive.ts computes
 * them from state; the screen, the snapshot and the Prometheus exporter all read this).
 */
export interface ModelFigures {
	readonly serverId: string;
	readonly engine: EngineKind;
	readonly model?: string;
	readonly runner?: OllamaRunner;
	readonly decodeTps?: number;
	readonly reportedTps?: number;
	readonly ttftMs?: number;
	readonly prefillTps?: number;
	readonly tokensPerPass?: number;
	/** The engine's own tokens-per-pass figure (mean len…), shown beside ours. */
	readonly engineTokensPerPass?: number;
	readonly acceptance?: number;
	readonly msPerPass?: number;
	readonly passes?: number;
	readonly passesPerSec?: number;
	readonly bytesPerToken?: number;
	readonly bytesPerTokenSource?: string;
	readonly bandwidthGBs?: number;
	readonly bandwidthSource?: string;
	readonly ceilingTps?: number;
	readonly pctOfCeiling?: number;
	readonly effectiveBandwidthGBs?: number;
	readonly gpuResidency?: number;
	readonly processor?: string;
	readonly cachedTokens?: number;
	readonly promptTokens?: number;
	/** promptTokens/cachedTokens are worked out from other counts (shown `~`). */
	readonly promptEstimated?: boolean;
	/**
	 * The engine's windowed batch figures (vLLM stats line, SGLang batch lines): aggregates over every
	 * running sequence, never one request's. Per-sequence figures come from them only when one runs.
	 */
	readonly batch?: BatchFigures;
	/** Requests the figures come from (finished, in this window). */
	readonly requestCount: number;
	/** When the newest of them finished (ms epoch): the model running right now is the newest. */
	readonly lastRequestAt?: number;
	/** Where the figures came from: `log`, `interval` (vLLM/SGLang windows), `probe`. */
	readonly basis?: string;
	/** The set of requests every figure of this row is made of, named (`last 5 requests of qwen3.8:latest, 2 min`, `probe 08:06:31`, `from the log, 18:40`). */
	readonly set?: string;
	/** The set is of the last minute (requests or a probe): the graph says `now`; an older one (an old log, an earlier probe) says `last`. Unknown for a vLLM/SGLang window. */
	readonly current?: boolean;
	/** Throughput an engine sums over N running requests (vLLM, SGLang): shown as one aggregate. */
	readonly aggregateTps?: number;
	readonly running?: number;
}
