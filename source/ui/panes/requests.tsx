import {Box} from 'ink';
import {memo} from 'react';
import {requestFigures} from '../../model/figures.js';
import {engineName} from '../../engines/index.js';
import {modelLabel} from '../../model/derive.js';
import type {RequestRecord, ServerState} from '../../types/monitor.js';
import {clock, fit, int, pct, right, tpp, tps} from '../format.js';
import {Line, Span, Title} from './common.js';

export interface RequestRow {
	readonly key: string;
	readonly live: boolean;
	readonly text: string;
}

const HEAD = ['time', 'engine', 'model', 'prompt', 'cached', 'prefill/s', 'decode/s', 'tok/pass', 'accept'] as const;
const W = [8, 11, 16, 7, 7, 9, 8, 8, 6] as const;

function row(cells: readonly string[]): string {
	return cells
		.map((c, i) => (i <= 2 ? fit(c, W[i]!, true) : right(c, W[i]!)))
		.join(' ');
}

export const REQUESTS_HEADER = row(HEAD);

/**
 * Table rows, newest first: live rows (requests in flight: prefill progress / live tg) on top,
 * then finished requests with requestFigures(). Pure; `limit` rows at most.
 */
export function requestRows(servers: Readonly<Record<string, ServerState>>, order: readonly string[], limit: number): RequestRow[] {
	const all: {r: RequestRecord; engine: string; model: string}[] = [];
	for (const id of order) {
		const s = servers[id];
		if (!s) continue;
		for (const r of s.requests) all.push({r, engine: engineName(s), model: modelLabel(r, s)});
	}
	all.sort((a, b) => b.r.lastSeen - a.r.lastSeen);
	// A request the backlog left open is not running now.
	const live = all.filter(x => !x.r.done && !x.r.backlog).slice(0, 2);
	const done = all.filter(x => x.r.done);
	const out: RequestRow[] = [];
	for (const {r, engine, model} of live) {
		if (out.length >= limit) break;
		const what =
			r.liveTps !== undefined
				? `tg ${tps(r.liveTps)} tok/s, ${int(r.liveGenerated)} tokens`
				: r.prefillProgress !== undefined
					? `prefill ${pct(r.prefillProgress)}`
					: 'started';
		out.push({key: `${r.serverId}/${r.key}`, live: true, text: `${fit('▶ live', W[0], true)} ${fit(engine, W[1], true)} ${fit(model, W[2], true)} ${what}`});
	}
	for (const {r, engine, model} of done) {
		if (out.length >= limit) break;
		const f = requestFigures(r);
		// `~`: worked out, not stated (llama.cpp default verbosity); a failed/cancelled request has no figures.
		const est = (n: number | undefined) => (f.promptEstimated && n !== undefined ? `~${int(n)}` : int(n));
		out.push({
			key: `${r.serverId}/${r.key}`,
			live: false,
			text: row([
				r.earlier ? 'earlier' : clock(r.lastSeen),
				engine,
				model,
				r.outcome === 'error' ? 'failed' : r.outcome === 'cancelled' ? 'cancel' : est(f.promptTokens),
				est(f.cachedTokens),
				tps(f.prefillTps),
				tps(f.decodeTps),
				tpp(f.tokensPerPass),
				pct(f.acceptance),
			]),
		});
	}
	return out;
}

export interface RequestsPaneProps {
	readonly rows: readonly RequestRow[];
	readonly total: number;
	readonly width: number;
	readonly height: number;
}

export const RequestsPane = memo(function RequestsPane({rows, total, width, height}: RequestsPaneProps) {
	const room = Math.max(0, height - 2);
	const shown = rows.slice(0, room);
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="REQUESTS" detail={`${total} seen, newest first`} />
			<Line color="muted">{REQUESTS_HEADER}</Line>
			{shown.length === 0 && room > 0 ? <Line color="muted">no request seen yet</Line> : null}
			{shown.map(r => (
				<Line key={r.key}>{r.live ? <Span color="accent">{r.text}</Span> : r.text}</Line>
			))}
		</Box>
	);
});
