/**
 * One poller per identified server: asks the engine what it holds (Ollama `/api/ps`, llama-server
 * `/props` + `/slots` + `/v1/models`, OpenAI-style `/v1/models`, LM Studio REST) on a setTimeout
 * chain that never overlaps, and dispatches only what changed: `server-models`, `server-lost`
 * (stopped answering; the reducer keeps the last figures, STALE), `server-seen` (back) and
 * `server-restarted` (back with reset counters).
 */
import type {Dispatch, EngineKind, ModelInfo, OllamaRunner, ServerInfo} from '../../model/types.js';
import {gpuResidency, ollamaProcessor} from '../../model/figures.js';
import {sanitize} from '../../util/sanitize.js';
import {checkNumber, type NumberKind} from '../../util/numbers.js';
import {httpGet, isAnswer, isRecord, parseJson, type HttpResult, sharedAbortController} from './http.js';

/** Most models kept per server (mlx_lm lists the whole HF cache). */
export const MAX_MODELS = 64;

/**
 * Problems found while one answer is read (util/numbers.ts). Set only around a synchronous read
 * (readAnswer), so concurrent pollers never share it.
 */
let answerProblems: string[] | undefined;

/** Read one answer, collecting the numbers in it that cannot be true (the answer is then inconsistent). */
export function readAnswer<T>(read: () => T): {readonly value: T; readonly problems: readonly string[]} {
	const outer = answerProblems;
	const problems: string[] = [];
	answerProblems = problems;
	try {
		return {value: read(), problems};
	} finally {
		answerProblems = outer;
	}
}

function checked(v: unknown, field: string, kind: NumberKind, integer: boolean): number | undefined {
	// Only numbers are judged: another type is another schema (a field we do not know), not a lie.
	if (typeof v !== 'number') return undefined;
	const c = checkNumber(field, v, kind, {integer});
	if (c.ok) return c.value;
	answerProblems?.push(c.problem);
	return undefined;
}

/** Bytes in an answer: not finite, negative or beyond a petabyte → unknown, and counted. */
function num(v: unknown, field = 'size'): number | undefined {
	return checked(v, field, 'bytes', false);
}

/** A positive whole count in an answer (context sizes, slots: bounded like token counts). */
function posInt(v: unknown, field: string, kind: NumberKind = 'tokens'): number | undefined {
	const n = checked(v, field, kind, true);
	return n !== undefined && n > 0 ? n : undefined;
}

function text(v: unknown, max = 200): string | undefined {
	return typeof v === 'string' && v.trim() !== '' ? sanitize(v.trim(), max) : undefined;
}

/** Drop undefined keys so equal models compare equal and JSON stays small. */
function clean<T extends object>(o: T): T {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function runnerOfFormat(format: string | undefined): OllamaRunner | undefined {
	if (format === 'gguf') return 'gguf';
	if (format === 'safetensors') return 'mlx';
	return undefined;
}

/** Ollama `GET /api/ps` → models, PROCESSOR exactly as `ollama ps` prints it. */
export function ollamaPsModels(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.models as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.name) ?? text(m.model);
		if (!name) continue;
		const d = isRecord(m.details) ? m.details : {};
		const size = num(m.size, 'size');
		const sizeVram = num(m.size_vram, 'size_vram');
		const format = text(d.format, 40);
		out.push(clean<ModelInfo>({
			name,
			sizeBytes: size,
			sizeVramBytes: sizeVram,
			processor: ollamaProcessor(size, sizeVram),
			gpuResidency: gpuResidency(size, sizeVram),
			contextLength: posInt(m.context_length, 'context_length'),
			expiresAt: text(m.expires_at, 64),
			format,
			runner: runnerOfFormat(format),
			family: text(d.family, 64),
			parameterSize: text(d.parameter_size, 32),
			quantization: text(d.quantization_level, 32),
			digest: text(m.digest, 128),
			loaded: true,
		}));
	}
	return out.slice(0, MAX_MODELS);
}

/** Largest `id_task` in `/slots`: it only grows within one llama-server process. */
export function maxSlotTask(slots: unknown): number | undefined {
	if (!Array.isArray(slots)) return undefined;
	let max: number | undefined;
	for (const s of slots) if (isRecord(s) && typeof s.id_task === 'number' && s.id_task >= 0) max = Math.max(max ?? -1, s.id_task);
	return max;
}

/** llama-server `/props` + `/slots` + `/v1/models` → the one model it serves. */
export function llamaServerModels(props: unknown, slots: unknown, models: unknown): ModelInfo[] | undefined {
	const p = isRecord(props) ? props : undefined;
	const list = isRecord(models) && Array.isArray(models.data) ? (models.data as unknown[]).filter(isRecord) : [];
	if (!p && list.length === 0) return undefined;
	const first = list[0];
	const meta = first && isRecord(first.meta) ? first.meta : {};
	const slotList = Array.isArray(slots) ? slots.filter(isRecord) : [];
	const dgs = p && isRecord(p.default_generation_settings) ? p.default_generation_settings : {};
	const perSlot = posInt(slotList[0]?.n_ctx, 'n_ctx') ?? posInt(dgs.n_ctx, 'n_ctx') ?? posInt(meta.n_ctx, 'n_ctx');
	const slotCount = posInt(p?.total_slots, 'total_slots', 'count') ?? (slotList.length > 0 ? slotList.length : undefined);
	const name = text(first?.id) ?? text(p?.model_alias) ?? text(p?.model_path);
	if (!name) return [];
	return [clean<ModelInfo>({
		name,
		modelPath: text(p?.model_path, 1024),
		format: 'gguf',
		quantization: text(p?.model_ftype, 32) ?? text(meta.ftype, 32),
		slots: slotCount,
		contextPerSlot: perSlot,
		contextLength: perSlot,
		modelBytes: posInt(meta.size, 'size', 'bytes'),
		parameterCount: posInt(meta.n_params, 'n_params', 'params'),
		loaded: true,
	})];
}

/** OpenAI-style `/v1/models` (vLLM, SGLang, lithos-metal, mlx_lm, KoboldCpp, LocalAI, any). */
export function openAiModels(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.data)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.data as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.id);
		if (!name) continue;
		out.push(clean<ModelInfo>({
			name,
			// vLLM/SGLang max_model_len, lithos-metal context_window: the context one request may use.
			contextLength: posInt(m.max_model_len, 'max_model_len') ?? posInt(m.context_window, 'context_window') ?? posInt(m.context_length, 'context_length'),
			modelPath: text(m.root, 1024) !== name ? text(m.root, 1024) : undefined,
		}));
	}
	return out.slice(0, MAX_MODELS);
}

/** LM Studio `GET /api/v1/models` (≥ 0.4.0): loaded_instances carry the configured context. */
export function lmStudioV1Models(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.models as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.key) ?? text(m.id);
		if (!name) continue;
		const instances = Array.isArray(m.loaded_instances) ? m.loaded_instances.filter(isRecord) : [];
		const config = instances[0] && isRecord(instances[0].config) ? instances[0].config : {};
		const quant = isRecord(m.quantization) ? text(m.quantization.name, 32) : text(m.quantization, 32);
		out.push(clean<ModelInfo>({
			name,
			format: text(m.format, 16),
			family: text(m.architecture, 64),
			parameterSize: text(m.params_string, 32),
			quantization: quant,
			modelBytes: posInt(m.size_bytes, 'size_bytes', 'bytes'),
			contextLength: posInt(config.context_length, 'context_length'),
			loaded: instances.length > 0,
		}));
	}
	return sortLoaded(out);
}

/** LM Studio `GET /api/v0/models` (≥ 0.3.6): state loaded / not-loaded. */
export function lmStudioV0Models(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.data)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.data as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.id);
		if (!name) continue;
		const state = text(m.state, 32);
		out.push(clean<ModelInfo>({
			name,
			format: text(m.compatibility_type, 16),
			family: text(m.arch, 64),
			quantization: text(m.quantization, 32),
			// loaded_context_length where newer builds send it; max_context_length is the model's limit, not the loaded context.
			contextLength: posInt(m.loaded_context_length, 'loaded_context_length'),
			loaded: state === 'loaded' ? true : state === 'not-loaded' ? false : undefined,
		}));
	}
	return sortLoaded(out);
}

/** llama-swap `GET /running` → the models it has running. */
export function llamaSwapRunning(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.running)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.running as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.model) ?? text(m.name);
		if (!name) continue;
		const state = text(m.state, 32);
		out.push(clean<ModelInfo>({name, loaded: state === undefined ? undefined : state === 'ready'}));
	}
	return out.slice(0, MAX_MODELS);
}

function sortLoaded(models: ModelInfo[]): ModelInfo[] {
	return [...models].sort((a, b) => Number(b.loaded === true) - Number(a.loaded === true)).slice(0, MAX_MODELS);
}

/** Parse `llamacpp:<name> <value>` counters out of Prometheus text. */
export function llamaMetricsCounters(text: string): Record<string, number> {
	const out: Record<string, number> = {};
	for (const line of text.split('\n')) {
		const m = /^llamacpp:([a-z_]+_total) ([0-9.eE+-]+)\s*$/.exec(line);
		if (m && m[1] !== undefined) {
			const v = Number(m[2]);
			if (Number.isFinite(v)) out[m[1]] = v;
		}
	}
	return out;
}

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

/** True when `next` is a different process than `prev` (a counter went down, start time/version/pid changed). */
export function isRestart(prev: RestartMarker | undefined, next: RestartMarker): boolean {
	if (!prev) return false;
	if (prev.startTime !== undefined && next.startTime !== undefined && prev.startTime !== next.startTime) return true;
	if (prev.pid !== undefined && next.pid !== undefined && prev.pid !== next.pid) return true;
	if (prev.version !== undefined && next.version !== undefined && prev.version !== next.version) return true;
	if (prev.taskId !== undefined && next.taskId !== undefined && next.taskId < prev.taskId) return true;
	if (prev.counters && next.counters) {
		for (const [k, v] of Object.entries(next.counters)) {
			const before = prev.counters[k];
			if (before !== undefined && v < before) return true;
		}
	}
	return false;
}

/** Keep what the newer marker does not say. */
function mergeMarker(prev: RestartMarker | undefined, next: RestartMarker): RestartMarker {
	return {...prev, ...clean(next)};
}

export type PollResult =
	| {readonly ok: true; readonly models?: readonly ModelInfo[]; readonly version?: string; readonly marker: RestartMarker; readonly inconsistent?: string}
	| {readonly ok: false; readonly error: string};

export interface PollContext {
	readonly url: string;
	readonly apiKey?: string;
	readonly timeoutMs: number;
	readonly signal?: AbortSignal;
	/**
	 * First sight or return after loss: also ask what tells one process from the next (`/api/version`,
	 * `/version`, llama-server `/metrics`). Not on every poll: each request is a line in the engine's
	 * own log (Ollama's `[GIN]`), and a llama-server `/metrics` scrape resets its windowed gauges.
	 */
	readonly checkIdentity: boolean;
}

function get(ctx: PollContext, path: string, maxBytes?: number): Promise<HttpResult> {
	return httpGet(ctx.url.replace(/\/+$/, '') + path, {timeoutMs: ctx.timeoutMs, apiKey: ctx.apiKey, signal: ctx.signal, maxBytes});
}

function okJson(r: HttpResult | undefined): unknown {
	return isAnswer(r) && r.status >= 200 && r.status < 300 ? parseJson(r.body) : undefined;
}

function versionOf(r: HttpResult | undefined): string | undefined {
	const j = okJson(r);
	return isRecord(j) ? text(j.version, 64) : undefined;
}

/** Any answer at all means the server is alive; only when none answered is it lost. */
function lostReason(results: readonly HttpResult[]): string | undefined {
	if (results.some(isAnswer)) return undefined;
	const failure = results.find((r): r is {error: string} => !isAnswer(r));
	return failure?.error ?? 'no answer';
}

/** One poll of one server, per engine. Never throws. An answer with impossible numbers says so (`inconsistent`). */
export async function pollServer(engine: EngineKind, ctx: PollContext): Promise<PollResult> {
	const problems: string[] = [];
	const read = <T>(f: () => T): T => {
		const r = readAnswer(f);
		problems.push(...r.problems);
		return r.value;
	};
	const result = await pollAnswers(engine, ctx, read);
	return result.ok && problems.length > 0 ? {...result, inconsistent: problems.join('; ')} : result;
}

async function pollAnswers(engine: EngineKind, ctx: PollContext, read: <T>(f: () => T) => T): Promise<PollResult> {
	switch (engine) {
		case 'ollama':
		case 'demo-ollama': {
			const [ps, version] = await Promise.all([get(ctx, '/api/ps'), ctx.checkIdentity ? get(ctx, '/api/version') : undefined]);
			const lost = lostReason(version ? [ps, version] : [ps]);
			if (lost) return {ok: false, error: lost};
			const v = versionOf(version);
			return {ok: true, models: read(() => ollamaPsModels(okJson(ps))), version: v, marker: {version: v}};
		}
		case 'llamacpp': {
			const [props, slots, models] = await Promise.all([get(ctx, '/props'), get(ctx, '/slots'), get(ctx, '/v1/models')]);
			const lost = lostReason([props, slots, models]);
			if (lost) return {ok: false, error: lost};
			const p = okJson(props);
			const s = okJson(slots);
			let marker: RestartMarker = {taskId: maxSlotTask(s), version: isRecord(p) ? text(p.build_info, 64) : undefined};
			if (ctx.checkIdentity) {
				const metrics = await get(ctx, '/metrics', 64 * 1024);
				if (isAnswer(metrics) && metrics.status === 200) {
					marker = {...marker, startTime: metrics.headers['process-start-time-unix'], counters: llamaMetricsCounters(metrics.body)};
				}
			}
			return {ok: true, models: read(() => llamaServerModels(p, s, okJson(models))), version: marker.version, marker};
		}
		case 'lmstudio': {
			const [v1, v0] = await Promise.all([get(ctx, '/api/v1/models'), get(ctx, '/api/v0/models')]);
			const lost = lostReason([v1, v0]);
			if (lost) {
				const plain = await get(ctx, '/v1/models');
				if (!isAnswer(plain)) return {ok: false, error: lost};
				return {ok: true, models: read(() => openAiModels(okJson(plain))), marker: {}};
			}
			return {ok: true, models: read(() => lmStudioV1Models(okJson(v1)) ?? lmStudioV0Models(okJson(v0))), marker: {}};
		}
		case 'llamaswap': {
			const [running, models] = await Promise.all([get(ctx, '/running'), get(ctx, '/v1/models')]);
			const lost = lostReason([running, models]);
			if (lost) return {ok: false, error: lost};
			const run = read(() => llamaSwapRunning(okJson(running)));
			const listed = read(() => openAiModels(okJson(models)));
			// Configured models not running are listed as not loaded.
			const merged = run && listed ? [...run, ...listed.filter((m) => !run.some((r) => r.name === m.name)).map((m) => ({...m, loaded: false}))] : run ?? listed;
			return {ok: true, models: merged?.slice(0, MAX_MODELS), marker: {}};
		}
		case 'vllm':
		case 'sglang':
		case 'localai': {
			const [models, version] = await Promise.all([get(ctx, '/v1/models'), ctx.checkIdentity ? get(ctx, '/version') : undefined]);
			const lost = lostReason(version ? [models, version] : [models]);
			if (lost) return {ok: false, error: lost};
			const v = versionOf(version);
			return {ok: true, models: read(() => openAiModels(okJson(models))), version: v, marker: {version: v}};
		}
		default: {
			const models = await get(ctx, '/v1/models');
			if (!isAnswer(models)) return {ok: false, error: models.error};
			return {ok: true, models: read(() => openAiModels(okJson(models))), marker: {}};
		}
	}
}

export interface PollerOptions {
	/** The server as discovery announced it (id, engine, url, source…). */
	readonly server: ServerInfo & {readonly url: string};
	readonly dispatch: Dispatch;
	/** Default 2000 ms between the end of one poll and the start of the next. */
	readonly intervalMs?: number;
	/** Per-request deadline (default 1500 ms). */
	readonly timeoutMs?: number;
	readonly apiKey?: string;
	/** The pid discovery currently knows for this server (restart = pid changed). */
	readonly pidOf?: () => number | undefined;
	readonly now?: () => number;
	/** Called when the server answers again after being lost (discovery re-checks what answers). */
	readonly onBack?: () => void;
}

export type PollerLifecycle = 'unknown' | 'up' | 'lost';

export interface ServerPoller {
	start(): void;
	stop(): Promise<void>;
	/** Poll now (waits for one in flight instead of overlapping). */
	pollNow(): Promise<void>;
	lifecycle(): PollerLifecycle;
	readonly server: ServerInfo & {readonly url: string};
}

/** A setTimeout-chained poller for one server. */
export function createPoller(options: PollerOptions): ServerPoller {
	const {dispatch, server} = options;
	const intervalMs = options.intervalMs ?? 2000;
	const timeoutMs = options.timeoutMs ?? 1500;
	const now = options.now ?? Date.now;
	let state: PollerLifecycle = 'up';
	let running = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let inflight: Promise<void> | undefined;
	let controller = sharedAbortController();
	let lastModelsJson: string | undefined;
	let lastVersion = server.version;
	// What discovery saw when it identified the server counts as the first marker.
	let marker: RestartMarker | undefined = server.version !== undefined ? {version: server.version} : undefined;
	let checkIdentity = true;

	const once = async (): Promise<void> => {
		const result = await pollServer(server.engine, {url: server.url, apiKey: options.apiKey, timeoutMs, signal: controller.signal, checkIdentity});
		if (controller.signal.aborted) return;
		const t = now();
		if (!result.ok) {
			if (state !== 'lost') {
				state = 'lost';
				lastModelsJson = undefined;
				checkIdentity = true;
				dispatch({type: 'server-lost', t, serverId: server.id, error: result.error});
			}
			return;
		}
		checkIdentity = false;
		const next: RestartMarker = {...result.marker, pid: options.pidOf?.()};
		const restarted = isRestart(marker, next);
		marker = mergeMarker(marker, next);
		const wasLost = state === 'lost';
		state = 'up';
		if (wasLost || (result.version !== undefined && result.version !== lastVersion)) {
			lastVersion = result.version ?? lastVersion;
			const pid = options.pidOf?.() ?? server.pid;
			dispatch({type: 'server-seen', t, server: {...server, version: lastVersion, ...(pid !== undefined ? {pid} : {})}});
		}
		if (restarted) dispatch({type: 'server-restarted', t, serverId: server.id});
		if (result.inconsistent !== undefined) dispatch({type: 'answer-inconsistent', t, serverId: server.id, reason: result.inconsistent});
		if (wasLost) options.onBack?.();
		if (result.models !== undefined) {
			const json = JSON.stringify(result.models);
			if (json !== lastModelsJson) {
				lastModelsJson = json;
				dispatch({type: 'server-models', t, serverId: server.id, models: result.models});
			}
		}
	};

	// One chain per start(): a stop()+start() must not leave the old chain scheduling too.
	let generation = 0;
	const tick = (g: number) => {
		timer = undefined;
		if (!running || g !== generation) return;
		void poller.pollNow().finally(() => {
			if (running && g === generation && timer === undefined) timer = setTimeout(() => tick(g), intervalMs);
		});
	};

	const poller: ServerPoller = {
		server,
		start() {
			if (running) return;
			running = true;
			controller = sharedAbortController();
			tick(++generation);
		},
		async stop() {
			running = false;
			if (timer !== undefined) clearTimeout(timer);
			timer = undefined;
			controller.abort();
			await inflight;
		},
		pollNow() {
			inflight ??= once()
				.catch(() => {})
				.finally(() => {
					inflight = undefined;
				});
			return inflight;
		},
		lifecycle: () => state,
	};
	return poller;
}
