/**
 * The ENGINES pane's rows as data: one row per model per server, as the pane, the key router and the
 * selectors read them. Pure; no components.
 */
import {residencyOf} from '../../model/derive.js';
import {engineName, engineOf, UNKNOWN_ENGINE} from '../../engines/index.js';
import type {ModelInfo, ServerLifecycle, ServerState} from '../../types/state.js';
import {batchFigures} from '../../model/figure-table.js';
import {batchSummary, DASH, grouped, shortUrl, until} from '../format.js';

export interface EngineRow {
	readonly serverId: string;
	readonly first: boolean;
	readonly state: ServerLifecycle;
	readonly engine: string;
	readonly url: string;
	readonly model: string;
	readonly processor: string;
	/** Share of the model on the CPU (0..1) when partly on CPU. */
	readonly cpuShare?: number;
	readonly context: string;
	readonly until: string;
	readonly demo: boolean;
	/** vLLM/SGLang windowed batch figures (first row of a server only); absent when the engine logs none. */
	readonly batch?: string;
	/** A line about the server rather than a model (e.g. how many models it listed). */
	readonly note?: string;
}

/** PROCESSOR text and the CPU share when partly on CPU, as derive computes residency (one place). */
export function residencyText(server: ServerState, model: ModelInfo | undefined): {text: string; cpuShare?: number} {
	const {gpuResidency: residency, processor} = residencyOf(server, model);
	const cpuShare = residency !== undefined && residency < 0.995 ? 1 - residency : undefined;
	return {text: processor ?? DASH, cpuShare};
}

function contextOf(server: ServerState, model: ModelInfo | undefined): string {
	const slots = model?.slots ?? server.context?.slots;
	const perSlot = model?.contextPerSlot ?? server.context?.nCtxPerSlot;
	if (slots !== undefined && perSlot !== undefined && (engineOf(server.engine).slotContext === true || slots > 1)) return `${slots}×${perSlot}`;
	const ctx = model?.contextLength ?? server.context?.nCtx;
	return ctx === undefined ? DASH : String(ctx);
}

/** What is wrong with the server's log, if anything (missing, unreadable); nothing while it is followed. */
function logProblem(s: ServerState): string | undefined {
	return s.logState !== undefined && !s.logState.startsWith('following') && !s.logState.startsWith('replay of') ? s.logState : undefined;
}

/** One row per model per server (a server with no model yet still gets its row). Pure. */
export function engineRows(servers: Readonly<Record<string, ServerState>>, order: readonly string[], now: number): EngineRow[] {
	const rows: EngineRow[] = [];
	for (const id of order) {
		const s = servers[id];
		if (!s) continue;
		const models: (ModelInfo | undefined)[] = s.models.length > 0 ? [...s.models] : [undefined];
		models.forEach((m, i) => {
			const res = residencyText(s, m);
			rows.push({
				serverId: id,
				first: i === 0,
				state: s.state,
				// A named server that never answered as an engine: which engine it is is unknown.
				engine: s.state === 'down' && s.engine === UNKNOWN_ENGINE ? DASH : engineName(s),
				url: s.url ? shortUrl(s.url) : (s.logLabel ?? DASH),
				model: m?.name ?? DASH,
				processor: res.text,
				cpuShare: res.cpuShare,
				context: contextOf(s, m),
				until:
					(s.state === 'stale' || s.state === 'down') && s.lastError
						? `${s.lastError}${logProblem(s) ? ` · log: ${logProblem(s)}` : ''}`
						: s.state === 'log-only' && logProblem(s)
							? logProblem(s)!
							: m?.expiresAt !== undefined
							? until(m.expiresAt, now)
							: m?.loaded === false
								? 'not loaded'
								: m?.pinned === true
									? 'pinned'
									: engineOf(s.engine).keepAlive === true
										? DASH
										: '',
				demo: s.demo === true,
				...(i === 0 && batchSummary(batchFigures(s)) !== '' ? {batch: batchSummary(batchFigures(s))} : {}),
			});
		});
		if (s.modelsListed && s.modelsListed.total > s.models.length) {
			// Say what is shown when the server listed more than is kept.
			const n = grouped(s.modelsListed.total);
			const note = `first ${s.models.length} of ${s.modelsListed.atLeast ? 'at least ' : ''}${n} models listed`;
			rows.push({serverId: id, first: false, state: s.state, engine: '', url: '', model: note, processor: '', context: '', until: '', demo: s.demo === true, note});
		}
	}
	return rows;
}
