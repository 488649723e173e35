import {Box} from 'ink';
import {memo, useMemo} from 'react';
import {residencyOf} from '../../model/derive.js';
import {engineName, engineOf, UNKNOWN_ENGINE} from '../../engines/index.js';
import type {ModelInfo, ServerLifecycle, ServerState} from '../../types/state.js';
import {batchFigures} from '../../model/derive.js';
import {batchSummary, DASH, fit, shortUrl, until} from '../format.js';
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
	/** macOS: the GPU busy share and the wired-limit verdict, then its fix (model/wired-limit.ts macGpuLines), under the rows. */
	readonly gpuLines?: readonly {readonly text: string; readonly level: 'good' | 'warn' | 'bad' | 'muted'}[];
}

/** `keep-alive 4 minutes` from `4 minutes from now`: the UNTIL column of `ollama ps` says what it is. */
export function keepAliveText(until: string): string {
	if (until === '' || until === DASH) return until;
	const m = /^(.*) from now$/.exec(until);
	if (m) return `keep-alive ${m[1]!.toLowerCase()}`;
	if (until === 'Forever' || until === 'Never') return `keep-alive ${until.toLowerCase()}`;
	if (until === 'Stopping...') return 'unloading';
	return until;
}

/** A row whose last column is what is wrong (a down or stale server's error, a log problem), not a keep-alive. */
export function problemRow(r: EngineRow): boolean {
	const keepAlive = r.until === '' || r.until === DASH || /(?: from now|^Forever|^Never|^Stopping\.\.\.)$/.test(r.until);
	return (r.state === 'down' || r.state === 'stale' || r.state === 'log-only') && !keepAlive;
}

export interface EngineColumns {
	readonly state: number;
	readonly engine: number;
	readonly url: number;
	readonly model: number;
	readonly proc: number;
	readonly ctx: number;
	/** 0 = the keep-alive column is left out (no room). */
	readonly until: number;
}

const HEAD = {state: 'state', engine: 'engine', url: 'server', model: 'model', proc: 'residency', ctx: 'ctx', until: 'keep-alive'} as const;

const len = (s: string) => Array.from(s).length;
const stateText = (r: EngineRow) => `${STATE_GLYPH[r.state].glyph} ${STATE_GLYPH[r.state].word}`;
export const procText = (r: EngineRow, wide: boolean) =>
	r.cpuShare !== undefined ? `${r.processor} ⚠ ${wide ? 'partly on CPU: ' : ''}${Math.round(r.cpuShare * 100)}% on CPU` : r.processor;

/**
 * Column widths from the rows' own text, fitted to `width` (2 for the selection mark, 1 between
 * columns). When it does not fit, the keep-alive goes first, then the server and residency shrink,
 * then the state keeps only its glyph; the model name is cut last. Pure.
 */
export function engineColumns(all: readonly EngineRow[], width: number): EngineColumns {
	const wide = width >= 110;
	// A note row (`first 8 of 120 models listed`) spans the columns; it sets no width.
	const rows = all.filter(r => r.note === undefined);
	const natural = (pick: (r: EngineRow) => string, head: string) => Math.max(len(head), ...rows.map(r => len(pick(r))));
	const c = {
		state: natural(stateText, HEAD.state),
		engine: natural(r => r.engine, HEAD.engine),
		url: natural(r => r.url, HEAD.url),
		model: natural(r => r.model, HEAD.model),
		proc: natural(r => procText(r, wide), HEAD.proc),
		ctx: natural(r => r.context, HEAD.ctx),
		until: rows.some(r => r.until !== '' && !problemRow(r)) ? Math.max(len(HEAD.until), ...rows.filter(r => !problemRow(r)).map(r => len(keepAliveText(r.until)))) : 0,
	};
	const total = () => 2 + c.state + c.engine + c.url + c.model + c.proc + c.ctx + (c.until > 0 ? c.until + 1 : 0) + 5;
	if (total() > width) c.until = 0;
	const shrink = (key: 'url' | 'proc' | 'state' | 'engine' | 'model', min: number) => {
		const over = total() - width;
		if (over > 0) c[key] = Math.max(min, c[key] - over);
	};
	shrink('url', 12);
	shrink('proc', 12);
	shrink('state', 1);
	shrink('engine', 6);
	shrink('model', 8);
	shrink('proc', 6);
	return c;
}

export const EnginesPane = memo(function EnginesPane({rows, selectedId, width, height, gpuLines = []}: EnginesPaneProps) {
	const c = useMemo(() => engineColumns(rows, width), [rows, width]);
	const wide = width >= 110;
	// The Mac lines take the rows they need, keeping at least one engine row.
	const gpu = gpuLines.slice(0, Math.max(0, height - 3));
	const visible = useMemo(() => {
		const room = Math.max(0, height - 2 - gpu.length);
		if (rows.length <= room) return {rows, more: 0};
		const sel = Math.max(0, rows.findIndex(r => r.serverId === selectedId && r.first));
		const fit = Math.max(1, room - 1);
		const start = Math.min(Math.max(0, sel - Math.floor(fit / 2)), rows.length - fit);
		return {rows: rows.slice(start, start + fit), more: rows.length - fit};
	}, [rows, selectedId, height, gpu.length]);
	const servers = new Set(rows.map(r => r.serverId)).size;
	const header = `  ${fit(HEAD.state, c.state, true)} ${fit(HEAD.engine, c.engine, true)} ${fit(HEAD.url, c.url, true)} ${fit(HEAD.model, c.model, true)} ${fit(HEAD.proc, c.proc, true)} ${fit(HEAD.ctx, c.ctx, true)}${c.until > 0 ? ` ${HEAD.until}` : ''}`;
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="ENGINES" detail={`${servers} server${servers === 1 ? '' : 's'}`} />
			{height > 2 ? <Line color="muted">{header.trimEnd()}</Line> : null}
			{visible.rows.map(r => {
				const selected = r.serverId === (selectedId ?? rows[0]?.serverId) && r.first;
				const st = STATE_GLYPH[r.state];
				if (r.note !== undefined) {
					const indent = c.state + c.engine + c.url + 5;
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
						{r.first ? <Span color={st.color}>{fit(c.state >= len(stateText(r)) ? stateText(r) : st.glyph, c.state, true)}</Span> : ' '.repeat(c.state)}
						{' '}
						{r.first ? fit(r.engine, c.engine, true) : ' '.repeat(c.engine)}
						{' '}
						{r.first ? fit(r.url, c.url, true) : ' '.repeat(c.url)}
						{' '}
						{fit(r.model, c.model, true)}
						{' '}
						{r.cpuShare !== undefined ? <Span color="bad">{fit(procText(r, wide), c.proc, true)}</Span> : fit(r.processor, c.proc, true)}
						{' '}
						{fit(r.context, c.ctx, c.until > 0 || (problemRow(r) && r.until !== '') || r.batch !== undefined)}
						{problemRow(r) && r.until ? (
							// What is wrong always shows, in whatever room the line has left (the line is cut at the width).
							<Span color={r.state === 'log-only' ? 'muted' : 'bad'}>{` ${r.until}`}</Span>
						) : c.until > 0 && r.until ? (
							<Span color="muted">{` ${fit(keepAliveText(r.until), c.until)}`}</Span>
						) : null}
						{r.batch ? '  ' : ''}
						{r.batch ? <Span color="muted">{r.batch}</Span> : null}
					</Line>
				);
			})}
			{visible.more > 0 ? <Line color="muted">{`  … ${visible.more} more`}</Line> : null}
			{gpu.map((l, i) => (
				<Line key={`gpu${i}`} color={l.level}>
					{`  ${l.text}`}
				</Line>
			))}
		</Box>
	);
});
