/**
 * The interactive probe: runs one probe (or the two-run cache-reuse probe) against a server and
 * dispatches probe events (`probe-started`, `probe-progress`, `probe-result`, `probe-failed`): live progress at most ~4 times a second, the result at the
 * end (kept in state), or `lastError` as one line. Esc → cancel() aborts the stream.
 */
import {performance} from 'node:perf_hooks';
import type {Action, MonitorState} from '../types/state.js';
import {ProbeError, type StreamTimeouts} from './client.js';
import {VERSION} from '../version.js';
import {appendHistory, defaultHistoryPath} from './history.js';
import {DEFAULT_MAX_TOKENS, loadPrompt} from './prompts.js';
import {runProbe, totalTimeoutFor, type LiveProgress, type ProbeTarget} from './run.js';
import {matchProbeRequest} from '../model/derive.js';
import {attributeLate} from './late-match.js';
import {probeQueue} from '../model/queue.js';
import type {Transport} from './transport.js';
import type {ProbePromptKind, ProbeProgress, ProbeResult} from '../types/probe.js';

/** Results kept in state (newest last); the reducer caps them. */
export {MAX_PROBE_RESULTS} from '../types/probe.js';
/** Live progress dispatches at most this often. */
export const PROGRESS_INTERVAL_MS = 250;

export interface ProbeControllerOptions {
	readonly dispatch: (action: Action) => void;
	readonly getState: () => MonitorState;
	/**
	 * Look for the probe's own request in its server's log (issue 11: its counts beside the API's).
	 * Off by default: a probe with no log to wait for ends with the answer.
	 */
	readonly readLog?: boolean;
	/** CSV history file; default: the XDG state dir. `null` = do not write history. */
	readonly historyPath?: string | null;
	readonly busyTimeoutMs?: number;
	readonly busyRetryBaseMs?: number;
	/** The API key for this URL (the CLI's --api-key / env), sent only there. */
	readonly apiKeyFor?: (url: string) => string | undefined;
	readonly maxTokens?: number;
	readonly timeouts?: StreamTimeouts;
	/** Each run's overall limit (`--timeout`), ms; default totalTimeoutFor(prompt kind). */
	readonly totalTimeoutMs?: number;
	readonly logWaitMs?: number;
	readonly version?: string;
	/** Where bytes are read and stamped (default: a worker thread, immune to render jank). */
	readonly transport?: Transport;
	/** Called when a history row could not be written (the probe result still stands). */
	readonly onHistoryError?: (message: string) => void;
}

export interface ProbeController {
	probe(target: ProbeTarget & {serverId: string; engine: string}, prompt: ProbePromptKind | {file: string}, runs?: number): Promise<void>;
	cancel(): void;
	readonly running: boolean;
}

export function createProbeController(opts: ProbeControllerOptions): ProbeController {
	let current: AbortController | undefined;

	const controller: ProbeController = {
		get running() {
			return current !== undefined;
		},
		cancel() {
			current?.abort();
		},
		async probe(target, promptArg, runs = 1) {
			if (current) current.abort();
			const ac = new AbortController();
			current = ac;
			const startedAt = Date.now();
			const kind: ProbePromptKind = typeof promptArg === 'object' ? 'file' : promptArg;
			const label = typeof promptArg === 'object' ? `@${promptArg.file.split(/[\\/]/).pop() ?? ''}` : promptArg;
			const url = target.url;
			const apiKey = target.apiKey ?? opts.apiKeyFor?.(url);
			const timeoutMs = totalTimeoutFor(kind, opts.totalTimeoutMs);
			const base: ProbeProgress = {serverId: target.serverId, startedAt, prompt: label, tokens: 0, runs, run: 1, engine: target.engine, model: target.model, elapsedMs: 0, timeoutMs, status: 'starting'};
			opts.dispatch({type: 'probe-started', running: base, prompt: kind});
			let lastDispatch = 0;
			let pending: ProbeProgress | undefined;
			let flushTimer: NodeJS.Timeout | undefined;
			const flush = (): void => {
				flushTimer = undefined;
				if (!pending || current !== ac) return;
				lastDispatch = performance.now();
				opts.dispatch({type: 'probe-progress', running: pending});
				pending = undefined;
			};
			const dropPending = (): void => {
				if (flushTimer) clearTimeout(flushTimer);
				flushTimer = undefined;
				pending = undefined;
			};
			const progress = (p: ProbeProgress, force = false): void => {
				pending = p;
				const since = performance.now() - lastDispatch;
				if (force || since >= PROGRESS_INTERVAL_MS) {
					if (flushTimer) clearTimeout(flushTimer);
					flush();
				} else if (!flushTimer) {
					flushTimer = setTimeout(flush, PROGRESS_INTERVAL_MS - since);
				}
			};
			try {
				const prompt = await loadPrompt(promptArg);
				let plan;
				const state = opts.getState();
				const server = state.servers?.[target.serverId];
				const modelInfo = server?.models?.find((m) => m.name === target.model) ?? (server?.models?.length === 1 ? server.models[0] : undefined);
				for (let run = 1; run <= runs; run++) {
					let status: string | undefined = run > 1 ? 'second run (cache reuse)' : undefined;
					const onProgress = (p: LiveProgress): void => {
						if (p.status !== undefined) status = p.status;
						else if (p.tokens > 0) status = run > 1 ? 'second run (cache reuse)' : undefined;
						progress({...base, run, tokens: p.tokens, liveTps: p.liveTps, ttftMs: p.ttftMs, elapsedMs: Date.now() - startedAt, status}, p.status !== undefined);
					};
					progress({...base, run, tokens: 0, elapsedMs: Date.now() - startedAt, status: status ?? 'waiting for the first token'}, true);
					// What the server was doing when this run left: the queue the run may wait in.
					const before = opts.getState().servers?.[target.serverId]?.requests ?? [];
					const leftAt = Date.now();
					const out = await runProbe({
						target: {...target, apiKey},
						prompt,
						maxTokens: opts.maxTokens ?? DEFAULT_MAX_TOKENS,
						run: runs > 1 ? run : undefined,
						signal: ac.signal,
						timeouts: opts.timeouts ?? (prompt.kind === 'long' ? {firstTokenMs: 300_000, interTokenMs: 30_000} : undefined),
						totalTimeoutMs: timeoutMs,
						busyTimeoutMs: opts.busyTimeoutMs,
						busyRetryBaseMs: opts.busyRetryBaseMs,
						// A query of the state: the finished request of this server whose counts match the answer's.
						logFigures: opts.readLog ? q => matchProbeRequest(opts.getState(), target.serverId, q) : undefined,
						logWaitMs: opts.logWaitMs,
						bandwidthGBs: opts.getState().bandwidth?.gbs,
						bytesPerToken: (modelInfo ? server?.modelBytes?.[modelInfo.name]?.bytesPerToken : undefined) ?? modelInfo?.bytesPerToken,
						onProgress,
						plan,
						transport: opts.transport,
					});
					plan = out.plan;
					// The probe's own counts are evidence of which model its log request is of.
					if (out.logRequest?.model !== undefined) opts.dispatch({type: 'request-attributed', serverId: target.serverId, key: out.logRequest.key, model: out.logRequest.model, by: 'probe'});
					// Its line read after the probe stopped waiting: attributed when it comes (never an agent's turn).
					else if (out.unmatchedLog !== undefined) void attributeLate(opts.getState, opts.dispatch, target.serverId, [out.unmatchedLog]);
					const queue = probeQueue(before, opts.getState().servers?.[target.serverId]?.requests ?? [], leftAt, out.result.ttftMs);
					const result: ProbeResult = {...out.result, serverId: target.serverId, queuedBehind: queue?.behind, queuedMs: queue?.queuedMs};
					if (current !== ac) return;
					dropPending();
					opts.dispatch({type: 'probe-result', result, next: run < runs ? {...base, run: run + 1, tokens: 0, elapsedMs: Date.now() - startedAt, status: 'second run (cache reuse)'} : undefined});
					if (opts.historyPath !== null) {
						try {
							await appendHistory(opts.historyPath ?? defaultHistoryPath(), result, opts.version ?? VERSION);
						} catch (e) {
							opts.onHistoryError?.(`probe history not written: ${(e as Error).message}`);
						}
					}
				}
			} catch (e) {
				if (current !== ac) return;
				dropPending();
				const message = e instanceof ProbeError ? e.message : e instanceof Error ? e.message : String(e);
				opts.dispatch({type: 'probe-failed', error: e instanceof ProbeError && e.kind === 'cancelled' ? 'probe cancelled' : message});
			} finally {
				if (flushTimer) clearTimeout(flushTimer);
				if (current === ac) current = undefined;
			}
		},
	};
	return controller;
}
