/**
 * One probe run against one server: pick the model, pick the protocol (a 404 tries the other one),
 * wait out HTTP 429 from one-at-a-time servers, stream, and compute the figures. Shared by the
 * interactive controller and the headless command.
 */
import {performance} from 'node:perf_hooks';
import {redactUserinfo, sanitize} from '../util/sanitize.js';
import {answerJson, httpGet, isAnswer} from '../sources/http-get.js';
import {ENGINES, engineOf, UNKNOWN_ENGINE} from '../engines/index.js';
import {ProbeError, formatDuration, joinUrl, streamOnce, type StreamOutcome, type StreamTimeouts, DEFAULT_TIMEOUTS} from './client.js';
import {protocolPlan, type ProtocolPlan} from './protocols.js';
import type {ProbePrompt} from './prompts.js';
import {PROBE_SEED} from './prompts.js';
import {computeFigures, liveTps, type LogFigures, type LogFiguresFn, type LogQuery, type StreamClock} from './timing.js';
import {inconsistency} from '../model/consistency.js';
import type {ServerCounts} from '../types/probe.js';
import type {Transport} from './transport.js';
import type {ProbeResult} from '../types/probe.js';

export interface ProbeTarget {
	readonly serverId?: string;
	readonly engine?: string;
	readonly url: string;
	readonly model?: string;
	readonly apiKey?: string;
}

export interface LiveProgress {
	readonly tokens: number;
	readonly liveTps?: number;
	readonly ttftMs?: number;
	readonly elapsedMs: number;
	readonly status?: string;
	/** The overall limit of this run (ms), for the pane. */
	readonly timeoutMs?: number;
}

export interface RunProbeOptions {
	readonly target: ProbeTarget;
	readonly prompt: ProbePrompt;
	readonly maxTokens: number;
	readonly run?: number;
	readonly signal?: AbortSignal;
	readonly timeouts?: StreamTimeouts;
	/**
	 * The whole run's limit (model pick, busy retries, stream), however the server trickles: default
	 * DEFAULT_TOTAL_TIMEOUT_MS (`--timeout`).
	 */
	readonly totalTimeoutMs?: number;
	/** Give up on HTTP 429 after this long (default 30 s). */
	readonly busyTimeoutMs?: number;
	/** First retry delay after a 429 (doubles, capped at 5 s). Default 1 s. */
	readonly busyRetryBaseMs?: number;
	readonly logFigures?: LogFiguresFn;
	/** How long to wait for the engine's log to report the probe's generation. Default 2 s. */
	readonly logWaitMs?: number;
	readonly bandwidthGBs?: number;
	readonly bytesPerToken?: number;
	readonly bytesPerTokenSource?: string;
	readonly onProgress?: (p: LiveProgress) => void;
	/** A protocol that already worked on this server (skips the 404 dance). */
	readonly plan?: ProtocolPlan;
	/** Where bytes are read and stamped (default: a worker thread). */
	readonly transport?: Transport;
}

export interface RunProbeOutcome {
	readonly result: ProbeResult;
	readonly plan: ProtocolPlan;
	/** The log request the answer's counts matched (logFigures), and the model the probe asked or was answered by. */
	readonly logRequest?: {readonly key: string; readonly model?: string};
	/** The query that matched no log request in time (logFigures given, the answer consistent): its line may come later. */
	readonly unmatchedLog?: LogQuery;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;
/** A probe run never lasts longer than this unless `--timeout` says otherwise (5 minutes). */
export const DEFAULT_TOTAL_TIMEOUT_MS = 300_000;
/** The `long` prompt may take 5 minutes to its first token alone: its default overall limit is 10. */
export const LONG_TOTAL_TIMEOUT_MS = 600_000;

/** The overall limit of a run: `--timeout`, else the default for the prompt. */
export function totalTimeoutFor(kind: ProbePrompt['kind'], given?: number): number {
	return given ?? (kind === 'long' ? LONG_TOTAL_TIMEOUT_MS : DEFAULT_TOTAL_TIMEOUT_MS);
}

/** Engine-specific API key variables (sent only to the server they belong to). */
export const ENGINE_KEY_ENV: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
	Object.values(ENGINES).flatMap((d) => (d.apiKeyEnv ? [[d.kind, d.apiKeyEnv]] : [])),
);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) {
			reject(new ProbeError('cancelled', 'probe cancelled'));
			return;
		}
		const t = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		const onAbort = (): void => {
			clearTimeout(t);
			reject(new ProbeError('cancelled', 'probe cancelled'));
		};
		signal?.addEventListener('abort', onAbort, {once: true});
	});
}

/**
 * A JSON GET for the model lookup: the shared any-port client, its list read streaming (a 100 MB
 * `/api/tags` is never held whole: the first items are kept; only the first is used here).
 */
async function getJson(url: string, apiKey: string | undefined, signal: AbortSignal | undefined, listKey: string, timeoutMs = 5000): Promise<unknown> {
	const r = await httpGet(url, {timeoutMs, apiKey, signal, list: {key: listKey, maxItems: 16}});
	return isAnswer(r) && r.status === 200 ? answerJson(r) : undefined;
}

/** The model to probe when none is named: the loaded one first (Ollama /api/ps), else the first listed. */
export async function pickModel(url: string, engine: string | undefined, apiKey?: string, signal?: AbortSignal): Promise<string | undefined> {
	const first = (list: unknown, key: string): string | undefined => {
		if (!Array.isArray(list)) return undefined;
		const v = (list[0] as Record<string, unknown> | undefined)?.[key];
		return typeof v === 'string' && v !== '' ? sanitize(v, 200) : undefined;
	};
	// The engine's descriptor says where its model list is (Ollama: loaded first, then installed).
	for (const step of engineOf(engine).modelList) {
		const body = (await getJson(joinUrl(url, step.path), apiKey, signal, step.list)) as Record<string, unknown> | undefined;
		for (const key of step.keys) {
			const name = first(body?.[step.list], key);
			if (name) return name;
		}
	}
	return undefined;
}

/** Engine of a bare URL: `GET /` "Ollama is running" → ollama; `Server: llama.cpp` → llamacpp; else OpenAI-compatible. */
export async function detectEngine(url: string, signal?: AbortSignal): Promise<string> {
	// node:http (sources/http-get.ts): any port, no redirect followed, and undici never loaded.
	// An unreachable server fails later, with a precise reason, in the probe itself.
	const res = await httpGet(joinUrl(url, '/'), {timeoutMs: 5000, maxBytes: 4096, ...(signal ? {signal} : {})});
	if (isAnswer(res)) {
		const server = res.headers.server ?? '';
		const body = res.body.slice(0, 200);
		for (const d of Object.values(ENGINES)) if (d.quickMarks?.rootBody?.test(body)) return d.kind;
		for (const d of Object.values(ENGINES)) if (d.quickMarks?.serverHeader?.test(server)) return d.kind;
	}
	const models = (await getJson(joinUrl(url, '/v1/models'), undefined, signal, 'data')) as {data?: {owned_by?: unknown}[]} | undefined;
	const owner = Array.isArray(models?.data) ? models.data[0]?.owned_by : undefined;
	for (const d of Object.values(ENGINES)) if (owner !== undefined && d.quickMarks?.modelOwner === owner) return d.kind;
	return UNKNOWN_ENGINE;
}

async function waitLogFigures(fn: LogFiguresFn, q: LogQuery, waitMs: number, signal?: AbortSignal): Promise<LogFigures | undefined> {
	const deadline = performance.now() + waitMs;
	let last: LogFigures | undefined;
	for (;;) {
		let v: LogFigures | undefined;
		try {
			v = fn(q);
		} catch {
			v = undefined;
		}
		// A match ends the wait; "no line yet" or "2 candidates" may still settle as the log catches up.
		if (v !== undefined && v.reason === undefined) return v;
		last = v ?? last;
		if (performance.now() >= deadline || signal?.aborted) return last;
		await sleep(Math.min(100, Math.max(1, deadline - performance.now())), signal).catch(() => undefined);
	}
}

/** Stream once on the first protocol that is not a 404, retrying 429s up to the busy limit. */
async function streamWithRetries(o: RunProbeOptions, model: string | undefined, onBusy: (retries: number) => void): Promise<StreamOutcome & {busyRetries: number; busyWaitMs: number}> {
	const plans = o.plan ? [o.plan, ...protocolPlan(o.target.engine).filter((p) => p.path !== o.plan?.path)] : protocolPlan(o.target.engine);
	const busyLimit = o.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
	const base = o.busyRetryBaseMs ?? 1000;
	const started = performance.now();
	const t0 = performance.now();
	let busyRetries = 0;
	// Time spent waiting out 429/503 answers (their requests and the back-off), wall-clocked.
	let busyWaitMs = 0;
	let busyCode = 429;
	const wrong: string[] = [];
	for (let i = 0; i < plans.length; ) {
		const plan = plans[i]!;
		try {
			const out = await streamOnce({
				baseUrl: o.target.url,
				plan,
				spec: {model, prompt: o.prompt.text, maxTokens: o.maxTokens, seed: PROBE_SEED},
				apiKey: o.target.apiKey,
				apiKeyEnv: ENGINE_KEY_ENV[o.target.engine ?? '']?.[0],
				signal: o.signal,
				transport: o.transport,
				timeouts: o.timeouts ?? DEFAULT_TIMEOUTS,
				onChunk: (clock: StreamClock) => {
					const now = performance.now();
					o.onProgress?.({
						tokens: clock.chunks,
						liveTps: liveTps(clock, now),
						ttftMs: clock.tFirst === undefined ? undefined : clock.tFirst - clock.tSent,
						elapsedMs: now - t0,
						timeoutMs: o.totalTimeoutMs,
					});
				},
			});
			return {...out, busyRetries, busyWaitMs};
		} catch (e) {
			if (!(e instanceof ProbeError)) throw new ProbeError('failed', `probe failed: ${sanitize(String(e), 120)}`);
			if (e.kind === 'wrong-protocol') {
				wrong.push(plan.path);
				i++;
				continue;
			}
			if (e.kind !== 'busy') throw e;
			busyCode = /HTTP 503/.test(e.message) ? 503 : 429;
			const waited = performance.now() - started;
			const left = busyLimit - waited;
			if (left <= 0) throw new ProbeError('failed', `server busy (HTTP ${busyCode}) for ${formatDuration(busyLimit)}`);
			const backoff = Math.min(5000, base * 2 ** busyRetries);
			const delay = Math.max(1, Math.min(left, e.retryAfterMs !== undefined ? Math.max(e.retryAfterMs, base) : backoff));
			busyRetries++;
			onBusy(busyRetries);
			o.onProgress?.({tokens: 0, elapsedMs: performance.now() - t0, timeoutMs: o.totalTimeoutMs, status: `server busy (HTTP ${busyCode}), retrying in ${Math.max(1, Math.round(delay / 1000))} s`});
			await sleep(delay, o.signal);
			busyWaitMs = performance.now() - started;
		}
	}
	throw new ProbeError('failed', `HTTP 404 on ${wrong.join(', ')}: no known generation API here (wrong URL or not an LLM server?)`);
}

export async function runProbe(outer: RunProbeOptions): Promise<RunProbeOutcome> {
	// The overall limit: one signal for the whole run, fired by the caller's cancel or by the clock.
	const limit = totalTimeoutFor(outer.prompt.kind, outer.totalTimeoutMs);
	const ac = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		ac.abort();
	}, Math.min(limit, 2 ** 31 - 1));
	const onOuter = (): void => ac.abort();
	if (outer.signal?.aborted) ac.abort();
	outer.signal?.addEventListener('abort', onOuter, {once: true});
	const o: RunProbeOptions = {...outer, signal: ac.signal, totalTimeoutMs: limit};
	try {
		return await runProbeWithin(o);
	} catch (e) {
		if (timedOut && !outer.signal?.aborted) throw new ProbeError('failed', `probe timed out after ${formatDuration(limit)} (the overall limit, --timeout)`);
		throw e;
	} finally {
		clearTimeout(timer);
		outer.signal?.removeEventListener('abort', onOuter);
	}
}

async function runProbeWithin(o: RunProbeOptions): Promise<RunProbeOutcome> {
	const model = o.target.model ?? (await pickModel(o.target.url, o.target.engine, o.target.apiKey, o.signal));
	if (o.signal?.aborted) throw new ProbeError('cancelled', 'probe cancelled');
	const out = await streamWithRetries(o, model, () => undefined);
	// An answer whose numbers contradict each other gives no figures from them (counted, with its reason).
	const c = out.counts;
	const bad = inconsistency({
		promptTokens: c.promptTokens, cachedTokens: c.cachedTokens, prefillTokens: c.prefillTokens, prefillMs: c.prefillMs,
		generatedTokens: c.completionTokens, decodeMs: c.decodeMs, drafted: c.drafted, accepted: c.accepted, passes: c.passes ?? out.decodeSteps, engineTps: c.reportedTps,
	});
	const counts: ServerCounts = bad === undefined ? c : {source: c.source, model: c.model, doneReason: c.doneReason};
	const query: LogQuery = {fromMs: out.wallStart, toMs: out.wallEnd, completionTokens: counts.completionTokens, promptTokens: counts.promptTokens, model: model ?? c.model};
	const log = o.logFigures && bad === undefined ? await waitLogFigures(o.logFigures, query, o.logWaitMs ?? 2000, o.signal) : undefined;
	const figures = computeFigures({
		clock: out.clock,
		counts,
		decodeSteps: bad === undefined ? out.decodeSteps : undefined,
		decodeStepsSource: out.decodeStepsSource,
		log,
		bandwidthGBs: o.bandwidthGBs,
		bytesPerToken: o.bytesPerToken,
		engine: o.target.engine,
	});
	const answered = out.counts.model === undefined ? undefined : sanitize(out.counts.model, 200);
	const result: ProbeResult = {
		t: Date.now(),
		serverId: o.target.serverId,
		engine: o.target.engine ?? UNKNOWN_ENGINE,
		url: redactUserinfo(o.target.url),
		model: model ?? answered,
		protocol: out.protocol.protocol,
		prompt: o.prompt.label,
		promptKind: o.prompt.kind,
		run: o.run,
		busyRetries: out.busyRetries || undefined,
		busyWaitMs: out.busyRetries > 0 ? out.busyWaitMs : undefined,
		bytesPerToken: o.bytesPerToken,
		bytesPerTokenSource: o.bytesPerToken === undefined ? undefined : o.bytesPerTokenSource,
		bandwidthGBs: o.bandwidthGBs,
		...figures,
		...(bad !== undefined ? {inconsistent: [bad, ...(figures.inconsistent ?? [])]} : {}),
		...(log?.reason !== undefined ? {logNote: log.reason} : {}),
		...(log === undefined && o.logFigures === undefined && figures.tokensPerPass === undefined && bad === undefined && (figures.completionTokens ?? 0) > 0
			? {logNote: `the answer has no draft counts: give the engine's log (--log ${o.target.engine ?? 'ENGINE'}=PATH)`}
			: {}),
	};
	const matched = log?.reason === undefined && log?.key !== undefined;
	return {
		result,
		plan: out.protocol,
		...(matched ? {logRequest: {key: log.key!, model: query.model}} : {}),
		...(!matched && o.logFigures !== undefined && bad === undefined && query.completionTokens !== undefined ? {unmatchedLog: query} : {}),
	};
}
