/**
 * Live figures per model per server (DESIGN §1 keys), derived from state. The screen, the snapshot
 * and the Prometheus exporter all read these; nothing else computes them.
 */
import {residencyFromLayers, totalsOf} from './figures.js';
import {FIGURES, type FigureTable, type ModelFigures, type RowInputs} from './figure-table.js';
import type {ModelInfo, MonitorState, RequestRecord, ServerState} from '../types/state.js';
import type {ProbeResult} from '../types/probe.js';
import {engineOf} from '../engines/index.js';
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

/**
 * GPU residency of one model on one server, computed here only (every view reads it from here):
 * the engine's own numbers of the model where its descriptor reads them (`modelMemory`: Ollama's
 * `size_vram / size`, PROCESSOR as `ollama ps` prints it), MLX and unified-memory engines 100 %,
 * else the `offloaded N/M layers` line of that model's own load.
 */
export function residencyOf(server: ServerState, model: ModelInfo | undefined): {gpuResidency?: number; processor?: string} {
	const own = model === undefined ? undefined : engineOf(server.engine).modelMemory?.residency(model);
	if (model?.gpuResidency !== undefined || model?.processor !== undefined) {
		return {gpuResidency: model.gpuResidency ?? own?.gpuResidency, processor: model.processor ?? own?.processor};
	}
	if (own?.gpuResidency !== undefined) return {gpuResidency: own.gpuResidency, processor: own.processor};
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

/**
 * The generation routes of the engines' HTTP servers: OpenAI's chat and text completions and
 * Responses (vLLM, SGLang, llama-server, Ollama, mlx_lm, LM Studio), Anthropic's messages
 * (llama-server, vLLM, Ollama), llama-server's own `/completion` and `/infill`, Ollama's
 * `/api/chat` and `/api/generate`, SGLang's `/generate`. Not models, embeddings, tokenize, health.
 */
const GENERATION_PATHS: ReadonlySet<string> = new Set(['/v1/chat/completions', '/chat/completions', '/v1/completions', '/completions', '/completion', '/infill', '/v1/responses', '/v1/messages', '/api/chat', '/api/generate', '/generate']);

/** An access line's request asked for a generation: a POST to a generation route (its query left aside). */
export function isGenerationCall(method: string, path: string): boolean {
	if (method !== 'POST') return false;
	const q = path.indexOf('?');
	const bare = q < 0 ? path : path.slice(0, q);
	return GENERATION_PATHS.has(bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare);
}

/**
 * Generation requests a server's access lines showed while its log gave none with figures: the
 * log tells that requests were served (vLLM, SGLang without `--log-requests`, Ollama's Go runner,
 * mlx_lm at its default level), not what they were. Then how many requests it served with figures
 * is not known (the REQUESTS count is `--`, JSON's `requestsSeen` null): 0 would say none came.
 * 0 where the log gave a request of its own (counted, finished or running) or showed none.
 */
export function requestsWithoutFigures(server: Pick<ServerState, 'requestsSeen' | 'requests' | 'generationCalls'>): number {
	const calls = server.generationCalls ?? 0;
	return calls > 0 && server.requestsSeen === 0 && server.requests.length === 0 ? calls : 0;
}

/** A finished request with figures of its own (a failed or cancelled one has none). */
const carriesFigures = (r: RequestRecord): boolean => r.done && r.outcome === undefined;

/** The rows of one server: its listed models, else the models its requests are attributed to, else one row. */
function rowsOf(server: ServerState): {model?: ModelInfo; requests: RequestRecord[]}[] {
	// Failed and cancelled requests carry no figures of their own (they stay in the requests table).
	const done = server.requests.filter(carriesFigures);
	if (server.models.length > 0) {
		const only = server.models.length === 1 && engineOf(server.engine).oneModel === true;
		return server.models.map(m => ({model: m, requests: done.filter(r => (only ? true : r.attribution?.model === m.name))}));
	}
	// loops, not closures made anew for each frame (issue 32: V8 compiled those again and again)
	const seen = new Set<string>();
	for (const r of done) seen.add(modelLabel(r, server));
	const names: string[] = [];
	for (const n of seen) if (n !== UNKNOWN_MODEL && n !== '--') names.push(n);
	if (names.length > 1 || (names.length === 1 && engineOf(server.engine).oneModel !== true)) {
		return names.map(name => {
			const own = done.filter(r => modelLabel(r, server) === name);
			// The runner its requests ran on (Ollama's MLX runner: unified memory, all on the GPU).
			const runners = new Set(own.map(r => r.runner));
			const runner = runners.size === 1 ? [...runners][0] : undefined;
			return {model: runner === undefined ? {name} : {name, runner}, requests: own};
		});
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
		const timed: RequestRecord[] = [];
		const recent: RequestRecord[] = [];
		for (const r of requests) {
			if (r.earlier) continue;
			timed.push(r);
			if (state.now - r.lastSeen <= FIGURE_WINDOW_MS) recent.push(r);
		}
		const live = recent.slice(-FIGURE_WINDOW_REQUESTS);
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

/**
 * Every figure of one row, from its set only (DESIGN §1): each record of the figure table
 * (model/figure-table.ts) by its formula for this kind of set, else its row value, else, once the
 * rest of the row is known, derived from it.
 */
export function figuresOf(state: MonitorState, set: FigureSet, table: FigureTable = FIGURES): ModelFigures {
	const server = state.servers[set.serverId]!;
	const model = set.model;
	const row: RowInputs = {
		set,
		server,
		model,
		bytes: model ? server.modelBytes[model.name] : Object.values(server.modelBytes)[0],
		bandwidth: state.bandwidth,
		residency: residencyOf(server, model),
	};
	const counted = set.kind === 'requests' ? set.requests.map(r => ({r, t: totalsOf(r)})) : [];
	// A sum over N running requests is no one request's speed: per-sequence figures only at N = 1.
	const single = set.kind === 'interval' && set.interval.running === 1;
	const out: Record<string, unknown> = {serverId: set.serverId, engine: server.engine, model: model?.name, runner: model?.runner};
	const later: (typeof table)[number][] = [];
	for (const rec of table) {
		let v: unknown;
		if (set.kind === 'requests' && rec.of.requests) v = rec.of.requests(counted);
		else if (set.kind === 'probe' && rec.of.probe) v = rec.of.probe(set.probe);
		else if (set.kind === 'interval' && rec.of.interval) v = rec.overBatch || single ? rec.of.interval(set.interval) : undefined;
		else if (rec.of.row) v = rec.of.row(row);
		else if (rec.of.derived) later.push(rec);
		// Every figure of the table is a key of the row, unknown ones undefined.
		out[rec.key] = v;
	}
	for (const rec of later) out[rec.key] = rec.of.derived?.(out as never);
	return out as unknown as ModelFigures;
}

export function deriveServer(state: MonitorState, serverId: string, table: FigureTable = FIGURES): ModelFigures[] {
	return figureSets(state, serverId).map(set => figuresOf(state, set, table));
}

export function deriveModels(state: MonitorState, table: FigureTable = FIGURES): ModelFigures[] {
	return state.order.flatMap(id => deriveServer(state, id, table));
}

/** How late a request's log lines may arrive after its stream ended. */
export const LOG_LAG_MS = 2500;
const CLOCK_SLACK_MS = 5;

/** The log's figures of one request, or why there are none. */
export type ProbeLogMatch =
	| {readonly key: string; readonly decoded?: number; readonly accepted?: number; readonly drafted?: number; readonly passes?: number; readonly cached?: number; readonly reason?: undefined}
	| {readonly reason: string};

/**
 * The finished requests of `server` that may be a probe's whose answer is `q`: in its time window
 * (the first log line after the request was sent, the last before the stream ended plus the log's
 * lag) with its generated tokens, and its prompt tokens where both say; never one already taken for
 * another of infertop's answers (the what-if measurement's concurrency pair has two answers with the
 * same counts: the second, its own line not read yet, took the first's request, which then counted
 * twice, and its own stayed in the log as an agent's turn).
 */
export function probeCandidates(
	server: ServerState,
	q: {readonly fromMs: number; readonly toMs: number; readonly completionTokens?: number; readonly promptTokens?: number},
	lagMs = LOG_LAG_MS,
): RequestRecord[] {
	const n = q.completionTokens;
	if (n === undefined) return [];
	return server.requests.filter(r => {
		if (!r.done || r.backlog || r.attribution?.by === 'probe' || r.firstSeen < q.fromMs - CLOCK_SLACK_MS || r.lastSeen > q.toMs + lagMs) return false;
		const counts = [r.generatedTokens, r.decodedTokens, r.decodedTokens === undefined ? undefined : r.decodedTokens + 1].filter(x => x !== undefined);
		if (!counts.includes(n)) return false;
		const prompt = totalsOf(r).prompt;
		return q.promptTokens === undefined || prompt === undefined || prompt === q.promptTokens;
	});
}

/**
 * The probe's own request in a server's log (issue 11 item 2): the finished request whose counts
 * match the probe's answer (generated tokens = the API's eval_count / completion tokens; prompt
 * tokens where both say), inside the probe's time window, not already taken for another of
 * infertop's answers. Exactly one, or a reason: never the sum of whatever finished at the same moment.
 */
export function matchProbeRequest(
	state: MonitorState,
	serverId: string,
	q: {readonly fromMs: number; readonly toMs: number; readonly completionTokens?: number; readonly promptTokens?: number},
	lagMs = LOG_LAG_MS,
): ProbeLogMatch | undefined {
	const server = state.servers[serverId];
	if (!server) return undefined;
	if (q.completionTokens === undefined) return {reason: 'no token count in the answer to match'};
	const candidates = probeCandidates(server, q, lagMs);
	if (candidates.length === 0) return {reason: 'no log line for this request'};
	if (candidates.length > 1) return {reason: `${candidates.length} candidates`};
	const r = candidates[0]!;
	return {key: r.key, decoded: totalsOf(r).decoded, accepted: r.accepted, drafted: r.drafted, passes: r.passes, cached: r.cachedTokens};
}
