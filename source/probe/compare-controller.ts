/**
 * The interactive comparison (key `c`): each loaded model on each server the monitor knows (a server
 * with none loaded: the model the probe picks), through
 * runCompare, dispatching `compare-*` actions (progress at most ~4 times a second per probe).
 * cancel() (Esc) aborts the running probes; the rest become `cancelled` rows.
 */
import {performance} from 'node:perf_hooks';
import {modelsToCompare} from '../model/compare.js';
import {VERSION} from '../version.js';
import {defaultHistoryPath} from './history.js';
import {newRunId, runCompare, type CompareTarget} from './compare.js';
import {matchProbeRequest} from '../model/derive.js';
import type {LogQuery} from './timing.js';
import {PROGRESS_INTERVAL_MS} from './controller.js';
import type {StreamTimeouts} from './client.js';
import type {Transport} from './transport.js';
import type {Action, MonitorState} from '../types/state.js';
import type {CompareProgress} from '../types/compare.js';

export interface CompareControllerOptions {
	readonly dispatch: (action: Action) => void;
	readonly getState: () => MonitorState;
	/** CSV history; default the XDG state dir; `null` = none. */
	readonly historyPath?: string | null;
	readonly apiKeyFor?: (url: string) => string | undefined;
	readonly maxTokens?: number;
	readonly busyTimeoutMs?: number;
	readonly busyRetryBaseMs?: number;
	readonly totalTimeoutMs?: number;
	readonly timeouts?: StreamTimeouts;
	readonly logWaitMs?: number;
	/** Look for each run's own request in its server's log (as the probe does): tokens per pass where the answer has none. */
	readonly readLog?: boolean;
	readonly transport?: Transport;
	readonly version?: string;
	readonly onHistoryError?: (message: string) => void;
}

export interface CompareController {
	start(): Promise<void>;
	cancel(): void;
	readonly running: boolean;
}

/** Each loaded model on each server with a URL, in the monitor's order, with its context and ceiling inputs. */
export function compareTargets(state: MonitorState, apiKeyFor?: (url: string) => string | undefined): CompareTarget[] {
	const targets: CompareTarget[] = [];
	for (const id of state.order) {
		const s = state.servers[id];
		if (!s?.url || s.state === 'stale' || s.state === 'log-only') continue;
		const models = modelsToCompare(s.models, undefined);
		// Nothing loaded yet: the probe picks as `p` does (the loaded one, else the first listed).
		if (models.length === 0) targets.push({serverId: id, url: s.url, engine: s.engine, apiKey: apiKeyFor?.(s.url), bandwidthGBs: state.bandwidth?.gbs});
		for (const m of models) {
			const bytes = s.modelBytes?.[m.name];
			targets.push({
				serverId: id,
				url: s.url,
				engine: s.engine,
				model: m.name,
				apiKey: apiKeyFor?.(s.url),
				contextLength: m.contextPerSlot ?? m.contextLength,
				bandwidthGBs: state.bandwidth?.gbs,
				bytesPerToken: bytes?.bytesPerToken ?? m.bytesPerToken,
				bytesPerTokenSource: bytes?.bytesPerToken !== undefined ? bytes.source : m.bytesPerTokenSource,
			});
		}
	}
	return targets;
}

export function createCompareController(o: CompareControllerOptions): CompareController {
	let current: AbortController | undefined;
	return {
		get running() {
			return current !== undefined;
		},
		cancel() {
			current?.abort();
		},
		async start() {
			if (current) return;
			const targets = compareTargets(o.getState(), o.apiKeyFor);
			if (targets.length === 0) {
				o.dispatch({type: 'notice', t: Date.now(), level: 'warn', text: 'compare: no server with a loaded model to compare'});
				return;
			}
			const ac = new AbortController();
			current = ac;
			const runId = newRunId();
			const total = targets.length * 6;
			o.dispatch({type: 'compare-started', runId, startedAt: Date.now(), total});
			// Throttle per probe: the first update and status changes go at once, tokens at most every 250 ms.
			const last = new Map<number, {t: number; status?: string}>();
			const onProgress = (p: CompareProgress): void => {
				const prev = last.get(p.index);
				const now = performance.now();
				if (prev && prev.status === p.status && now - prev.t < PROGRESS_INTERVAL_MS) return;
				last.set(p.index, {t: now, status: p.status});
				o.dispatch({type: 'compare-progress', progress: p});
			};
			try {
				const out = await runCompare({
					targets,
					...(o.readLog ? {logFiguresFor: (serverId: string) => (q: LogQuery) => matchProbeRequest(o.getState(), serverId, q)} : {}),
					runId,
					maxTokens: o.maxTokens,
					signal: ac.signal,
					timeouts: o.timeouts,
					totalTimeoutMs: o.totalTimeoutMs,
					busyTimeoutMs: o.busyTimeoutMs,
					busyRetryBaseMs: o.busyRetryBaseMs,
					logWaitMs: o.logWaitMs,
					transport: o.transport,
					historyPath: o.historyPath === null ? null : (o.historyPath ?? defaultHistoryPath()),
					version: o.version ?? VERSION,
					onHistoryError: o.onHistoryError,
					onProgress,
					onRow: (row) => o.dispatch({type: 'compare-row', row}),
				});
				o.dispatch({type: 'compare-finished', runId, cancelled: out.cancelled});
			} catch (e) {
				o.dispatch({type: 'compare-finished', runId, cancelled: false, error: e instanceof Error ? e.message : String(e)});
			} finally {
				current = undefined;
			}
		},
	};
}
