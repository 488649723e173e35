import {Box} from 'ink';
import {memo, useMemo} from 'react';
import type {LogLine, LogRing} from '../../types/state.js';
import {sanitize} from '../../util/sanitize.js';
import {fit, logClock} from '../format.js';
import {compileFilter} from '../view-state.js';
import {logWindow, type Log} from '../view-model/log.js';
import {Line, Span, Title} from './common.js';

export interface LogPaneProps {
	readonly log: LogRing | readonly LogLine[];
	/** Lines ever seen on this server (the log keeps the newest MAX_LOG_LINES of them). */
	readonly total: number;
	readonly label?: string;
	readonly logState?: string;
	readonly filter: string;
	readonly editing: boolean;
	readonly draft: string;
	/** Absolute number of the bottom line; undefined = follow the newest. */
	readonly end?: number;
	/** Columns scrolled sideways. */
	readonly left: number;
	readonly wrap: boolean;
	readonly width: number;
	readonly height: number;
}

export interface VisibleLog {
	readonly lines: {readonly text: string; readonly parsed: boolean; readonly note?: boolean; readonly ranges: [number, number][]}[];
	readonly matched: number;
	/** Matching lines newer than the bottom of the view (0 = following the newest). */
	readonly newer: number;
	/** Some shown line is cut at the right edge (→ shows more). */
	readonly cut: boolean;
	readonly error?: string;
}

const PREFIX = 11;

/** `!` infertop's own note (why the line above was counted as inconsistent), `•` parsed, blank otherwise. */
const glyph = (l: LogLine) => (l.note ? '!' : l.parsed ? '•' : ' ');

/** Split into chunks of `width` characters (code points). */
function chunks(text: string, width: number): string[] {
	const chars = Array.from(text);
	const out: string[] = [];
	for (let i = 0; i < chars.length; i += width) out.push(chars.slice(i, i + width).join(''));
	return out.length > 0 ? out : [''];
}

/** Filter, scroll (back, sideways) and cut or wrap the log to what fits, before anything renders. Pure. */
export function visibleLog(log: Log, filter: string, scroll: {readonly total?: number; readonly end?: number; readonly left?: number; readonly wrap?: boolean}, rows: number, width: number): VisibleLog {
	const f = compileFilter(filter);
	const {tail, matched, endIdx, error} = logWindow(log, scroll.total ?? log.length, filter, scroll.end, rows);
	const room = Math.max(1, width - PREFIX);
	const left = Math.max(0, scroll.left ?? 0);
	const out: VisibleLog['lines'][number][] = [];
	let cut = false;
	const shift = (ranges: [number, number][], from: number, len: number, at: number): [number, number][] =>
		ranges.flatMap(([a, b]) => (b <= from || a >= from + len ? [] : [[Math.max(a, from) - from + at, Math.min(b, from + len) - from + at] as [number, number]]));
	if (scroll.wrap) {
		// Newest at the bottom: take whole lines backwards until the rows are full (each takes at least one row).
		const blocks: VisibleLog['lines'][number][][] = [];
		let used = 0;
		for (let i = tail.length - 1; i >= 0 && used < rows; i--) {
			const l = tail[i]!.line;
			const full = sanitize(l.text, 1024);
			const ranges = f ? f.ranges(full) : [];
			const parts = chunks(full, room);
			const block = parts.map((p, j) => ({
				text: `${j === 0 ? `${logClock(l)} ${glyph(l)} ` : ' '.repeat(PREFIX)}${p}`,
				parsed: l.parsed,
				note: l.note,
				ranges: shift(ranges, j * room, room, PREFIX),
			}));
			blocks.unshift(block);
			used += block.length;
		}
		const flat = blocks.flat();
		out.push(...flat.slice(Math.max(0, flat.length - rows)));
	} else {
		for (const {line: l} of tail) {
			let full = sanitize(l.text, 1024);
			// A match past the right edge: start the line shortly before it, so the match is on screen.
			const first = left === 0 ? f?.ranges(full)[0] : undefined;
			if (first && first[1] > room - 1 && first[0] > 12) full = `…${full.slice(first[0] - 10)}`;
			const chars = Array.from(full);
			const from = Math.min(left, chars.length);
			const rest = chars.slice(from).join('');
			if (Array.from(rest).length > room) cut = true;
			const text = (from > 0 ? '…' : '') + fit(from > 0 ? rest.slice(1) : rest, from > 0 ? room - 1 : room);
			out.push({text: `${logClock(l)} ${glyph(l)} ${text}`, parsed: l.parsed, note: l.note, ranges: f ? f.ranges(text).map(([a, b]) => [a + PREFIX, b + PREFIX] as [number, number]) : []});
		}
	}
	return {lines: out, matched, newer: matched - endIdx, cut, error};
}

function Highlighted({text, ranges}: {readonly text: string; readonly ranges: readonly [number, number][]}) {
	if (ranges.length === 0) return <>{text}</>;
	const parts = [];
	let at = 0;
	for (const [i, [a, b]] of ranges.entries()) {
		if (a < at) continue;
		if (a > at) parts.push(text.slice(at, a));
		parts.push(
			<Span key={i} color="accent" inverse>
				{text.slice(a, b)}
			</Span>,
		);
		at = b;
	}
	if (at < text.length) parts.push(text.slice(at));
	return <>{parts}</>;
}

export const LogPane = memo(function LogPane(props: LogPaneProps) {
	const rows = Math.max(0, props.height - 2);
	const view = useMemo(
		() => visibleLog(props.log, props.filter, {total: props.total, end: props.end, left: props.left, wrap: props.wrap}, rows, props.width),
		[props.log, props.total, props.filter, props.end, props.left, props.wrap, rows, props.width],
	);
	const position = [
		props.end !== undefined ? `held, ${view.newer} newer below (End follows)` : undefined,
		props.wrap ? 'wrapped (w cuts)' : props.left > 0 ? `from column ${props.left + 1} (←)` : undefined,
		!props.wrap && view.cut ? '→ more' : undefined,
	].filter(Boolean);
	const filterText = props.filter
		? `filter ${props.filter}: ${view.matched} of ${props.log.length} lines${view.error ? ` (${view.error})` : ''} · Esc clears`
		: `${props.log.length} lines · • = parsed · ! = inconsistent · / filters · PgUp/PgDn Home/End · ←/→ · w wraps`;
	const filterLine = props.editing ? `/ ${props.draft}▏  Enter applies · Esc stops editing` : [...position, filterText].join(' · ');
	return (
		<Box flexDirection="column" height={props.height} width={props.width}>
			<Title title="LOG" detail={`${props.label ?? '--'}${props.logState ? ` · ${props.logState}` : ''}`} />
			<Line color={props.editing || position.length > 0 ? 'accent' : 'muted'}>{filterLine}</Line>
			{view.lines.length === 0 && rows > 0 ? <Line color="muted">{props.filter ? 'no line matches' : 'no log lines yet'}</Line> : null}
			{view.lines.map((l, i) => (
				<Line key={i} color={l.note ? 'warn' : l.parsed ? undefined : 'muted'}>
					<Highlighted text={l.text} ranges={l.ranges} />
				</Line>
			))}
		</Box>
	);
});
