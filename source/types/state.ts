/**
 * The store's state and the actions that change it (DESIGN §2: model, pure reducer over Action),
 * and the collector life cycle. Every figure is optional: `undefined` means "not known".
 */
import type {SystemState} from './system.js';
import type {ProbeProgress, ProbePromptKind, ProbeResult, ProbeState} from './probe.js';
import type {CompareProgress, CompareRow, CompareState} from './compare.js';
import type {AgentSignal, EngineEvent, EngineKind, OllamaRunner, RequestPatch} from './events.js';

/** A line from a log, kept for the log pane (sanitized, capped). */
export interface LogLine {
	readonly t: number;
	readonly text: string;
	readonly parsed: boolean;
	/** infertop's own note on the line above (why it was counted as inconsistent), not the log's text. */
	readonly note?: boolean;
	/** Its time cannot be known (a backlog line before any wall-clock stamp): `t` is when it was read, never shown as its time. */
	readonly earlier?: boolean;
}

/**
 * Where a lineage of log rings keeps its lines (model/log-ring.ts writes it; nothing else does): one
 * circular block of UTF-8 bytes and, per line, its place, length, time and flags, outside V8's
 * collected heap. Absolute line numbers: line n is in slot n mod slots (a power of two) while n ≥ intact.
 */
export interface LogArena {
	readonly bytes: Uint8Array;
	readonly at: Uint32Array;
	readonly len: Uint32Array;
	readonly times: Float64Array;
	readonly flags: Uint8Array;
	/** Lines ever written (the absolute number of the next line). */
	readonly lines: number;
	/** Where the next line's bytes go. */
	readonly head: number;
	/** The oldest line whose bytes and slot are still its own. */
	readonly intact: number;
	/** The window kept readable besides the newest (the screen's published state): log-ring.ts pinLogs. */
	readonly pin?: LogRing;
}

/**
 * The log buffer: a window [start, end) of absolute line numbers onto its arena (model/log-ring.ts
 * appends in amortised O(1) and reads it, a LogLine made on read; nothing else writes it). A window
 * reads its lines while it is its arena's newest, or pinned, or none of its lines was reused since.
 */
export interface LogRing {
	/** undefined: no line yet. */
	readonly arena?: LogArena;
	readonly start: number;
	readonly end: number;
	/** Lines in the ring (end − start). */
	readonly length: number;
}

/** How a server came to be known. JSON key `source`. */
export type ServerSource = 'port-scan' | 'process' | 'flag' | 'config' | 'demo' | 'log';

/**
 * up: answering. stale: stopped answering, last figures kept. restarted: came back with reset
 * counters. down: a server the user named that has not answered as an engine (lastError says why).
 */
export type ServerLifecycle = 'up' | 'stale' | 'restarted' | 'log-only' | 'starting' | 'down';

/** How many models a server listed when that is more than infertop keeps (MAX_MODELS). */
export interface ModelsListed {
	readonly total: number;
	/** The answer was too large to read whole: at least `total`. */
	readonly atLeast: boolean;
}

export interface ModelInfo {
	readonly name: string;
	/** Bytes resident (Ollama `size`). */
	readonly sizeBytes?: number;
	/** Bytes on the GPU (Ollama `size_vram`). */
	readonly sizeVramBytes?: number;
	/** Exactly as `ollama ps` prints PROCESSOR (`100% GPU`, `48%/52% CPU/GPU`…). */
	readonly processor?: string;
	/** 0..1, see DESIGN §1 GPU residency. */
	readonly gpuResidency?: number;
	readonly contextLength?: number;
	/** ISO time the model unloads (Ollama `expires_at`); `Forever`/`Never` handled by the formatter. */
	readonly expiresAt?: string;
	readonly format?: string;
	readonly runner?: OllamaRunner;
	readonly family?: string;
	readonly parameterSize?: string;
	readonly quantization?: string;
	readonly digest?: string;
	/** Bytes of weights one target pass reads (DESIGN §1), with its source. */
	readonly bytesPerToken?: number;
	readonly bytesPerTokenSource?: string;
	/** Slots × context per slot (llama-server `/props`, `/slots`). */
	readonly slots?: number;
	readonly contextPerSlot?: number;
	/** Path of the weights on disk, where the server says (llama-server `/props` model_path). */
	readonly modelPath?: string;
	/** Bytes of the weights file as the server reports it (llama-server `/v1/models` meta.size). */
	readonly modelBytes?: number;
	/** Parameters as a count (llama-server `/v1/models` meta.n_params). */
	readonly parameterCount?: number;
	/** true: in memory now; false: listed but not loaded (LM Studio `state`, llama-swap `/running`); undefined: not known. */
	readonly loaded?: boolean;
	/** Kept in memory whatever the pressure (oMLX `pinned`); undefined: not known. */
	readonly pinned?: boolean;
}

/** What a poller or the discovery learned about a server. Merged into ServerState. */
export interface ServerInfo {
	readonly id: string;
	readonly engine: EngineKind;
	readonly url?: string;
	readonly version?: string;
	readonly source: ServerSource;
	readonly demo?: boolean;
	readonly pid?: number;
	/** Label for the log attached to this server (path or command). */
	readonly logLabel?: string;
}

/**
 * The evidence a request's model rests on (DESIGN §1 Attribution), strongest first: the log names
 * it; it is the only model loaded (or the engine serves one model); the runner the log's load lines
 * tie it to; the model whose `/api/ps` keep-alive moved when it ended; a probe whose counts match it.
 */
export type AttributionEvidence = 'log' | 'only model' | 'runner' | 'keep-alive' | 'probe';

export interface Attribution {
	/** The model as the user knows it (listed name where the server lists it). */
	readonly model: string;
	readonly by: AttributionEvidence;
}

/** Sums over finished requests (counters). A token sum is undefined until a request reports it. */
export interface RequestTotals {
	readonly requests: number;
	readonly generated?: number;
	readonly prompt?: number;
	readonly drafted?: number;
	readonly accepted?: number;
	/** Per-request distributions by histogram name (model/request-histograms.ts), each finished request observed once. */
	readonly histograms?: Readonly<Record<string, HistogramCounts>>;
}

/** One histogram's state: the count in each bucket (not cumulative: `v <= bounds[i]` and above the one before), the sum and the count. */
export interface HistogramCounts {
	readonly buckets: readonly number[];
	readonly sum: number;
	readonly count: number;
}

export interface RequestRecord extends Omit<RequestPatch, 'done' | 'started'> {
	readonly serverId: string;
	/** Which model the request is of, on evidence; undefined = `model unknown` (never blended into a model). */
	readonly attribution?: Attribution;
	/** Read from the log's backlog at start-up (its times are the log's own). */
	readonly backlog?: boolean;
	/** Its time cannot be known (a backlog line before any wall-clock stamp): "earlier", never "now". */
	readonly earlier?: boolean;
	/** When a line said the engine began processing it (a start line apart from its end, e.g. llama.cpp `launch_slot_`). */
	readonly startedAt?: number;
	/** The first and last line of the server's log (numbers of its log ring) that told of it; undefined where no line did. */
	readonly firstLine?: number;
	readonly lastLine?: number;
	/** First and last time a line of this request was seen (ms epoch). */
	readonly firstSeen: number;
	readonly lastSeen: number;
	readonly done: boolean;
	/** Live figures while in flight. */
	readonly liveTps?: number;
	readonly liveGenerated?: number;
	readonly prefillProgress?: number;
}

/** One sample of the passes history graph. */
export interface PassSample {
	readonly t: number;
	readonly decodeTps?: number;
	readonly tokensPerPass?: number;
	/** Contention was noted at this moment (marked on the graph). */
	readonly contention?: boolean;
	/** The model / runner of the request the sample comes from (graphs follow one model). */
	readonly model?: string;
	readonly runner?: OllamaRunner;
}

/**
 * What a server says it is doing right now, from its status API (oMLX `/api/status`): requests
 * running at once (the batch) and waiting, and the memory its models hold against its limit.
 * undefined = not said; `memoryLimitBytes: null` = the server has no limit.
 */
export interface ServerLoad {
	readonly running?: number;
	readonly waiting?: number;
	readonly memoryBytes?: number;
	readonly memoryLimitBytes?: number | null;
}

export interface ServerState extends ServerInfo {
	readonly state: ServerLifecycle;
	readonly lastSeen?: number;
	readonly lastError?: string;
	readonly models: readonly ModelInfo[];
	/** Set when the server listed more models than are kept: `models` are the first of `total`. */
	readonly modelsListed?: ModelsListed;
	/** Newest last; capped ring. */
	readonly requests: readonly RequestRecord[];
	readonly history: readonly PassSample[];
	readonly offload?: {readonly layersOnGpu: number; readonly layersTotal: number};
	readonly buffers: Readonly<Record<string, {readonly device: string; readonly kind: string; readonly mib: number; readonly onGpu: boolean}>>;
	readonly context?: {readonly nCtx?: number; readonly nCtxPerSlot?: number; readonly slots?: number};
	readonly interval?: Extract<EngineEvent, {type: 'interval-stats'}> & {readonly t: number};
	readonly spec?: {readonly kind: string; readonly detail?: string};
	readonly busy?: {readonly t: number; readonly reason: string; readonly status?: number};
	/** Requests the server refused as busy (429 / Ollama's 503 max queue), newest last, capped: the agent view's retries. */
	readonly refusals?: readonly Refusal[];
	/** The last load the server's status API reported, with when. */
	readonly load?: ServerLoad & {readonly t: number};
	/**
	 * What the engine's lines said went wrong for requests, and when models loaded or left (the
	 * agent view's findings, model/findings.ts), newest last, capped. Absent until the first.
	 */
	readonly signals?: readonly ServerSignal[];
	/** The GPU memory limit the engine's log stated last (EngineEvent `gpu-limit`), with when. */
	readonly gpuLimit?: {readonly limitBytes: number; readonly requiredBytes?: number; readonly t: number};
	readonly httpCount: number;
	/** Access lines of generation requests (a POST to a generation route, model/derive.ts isGenerationCall), since start; absent until the first. */
	readonly generationCalls?: number;
	/** Log lines parsed / not understood (counted, never errors). */
	readonly linesParsed: number;
	readonly linesUnparsed: number;
	/** Log lines whose numbers could not be true (negative, not finite, absurd), and requests whose numbers contradict each other or physics: counted, never figures. */
	readonly linesInconsistent: number;
	/** Poll answers whose numbers could not be true, and the newest reason (`cached 172 > prompt 106`). */
	readonly answersInconsistent: number;
	readonly lastInconsistent?: string;
	/** Finished requests seen since infertop started (a counter: never goes down as the ring drops old ones). */
	readonly requestsSeen: number;
	/** Finished requests per model as attributed now (`unknown` without evidence), since start. */
	readonly requestsByModel: Readonly<Record<string, number>>;
	/**
	 * Monotonic totals since start per model label as known when each request finished (the
	 * Prometheus counters: never decremented, never recomputed from the capped ring).
	 */
	readonly totals: Readonly<Record<string, RequestTotals>>;
	/** When the models list last arrived (ms epoch), for the keep-alive evidence. */
	readonly modelsAt?: number;
	/** Keys of requests dropped as inconsistent; their later lines are ignored until they open anew. */
	readonly dropped: readonly string[];
	/** `offloaded N/M layers` per model (a log with two GGUF models has one line each). */
	readonly offloads: Readonly<Record<string, {readonly layersOnGpu: number; readonly layersTotal: number}>>;
	/** Newest last; capped ring of sanitized lines. */
	/** The newest MAX_LOG_LINES lines (model/log-ring.ts: appended in O(1), read with logLines/logTail). */
	readonly log: LogRing;
	readonly logState?: string;
	/**
	 * How far the reading of this server's log is behind its end, and the lines skipped on purpose
	 * under overload (counted, never silent): see the readme, "Busy servers". Absent until the
	 * log's tail reports it (file logs).
	 */
	readonly logLag?: LogLag;
	/** Bytes per token resolved for each model by name (survives /api/ps refreshes). */
	readonly modelBytes: Readonly<Record<string, {readonly bytesPerToken: number; readonly source: string}>>;
}

/** What a log tail reports of its own progress (sources/log-tail.ts). */
export interface LogLag {
	/** Bytes written to the file and not yet read, as of the last read. */
	readonly bytesBehind: number;
	/** Lines skipped without reading them, since start: the tail jumped ahead of a backlog it could not keep up with. */
	readonly linesSkipped: number;
	/** Times it jumped ahead. */
	readonly skips: number;
}

/** One line of a log as the log source read it: its text, what its parser made of it, when. */
export interface LogBatchLine {
	readonly t: number;
	readonly text: string;
	readonly parsed: boolean;
	readonly events?: readonly EngineEvent[];
	/** `backlog` = read at start-up, `t` is the log's own time; `earlier` = its time cannot be known. */
	readonly at?: 'backlog' | 'earlier';
}

/** A model loaded (with the seconds it took, where the log says) or left memory (`gone`: absent from the models list that had it). */
export interface LoadSignal {
	readonly kind: 'loaded' | 'unloaded';
	readonly model?: string;
	readonly seconds?: number;
	readonly reason?: 'evicted' | 'ttl' | 'unloaded' | 'gone';
	readonly evidence: string;
	readonly key?: undefined;
}

/** A signal with when it was read (`backlog`: the log's own time; `earlier`: unknown, never placed on a turn). */
export type ServerSignal = (AgentSignal | LoadSignal) & {readonly t: number; readonly earlier?: boolean};

/** One refused attempt: when (the log's time), from which client where the access line says, with its status. */
export interface Refusal {
	readonly t: number;
	readonly client?: string;
	readonly status?: number;
	/** Read from the backlog with no known time. */
	readonly earlier?: boolean;
}

export interface BandwidthInfo {
	/** GB/s (10^9 bytes per second). */
	readonly gbs?: number;
	/** Where the figure came from: `--bandwidth`, `table: Apple M4 Max (40-core GPU)`… */
	readonly source?: string;
	readonly chip?: string;
	readonly hint?: string;
}

export interface MonitorState {
	readonly startedAt: number;
	readonly now: number;
	readonly host: string;
	readonly demo: boolean;
	readonly servers: Readonly<Record<string, ServerState>>;
	/** Display order of servers. */
	readonly order: readonly string[];
	readonly bandwidth: BandwidthInfo;
	readonly system: SystemState;
	readonly probe: ProbeState;
	/** The last comparison (key `c`), running or finished; absent until one is started. */
	readonly compare?: CompareState;
	/** What discovery looked for, for the empty state. */
	readonly lookedFor?: {readonly ports: readonly number[]; readonly processes: readonly string[]; readonly logs: readonly string[]};
	readonly refreshMs: number;
	readonly notices: readonly {readonly t: number; readonly text: string; readonly level: 'info' | 'warn' | 'error'}[];
}

/** Everything a collector may tell the store. */
export type Action =
	/** `at`: `backlog` = read at start-up, `t` is the log's own time; `earlier` = its time cannot be known. */
	| {readonly type: 'engine-event'; readonly serverId: string; readonly t: number; readonly event: EngineEvent; readonly at?: 'backlog' | 'earlier'}
	/** `at: 'earlier'`: its time cannot be known (`t` is when it was read). */
	| {readonly type: 'log-line'; readonly serverId: string; readonly t: number; readonly text: string; readonly parsed: boolean; readonly at?: 'backlog' | 'earlier'}
	/**
	 * The lines one read of a log gave, in order: the same as a `log-line` and its `engine-event`s
	 * for each, applied in one step (one state change, one change check, one wake-up per read).
	 */
	| {readonly type: 'log-batch'; readonly serverId: string; readonly lines: readonly LogBatchLine[]}
	| {readonly type: 'log-lag'; readonly serverId: string; readonly lag: LogLag}
	/** A probe's counts matched this log request: it is of the probe's model. */
	| {readonly type: 'request-attributed'; readonly serverId: string; readonly key: string; readonly model: string; readonly by: AttributionEvidence}
	| {readonly type: 'log-state'; readonly serverId: string; readonly text: string}
	/** A named server that does not answer as an engine: listed, never dropped. */
	| {readonly type: 'server-down'; readonly t: number; readonly server: ServerInfo; readonly error: string}
	| {readonly type: 'server-seen'; readonly t: number; readonly server: ServerInfo}
	| {readonly type: 'server-lost'; readonly t: number; readonly serverId: string; readonly error: string}
	| {readonly type: 'server-restarted'; readonly t: number; readonly serverId: string}
	/** This entry was another's in disguise (a named log that is a discovered server's own log): dropped, with all it counted. */
	| {readonly type: 'server-removed'; readonly serverId: string}
	| {readonly type: 'server-models'; readonly t: number; readonly serverId: string; readonly models: readonly ModelInfo[]; readonly listed?: ModelsListed}
	| {readonly type: 'server-load'; readonly t: number; readonly serverId: string; readonly load: ServerLoad}
	/** A poll's answer held numbers that cannot be true (util/numbers.ts): those fields were left unknown. */
	| {readonly type: 'answer-inconsistent'; readonly t: number; readonly serverId: string; readonly reason: string}
	| {readonly type: 'model-bytes'; readonly serverId: string; readonly model: string; readonly bytesPerToken: number; readonly source: string}
	| {readonly type: 'bandwidth'; readonly bandwidth: BandwidthInfo}
	| {readonly type: 'system'; readonly system: SystemState}
	/** A probe began: it runs now (clears the last error), with this prompt kind. */
	| {readonly type: 'probe-started'; readonly running: ProbeProgress; readonly prompt: ProbePromptKind}
	/** Live progress of the running probe. */
	| {readonly type: 'probe-progress'; readonly running: ProbeProgress}
	/** A run finished: its figures are kept; `next` is the following run of the same probe, if any. */
	| {readonly type: 'probe-result'; readonly result: ProbeResult; readonly next?: ProbeProgress}
	/** The probe ended without a result (error or cancelled), one line. */
	| {readonly type: 'probe-failed'; readonly error: string}
	/** A comparison began (replaces the last one). */
	| {readonly type: 'compare-started'; readonly runId: string; readonly startedAt: number; readonly total: number}
	/** Live progress of one of its probes (one per machine at most). */
	| {readonly type: 'compare-progress'; readonly progress: CompareProgress}
	/** One of its probes finished or failed. */
	| {readonly type: 'compare-row'; readonly row: CompareRow}
	| {readonly type: 'compare-finished'; readonly runId: string; readonly cancelled: boolean; readonly error?: string}
	| {readonly type: 'looked-for'; readonly lookedFor: NonNullable<MonitorState['lookedFor']>}
	| {readonly type: 'refresh'; readonly refreshMs: number}
	| {readonly type: 'notice'; readonly t: number; readonly text: string; readonly level: 'info' | 'warn' | 'error'}
	| {readonly type: 'tick'; readonly t: number};

export type Dispatch = (action: Action) => void;

/** Every collector has the same life cycle; stop() is idempotent. */
export interface Collector {
	start(): void | Promise<void>;
	stop(): Promise<void>;
}
