/**
 * Live figures per model per server (DESIGN §1 keys), derived from state. The screen, the snapshot
 * and the Prometheus exporter all read these; nothing else computes them.
 */
import {
	acceptance,
	ceilingTps,
	effectiveBandwidthGBs,
	msPerPass,
	ollamaProcessor,
	passesPerSec,
	pctOfCeiling,
	rate,
	residencyFromLayers,
} from './figures.js';
import type {ModelFigures, ModelInfo, MonitorState, RequestRecord, ServerState} from '../types/monitor.js';
import {engineOf} from '../engines/index.js';

/** Figures average the finished requests of the last minute (at most 10); older ones stay until replaced. */
export const FIGURE_WINDOW_MS = 60_000;
export const FIGURE_WINDOW_REQUESTS = 10;


const sameModel = (requestModel: string, name: string) => requestModel === name || name.startsWith(`${requestModel}:`) || requestModel.endsWith(`/${name}`);

/**
 * Which listed model a request belongs to: by name where the log names a listed model; else by
 * runner (Ollama logs name a GGUF model by its blob path, which /api/ps does not list).
 */
function matches(r: RequestRecord, model: ModelInfo | undefined, all: readonly (ModelInfo | undefined)[]): boolean {
	if (!model || all.length === 1) return true;
	if (r.model !== undefined && all.some(m => m && sameModel(r.model!, m.name))) return sameModel(r.model, model.name);
	if (r.runner !== undefined && model.runner !== undefined) return r.runner === model.runner;
	return false;
}

/** Sum of counts over the window: tokens per pass = Σdecoded ÷ Σpasses (DESIGN §1 counts rule). */
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
	}
	const last = requests.at(-1);
	return {
		count: requests.length,
		decodeTps: decodeMs > 0 ? rate(decodeTokensTimed, decodeMs) : undefined,
		reportedTps: last?.engineTps,
		prefillTps: prefillMs > 0 ? rate(prefillTokens, prefillMs) : undefined,
		tokensPerPass: passesKnown > 0 && passes > 0 ? decoded / passes : undefined,
		engineTokensPerPass: last?.engineMeanLen,
		acceptance: specKnown > 0 ? acceptance(accepted, drafted) : undefined,
		passes: passesKnown > 0 ? passes : undefined,
		msPerPass: passesTimed > 0 ? msPerPass(decodeMsWithPasses, passesTimed) : undefined,
		cachedTokens: last?.cachedTokens,
		promptTokens: last?.promptTokens ?? (last?.prefillTokens !== undefined ? last.prefillTokens + (last.cachedTokens ?? 0) : undefined),
	};
}

function windowOf(requests: readonly RequestRecord[], now: number): RequestRecord[] {
	const finished = requests.filter(r => r.done);
	const recent = finished.filter(r => now - r.lastSeen <= FIGURE_WINDOW_MS).slice(-FIGURE_WINDOW_REQUESTS);
	if (recent.length > 0) return recent;
	const last = finished.at(-1);
	return last ? [last] : [];
}

function residency(server: ServerState, model: ModelInfo | undefined): {gpuResidency?: number; processor?: string} {
	if (model?.gpuResidency !== undefined || model?.processor !== undefined) return {gpuResidency: model.gpuResidency, processor: model.processor};
	if (server.offload) {
		const r = residencyFromLayers(server.offload.layersOnGpu, server.offload.layersTotal);
		return {gpuResidency: r, processor: `${server.offload.layersOnGpu}/${server.offload.layersTotal} layers GPU`};
	}
	// A listed model that is not in memory (oMLX, LM Studio, llama-swap say so) has no residency.
	if (model?.loaded === false) return {};
	if (model?.runner === 'mlx' || engineOf(server.engine).unifiedMemory) return {gpuResidency: 1, processor: '100% GPU (unified)'};
	if (model?.sizeBytes !== undefined && model.sizeVramBytes !== undefined) return {processor: ollamaProcessor(model.sizeBytes, model.sizeVramBytes)};
	return {};
}

/**
 * The model a request ran on, as the user knows it: Ollama's log names a GGUF model by its blob
 * path, so a path is shown as the listed model of the same runner (else its file name).
 */
export function modelLabel(r: RequestRecord, server: Pick<ServerState, 'models'>): string {
	const name = r.model;
	if (name === undefined) return server.models.find(m => r.runner !== undefined && m.runner === r.runner)?.name ?? '--';
	if (!name.includes('/')) return name;
	const listed = server.models.find(m => r.runner !== undefined && m.runner === r.runner);
	return listed?.name ?? name.slice(name.lastIndexOf('/') + 1);
}

export function deriveServer(state: MonitorState, serverId: string): ModelFigures[] {
	const server = state.servers[serverId];
	if (!server) return [];
	const models: (ModelInfo | undefined)[] = server.models.length > 0 ? [...server.models] : [undefined];
	// Requests that name a model nobody listed (log-only servers) still get a row.
	if (server.models.length === 0) {
		const names = [...new Set(server.requests.map(r => r.model).filter((m): m is string => m !== undefined))];
		if (names.length > 1) models.splice(0, 1, ...names.map(name => ({name})));
	}
	const lastProbe = [...state.probe.results].reverse().find(p => p.url === server.url);
	return models.map(model => {
		const reqs = windowOf(server.requests.filter(r => matches(r, model, models)), state.now);
		const agg = aggregate(reqs);
		const useInterval = agg.count === 0 && server.interval !== undefined;
		const probeMatches = lastProbe !== undefined && (!model || !lastProbe.model || lastProbe.model === model.name);
		// Where the log gives no decode time (Ollama's MLX engine, lithos), the last wall-clocked probe does.
		const fromProbe = !useInterval && agg.decodeTps === undefined && probeMatches && lastProbe.decodeTps !== undefined;
		const decodeTps = useInterval ? server.interval?.genTps : fromProbe ? lastProbe!.decodeTps : agg.decodeTps;
		const tokensPerPass = useInterval ? server.interval?.meanAcceptLen : agg.tokensPerPass;
		const acc = useInterval ? (server.interval?.acceptRate ?? acceptance(server.interval?.accepted, server.interval?.drafted)) : agg.acceptance;
		const bytes = model ? server.modelBytes[model.name] : Object.values(server.modelBytes)[0];
		const bytesPerToken = bytes?.bytesPerToken ?? model?.bytesPerToken;
		const bytesPerTokenSource = bytes?.source ?? model?.bytesPerTokenSource;
		const bw = state.bandwidth.gbs;
		const ceiling = ceilingTps(bw, bytesPerToken);
		const pps = passesPerSec(decodeTps, tokensPerPass);
		return {
			serverId,
			engine: server.engine,
			model: model?.name,
			runner: model?.runner,
			decodeTps,
			reportedTps: agg.reportedTps,
			ttftMs: probeMatches ? lastProbe!.ttftMs : undefined,
			prefillTps: agg.prefillTps,
			tokensPerPass,
			engineTokensPerPass: agg.engineTokensPerPass,
			acceptance: acc,
			msPerPass: useInterval || fromProbe ? (pps ? 1000 / pps : undefined) : agg.msPerPass,
			passes: agg.passes,
			passesPerSec: pps,
			bytesPerToken,
			bytesPerTokenSource,
			bandwidthGBs: bw,
			bandwidthSource: state.bandwidth.source,
			ceilingTps: ceiling,
			pctOfCeiling: pctOfCeiling(decodeTps, ceiling),
			effectiveBandwidthGBs: effectiveBandwidthGBs(pps, bytesPerToken),
			...residency(server, model),
			cachedTokens: agg.cachedTokens,
			promptTokens: agg.promptTokens,
			requestCount: agg.count,
			lastRequestAt: reqs.at(-1)?.lastSeen,
			basis: useInterval ? 'interval' : fromProbe ? (agg.count > 0 ? 'log + probe' : 'probe') : agg.count > 0 ? 'log' : undefined,
		};
	});
}

export function deriveModels(state: MonitorState): ModelFigures[] {
	return state.order.flatMap(id => deriveServer(state, id));
}

/**
 * What a server's log said about the requests that finished inside a time window (ms epoch): the
 * probe asks this for its own request, since Ollama's API exposes no draft counts. Counts are
 * summed; the counts rule turns them into tokens per pass downstream.
 */
/** How late a request's log lines may arrive after its stream ended. */
export const LOG_LAG_MS = 2500;
const CLOCK_SLACK_MS = 5;

export function logCountsInWindow(
	state: MonitorState,
	serverId: string,
	fromMs: number,
	toMs: number,
): {decoded?: number; accepted?: number; drafted?: number; passes?: number; cached?: number} | undefined {
	const server = state.servers[serverId];
	if (!server) return undefined;
	// A request belongs to the window when its first log line came after the request was sent and
	// before the stream ended plus the log's lag (engines write their figures when the request
	// closes, and the tail reads them a moment later).
	const inWindow = server.requests.filter(r => r.done && r.firstSeen >= fromMs - CLOCK_SLACK_MS && r.firstSeen <= toMs + LOG_LAG_MS);
	if (inWindow.length === 0) return undefined;
	const sum = (pick: (r: RequestRecord) => number | undefined) => {
		let total = 0;
		for (const r of inWindow) {
			const v = pick(r);
			if (v === undefined) return undefined;
			total += v;
		}
		return total;
	};
	return {
		decoded: sum(r => r.decodedTokens ?? r.generatedTokens),
		accepted: sum(r => r.accepted),
		drafted: sum(r => r.drafted),
		passes: sum(r => r.passes),
		cached: sum(r => r.cachedTokens),
	};
}
