import {Box} from 'ink';
import type {ProbeHistoryEntry} from '../../types/probe.js';
import {sparkline} from '../charts.js';
import {clock, DASH, fit, ms, tpp, tps} from '../format.js';
import {Line, Span, Title} from './common.js';

/** Probes kept per server in the view (newest), and drawn in the sparkline. */
export const HISTORY_PER_SERVER = 30;

export interface HistoryGroup {
	readonly server: string;
	readonly engine: string;
	/** Oldest first, at most HISTORY_PER_SERVER. */
	readonly entries: readonly ProbeHistoryEntry[];
	readonly count: number;
}

/** Rows grouped per server, the server probed last first. Pure. */
export function historyGroups(entries: readonly ProbeHistoryEntry[]): HistoryGroup[] {
	const by = new Map<string, ProbeHistoryEntry[]>();
	for (const e of [...entries].sort((a, b) => a.t - b.t)) {
		const list = by.get(e.server) ?? [];
		list.push(e);
		by.set(e.server, list);
	}
	return [...by.entries()]
		.map(([server, list]) => ({server, engine: list.at(-1)!.engine, entries: list.slice(-HISTORY_PER_SERVER), count: list.length}))
		.sort((a, b) => b.entries.at(-1)!.t - a.entries.at(-1)!.t);
}

/** Local date and time: `2026-03-01 12:00:00`. */
function dateTime(t: number): string {
	const d = new Date(t);
	return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')} ${clock(t)}`;
}

/** The lines of the overlay: per server a sparkline of wall decode tok/s, then its newest probes. Pure. */
export function historyLines(entries: readonly ProbeHistoryEntry[], width: number, rows: number): {text: string; kind: 'server' | 'spark' | 'row' | 'muted'}[] {
	const groups = historyGroups(entries);
	const out: {text: string; kind: 'server' | 'spark' | 'row' | 'muted'}[] = [];
	if (groups.length === 0) return out;
	// Each server gets a share of the rows: its title, its sparkline, then as many newest probes as fit.
	const per = Math.max(3, Math.floor(rows / groups.length));
	for (const g of groups) {
		if (out.length >= rows) break;
		const values = g.entries.map(e => e.decodeTps);
		const knownValues = values.filter((v): v is number => v !== undefined);
		const max = knownValues.length > 0 ? Math.max(...knownValues) : undefined;
		const min = knownValues.length > 0 ? Math.min(...knownValues) : undefined;
		const last = g.entries.at(-1)!;
		out.push({text: `${g.server}  ${g.engine} · ${g.count} probe${g.count === 1 ? '' : 's'} · last ${dateTime(last.t)}`, kind: 'server'});
		const spark = sparkline(values, {width: Math.min(HISTORY_PER_SERVER, g.entries.length), max: max ?? 1});
		out.push({
			text: `  decode ${spark}  last ${tps(last.decodeTps)} tok/s · range ${tps(min)}–${tps(max)} over the last ${g.entries.length} (wall clock)`,
			kind: 'spark',
		});
		const room = Math.max(0, per - 2);
		for (const e of g.entries.slice(-room).reverse()) {
			out.push({
				text: fit(
					`  ${dateTime(e.t)}  ${fit(e.model ?? DASH, 18, true)} ${fit(e.promptKind, 6, true)} TTFT ${ms(e.ttftMs).padStart(8)}  decode ${tps(e.decodeTps).padStart(6)}  tok/pass ${tpp(e.tokensPerPass).padStart(5)}  cached ${e.cachedTokens ?? DASH}/${e.promptTokens ?? DASH}`,
					width,
				),
				kind: 'row',
			});
		}
	}
	return out.slice(0, rows);
}

export interface HistoryOverlayProps {
	readonly history?: {readonly loading: boolean; readonly entries: readonly ProbeHistoryEntry[]; readonly error?: string; readonly file?: string};
	readonly width: number;
	readonly height: number;
}

export function HistoryOverlay({history, width, height}: HistoryOverlayProps) {
	const room = Math.max(0, height - 1);
	const lines = history && !history.loading ? historyLines(history.entries, width, room) : [];
	let note: string | undefined;
	if (!history || history.loading) note = 'reading the probe history…';
	else if (history.error) note = `✖ ${history.error}`;
	else if (lines.length === 0) note = `no probe in the history yet${history.file ? ` (${history.file})` : ''}: p probes the selected server`;
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="PROBE HISTORY" detail={`${history?.file ?? ''}${history?.file ? ' · ' : ''}h or Esc closes`} />
			{note ? <Line color={history?.error ? 'bad' : 'muted'}>{note}</Line> : null}
			{lines.map((l, i) => (
				<Line key={i} color={l.kind === 'server' ? 'accent' : undefined} bold={l.kind === 'server'}>
					{l.kind === 'spark' ? <Span color="tps">{l.text}</Span> : l.text}
				</Line>
			))}
		</Box>
	);
}
