import {Box} from 'ink';
import {memo, useMemo} from 'react';
import {ollamaProcessor} from '../../model/figures.js';
import {engineName, engineOf} from '../../engines/index.js';
import type {ModelInfo, ServerLifecycle, ServerState} from '../../types/monitor.js';
import {DASH, fit, shortUrl, until} from '../format.js';
import type {ThemeToken} from '../theme.js';
import {Line, Span, Title} from './common.js';

const STATE_GLYPH: Record<ServerLifecycle, {glyph: string; word: string; color: ThemeToken}> = {
	up: {glyph: '●', word: 'up', color: 'good'},
	stale: {glyph: '◌', word: 'stale', color: 'warn'},
	restarted: {glyph: '↻', word: 'restarted', color: 'warn'},
	'log-only': {glyph: '≡', word: 'log', color: 'muted'},
	starting: {glyph: '◐', word: 'starting', color: 'muted'},
	down: {glyph: '✖', word: 'down', color: 'bad'},
};

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
	/** A line about the server rather than a model (e.g. how many models it listed). */
	readonly note?: string;
}

/** PROCESSOR text as `ollama ps` prints it, or layers offloaded, with the CPU share when partly on CPU. */
export function residencyOf(server: ServerState, model: ModelInfo | undefined): {text: string; cpuShare?: number} {
	const text =
		model?.processor ??
		ollamaProcessor(model?.sizeBytes, model?.sizeVramBytes) ??
		(server.offload ? `${server.offload.layersOnGpu}/${server.offload.layersTotal} layers GPU` : undefined);
	let residency = model?.gpuResidency;
	if (residency === undefined && model?.sizeBytes !== undefined && model.sizeVramBytes !== undefined && model.sizeBytes > 0) {
		residency = model.sizeVramBytes / model.sizeBytes;
	}
	if (residency === undefined && server.offload && server.offload.layersTotal > 0) {
		residency = server.offload.layersOnGpu / server.offload.layersTotal;
	}
	const cpuShare = residency !== undefined && residency < 0.995 ? 1 - residency : undefined;
	return {text: text ?? DASH, cpuShare};
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
			const res = residencyOf(s, m);
			rows.push({
				serverId: id,
				first: i === 0,
				state: s.state,
				// A named server that never answered as an engine: which engine it is is unknown.
				engine: s.state === 'down' && s.engine === 'openai' ? DASH : engineName(s),
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
			});
		});
		if (s.modelsListed && s.modelsListed.total > s.models.length) {
			// Say what is shown when the server listed more than is kept.
			const n = s.modelsListed.total.toLocaleString('en-US');
			const note = `first ${s.models.length} of ${s.modelsListed.atLeast ? 'at least ' : ''}${n} models listed`;
			rows.push({serverId: id, first: false, state: s.state, engine: '', url: '', model: note, processor: '', context: '', until: '', demo: s.demo === true, note});
		}
	}
	return rows;
}

export interface EnginesPaneProps {
	readonly rows: readonly EngineRow[];
	readonly selectedId?: string;
	readonly width: number;
	readonly height: number;
}

/** Column widths by available width (fixed so rows line up; one Text per row). */
function columns(width: number) {
	return width >= 110
		? {state: 11, engine: 12, url: 22, model: 24, proc: 17, ctx: 10}
		: {state: 7, engine: 12, url: 16, model: 14, proc: 16, ctx: 7};
}

export const EnginesPane = memo(function EnginesPane({rows, selectedId, width, height}: EnginesPaneProps) {
	const c = columns(width);
	const visible = useMemo(() => {
		const room = Math.max(0, height - 1);
		if (rows.length <= room) return {rows, more: 0};
		const sel = Math.max(0, rows.findIndex(r => r.serverId === selectedId && r.first));
		const fit = Math.max(1, room - 1);
		const start = Math.min(Math.max(0, sel - Math.floor(fit / 2)), rows.length - fit);
		return {rows: rows.slice(start, start + fit), more: rows.length - fit};
	}, [rows, selectedId, height]);
	const servers = new Set(rows.map(r => r.serverId)).size;
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="ENGINES" detail={`${servers} server${servers === 1 ? '' : 's'}`} />
			{visible.rows.map(r => {
				const selected = r.serverId === (selectedId ?? rows[0]?.serverId) && r.first;
				const st = STATE_GLYPH[r.state];
				if (r.note !== undefined) {
					const indent = c.state + c.engine + c.url + 2;
					return (
						<Line key={`${r.serverId}/note`}>
							{' '.repeat(indent)}
							<Span color="muted">{fit(r.note, Math.max(0, width - indent - 1))}</Span>
						</Line>
					);
				}
				return (
					<Line key={`${r.serverId}/${r.model}`} inverse={selected}>
						{selected ? <Span color="selected">▸ </Span> : '  '}
						{r.first ? (
							<Span color={st.color}>{fit(`${st.glyph} ${st.word}`, c.state - 1, true)}</Span>
						) : (
							' '.repeat(c.state - 1)
						)}
						{' '}
						{r.first ? fit(r.engine, c.engine - 1, true) : ' '.repeat(c.engine - 1)}
						{' '}
						{r.first ? fit(r.url, c.url - 1, true) : ' '.repeat(c.url - 1)}
						{' '}
						{fit(r.model, c.model - 1, true)}
						{' '}
						{r.cpuShare !== undefined ? (
							<Span color="bad">{`${r.processor} ⚠ ${width >= 110 ? 'partly on CPU: ' : ''}${Math.round(r.cpuShare * 100)}% on CPU`}</Span>
						) : (
							fit(r.processor, c.proc - 1, true)
						)}
						{' '}
						<Span color="muted">{'ctx '}</Span>
						{fit(r.context, c.ctx - 1, true)}
						{r.until ? ' ' : ''}
						{r.until ? <Span color="muted">{r.until}</Span> : null}
					</Line>
				);
			})}
			{visible.more > 0 ? <Line color="muted">{`  … ${visible.more} more`}</Line> : null}
		</Box>
	);
});
