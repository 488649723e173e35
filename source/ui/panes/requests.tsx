import {Box} from 'ink';
import {memo} from 'react';
import {sanitize} from '../../util/sanitize.js';
import {bytes, clock, DASH, fit, logClock, grouped, int, ms, num, pct, right, tpp, tps} from '../format.js';
import type {TableSort} from '../view-state.js';
import type {RequestEntry, WithoutFigures} from '../view-model/requests.js';
import {linesGone, requestLines, type Log} from '../view-model/log.js';
import {Line, Span, Title} from './common.js';

const HEAD = ['time', 'engine', 'model', 'prompt', 'cached', 'prefill/s', 'decode/s', 'tok/pass', 'accept'] as const;
const W = [8, 11, 16, 7, 7, 9, 8, 8, 6] as const;

/** Table width with the default model column. */
const BASE_WIDTH = W.reduce((a, b) => a + b, 0) + W.length - 1;

function row(cells: readonly string[], modelWidth: number = W[2]): string {
	return cells
		.map((c, i) => (i === 2 ? fit(c, modelWidth, true) : i < 2 ? fit(c, W[i]!, true) : right(c, W[i]!)))
		.join(' ');
}

export const REQUESTS_HEADER = row(HEAD);

/** The model column: as wide as the longest name shown, from the default 16 up to what the pane has spare. Pure. */
export function modelColumn(entries: readonly RequestEntry[], width: number): number {
	const longest = Math.max(W[2], ...entries.map(e => Array.from(e.model).length));
	return Math.max(W[2], Math.min(longest, W[2] + Math.max(0, width - BASE_WIDTH)));
}

/** One row's text: a live row says what it is doing, a finished row has the figures. Pure. */
export function entryText(e: RequestEntry, modelWidth: number = W[2]): string {
	const r = e.record;
	if (!r.done) {
		const what =
			r.liveTps !== undefined
				? `tg ${tps(r.liveTps)} tok/s, ${int(r.liveGenerated)} tokens`
				: r.prefillProgress !== undefined
					? `prefill ${pct(r.prefillProgress)}`
					: 'started';
		return `${fit('▶ live', W[0], true)} ${fit(e.engine, W[1], true)} ${fit(e.model, modelWidth, true)} ${what}`;
	}
	const f = e.figures;
	// `~`: worked out, not stated (llama.cpp default verbosity); a failed/cancelled request has no figures.
	const est = (n: number | undefined) => (f.promptEstimated && n !== undefined ? `~${int(n)}` : int(n));
	return row(
		[
			r.earlier ? 'earlier' : clock(r.lastSeen),
			e.engine,
			e.model,
			r.outcome === 'error' ? 'failed' : r.outcome === 'cancelled' ? 'cancel' : est(f.promptTokens),
			est(f.cachedTokens),
			tps(f.prefillTps),
			tps(f.decodeTps),
			tpp(f.tokensPerPass),
			pct(f.acceptance),
		],
		modelWidth,
	);
}

/**
 * Each row's text while its entry lives, for the model column's width it was made at. An entry is
 * made once per record (view-model/requests.ts) and a record never changes once the screen has it
 * (the reducer replaces one that changes), so its text is the same until the column width moves.
 * Under traffic the rows move down the table every frame but most are the same requests: their
 * texts (a clock, four figures, padding; ~15 µs a row without V8's optimizing compiler) were made anew each frame.
 */
const ROW_TEXT = new WeakMap<RequestEntry, {readonly modelWidth: number; readonly text: string}>();

/** entryText, made once per entry and model column width. */
export function rowText(e: RequestEntry, modelWidth: number): string {
	const kept = ROW_TEXT.get(e);
	if (kept !== undefined && kept.modelWidth === modelWidth) return kept.text;
	const text = entryText(e, modelWidth);
	ROW_TEXT.set(e, {modelWidth, text});
	return text;
}

/** The first row on screen so that the cursor stays visible (it scrolls in steps of one). Pure. */
export function windowStart(count: number, cursor: number, room: number): number {
	if (room <= 0 || count <= room) return 0;
	return Math.max(0, Math.min(count - room, cursor - room + 1));
}

export interface RequestsPaneProps {
	/** Sorted and filtered (tableEntries). */
	readonly entries: readonly RequestEntry[];
	/** Requests kept in the servers' rings (before the filter). */
	readonly total: number;
	/** Requests seen since start (finished, counted, and live); more than `total` once the rings dropped old ones. */
	readonly seen?: number;
	/** How far the logs' reading is behind, and the lines skipped on purpose (summed over servers). */
	readonly lag?: {readonly bytesBehind: number; readonly linesSkipped: number};
	/** Requests only servers' access lines showed (their logs gave none with figures). */
	readonly withoutFigures?: WithoutFigures;
	readonly focused: boolean;
	readonly cursor: number;
	readonly sort: TableSort;
	readonly filter: string;
	/** The filter being typed (shown in the title while editing). */
	readonly draft?: string;
	readonly width: number;
	readonly height: number;
}

const count = grouped;

/**
 * `61,204 seen · last 200 kept` (what was seen, and what of it is kept), then how far behind the log
 * is. Where servers' logs showed requests only as access lines: `-- seen · 60 in vLLM's access
 * lines, none with figures` (how many were served with figures is not known; 0 would say none
 * came), or, beside servers whose requests are counted, `· 60 more in vLLM's access lines, without
 * figures`. Pure.
 */
export function seenText(total: number, seen: number | undefined, lag?: RequestsPaneProps['lag'], withoutFigures?: WithoutFigures): string {
	const base = countText(total, seen, withoutFigures);
	const behind = lag && lag.bytesBehind > 0 ? ` · log ${bytes(lag.bytesBehind)} behind` : '';
	const skipped = lag && lag.linesSkipped > 0 ? ` · ${count(lag.linesSkipped)} lines skipped (too far behind)` : '';
	return `${base}${behind}${skipped}`;
}

function countText(total: number, seen: number | undefined, withoutFigures: WithoutFigures | undefined): string {
	const counted = seen !== undefined && seen > total ? `${count(seen)} seen · last ${count(total)} kept` : `${count(total)} seen`;
	if (withoutFigures === undefined || withoutFigures.calls <= 0) return counted;
	const calls = count(withoutFigures.calls);
	if (total === 0 && (seen === undefined || seen === 0)) return `${DASH} seen · ${calls} in ${withoutFigures.engines}'s access lines, none with figures`;
	return `${counted} · ${calls} more in ${withoutFigures.engines}'s access lines, without figures`;
}

/** The table's line when it has no row. Pure. */
export function emptyText(filter: string, total: number, withoutFigures?: WithoutFigures): string {
	if (filter) return 'no request matches';
	if (total === 0 && withoutFigures !== undefined && withoutFigures.calls > 0) return `no figures per request: ${withoutFigures.engines} logs requests only as access lines${withoutFigures.hint !== undefined ? `; ${withoutFigures.hint}` : ''}`;
	return 'no request seen yet';
}

export const RequestsPane = memo(function RequestsPane({entries, total, seen, lag, withoutFigures, focused, cursor, sort, filter, draft, width, height}: RequestsPaneProps) {
	const room = Math.max(0, height - 2);
	const start = focused ? windowStart(entries.length, cursor, room) : 0;
	const shown = entries.slice(start, start + room);
	const modelWidth = modelColumn(shown, width);
	const where = entries.length > room ? ` · ${start + 1}–${start + shown.length} of ${entries.length}` : '';
	const filterText = draft !== undefined ? ` · / ${draft}▏ Enter applies` : filter ? ` · filter "${filter}": ${entries.length} match` : '';
	const hint = focused ? ' · ↑/↓ s / Enter · Esc leaves' : ' · f focuses';
	const detail = `${seenText(total, seen, lag, withoutFigures)} · sort ${sort}${sort === 'time' ? ', newest first' : ', largest first'}${filterText}${where}${hint}`;
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title={focused ? 'REQUESTS ▸' : 'REQUESTS'} detail={detail} />
			<Line color="muted">{row(HEAD, modelWidth)}</Line>
			{shown.length === 0 && room > 0 ? <Line color="muted">{emptyText(filter, total, withoutFigures)}</Line> : null}
			{shown.map((e, i) => {
				const selected = focused && start + i === cursor;
				const text = rowText(e, modelWidth);
				return (
					<Line key={e.key} inverse={selected}>
						{!e.record.done ? <Span color="accent">{text}</Span> : text}
					</Line>
				);
			})}
		</Box>
	);
});

/** Every field of one request with its figures, then the server's log lines from its first to its last line. Pure. */
export function detailLines(e: RequestEntry, log: Log): {fields: [string, string][]; log: string[]} {
	const r = e.record;
	const f = e.figures;
	const field = (label: string, value: string | undefined): [string, string] => [label, value ?? DASH];
	const fields: [string, string][] = [
		field('server', r.serverId),
		field('request', r.key),
		field('engine', e.engine),
		field('model', e.model),
		field('runner', r.runner),
		field('slot / task', r.slot !== undefined || r.task !== undefined ? `${r.slot ?? DASH} / ${r.task ?? DASH}` : undefined),
		field('error', r.outcome === 'error' ? r.error : undefined),
		field('state', r.done ? (r.outcome === 'error' ? 'failed' : r.outcome === 'cancelled' ? 'cancelled' : 'finished') : r.backlog ? 'left open in the backlog' : 'in flight'),
		field('first seen', r.earlier ? 'earlier' : clock(r.firstSeen)),
		field('last seen', r.earlier ? 'earlier' : clock(r.lastSeen)),
		field('prompt tokens', int(f.promptTokens)),
		field('cached tokens', int(f.cachedTokens)),
		field('prefill tokens', int(r.prefillTokens)),
		field('prefill time', ms(r.prefillMs)),
		field('prefill', `${tps(f.prefillTps)} tok/s`),
		field('generated tokens', int(r.generatedTokens)),
		field('decoded tokens', int(r.decodedTokens)),
		field('decode time', ms(r.decodeMs)),
		field('decode', `${tps(f.decodeTps)} tok/s`),
		field('engine decode', `${tps(r.engineTps)} tok/s`),
		field('passes', int(f.passes)),
		field('tokens per pass', tpp(f.tokensPerPass)),
		field('engine mean len', tpp(r.engineMeanLen)),
		field('drafted / accepted', `${int(r.drafted)} / ${int(r.accepted)}`),
		field('acceptance', pct(f.acceptance, 1)),
		field('ms per pass', num(f.msPerPass, 1)),
	];
	if (!r.done) {
		fields.push(field('live', r.liveTps !== undefined ? `${tps(r.liveTps)} tok/s, ${int(r.liveGenerated)} tokens` : undefined));
		fields.push(field('prefill progress', pct(r.prefillProgress)));
	}
	const lines = requestLines(r, log).map(l => `${logClock(l)} ${l.parsed ? '•' : ' '} ${sanitize(l.text, 1024)}`);
	return {fields, log: lines};
}

export function DetailOverlay({entry, log, width, height}: {readonly entry?: RequestEntry; readonly log: Log; readonly width: number; readonly height: number}) {
	if (!entry) {
		return (
			<Box flexDirection="column" height={height} width={width}>
				<Title title="REQUEST" detail="Esc closes" />
				<Line color="muted">this request is no longer in the table (older ones leave the ring)</Line>
			</Box>
		);
	}
	const {fields, log: lines} = detailLines(entry, log);
	const gone = linesGone(entry.record, log);
	const room = Math.max(0, height - 1);
	// Two columns of fields when the pane is wide enough; the log lines take what is left.
	const cols = width >= 100 ? 2 : 1;
	const fieldRows = Math.ceil(fields.length / cols);
	const cell = Math.floor(width / cols);
	const fieldLines: string[] = [];
	for (let i = 0; i < fieldRows; i++) {
		fieldLines.push(
			Array.from({length: cols}, (_, c) => fields[i + c * fieldRows])
				.filter(x => x !== undefined)
				.map(([k, v]) => fit(`${k.padEnd(19)}${v}`, cell - 1, true))
				.join(' ')
				.trimEnd(),
		);
	}
	const logRoom = Math.max(0, room - fieldLines.length - 1);
	const logShown = lines.slice(-logRoom);
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="REQUEST" detail={`${entry.key} · Esc closes`} />
			{fieldLines.slice(0, room).map((l, i) => (
				<Line key={i}>{l}</Line>
			))}
			{logRoom > 0 ? (
				<Line color="accent">{`log lines of ${entry.record.serverId} from its first to its last line: ${lines.length}${lines.length > logRoom ? `, newest ${logRoom} shown` : ''}${gone > 0 ? ` (${grouped(gone)} older ones have left the log's last lines)` : ''}`}</Line>
			) : null}
			{logShown.map((l, i) => (
				<Line key={`l${i}`} color="muted">
					{l}
				</Line>
			))}
		</Box>
	);
}
