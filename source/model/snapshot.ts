/**
 * `infertop snapshot --json`: one JSON object with the DESIGN §1 keys. Unknown = null, never 0.
 * The schema is documented in readme.md ("Snapshot schema"); keep the two in step.
 */
import {deriveModels, modelLabel, requestsWithoutFigures} from './derive.js';
import {requestFigures} from './figures.js';
import {deriveSessions, DEFAULT_SESSION_GAP_MS, findingEntries, type Session} from './sessions.js';
import {sanitize} from '../util/sanitize.js';
import {codeUnitOrder} from '../util/format.js';
import {FIGURES, type BatchJson, type FigureTable, type ModelFigures, type ModelJson} from './figure-table.js';
import type {BatchFigures} from '../types/figures.js';
import {macGpuSummary, type MacGpuSummary} from './wired-limit.js';
import type {MonitorState, RequestRecord, ServerState} from '../types/state.js';

export const SNAPSHOT_SCHEMA_VERSION = 1;

/** undefined → null, recursively, so every documented key is present. */
const nul = <T>(v: T | undefined): T | null => (v === undefined || (typeof v === 'number' && !Number.isFinite(v)) ? null : v);

function round(v: number | undefined, digits = 3): number | null {
	if (v === undefined || !Number.isFinite(v)) return null;
	const k = 10 ** digits;
	return Math.round(v * k) / k;
}

/** vLLM/SGLang windowed batch figures (aggregates over the running sequences), or null. */
function batchJson(b: BatchFigures | undefined): BatchJson | null {
	if (!b) return null;
	return {
		genTps: round(b.genTps, 2), promptTps: round(b.promptTps, 2), running: nul(b.running), waiting: nul(b.waiting),
		kvUsage: round(b.kvUsage, 4), prefixHitRate: round(b.prefixHitRate, 4), preemptions: nul(b.preemptions),
		preemptedTotal: nul(b.preemptedTotal), cachedTokens: nul(b.cachedTokens), newTokens: nul(b.newTokens),
	};
}

/** One row of `models[]`: which model, then every figure of the table in its order, as its record says. */
function modelJson(f: ModelFigures, table: FigureTable): ModelJson {
	const row: Record<string, unknown> = {server: f.serverId, engine: f.engine, model: nul(f.model), runner: nul(f.runner)};
	const values = f as unknown as Readonly<Record<string, unknown>>;
	for (const rec of table) {
		if (rec.json === false) continue;
		const v = values[rec.key];
		row[rec.json.name ?? rec.key] =
			rec.unit === 'flag' ? v === true : rec.unit === 'batch' ? batchJson(v as BatchFigures | undefined) : rec.json.digits !== undefined ? round(v as number | undefined, rec.json.digits) : nul(v);
	}
	return row as ModelJson;
}

function requestJson(r: RequestRecord, server: ServerState) {
	const f = requestFigures(r);
	return {
		// A request whose time cannot be known is `null` ("earlier"), never a made-up time.
		time: r.earlier ? null : new Date(r.lastSeen).toISOString(),
		server: server.id,
		engine: server.engine,
		model: modelLabel(r, server) === '--' ? null : modelLabel(r, server),
		attributedBy: nul(r.attribution?.by),
		runner: nul(r.runner),
		promptTokens: nul(f.promptTokens),
		cachedTokens: nul(f.cachedTokens),
		promptEstimated: f.promptEstimated === true,
		outcome: nul(r.outcome),
		error: nul(r.error),
		wallMs: round(r.wallMs, 1),
		prefillTps: round(f.prefillTps, 2),
		generatedTokens: nul(r.generatedTokens),
		decodeTps: round(f.decodeTps, 2),
		reportedTps: round(r.engineTps, 2),
		tokensPerPass: round(f.tokensPerPass, 4),
		engineTokensPerPass: round(r.engineMeanLen, 4),
		acceptance: round(f.acceptance, 4),
		msPerPass: round(f.msPerPass, 2),
		passes: nul(f.passes),
		drafted: nul(r.drafted),
		accepted: nul(r.accepted),
	};
}

/** One agent session (readme "The agent view"): its turns and where its wall time went; unknown = null. */
export function sessionJson(s: Session) {
	const b = s.budget;
	return {
		server: s.serverId,
		engine: s.engine,
		// `--`: a one-model server that has not said its model's name.
		model: s.model === '--' ? null : s.model,
		// The access log's client address; null = the log names none (one client assumed).
		client: nul(s.client),
		clientKnown: s.client !== undefined,
		prefillTps: round(s.prefillTps, 2),
		turns: s.turns.map(t => ({
			time: new Date(t.time).toISOString(),
			promptTokens: nul(t.promptTokens),
			cachedTokens: nul(t.cachedTokens),
			promptEstimated: t.promptEstimated,
			queueMs: round(t.queueMs, 3),
			prefillMs: round(t.prefillMs, 3),
			decodeMs: round(t.decodeMs, 3),
			generatedTokens: nul(t.generatedTokens),
			idleBeforeMs: round(t.idleBeforeMs, 3),
			retries: t.retries,
			// Issue 28: the prompt the engine held, its window and fill (null when either is unknown).
			contextTokens: nul(t.contextTokens),
			contextWindow: nul(t.contextWindow),
			contextFill: round(t.contextFill, 4),
			// cached ÷ the previous turn's prompt where this one resent it (`previous-prompt`), else ÷ this prompt.
			cacheReuse: round(t.cacheReuse, 4),
			cacheReuseBasis: nul(t.cacheReuseBasis),
			loadMs: round(t.loadMs, 3),
			finishReason: nul(t.finishReason),
			findings: t.findings.map(f => ({kind: f.kind, evidence: sanitize(f.evidence), fix: f.fix})),
		})),
		budget: {
			queueMs: round(b.queueMs, 3),
			prefillMs: round(b.prefillMs, 3),
			decodeMs: round(b.decodeMs, 3),
			idleMs: round(b.idleMs, 3),
			savedByCacheMs: round(b.savedByCacheMs, 3),
			shares: {queue: round(b.shares.queue, 4), prefill: round(b.shares.prefill, 4), decode: round(b.shares.decode, 4), idle: round(b.shares.idle, 4)},
			// The turns the shares are computed over (those fully known, where some are).
			sharesOver: b.sharesOver,
			unknownTurns: {...b.unknown},
		},
	};
}

/** Apple silicon (macOS): the GPU's wired-memory limit against what the engines hold; null elsewhere (readme "On a Mac"). */
export function macJson(m: MacGpuSummary | undefined, mac: MonitorState['system']['mac']) {
	if (!mac) return null;
	const v = m?.verdict;
	return {
		memsizeBytes: nul(mac.memsizeBytes),
		// as set: 0 = the macOS default; null = not readable on this Mac
		wiredLimitMb: nul(mac.wiredLimitMb),
		wiredLimitBytes: nul(m?.limit?.bytes),
		wiredLimitSource: nul(m?.limit?.source),
		wiredLimitEstimated: m?.limit ? m.limit.estimated : null,
		enginesHoldBytes: nul(m?.demand?.bytes),
		enginesHold: (m?.demand?.parts ?? []).map(p => ({server: p.serverId, model: nul(p.model), bytes: p.bytes, what: p.what, from: p.from})),
		enginesHoldUnknown: [...(m?.demand?.unknown ?? [])],
		verdict: nul(v?.level),
		verdictText: nul(v?.text),
		pctOfLimit: round(v?.pct, 1),
		fix: v?.fix ? {command: v.fix.command, mb: v.fix.mb, why: v.fix.why} : null,
		advice: nul(v?.advice),
		memoryFreePct: nul(mac.memoryFreePct),
		compressorBytes: nul(mac.compressorBytes),
		swapoutsPerSec: round(mac.swapoutsPerSec, 2),
		gpuUsersSource: nul(mac.gpuUsersSource),
	};
}

export interface SnapshotOptions {
	/** Longest pause between two turns of one agent session (config `sessionGap`). */
	readonly sessionGapMs?: number;
	/** The figure table (model/figure-table.ts); tests add a record to it. */
	readonly figures?: FigureTable;
}

export function toSnapshot(state: MonitorState, version: string, options: SnapshotOptions = {}) {
	const table = options.figures ?? FIGURES;
	const figures = deriveModels(state, table);
	const agent = deriveSessions(state, options.sessionGapMs ?? DEFAULT_SESSION_GAP_MS);
	const servers = state.order.map(id => state.servers[id]!).filter(Boolean);
	const sys = state.system;
	const mac = macGpuSummary(state);
	return {
		infertop: version,
		schema: SNAPSHOT_SCHEMA_VERSION,
		time: new Date(state.now).toISOString(),
		host: state.host,
		demo: state.demo,
		bandwidthGBs: nul(state.bandwidth.gbs),
		bandwidthSource: nul(state.bandwidth.source ?? state.bandwidth.hint),
		servers: servers.map(s => ({
			id: s.id,
			engine: s.engine,
			url: nul(s.url),
			version: nul(s.version),
			state: s.state,
			source: s.source,
			demo: s.demo === true,
			models: s.models.map(m => m.name),
			// The server listed more than are kept: `models` are the first of `total` (at least, when cut).
			modelsListed: s.modelsListed ? {total: s.modelsListed.total, atLeast: s.modelsListed.atLeast} : null,
			load: s.load
				? {
					running: nul(s.load.running),
					waiting: nul(s.load.waiting),
					memoryBytes: nul(s.load.memoryBytes),
					memoryLimitBytes: s.load.memoryLimitBytes ?? null,
					// The server says it has no memory limit (null: not said).
					memoryUnlimited: s.load.memoryLimitBytes === undefined ? null : s.load.memoryLimitBytes === null,
				}
				: null,
			lastError: nul(s.lastError),
			answersInconsistent: s.answersInconsistent,
			lastInconsistent: nul(s.lastInconsistent),
			log: s.logLabel ? {path: s.logLabel, state: nul(s.logState), linesParsed: s.linesParsed, linesUnparsed: s.linesUnparsed, linesInconsistent: s.linesInconsistent} : null,
			// null where the log showed requests only as access lines: how many it served is not known (0 would say none came)
			requestsSeen: requestsWithoutFigures(s) > 0 ? null : s.requestsSeen,
			// generation requests (a POST to a generation route) its access lines showed, since start
			requestsInAccessLines: s.generationCalls ?? 0,
			requestsByModel: {...s.requestsByModel},
		})),
		models: figures.map(f => modelJson(f, table)),
		requests: servers.flatMap(s => s.requests.filter(r => r.done).map(r => requestJson(r, s))).sort((a, b) => codeUnitOrder(a.time ?? '', b.time ?? '')),
		sessions: agent.sessions.map(sessionJson),
		// Every session's findings (issue 28), newest first: turns are 1-based within the session.
		findings: findingEntries(state, agent).map(e => ({time: new Date(e.time).toISOString(), server: e.serverId, model: e.model === '--' ? null : e.model, kind: e.kind, evidence: sanitize(e.evidence), fix: e.fix, turns: [...e.turns]})),
		// Finished requests of the log's backlog whose time is unknown: in no session.
		sessionsWithoutTime: agent.withoutTime,
		residency: figures.map(f => ({server: f.serverId, model: nul(f.model), gpuResidency: round(f.gpuResidency, 4), processor: nul(f.processor)})),
		gpu: sys.gpus.map(g => ({
			...g,
			busyPct: round(g.utilizationPct, 1),
			memoryInUseBytes: nul(g.memoryInUseBytes),
			// Apple silicon: the wired-memory limit in force (mac.wiredLimitSource says how it is known)
			wiredLimitBytes: g.unified === true ? nul(mac?.limit?.bytes) : null,
			source: nul(g.source),
		})),
		mac: macJson(mac, sys.mac),
		contention: {
			verdict: nul(sys.contention.verdict),
			active: sys.contention.active,
			hot: sys.contention.hot,
			engines: sys.contention.engines,
			gpuUsers: sys.contention.gpuUsers,
			swapUsedBytes: nul(sys.contention.swapUsedBytes),
			memoryPressure: nul(sys.contention.memoryPressure),
			power: nul(sys.contention.power),
		},
		self: {cpuPct: round(sys.self.cpuPct, 1), rssBytes: nul(sys.self.rssBytes), processScanMs: nul(sys.self.processScanMs), processEveryMs: nul(sys.self.processEveryMs)},
		probe: {
			last: nul(state.probe.results.at(-1)),
			lastError: nul(state.probe.lastError),
		},
		notices: state.notices.map(n => ({time: new Date(n.t).toISOString(), level: n.level, text: n.text})),
	};
}

export type Snapshot = ReturnType<typeof toSnapshot>;
