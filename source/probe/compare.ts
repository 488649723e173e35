/**
 * One prompt set, run the same way on every server × model (seed 004's speed table): code, prose
 * and long, two runs each, temperature 0, the same max tokens. Each run is a real probe through
 * runProbe (wall-clocked in the transport, 429s waited out with back-off), so every figure obeys the
 * probe's truth rules. One request at a time per machine: targets on one host run one after another
 * (never two servers racing one GPU); different hosts run side by side.
 */
import {ProbeError} from './client.js';
import {appendHistory} from './history.js';
import {DEFAULT_MAX_TOKENS, fitToContext, loadPrompt, type ProbePrompt} from './prompts.js';
import {runProbe, totalTimeoutFor, type LiveProgress, type RunProbeOptions} from './run.js';
import type {LogFiguresFn} from './timing.js';
import type {ProtocolPlan} from './protocols.js';
import {COMPARE_KINDS, COMPARE_RUNS, type CompareKind, type CompareProgress, type CompareRow} from '../types/compare.js';
import {redactUserinfo, sanitize} from '../util/sanitize.js';

export interface CompareTarget {
	readonly serverId?: string;
	readonly url: string;
	readonly engine: string;
	readonly model?: string;
	readonly apiKey?: string;
	/** The model's context (tokens): the long prompt is cut to fit it. Unknown → sent whole. */
	readonly contextLength?: number;
	readonly bandwidthGBs?: number;
	readonly bytesPerToken?: number;
	readonly bytesPerTokenSource?: string;
	/** The server listed the model as loaded (`compare --depths`: its load time is then not a cold one). */
	readonly loaded?: boolean;
}

/** Every row is a real probe: the probe's own limits, log lookup and transport, passed through as they are. */
type ProbePassThrough = Pick<RunProbeOptions, 'signal' | 'timeouts' | 'totalTimeoutMs' | 'busyTimeoutMs' | 'busyRetryBaseMs' | 'logFigures' | 'logWaitMs' | 'transport'>;

export interface CompareOptions extends ProbePassThrough {
	readonly targets: readonly CompareTarget[];
	/** The log of each server, where it is read: each run finds its own request there (tokens per pass where the answer has none). */
	readonly logFiguresFor?: (serverId: string) => LogFiguresFn | undefined;
	readonly kinds?: readonly CompareKind[];
	readonly runs?: number;
	readonly maxTokens?: number;
	readonly runId?: string;
	/** CSV history; `null` = none. */
	readonly historyPath: string | null;
	readonly version: string;
	readonly onHistoryError?: (message: string) => void;
	/** Live progress of one running probe (not throttled: the caller throttles). */
	readonly onProgress?: (p: CompareProgress) => void;
	/** A row finished (rows arrive in plan order per machine; `rows` of the outcome are in plan order). */
	readonly onRow?: (row: CompareRow) => void;
	/** Prompts already loaded (tests); default loadPrompt(kind). */
	readonly loadPrompt?: (kind: CompareKind) => Promise<ProbePrompt>;
}

export interface CompareOutcome {
	readonly runId: string;
	readonly rows: readonly CompareRow[];
	readonly cancelled: boolean;
}

/** `20261201T111500Z-3f9a`: sortable, and unique enough for one person's history. */
export function newRunId(now = new Date()): string {
	return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${process.getBuiltinModule('node:crypto').randomBytes(2).toString('hex')}`;
}

const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[?::1\]?|0\.0\.0\.0|\[?::\]?)$/i;

/** The machine a URL runs on: every loopback name is this machine. */
export function machineOf(url: string): string {
	try {
		const h = new URL(url).hostname.toLowerCase();
		return LOOPBACK.test(h) ? 'this machine' : h;
	} catch {
		return url;
	}
}

export interface PlanItem {
	readonly index: number;
	readonly target: CompareTarget;
	readonly prompt: CompareKind;
	readonly run: number;
}

/** Target by target, prompt by prompt, run by run (the order of the rows). */
export function comparePlan(targets: readonly CompareTarget[], kinds: readonly CompareKind[] = COMPARE_KINDS, runs = COMPARE_RUNS): PlanItem[] {
	const items: PlanItem[] = [];
	for (const target of targets) for (const prompt of kinds) for (let run = 1; run <= runs; run++) items.push({index: items.length, target, prompt, run});
	return items;
}

/** Run the comparison. Never throws: a failed probe is a row with `error`; a cancel stops every machine. */
export async function runCompare(o: CompareOptions): Promise<CompareOutcome> {
	const runId = o.runId ?? newRunId();
	const maxTokens = o.maxTokens ?? DEFAULT_MAX_TOKENS;
	const plan = comparePlan(o.targets, o.kinds ?? COMPARE_KINDS, o.runs ?? COMPARE_RUNS);
	const rows: CompareRow[] = [];
	const prompts = new Map<CompareKind, Promise<ProbePrompt>>();
	const promptOf = (k: CompareKind): Promise<ProbePrompt> => {
		let p = prompts.get(k);
		if (!p) {
			p = (o.loadPrompt ?? loadPrompt)(k);
			prompts.set(k, p);
		}
		return p;
	};
	const byMachine = new Map<string, PlanItem[]>();
	for (const item of plan) {
		const m = machineOf(item.target.url);
		byMachine.set(m, [...(byMachine.get(m) ?? []), item]);
	}
	const plans = new Map<string, ProtocolPlan>();
	const emit = (row: CompareRow): void => {
		rows.push(row);
		o.onRow?.(row);
	};
	// A target without a model gets the one its first run picked, for all its runs (the same model throughout).
	const picked = new Map<CompareTarget, string>();
	const one = async (item: PlanItem): Promise<void> => {
		const t = item.target;
		const model = t.model ?? picked.get(t);
		const base = {index: item.index, runId, serverId: t.serverId, url: redactUserinfo(t.url), engine: t.engine, model, prompt: item.prompt, run: item.run};
		if (o.signal?.aborted) {
			emit({...base, error: 'cancelled'});
			return;
		}
		const started = Date.now();
		const progress = (p: Partial<LiveProgress>): void =>
			o.onProgress?.({index: item.index, total: plan.length, url: redactUserinfo(t.url), model, startedAt: started, prompt: item.prompt, run: item.run, tokens: p.tokens ?? 0, liveTps: p.liveTps, ttftMs: p.ttftMs, status: p.status, elapsedMs: Date.now() - started});
		progress({status: 'waiting for the first token'});
		try {
			const prompt = fitToContext(await promptOf(item.prompt), t.contextLength, maxTokens);
			const key = `${t.url} ${t.engine}`;
			const out = await runProbe({
				target: {serverId: t.serverId, url: t.url, engine: t.engine, model, apiKey: t.apiKey},
				prompt,
				maxTokens,
				run: item.run,
				signal: o.signal,
				timeouts: o.timeouts ?? (prompt.kind === 'long' ? {firstTokenMs: 300_000, interTokenMs: 30_000} : undefined),
				totalTimeoutMs: totalTimeoutFor(prompt.kind, o.totalTimeoutMs),
				busyTimeoutMs: o.busyTimeoutMs,
				busyRetryBaseMs: o.busyRetryBaseMs,
				logFigures: (t.serverId !== undefined ? o.logFiguresFor?.(t.serverId) : undefined) ?? o.logFigures,
				logWaitMs: o.logWaitMs,
				bandwidthGBs: t.bandwidthGBs,
				bytesPerToken: t.bytesPerToken,
				bytesPerTokenSource: t.bytesPerTokenSource,
				plan: plans.get(key),
				transport: o.transport,
				onProgress: (p) => progress(p),
			});
			plans.set(key, out.plan);
			const result = {...out.result, serverId: t.serverId, run: item.run, runId};
			if (model === undefined && result.model !== undefined) picked.set(t, result.model);
			emit({...base, model: model ?? result.model, result});
			if (o.historyPath !== null) {
				try {
					await appendHistory(o.historyPath, result, o.version);
				} catch (e) {
					o.onHistoryError?.(`history not written: ${sanitize((e as Error).message, 200)}`);
				}
			}
		} catch (e) {
			const cancelled = e instanceof ProbeError && e.kind === 'cancelled';
			emit({...base, error: cancelled ? 'cancelled' : sanitize(e instanceof Error ? e.message : String(e), 200)});
		}
	};
	await Promise.all(
		[...byMachine.values()].map(async (items) => {
			for (const item of items) await one(item);
		}),
	);
	rows.sort((a, b) => a.index - b.index);
	return {runId, rows, cancelled: o.signal?.aborted ?? false};
}
