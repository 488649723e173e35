/**
 * What infertop knows about one engine, as data and pure functions (no I/O). Each
 * `source/engines/<engine>.ts` exports one `EngineDescriptor`; `engines/index.ts` is the registry.
 * The I/O code (sources/, probe/) takes what a descriptor declares — paths to ask, parse functions
 * for the answers, log locations to try — and never switches on an engine name itself.
 */
import type {EngineKind, LineParser} from '../types/events.js';
import type {ModelInfo, ServerLoad} from '../types/state.js';
import {OLLAMA_PROTOCOL, type AnswerNumberKind, type ProbeProtocol, type ServerCounts} from '../types/probe.js';
import {openAiModels, versionOf} from './answers.js';
import type {FingerprintRule} from './fingerprint.js';

/** How a log line says when it was written (see engines/log-time.ts). */
/**
 * How a log line carries time: `slog` (Ollama `time=` with its zone), `gin` (`[GIN] YYYY/MM/DD - hh:mm:ss`,
 * local), `iso` (Python `YYYY-MM-DD hh:mm:ss[,mmm]`, local), `mmdd` (vLLM `INFO mm-dd hh:mm:ss`, local, no
 * year), `process` (llama.cpp `m.ss.mmm.uuu` since the process started: wall time only with its start).
 */
export type LogTimeFormat = 'slog' | 'gin' | 'iso' | 'mmdd' | 'process';

/** What tells one process of a server from the next. */
export interface RestartMarker {
	readonly version?: string;
	/** llama-server `Process-Start-Time-Unix`. */
	readonly startTime?: string;
	/** llama-server largest slot task id seen. */
	readonly taskId?: number;
	/** llama-server `/metrics` counters. */
	readonly counters?: Readonly<Record<string, number>>;
	readonly pid?: number;
}

/** The answers one poll collected: parsed JSON per path (undefined = no 2xx JSON), and the raw extra answer. */
export interface PollAnswers {
	readonly json: Readonly<Record<string, unknown>>;
	/** The identity-only raw answer (`identityRaw`), status 200 only. */
	readonly raw?: {readonly headers: Readonly<Record<string, string | undefined>>; readonly body: string};
}

/**
 * One poll of a server, as data: GET `paths` every poll (and `identityPaths` on first sight or
 * return after loss); the server is lost only when none of them answered. `read` turns the answers
 * into models, version and restart marker.
 */
export interface PollPlan {
	readonly paths: readonly string[];
	readonly identityPaths?: readonly string[];
	/** Asked on identity checks only, raw (headers + text), not counted for liveness (llama-server `/metrics`). */
	readonly identityRaw?: {readonly path: string; readonly maxBytes: number};
	/** Tried when none of `paths` answered (LM Studio's REST → plain `/v1/models`). */
	readonly fallback?: PollPlan;
	/** `load`: what the server says it is doing now (running / waiting requests, memory), where it has a status API. */
	readonly read: (answers: PollAnswers) => {readonly models?: readonly ModelInfo[]; readonly version?: string; readonly marker: RestartMarker; readonly load?: ServerLoad};
}

/** A way to ask for a generation; a 404 moves the probe to the next one. */
export interface ProbeStep {
	readonly protocol: ProbeProtocol;
	readonly path: string;
	/** Fields added to the request body (vLLM `include_metrics: true` asks for its per-request `metrics`). */
	readonly extraBody?: Readonly<Record<string, unknown>>;
}

/** Where the probe looks for a model name when none is given: `GET path`, first item of `list`, its `keys`. */
export interface ModelListStep {
	readonly path: string;
	readonly list: string;
	readonly keys: readonly string[];
}

/** One piece of evidence that a line was written by this engine. */
export interface LogRule {
	readonly weight: number;
	readonly test: (line: string) => boolean;
}

export interface LogSignature {
	readonly rules: readonly LogRule[];
	/** Evidence of this weight or more decides for this engine whatever else the log holds (lower `rank` is checked first). */
	readonly decisive?: {readonly atLeast: number; readonly rank: number};
	/** A journald prefix whose unit name matches counts `weight` for this engine. */
	readonly journaldUnit?: {readonly test: RegExp; readonly weight: number};
}

/** A default place an engine writes its log (engines.md §1f). */
export interface LogLocation {
	readonly engine: EngineKind;
	readonly kind: 'file' | 'cmd';
	readonly path?: string;
	readonly argv?: string[];
	readonly why: string;
	/** For `cmd` entries: the systemd unit files whose existence makes the command worth running. */
	readonly unitFiles?: string[];
}

export interface LogLocationContext {
	readonly platform: NodeJS.Platform;
	readonly env: Readonly<Record<string, string | undefined>>;
	readonly homedir: string;
	/** Path functions of the platform (path.posix or path.win32), passed in so this stays pure. */
	readonly join: (...parts: string[]) => string;
}

/** Which sources of bytes per token apply (sources/model-bytes.ts runs them, in its order). */
export interface ModelBytesHints {
	/** Ask `/props` for `model_path` and read that GGUF header (llama-server). */
	readonly ggufFromProps?: boolean;
	/** Look the model up in Ollama's local blob store (real servers only, never the demo). */
	readonly ollamaBlobs?: boolean;
	/** Ollama `POST /api/show` tensor list. */
	readonly ollamaShow?: boolean;
	/** Local safetensors/GGUF directories by model id or path (engines that load by id). */
	readonly localDirs?: boolean;
	/** `~` estimate from `/v1/models` `meta.size` (llama-server's file size). */
	readonly fileSizeFromModels?: boolean;
}

/** One process as the process rules see it (engines/index.ts `processView` builds it). */
export interface ProcessView {
	/** Process name, last path part, `.exe` removed, case kept (`Ollama`, `VLLM::EngineCore`). */
	readonly name: string;
	/** name, lower case. */
	readonly nameLower: string;
	/** The executable: argv0's last path part (a macOS app's binary name with its spaces), `.exe` removed. */
	readonly exe: string;
	/** exe, lower case. */
	readonly exeLower: string;
	/** The full command line, trimmed ('' when unknown). */
	readonly command: string;
	/** The arguments after the executable. */
	readonly args: string;
}

/** How discovery tells the engine's own server process from its helpers. */
export interface ProcessRule {
	/** Names shown in the empty state ("looked for"). */
	readonly names: readonly string[];
	/**
	 * Whether a process is one of this engine's (server, runner, worker or app): contention never
	 * counts it, discovery looks at it. Clients (`ollama run`) are not.
	 */
	readonly matches: (p: ProcessView) => boolean;
	/** A catch-all (an app's whole folder): tried after every other engine's rule. */
	readonly matchLast?: boolean;
	/**
	 * Process names (as the process table gives them: Linux cuts them to 15 characters) whose
	 * command line is worth reading to decide (a Python interpreter, an app helper), tested without
	 * case: the process sampler reads the command line of those only.
	 */
	readonly candidates?: readonly RegExp[];
	/** False for a process of this engine that is not a server of its own (runners, workers, tools). */
	readonly isServer?: (name: string, commandLine: string) => boolean;
	/** A process of this kind spawned by a process of `childOf` is that engine's runner, not a server. */
	readonly childOf?: EngineKind;
	/** Command-line flag naming the log file (`--log-file PATH`). */
	readonly logFileFlag?: string;
}

/**
 * What a reader of an answer block may do: write the counts, check a number (absent → undefined;
 * present but not believable → undefined, and noted: the probe shows why), note a contradiction.
 */
export interface AnswerReading {
	readonly counts: ServerCounts;
	num(field: string, value: unknown, kind: AnswerNumberKind): number | undefined;
	note(what: string): void;
}

/**
 * A block an engine adds to its per-request answers (llama.cpp `timings`, LM Studio `stats`, vLLM
 * `metrics`). The probe reads every engine's blocks from every answer, in registry order: a proxy
 * (llama-swap) or a server not yet identified passes its engine's blocks through.
 */
export interface AnswerBlock {
	/** The answer's top-level field (of a streamed chunk or of the whole JSON) that holds it. */
	readonly field: string;
	/** Read the block into the counts; a block that gives the figures sets `counts.source` to its field. */
	readonly read: (block: Record<string, unknown>, r: AnswerReading) => void;
	/** How its counts give tokens per pass (probe/timing.ts). */
	readonly passes: {
		/** `tokensPerPassSource` of a run whose figures came from this block. */
		readonly label: string;
		/** Its completion count includes a first token made by the prompt pass: decoded = n − 1. */
		readonly firstTokenFromPrompt: boolean;
		/** Without draft fields no draft ran: one token per pass (else tokens per pass stays unknown). */
		readonly noDraftIsOnePerPass: boolean;
	};
}

/**
 * A top-level string an engine stamps on its per-request answers (llama.cpp's `system_fingerprint`,
 * `b10587-3f545be`): the probe reads every engine's stamps from every streamed chunk, as it reads
 * their blocks.
 */
export interface AnswerStamp {
	readonly field: string;
	readonly read: (value: string, counts: ServerCounts) => void;
}

/** A response header in which an engine counts a generation's target passes (lithos-metal's Decode-Steps). */
export interface PassesHeader {
	/** The passes the headers say, or undefined when they carry none. */
	readonly read: (headers: {get(name: string): string | null}) => number | undefined;
	/** `tokensPerPassSource` of a run whose passes came from it. */
	readonly label: string;
}

/** One engine, as data and pure functions. `K` is its kind, declared in its own file (types/events.ts `EngineKinds`). */
export interface EngineDescriptor<K extends EngineKind = EngineKind> {
	readonly kind: K;
	readonly label: string;
	/** The log parser: the engine's own, or the one of the engine whose lines it writes. */
	readonly logParser?: () => LineParser;
	/** How a log is recognised as this engine's from its first lines (engines/detect.ts adds up the evidence). */
	readonly logSignature?: LogSignature;
	/** How its log lines carry wall-clock time (none: process-relative or no stamps). */
	readonly logTimes: readonly LogTimeFormat[];
	readonly poll: PollPlan;
	/** Per-request stats in answers: which probe protocols to try, in order. */
	readonly probe: readonly ProbeStep[];
	/** The blocks it adds to per-request answers, for the probe. */
	readonly answerBlocks?: readonly AnswerBlock[];
	/** The strings it stamps on per-request answers, for the probe. */
	readonly answerStamps?: readonly AnswerStamp[];
	/** The response header in which it counts a generation's target passes, for the probe. */
	readonly passesHeader?: PassesHeader;
	/** Environment variables holding the engine's own API key (sent only to its server), first wins. */
	readonly apiKeyEnv?: readonly string[];
	readonly modelList: readonly ModelListStep[];
	/** Unified memory (Apple silicon only): every model is 100 % GPU. */
	readonly unifiedMemory: boolean;
	/** One model per server process (llama-server, vLLM, SGLang…): a request the log does not name is of that model. */
	readonly oneModel?: boolean;
	/**
	 * What a busy server does with one more request, for the agent view's queue time: `refuses` = it
	 * runs one generation at a time and answers 429 at once, never queueing (lithos-metal), so a turn
	 * with no refused try before it waited 0. Undefined: it may queue without saying so.
	 */
	readonly whenBusy?: 'refuses';
	/**
	 * Where its access lines show requests its log gives no figures of (REQUESTS, model/derive.ts
	 * requestsWithoutFigures): how to have a line with figures for each, or where its figures are
	 * instead, as the REQUESTS table says it after `;` (`start it with --log-requests`).
	 */
	readonly requestFigures?: string;
	/** Slots × context per slot is the engine's context model (llama-server). */
	readonly slotContext?: boolean;
	/** The engine unloads models after a keep-alive (Ollama `expires_at`): unknown shows `--`. */
	readonly keepAlive?: boolean;
	/**
	 * What it says of a loaded model's memory, in the model's `sizeBytes` / `sizeVramBytes` (Ollama
	 * `/api/ps` size and size_vram): model/derive.ts reads its GPU share and the text the engine's own
	 * tool prints for it; model/wired-limit.ts cites `vramSource` for `sizeVramBytes`.
	 */
	readonly modelMemory?: ModelMemory;
	/**
	 * Tensor types its model listing reports that are neither GGML types nor safetensors dtypes
	 * (Ollama's MLX quant types in `/api/show`), upper case → [elements per group, bytes per group
	 * with its scales]; model/bytes-per-token.ts reads every engine's through the registry.
	 */
	readonly tensorQuants?: Readonly<Record<string, readonly [elements: number, bytes: number]>>;
	/**
	 * The one change a user makes to this engine for an agent's finding (issue 28, model/findings.ts),
	 * as they would type it; absent: the finding says what to change in words.
	 */
	readonly agentFixes?: AgentFixes;
	readonly defaultPorts: readonly number[];
	readonly process?: ProcessRule;
	readonly logLocations?: (ctx: LogLocationContext) => LogLocation[];
	readonly modelBytes: ModelBytesHints;
	/** Quick marks the probe command reads of a bare URL (`GET /`, `GET /v1/models`), before any full fingerprint. */
	readonly quickMarks?: {readonly rootBody?: RegExp; readonly serverHeader?: RegExp; readonly modelOwner?: string};
	/** The environment variable naming its own URL, and the default (Ollama `OLLAMA_HOST`): default logs belong to that server. */
	readonly hostEnv?: {readonly name: string; readonly fallback: string};
	/** How its HTTP answers tell it from every other engine; none: never identified by answers alone. */
	readonly fingerprint?: FingerprintRule;
}

/** An engine's own reading of a loaded model's memory figures (descriptor `modelMemory`). */
export interface ModelMemory {
	/** The model's share on the GPU (0..1) and its text as the engine's tool prints it; each undefined when its numbers do not say. */
	readonly residency: (model: ModelInfo) => {readonly gpuResidency?: number; readonly processor?: string};
	/** The name of the engine's number behind `sizeVramBytes`, as a figure cites its source. */
	readonly vramSource: string;
}

/** What to type for each agent finding this engine can fix by a setting (model/findings.ts). */
export interface AgentFixes {
	/** A window of `tokens` (a power of two the prompt fits in). */
	readonly contextLength?: (tokens: number) => string;
	/** Keep the model loaded between turns. */
	readonly keepAlive?: string;
	/** Room for more than one model at once (another evicted it). */
	readonly moreModels?: string;
	/** Same options every turn (a change reloads the model). */
	readonly sameOptions?: string;
	/** More than one request at a time. */
	readonly parallel?: string;
	/** Let the engine shift the window instead of refusing. */
	readonly contextShift?: string;
}

// ---- shared plans ------------------------------------------------------------------------------

export const CHAT: ProbeStep = {protocol: 'openai-chat', path: '/v1/chat/completions'};
export const COMPLETIONS: ProbeStep = {protocol: 'openai-completions', path: '/v1/completions'};
export const OLLAMA_GENERATE: ProbeStep = {protocol: OLLAMA_PROTOCOL, path: '/api/generate'};
/** Unknown servers: OpenAI chat, then completions, then Ollama's API. */
export const OPENAI_PROBE: readonly ProbeStep[] = [CHAT, COMPLETIONS, OLLAMA_GENERATE];
export const OPENAI_MODEL_LIST: readonly ModelListStep[] = [{path: '/v1/models', list: 'data', keys: ['id']}];

/** `GET /v1/models` only (any OpenAI-compatible server). */
export const OPENAI_POLL: PollPlan = {
	paths: ['/v1/models'],
	read: (a) => ({models: openAiModels(a.json['/v1/models']), marker: {}}),
};

/** `GET /v1/models` every poll, `GET /version` on identity checks (vLLM, SGLang, LocalAI). */
export const OPENAI_VERSIONED_POLL: PollPlan = {
	paths: ['/v1/models'],
	identityPaths: ['/version'],
	read: (a) => {
		const version = versionOf(a.json['/version']);
		return {models: openAiModels(a.json['/v1/models']), version, marker: {version}};
	},
};
