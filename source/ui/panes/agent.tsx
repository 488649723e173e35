/**
 * AGENT (key `a`): where a coding agent's time goes — the newest session's turns as stacked bars
 * (queue, prefill, decode, idle before it), the budget in words, and one line per other session.
 * Renders model/sessions.ts output only; `--` where a part is unknown, never 0.
 */
import {Box} from 'ink';
import {memo} from 'react';
import {budgetWords, durationWords, openingSession, type Session, type SessionsView, type Turn} from '../../model/sessions.js';
import {FINDING_KINDS, FINDING_MARK, summaryLine} from '../../model/findings.js';
import {DASH, est, fit, int, ms, right} from '../format.js';
import type {ThemeToken} from '../theme.js';
import {Line, Span, Title} from './common.js';

export interface AgentPaneProps {
	readonly view: SessionsView;
	/** The engine selected (Tab): its newest session is shown in full, else the newest of all. */
	readonly serverId?: string;
	readonly demo: boolean;
	readonly width: number;
	readonly height: number;
	/** The engines' labels by server id (the findings line quotes the engine: `Ollama WARN "…"`). */
	readonly engineLabels?: Readonly<Record<string, string>>;
}

/** A turn's findings as marks after its bar (one per kind, costliest first; issue 28). Pure. */
export function findingMarks(t: Turn): string {
	return FINDING_KINDS.filter(k => t.findings.some(f => f.kind === k)).map(k => FINDING_MARK[k]).join('');
}

/** Bars of the newest turns shown (the issue's "last ~20"). */
export const AGENT_BARS = 20;

/** One part of a bar: its glyph (readable without colour) and its colour. */
const PARTS = [
	{key: 'queueMs', glyph: '░', color: 'warn', label: 'queue'},
	{key: 'prefillMs', glyph: '▓', color: 'tpp', label: 'prefill'},
	{key: 'decodeMs', glyph: '█', color: 'tps', label: 'decode'},
	{key: 'idleBeforeMs', glyph: '·', color: 'muted', label: 'idle before'},
] as const satisfies readonly {key: keyof Turn; glyph: string; color: ThemeToken; label: string}[];

const compact = (n: number | undefined): string => (n === undefined ? DASH : n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : int(n));
const short = (x: number | undefined): string => (x === undefined ? DASH : ms(x).replace(' ', ''));

/** A turn's stacked bar: each known part's cells in proportion to `scale` ms per cell; `?` marks an unknown part. Pure. */
export function turnBar(t: Turn, msPerCell: number | undefined, first: boolean): {glyph: string; color: ThemeToken; cells: number}[] {
	const out: {glyph: string; color: ThemeToken; cells: number}[] = [];
	for (const p of PARTS) {
		const v = t[p.key];
		if (p.key === 'idleBeforeMs' && first) continue;
		if (v === undefined) out.push({glyph: '?', color: 'bad', cells: 1});
		else if (v > 0 && msPerCell !== undefined && msPerCell > 0) out.push({glyph: p.glyph, color: p.color, cells: Math.max(1, Math.round(v / msPerCell))});
	}
	return out;
}

/** The budget's words on as few lines as fit `width` (split between clauses, at most `max` lines). Pure. */
export function wrapWords(text: string, width: number, max = 3): string[] {
	const lines: string[] = [];
	for (const part of text.split('; ')) {
		const last = lines.at(-1);
		if (last !== undefined && Array.from(`${last}; ${part}`).length <= width) lines[lines.length - 1] = `${last}; ${part}`;
		else if (lines.length < max) lines.push(part);
		else lines[lines.length - 1] = `${lines.at(-1)}; ${part}`;
	}
	return lines;
}

/** The known parts of a turn's time as drawn (the first turn's idle is not drawn). */
const turnTotal = (t: Turn, first: boolean): number => (t.queueMs ?? 0) + (t.prefillMs ?? 0) + (t.decodeMs ?? 0) + (first ? 0 : (t.idleBeforeMs ?? 0));

/**
 * The bars' scale: the longest drawn turn fills the bar. When no turn shown has a known time above
 * zero there is no scale (`--`, and the bars are only `?`), not "one cell ≈ 0.0 ms". Pure.
 */
export function cellScale(turns: readonly Turn[], firstIsSessionStart: boolean, barWidth: number): {msPerCell: number | undefined; text: string} {
	const longest = Math.max(0, ...turns.map((t, i) => turnTotal(t, firstIsSessionStart && i === 0)));
	if (!(longest > 0) || !Number.isFinite(longest)) return {msPerCell: undefined, text: `one cell ≈ ${DASH} (no known times)`};
	const msPerCell = longest / Math.max(1, barWidth - 4);
	return {msPerCell, text: `one cell ≈ ${msPerCell < 0.1 ? '< 0.1 ms' : ms(msPerCell)}`};
}

/** The backlog's requests that are in no session for want of a time ('' for none). */
function withoutTimeLine(n: number): string {
	if (n === 0) return '';
	return n === 1 ? "1 request of the log's backlog has no known time and is in no session" : `${n} requests of the log's backlog have no known time and are in no session`;
}

function sessionLabel(s: Session): string {
	return `${s.model} on ${s.serverId} · ${s.client !== undefined ? `client ${s.client}` : 'one client assumed (the log names none)'}`;
}

/** The totals line of a session's budget. Pure. */
export function totalsLine(s: Session): string {
	const b = s.budget;
	return `queue ${short(b.queueMs)}  prefill ${short(b.prefillMs)}  decode ${short(b.decodeMs)}  idle ${short(b.idleMs)}  cache saved ${b.savedByCacheMs === undefined ? DASH : durationWords(b.savedByCacheMs)}`;
}

export const AgentPane = memo(function AgentPane({view, serverId, demo, width, height, engineLabels}: AgentPaneProps) {
	const sessions = view.sessions;
	const s = openingSession(sessions, serverId);
	const room = Math.max(0, height - 1);
	const badge = demo ? ' · DEMO agent' : '';
	if (!s) {
		const lines = [
			'no agent sessions yet: they form from finished requests in the engines\' logs (one client, one model, prompts that grow or follow each other within the session gap)',
			withoutTimeLine(view.withoutTime),
		].filter(Boolean);
		return (
			<Box flexDirection="column" height={height} width={width}>
				<Title title="AGENT" detail={`where an agent's time goes${badge} · a/Esc closes`} />
				{lines.slice(0, room).map((l, i) => (
					<Line key={i} color="muted">
						{l}
					</Line>
				))}
			</Box>
		);
	}
	const others = sessions.filter((x) => x !== s).reverse();
	const words = wrapWords(budgetWords(s), width, room >= 16 ? 4 : 1);
	// The finding that costs this session most, with its fix (issue 28), above the turns.
	const line = summaryLine(s.turns, engineLabels?.[s.serverId] ?? s.engine);
	// Too long for the pane: the fix on a line of its own.
	const cut = line?.lastIndexOf(' — fix: ') ?? -1;
	const summary = line === undefined ? [] : Array.from(line).length <= width || cut < 0 ? [line] : [line.slice(0, cut), `  ${line.slice(cut + 1)}`];
	const fixed = 3 + words.length + summary.length; // words, findings, totals, table header, legend
	const avail = Math.max(0, room - fixed);
	// Bars first (one line is kept for the other sessions), then a line per other session.
	const barRows = Math.min(AGENT_BARS, s.turns.length, Math.max(0, avail - (others.length > 0 ? 1 : 0)));
	const spare = avail - barRows;
	const otherRows = others.length <= spare ? others.length : Math.max(0, spare - 1);
	const shown = s.turns.slice(s.turns.length - barRows);
	const firstIndex = s.turns.length - shown.length;
	// turn, prompt, cached, queue, prefill, decode, idle, then the bar
	const cols = [4, 7, 7, 8, 8, 8, 8];
	const head = ['turn', 'prompt', 'cached', 'queue', 'prefill', 'decode', 'idle'];
	const tableWidth = cols.reduce((a, c) => a + c + 1, 0);
	const marks = shown.map(findingMarks);
	const markWidth = Math.min(6, Math.max(0, ...marks.map(m => Array.from(m).length)));
	const barWidth = Math.max(4, width - tableWidth - 1 - (markWidth > 0 ? markWidth + 1 : 0));
	const {msPerCell, text: scale} = cellScale(shown, firstIndex === 0, barWidth);
	const cells = (t: Turn, i: number): string[] => [
		String(firstIndex + i + 1),
		est(compact(t.promptTokens), t.promptEstimated && t.promptTokens !== undefined),
		est(compact(t.cachedTokens), t.promptEstimated && t.cachedTokens !== undefined),
		short(t.queueMs) + (t.retries > 0 ? `↻${t.retries}` : ''),
		short(t.prefillMs),
		short(t.decodeMs),
		firstIndex + i === 0 ? '' : short(t.idleBeforeMs),
	];
	const row = (values: readonly string[]): string => values.map((v, i) => right(fit(v, cols[i]!), cols[i]!)).join(' ');
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="AGENT" detail={fit(`${sessionLabel(s)} · ${s.turns.length} turn${s.turns.length === 1 ? '' : 's'}${badge} · a/Esc closes`, Math.max(0, width - 7))} />
			{words.slice(0, room).map((w, i) => (
				<Line key={`w${i}`} bold>
					{w}
				</Line>
			))}
			{room > 1 + summary.length
				? summary.map((l, i) => (
					<Line key={`f${i}`} color="bad" bold>
						{l}
					</Line>
				))
				: null}
			{room > 1 ? <Line color="muted">{totalsLine(s)}</Line> : null}
			{room > 2 ? <Line color="muted">{`${row(head)} ${fit(`last ${shown.length} turns, ${scale}`, barWidth)}`}</Line> : null}
			{shown.map((t, i) => (
				<Line key={`${t.serverId}/${t.key}/${t.time}`}>
					{`${row(cells(t, i))} `}
					{turnBar(t, msPerCell, firstIndex + i === 0).map((p, k) => (
						<Span key={k} color={p.color}>
							{p.glyph.repeat(Math.min(p.cells, barWidth))}
						</Span>
					))}
					{marks[i] ? (
						<Span color="bad" bold>
							{` ${Array.from(marks[i]!).slice(0, markWidth).join('')}`}
						</Span>
					) : null}
				</Line>
			))}
			{room > 3 ? (
				<Line color="muted">
					{marks.some(Boolean) ? `${FINDING_KINDS.filter(k => shown.some(t => t.findings.some(f => f.kind === k))).map(k => `${FINDING_MARK[k]} ${k}`).join('  ')} · ` : ''}
					{PARTS.map((p) => `${p.glyph} ${p.label}`).join('  ')}
					{'  ? unknown  ↻ busy retries · shares over the known parts · saved = cached tokens ÷ measured prefill rate'}
				</Line>
			) : null}
			{others.slice(0, otherRows).map((o) => (
				<Line key={o.id} color="muted">
					{`${sessionLabel(o)} · ${o.turns.length} turn${o.turns.length === 1 ? '' : 's'}: ${budgetWords(o)}`}
				</Line>
			))}
			{otherRows < others.length && spare > 0 ? <Line color="muted">{`+${others.length - otherRows} more session${others.length - otherRows === 1 ? '' : 's'} (snapshot --json lists all)`}</Line> : null}
		</Box>
	);
});
