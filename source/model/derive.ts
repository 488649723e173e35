/**
 * Live figures per model per server (DESIGN §1 keys), derived from state. The screen, the snapshot
 * and the Prometheus exporter all read these; nothing else computes them.
 */
import {
	acceptance,
	ceilingTps,
	effectiveBandwidthGBs,
	msPerPass,
	passesPerSec,
	pctOfCeiling,
	rate,
	residencyFromLayers,
} from './figures.js';
import type {BatchFigures, ModelFigures} from '../types/figures.js';
import type {ModelInfo, MonitorState, RequestRecord, ServerState} from '../types/state.js';
import type {ProbeResult} from '../types/probe.js';
import {engineOf} from '../engines/index.js';
import {ollamaProcessor} from '../engines/ollama.js';
import {sameModel, UNKNOWN_MODEL} from './attribution.js';

/** Figures average the finished requests of the last minute (at most 10); older ones stay until replaced. */
export const FIGURE_WINDOW_MS = 60_000;
export const FIGURE_WINDOW_REQUESTS = 10;

export {sameModel} from './attribution.js';

/**
 * The one set of requests a PASSES row (and its snapshot / metrics figures) is made of. Every
 * figure of a row comes from its set, and the set names itself (`label`): figures are a function
 * of a set, not a blend of whatever is newest.
 */
export type FigureSet =
	| {readonly kind: 'requests'; readonly serverId: string; readonly model?: ModelInfo; readonly requests: readonly RequestRecord[]; readonly label: string; readonly live?: boolean}
	| {readonly kind: 'probe'; readonly serverId: string; readonly model?: ModelInfo; readonly probe: ProbeResult; readonly label: string; readonly live?: boolean}
	| {readonly kind: 'interval'; readonly serverId: string; readonly model?: ModelInfo; readonly interval: NonNullable<ServerState['interval']>; readonly label: string}
	| {readonly kind: 'none'; readonly serverId: string; readonly model?: ModelInfo; readonly label?: undefined};

const pad2 = (n: number) => String(n).padStart(2, '0');
/** Local wall clock, as the screen prints it. */
export function hhmm(t: number, seconds = false): string {
	const d = new Date(t);
	return `${pad2(d.getHours())}:${pad2(d.getMinutes())}${seconds ? `:${pad2(d.getSeconds())}` : ''}`;
}

function age(ms: number): string {
	const s = Math.max(0, Math.round(ms / 1000));
	return s < 60 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** Sum of counts over the set: tokens per pass = Σdecoded ÷ Σpasses (DESIGN §1 counts rule). */
export function aggregate(requests: readonly RequestRecord[]): Omit<ModelFigures, 'serverId' | 'engine' | 'requestCount'> & {count: number} {
	let decoded = 0;
	let passes = 0;
	let passesKnown = 0;
	let drafted = 0;
	let accepted = 0;
	let specKnown = 0;
	let decodeTokensTimed = 0;
	let decodeMs = 0;
	let passesTimed = 0;
	let decodeMsWithPasses = 0;
	let prefillTokens = 0;
	let prefillMs = 0;
	// The engine's own figures over the same set: known only where every request of the set has one.
	let engineTokens = 0;
	let engineMs = 0;
	let engineTpsAll = requests.length > 0;
	let engineLenPasses = 0;
	let engineLenTokens = 0;
	let engineLenAll = requests.length > 0;
	let cached = 0;
	let prompt = 0;
	let cacheAll = requests.length > 0;
	for (const r of requests) {
		const d = r.decodedTokens ?? r.generatedTokens;
		const p = r.passes ?? (d !== undefined ? (r.accepted !== undefined ? d - r.accepted : r.drafted === undefined ? d : undefined) : undefined);
		if (d !== undefined && p !== undefined && p > 0) {
			decoded += d;
			passes += p;
			passesKnown++;
		}
		if (r.drafted !== undefined && r.accepted !== undefined) {
			drafted += r.drafted;
			accepted += r.accepted;
			specKnown++;
		}
		if (d !== undefined && r.decodeMs !== undefined && r.decodeMs > 0) {
			decodeTokensTimed += d;
			decodeMs += r.decodeMs;
			if (p !== undefined && p > 0) {
				passesTimed += p;
				decodeMsWithPasses += r.decodeMs;
			}
		}
		const uncached = r.prefillTokens ?? (r.promptTokens !== undefined ? r.promptTokens - (r.cachedTokens ?? 0) : undefined);
		if (uncached !== undefined && uncached > 0 && r.prefillMs !== undefined && r.prefillMs > 0) {
			prefillTokens += uncached;
			prefillMs += r.prefillMs;
		}
		const n = r.generatedTokens ?? d;
		if (r.engineTps !== undefined && r.engineTps > 0 && n !== undefined && n > 0) {
			engineTokens += n;
			engineMs += (n * 1000) / r.engineTps;
		} else engineTpsAll = false;
		if (r.engineMeanLen !== undefined && r.engineMeanLen > 0 && p !== undefined && p > 0) {
			engineLenPasses += p;
			engineLenTokens += r.engineMeanLen * p;
		} else engineLenAll = false;
		const promptAll = r.promptTokens ?? (r.prefillTokens !== undefined && r.cachedTokens !== undefined ? r.prefillTokens + r.cachedTokens : undefined);
		if (r.cachedTokens !== undefined && promptAll !== undefined) {
			cached += r.cachedTokens;
			prompt += promptAll;
		} else cacheAll = false;
	}
	return {
		count: requests.length,
		decodeTps: decodeMs > 0 ? rate(decodeTokensTimed, decodeMs) : undefined,
		reportedTps: engineTpsAll && engineMs > 0 ? rate(engineTokens, engineMs) : undefined,
		prefillTps: prefillMs > 0 ? rate(prefillTokens, prefillMs) : undefined,
		tokensPerPass: passesKnown > 0 && passes > 0 ? decoded / passes : undefined,
		engineTokensPerPass: engineLenAll && engineLenPasses > 0 ? engineLenTokens / engineLenPasses : undefined,
		acceptance: specKnown > 0 ? acceptance(accepted, drafted) : undefined,
		passes: passesKnown > 0 ? passes : undefined,
		msPerPass: passesTimed > 0 ? msPerPass(decodeMsWithPasses, passesTimed) : undefined,
		cachedTokens: cacheAll ? cached : undefined,
		promptTokens: cacheAll ? prompt : undefined,
		// llama.cpp at default verbosity: the prompt worked out from n_tokens at stop is an estimate (~).
		...(cacheAll && requests.some(r => r.promptEstimated === true) ? {promptEstimated: true} : {}),
	};
}

/**
 * GPU residency of one model on one server, computed here only (every view reads it from here):
 * Ollama's `size_vram / size` (PROCESSOR as `ollama ps` prints it), MLX and unified-memory engines
 * 100 %, else the `offloaded N/M layers` line of that model's own load.
 */
export function residencyOf(server: ServerState, model: ModelInfo | undefined): {gpuResidency?: number; processor?: string} {
	if (model?.gpuResidency !== undefined || model?.processor !== undefined) {
		const r = model.gpuResidency ?? (model.sizeBytes !== undefined && model.sizeVramBytes !== undefined && model.sizeBytes > 0 && model.sizeVramBytes <= model.sizeBytes ? model.sizeVramBytes / model.sizeBytes : undefined);
		return {gpuResidency: r, processor: model.processor ?? ollamaProcessor(model.sizeBytes, model.sizeVramBytes)};
	}
	if (model?.sizeBytes !== undefined && model.sizeVramBytes !== undefined && model.sizeBytes > 0 && model.sizeVramBytes <= model.sizeBytes) {
		return {gpuResidency: model.sizeVramBytes / model.sizeBytes, processor: ollamaProcessor(model.sizeBytes, model.sizeVramBytes)};
	}
	// A listed model that is not in memory (oMLX, LM Studio, llama-swap say so) has no residency.
	if (model?.loaded === false) return {};
	if (model?.runner === 'mlx' || engineOf(server.engine).unifiedMemory) return {gpuResidency: 1, processor: '100% GPU (unified)'};
	const offload = offloadOf(server, model);
	if (offload) {
		const r = residencyFromLayers(offload.layersOnGpu, offload.layersTotal);
		return {gpuResidency: r, processor: `${offload.layersOnGpu}/${offload.layersTotal} layers GPU`};
	}
	return {};
}

/** The offload line of this model's own load: by name, or the only one where one model loads. */
function offloadOf(server: ServerState, model: ModelInfo | undefined): ServerState['offload'] {
	const keys = Object.keys(server.offloads);
	if (model) {
		const named = keys.find(k => sameModel(k, model.name));
		if (named) return server.offloads[named];
	}
	const ggufModels = server.models.filter(m => m.runner !== 'mlx');
	// One model (or one GGUF model beside MLX ones) and one load: that load is its.
	if (keys.length <= 1 && ggufModels.length <= 1 && (!model || model.runner !== 'mlx')) return server.offload;
	return undefined;
}

/**
 * The model a request ran on, as the user knows it: its attribution, else `unknown` where the
 * server lists models (no evidence), else what the log names (a blob path as its file name).
 */
export function modelLabel(r: RequestRecord, server: Pick<ServerState, 'models' | 'engine'>): string {
	if (r.attribution) return r.attribution.model;
	if (server.models.length === 0 && r.model !== undefined) return r.model.slice(Math.max(r.model.lastIndexOf('/'), r.model.lastIndexOf('\\')) + 1);
	if (server.models.length === 0 && engineOf(server.engine).oneModel === true) return '--';
	return UNKNOWN_MODEL;
}

/** The rows of one server: its listed models, else the models its requests are attributed to, else one row. */
function rowsOf(server: ServerState): {model?: ModelInfo; requests: RequestRecord[]}[] {
	// Failed and cancelled requests carry no figures of their own (they stay in the requests table).
	const done = server.requests.filter(r => r.done && r.outcome === undefined);
	if (server.models.length > 0) {
		const only = server.models.length === 1 && engineOf(server.engine).oneModel === true;
		return server.models.map(m => ({model: m, requests: done.filter(r => (only ? true : r.attribution?.model === m.name))}));
	}
	const names = [...new Set(done.map(r => modelLabel(r, server)))].filter(n => n !== UNKNOWN_MODEL && n !== '--');
	if (names.length > 1 || (names.length === 1 && engineOf(server.engine).oneModel !== true)) {
		return names.map(name => ({model: {name}, requests: done.filter(r => modelLabel(r, server) === name)}));
	}
	// One model per server (llama-server, vLLM…), named or not: every request is of it.
	if (engineOf(server.engine).oneModel === true) return [{model: names[0] === undefined ? undefined : {name: names[0]}, requests: done}];
	return [{model: undefined, requests: []}];
}

const probeOf = (state: MonitorState, server: ServerState, model: ModelInfo | undefined, rowCount: number): ProbeResult | undefined =>
	[...state.probe.results].reverse().find(p => p.url === server.url && (model === undefined ? rowCount === 1 : p.model === undefined ? rowCount === 1 : sameModel(p.model, model.name)));

/** The set each row of a server is made of (one per row). */
export function figureSets(state: MonitorState, serverId: string): FigureSet[] {
	const server = state.servers[serverId];
	if (!server) return [];
	const rows = rowsOf(server);
	return rows.map(({model, requests}): FigureSet => {
		const name = model?.name ?? 'this server';
		const timed = requests.filter(r => !r.earlier);
		const live = timed.filter(r => state.now - r.lastSeen <= FIGURE_WINDOW_MS).slice(-FIGURE_WINDOW_REQUESTS);
		const probe = probeOf(state, server, model, rows.length);
		const newest = live.at(-1);
		// The probe's own request reaches the log a moment after its answer: the probe is the newer news.
		if (probe && (!newest || probe.t >= newest.lastSeen - LOG_LAG_MS)) {
			return {kind: 'probe', serverId, model, probe, label: `probe ${hhmm(probe.t, true)}`, live: state.now - probe.t <= FIGURE_WINDOW_MS};
		}
		if (live.length > 0) {
			const fromLog = live.every(r => r.backlog);
			const label = fromLog
				? `from the log, ${hhmm(newest!.lastSeen)}`
				: `last ${live.length === 1 ? 'request' : `${live.length} requests`} of ${name}, ${age(state.now - live[0]!.lastSeen)}`;
			return {kind: 'requests', serverId, model, requests: live, label, live: true};
		}
		if (server.interval !== undefined && (rows.length === 1)) {
			const running = server.interval.running;
			return {kind: 'interval', serverId, model, interval: server.interval, label: `interval ${hhmm(server.interval.t, true)}${running === undefined ? '' : `, ${running} running`}`};
		}
		// Nothing recent: the newest request (and those within a minute of it), said as what it is.
		const last = timed.at(-1);
		if (last) {
			const set = timed.filter(r => last.lastSeen - r.lastSeen <= FIGURE_WINDOW_MS).slice(-FIGURE_WINDOW_REQUESTS);
			const label = last.backlog ? `from the log, ${hhmm(last.lastSeen)}` : `last ${set.length === 1 ? 'request' : `${set.length} requests`} of ${name}, ${hhmm(last.lastSeen)}`;
			return {kind: 'requests', serverId, model, requests: set, label};
		}
		const earlier = requests.at(-1);
		if (earlier) return {kind: 'requests', serverId, model, requests: [earlier], label: 'from the log, earlier'};
		if (probe) return {kind: 'probe', serverId, model, probe, label: `probe ${hhmm(probe.t, true)}`};
		return {kind: 'none', serverId, model};
	});
}

/** Every figure of one row, from its set only (DESIGN §1). */
export function figuresOf(state: MonitorState, set: FigureSet): ModelFigures {
	const server = state.servers[set.serverId]!;
	const model = set.model;
	const bytes = model ? server.modelBytes[model.name] : Object.values(server.modelBytes)[0];
	const bytesPerToken = bytes?.bytesPerToken ?? model?.bytesPerToken;
	const bytesPerTokenSource = bytes?.source ?? model?.bytesPerTokenSource;
	const bw = state.bandwidth.gbs;
	const ceiling = ceilingTps(bw, bytesPerToken);
	const common = {
		serverId: set.serverId,
		engine: server.engine,
		model: model?.name,
		runner: model?.runner,
		bytesPerToken,
		bytesPerTokenSource,
		bandwidthGBs: bw,
		bandwidthSource: state.bandwidth.source,
		ceilingTps: ceiling,
		...residencyOf(server, model),
		batch: batchFigures(server),
		set: set.label,
		current: set.kind === 'requests' || set.kind === 'probe' ? set.live === true : undefined,
	};
	const perPass = (decodeTps: number | undefined, tpp: number | undefined) => {
		const pps = passesPerSec(decodeTps, tpp);
		return {passesPerSec: pps, msPerPass: pps ? 1000 / pps : undefined, pctOfCeiling: pctOfCeiling(decodeTps, ceiling), effectiveBandwidthGBs: effectiveBandwidthGBs(pps, bytesPerToken)};
	};
	switch (set.kind) {
		case 'none':
			return {...common, requestCount: 0};
		case 'probe': {
			const p = set.probe;
			const pp = perPass(p.decodeTps, p.tokensPerPass);
			return {
				...common,
				decodeTps: p.decodeTps,
				reportedTps: p.reportedTps,
				ttftMs: p.ttftMs,
				prefillTps: p.prefillTps,
				tokensPerPass: p.tokensPerPass,
				acceptance: p.acceptance,
				passes: p.passes,
				...pp,
				cachedTokens: p.cachedTokens,
				promptTokens: p.promptTokens,
				requestCount: 1,
				lastRequestAt: p.t,
				basis: 'probe',
			};
		}
		case 'interval': {
			const iv = set.interval;
			// A sum over N running requests is no one request's speed: per-sequence figures only at N = 1.
			const single = iv.running === 1;
			const decodeTps = single ? iv.genTps : undefined;
			const pp = perPass(decodeTps, iv.meanAcceptLen);
			return {
				...common,
				decodeTps,
				aggregateTps: iv.genTps,
				running: iv.running,
				prefillTps: single ? iv.promptTps : undefined,
				tokensPerPass: iv.meanAcceptLen,
				acceptance: iv.acceptRate ?? acceptance(iv.accepted, iv.drafted),
				...pp,
				requestCount: 0,
				lastRequestAt: iv.t,
				basis: 'interval',
			};
		}
		case 'requests': {
			const agg = aggregate(set.requests);
			const pp = perPass(agg.decodeTps, agg.tokensPerPass);
			return {
				...common,
				decodeTps: agg.decodeTps,
				reportedTps: agg.reportedTps,
				prefillTps: agg.prefillTps,
				tokensPerPass: agg.tokensPerPass,
				engineTokensPerPass: agg.engineTokensPerPass,
				acceptance: agg.acceptance,
				passes: agg.passes,
				...pp,
				// The requests' own ms per pass (their decode time over their passes), not one from the mean rate.
				msPerPass: agg.msPerPass,
				cachedTokens: agg.cachedTokens,
				promptTokens: agg.promptTokens,
				promptEstimated: agg.promptEstimated,
				requestCount: agg.count,
				lastRequestAt: set.requests.at(-1)?.lastSeen,
				basis: 'log',
			};
		}
	}
}

/** The server's windowed batch figures (vLLM/SGLang), undefined keys dropped; undefined when it logs none. */
export function batchFigures(server: ServerState): BatchFigures | undefined {
	const iv = server.interval;
	if (!iv) return undefined;
	const out: Record<string, number> = {};
	for (const k of ['genTps', 'promptTps', 'running', 'waiting', 'kvUsage', 'prefixHitRate', 'preemptions', 'preemptedTotal', 'cachedTokens', 'newTokens'] as const) {
		const v = iv[k];
		if (v !== undefined && Number.isFinite(v) && v >= 0) out[k] = v;
	}
	return Object.keys(out).length > 0 ? out : undefined;
}

export function deriveServer(state: MonitorState, serverId: string): ModelFigures[] {
	return figureSets(state, serverId).map(set => figuresOf(state, set));
}

export function deriveModels(state: MonitorState): ModelFigures[] {
	return state.order.flatMap(id => deriveServer(state, id));
}

/** How late a request's log lines may arrive after its stream ended. */
export const LOG_LAG_MS = 2500;
const CLOCK_SLACK_MS = 5;

/** The log's figures of one request, or why there are none. */
export type ProbeLogMatch =
	| {readonly key: string; readonly decoded?: number; readonly accepted?: number; readonly drafted?: number; readonly passes?: number; readonly cached?: number; readonly reason?: undefined}
	| {readonly reason: string};

/**
 * The probe's own request in a server's log (issue 11 item 2): the finished request whose counts
 * match the probe's answer (generated tokens = the API's eval_count / completion tokens; prompt
 * tokens where both say), inside the probe's time window. Exactly one, or a reason: never the sum
 * of whatever finished at the same moment.
 */
export function matchProbeRequest(
	state: MonitorState,
	serverId: string,
	q: {readonly fromMs: number; readonly toMs: number; readonly completionTokens?: number; readonly promptTokens?: number},
): ProbeLogMatch | undefined {
	const server = state.servers[serverId];
	if (!server) return undefined;
	// Its first log line comes after the request was sent, its last before the stream ended plus the log's lag.
	const inWindow = server.requests.filter(r => r.done && !r.backlog && r.firstSeen >= q.fromMs - CLOCK_SLACK_MS && r.lastSeen <= q.toMs + LOG_LAG_MS);
	const n = q.completionTokens;
	if (n === undefined) return {reason: 'no token count in the answer to match'};
	const candidates = inWindow.filter(r => {
		const counts = [r.generatedTokens, r.decodedTokens, r.decodedTokens === undefined ? undefined : r.decodedTokens + 1].filter(x => x !== undefined);
		if (!counts.includes(n)) return false;
		const prompt = r.promptTokens ?? (r.prefillTokens !== undefined && r.cachedTokens !== undefined ? r.prefillTokens + r.cachedTokens : undefined);
		return q.promptTokens === undefined || prompt === undefined || prompt === q.promptTokens;
	});
	if (candidates.length === 0) return {reason: 'no log line for this request'};
	if (candidates.length > 1) return {reason: `${candidates.length} candidates`};
	const r = candidates[0]!;
	return {key: r.key, decoded: r.decodedTokens ?? r.generatedTokens, accepted: r.accepted, drafted: r.drafted, passes: r.passes, cached: r.cachedTokens};
}
