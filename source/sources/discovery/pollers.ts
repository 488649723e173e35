/**
 * One poller per identified server: asks the engine what it holds (Ollama `/api/ps`, llama-server
 * `/props` + `/slots` + `/v1/models`, OpenAI-style `/v1/models`, LM Studio REST) on a setTimeout
 * chain that never overlaps, and dispatches only what changed: `server-models`, `server-lost`
 * (stopped answering; the reducer keeps the last figures, STALE), `server-seen` (back) and
 * `server-restarted` (back with reset counters).
 */
import type {Dispatch, ModelInfo, ServerInfo, ServerLoad} from '../../types/state.js';
import type {EngineKind} from '../../types/events.js';
import {engineOf} from '../../engines/index.js';
import type {PollAnswers, PollPlan, RestartMarker} from '../../engines/descriptor.js';
import {clean, MAX_MODELS, readAnswer} from '../../engines/answers.js';
import {answerJson, httpGet, isAnswer, type HttpResult, sharedAbortController} from '../http-get.js';


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

/** How many models the server listed, where its list was longer than what is kept. */
export interface ListedCount {
	readonly total: number;
	/** The answer was cut (too large): at least this many. */
	readonly atLeast: boolean;
}

export type PollResult =
	| {readonly ok: true; readonly models?: readonly ModelInfo[]; readonly version?: string; readonly marker: RestartMarker; readonly listed?: ListedCount; readonly inconsistent?: string; readonly load?: ServerLoad; readonly modelsError?: string}
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

/** Answers that are lists of models, read streaming (first items kept, the rest counted). */
const LIST_KEY: Readonly<Record<string, string>> = {'/api/ps': 'models', '/v1/models': 'data', '/api/v1/models': 'models', '/api/v0/models': 'data', '/running': 'running'};
/** Items a list read keeps (the descriptors keep MAX_MODELS of them, loaded ones first). */
const LIST_ITEMS = MAX_MODELS * 4;

function get(ctx: PollContext, path: string, maxBytes?: number): Promise<HttpResult> {
	const key = LIST_KEY[path];
	return httpGet(ctx.url.replace(/\/+$/, '') + path, {timeoutMs: ctx.timeoutMs, apiKey: ctx.apiKey, signal: ctx.signal, maxBytes, ...(key ? {list: {key, maxItems: LIST_ITEMS}} : {})});
}

function okJson(r: HttpResult | undefined): unknown {
	return isAnswer(r) && r.status >= 200 && r.status < 300 ? answerJson(r) : undefined;
}

/** The count of a list answer when it holds more models than are kept. */
function listedOf(r: HttpResult | undefined, kept: readonly ModelInfo[] | undefined): ListedCount | undefined {
	if (!isAnswer(r) || r.listTotal === undefined || kept === undefined) return undefined;
	if (r.listTotal <= kept.length && r.listTotalAtLeast !== true) return undefined;
	// Fewer kept than listed only because some entries were not models (no name): not a long list.
	if (r.listTotalAtLeast !== true && kept.length < MAX_MODELS && r.listTotal <= LIST_ITEMS) return undefined;
	return {total: r.listTotal, atLeast: r.listTotalAtLeast === true};
}

/** Any answer at all means the server is alive; only when none answered is it lost. */
function lostReason(results: readonly HttpResult[]): string | undefined {
	if (results.some(isAnswer)) return undefined;
	const failure = results.find((r): r is {error: string} => !isAnswer(r));
	return failure?.error ?? 'no answer';
}

/** Run one engine's poll plan (the descriptor says what to ask and how to read it). */
export async function runPlan(plan: PollPlan, ctx: PollContext): Promise<PollResult> {
	const paths = [...plan.paths, ...(ctx.checkIdentity ? plan.identityPaths ?? [] : [])];
	const results = await Promise.all(paths.map((p) => get(ctx, p)));
	const lost = lostReason(results);
	if (lost) {
		if (!plan.fallback) return {ok: false, error: lost};
		const back = await runPlan(plan.fallback, ctx);
		return back.ok ? back : {ok: false, error: lost};
	}
	const json: Record<string, unknown> = {};
	paths.forEach((p, i) => {
		json[p] = okJson(results[i]);
	});
	let raw: PollAnswers['raw'];
	if (ctx.checkIdentity && plan.identityRaw) {
		const r = await get(ctx, plan.identityRaw.path, plan.identityRaw.maxBytes);
		if (isAnswer(r) && r.status === 200) raw = {headers: r.headers, body: r.body};
	}
	// Numbers in the answers that cannot be true are left unknown by the readers and counted here.
	const {value: read, problems} = readAnswer(() => plan.read({json, raw}));
	// A list longer than what is kept: say how long (the longest list answer of this poll).
	let listed: ListedCount | undefined;
	for (const r of results) {
		const l = listedOf(r, read.models);
		if (l && (!listed || l.total > listed.total)) listed = l;
	}
	// The server answers but its model list could not be read: say why (never a silent `model --`).
	let modelsError: string | undefined;
	if (read.models === undefined) {
		paths.forEach((p, i) => {
			const r = results[i];
			if (modelsError !== undefined || LIST_KEY[p] === undefined) return;
			if (!isAnswer(r)) modelsError = `${p}: ${r?.error ?? 'no answer'}`;
			else if (r.listError !== undefined) modelsError = `${p}: ${r.listError}`;
			else if (r.status < 200 || r.status >= 300) modelsError = `${p}: HTTP ${r.status}`;
		});
	}
	return {ok: true, models: read.models, version: read.version, marker: read.marker, ...(listed ? {listed} : {}), ...(modelsError !== undefined ? {modelsError} : {}), ...(problems.length > 0 ? {inconsistent: problems.join('; ')} : {}), ...(read.load !== undefined ? {load: read.load} : {})};
}

/** One poll of one server, as its engine's descriptor declares. Never throws. */
export async function pollServer(engine: EngineKind, ctx: PollContext): Promise<PollResult> {
	return runPlan(engineOf(engine).poll, ctx);
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
	/**
	 * Back-off while nothing changes: each poll that dispatched nothing doubles the wait, up to this
	 * (ms); a poll that changed something, a lost server, or wake() bring it back to intervalMs.
	 * Default: intervalMs (no back-off).
	 */
	readonly quietMaxMs?: number;
}

export type PollerLifecycle = 'unknown' | 'up' | 'lost';

export interface ServerPoller {
	start(): void;
	stop(): Promise<void>;
	/** Poll now (waits for one in flight instead of overlapping). */
	pollNow(): Promise<void>;
	lifecycle(): PollerLifecycle;
	/** The engine got work (a request in its log): poll at the base pace again, now if it had slowed down. */
	wake(): void;
	readonly server: ServerInfo & {readonly url: string};
}

/** A setTimeout-chained poller for one server. */
export function createPoller(options: PollerOptions): ServerPoller {
	const {server} = options;
	const intervalMs = options.intervalMs ?? 2000;
	const quietMaxMs = Math.max(intervalMs, options.quietMaxMs ?? intervalMs);
	const timeoutMs = options.timeoutMs ?? 1500;
	const now = options.now ?? Date.now;
	// what the last poll dispatched decides the next wait (see quietMaxMs)
	let changed = false;
	let delay = intervalMs;
	const dispatch: Dispatch = (action) => {
		changed = true;
		options.dispatch(action);
	};
	let state: PollerLifecycle = 'up';
	let running = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let inflight: Promise<void> | undefined;
	let controller = sharedAbortController();
	let lastModelsJson: string | undefined;
	let lastLoadJson: string | undefined;
	let lastModelsError: string | undefined;
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
				lastLoadJson = undefined;
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
		if (result.modelsError !== undefined && result.modelsError !== lastModelsError) dispatch({type: 'notice', t, level: 'warn', text: `${server.url}: models not read: ${result.modelsError}`});
		lastModelsError = result.modelsError;
		if (result.models !== undefined) {
			const json = JSON.stringify([result.models, result.listed]);
			if (json !== lastModelsJson) {
				lastModelsJson = json;
				dispatch({type: 'server-models', t, serverId: server.id, models: result.models, ...(result.listed ? {listed: result.listed} : {})});
			}
		}
		if (result.load !== undefined) {
			const json = JSON.stringify(result.load);
			if (json !== lastLoadJson) {
				lastLoadJson = json;
				dispatch({type: 'server-load', t, serverId: server.id, load: result.load});
			}
		}
	};

	// One chain per start(): a stop()+start() must not leave the old chain scheduling too.
	let generation = 0;
	const tick = (g: number) => {
		timer = undefined;
		if (!running || g !== generation) return;
		changed = false;
		void poller.pollNow().finally(() => {
			delay = changed || state === 'lost' ? intervalMs : Math.min(quietMaxMs, delay * 2);
			if (running && g === generation && timer === undefined) timer = setTimeout(() => tick(g), delay);
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
		wake() {
			// the engine got work: back to the base pace, and poll now if the wait had grown
			if (!running || delay <= intervalMs) return;
			delay = intervalMs;
			if (timer !== undefined) {
				clearTimeout(timer);
				tick(generation);
			}
		},
	};
	return poller;
}
