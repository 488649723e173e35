import {Box} from 'ink';
import {memo, useMemo} from 'react';
import type {LogLine, LogRing} from '../../types/state.js';
import {isLogRing, logTail} from '../../model/log-ring.js';
import {sanitize} from '../../util/sanitize.js';
import {clock, fit} from '../format.js';
import {compileFilter} from '../view-state.js';
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

type Log = LogRing | readonly LogLine[];

interface Numbered {
	readonly line: LogLine;
	readonly abs: number;
}

/** Line `i` (0 = oldest held) of a ring or a plain array, read in place (no copy of the buffer). */
function lineAt(log: Log, i: number): LogLine {
	return isLogRing(log) ? log.buffer[log.start + i]! : log[i]!;
}

/** Absolute number of the oldest held line (the ring keeps the newest of `total` lines). */
const baseOf = (log: Log, total: number): number => Math.max(total, log.length) - log.length;

/** The log's lines that pass the filter, each with its absolute number (reads the ring in place). Pure. */
export function matchedLines(log: Log, total: number, filter: string): {lines: Numbered[]; error?: string} {
	const f = compileFilter(filter);
	const base = baseOf(log, total);
	const lines: Numbered[] = [];
	for (let i = 0; i < log.length; i++) {
		const line = lineAt(log, i);
		if (!f || f.test(line.text)) lines.push({line, abs: base + i});
	}
	return {lines, error: f?.error};
}

/** Index just past the bottom line of the view among `count` lines, given how many have abs <= end. */
function bottomOf(count: number, atOrBefore: number | undefined, rows: number): number {
	if (atOrBefore === undefined) return count;
	return Math.min(count, Math.max(atOrBefore, Math.min(rows, count)));
}

/** Index just past the bottom line of the view in `lines` (lines.length when following). */
function bottomIndex(lines: readonly Numbered[], end: number | undefined, rows: number): number {
	if (end === undefined) return lines.length;
	let n = 0;
	while (n < lines.length && lines[n]!.abs <= end) n++;
	return bottomOf(lines.length, n, rows);
}

/**
 * What the view needs of the log: the (at most `rows`) matching lines ending at the bottom of the
 * view, how many match and the bottom's index among them. Without a filter only that tail is read
 * (logTail): never a copy of the whole ring.
 */
function window(log: Log, total: number, filter: string, end: number | undefined, rows: number): {tail: Numbered[]; matched: number; endIdx: number; error?: string} {
	const f = compileFilter(filter);
	if (!f) {
		const base = baseOf(log, total);
		const endIdx = bottomOf(log.length, end === undefined ? undefined : Math.max(0, Math.min(log.length, end - base + 1)), rows);
		const lines = logTail(log, rows, log.length - endIdx);
		const first = endIdx - lines.length;
		return {tail: lines.map((line, k) => ({line, abs: base + first + k})), matched: log.length, endIdx};
	}
	const {lines, error} = matchedLines(log, total, filter);
	const endIdx = bottomIndex(lines, end, rows);
	return {tail: lines.slice(Math.max(0, endIdx - rows), endIdx), matched: lines.length, endIdx, error};
}

/**
 * The next bottom line after scrolling `delta` matching lines back (positive) or forward; `'home'`
 * is the oldest screenful, `'end'` follows the newest again (undefined). Pure.
 */
export function logStep(log: Log, total: number, filter: string, end: number | undefined, step: number | 'home' | 'end', rows: number): number | undefined {
	if (step === 'end') return undefined;
	if (!compileFilter(filter)) {
		// No filter: the numbers are the ring's positions, nothing to scan.
		const base = baseOf(log, total);
		const count = log.length;
		const floor = Math.min(Math.max(1, rows), count);
		const at = bottomOf(count, end === undefined ? undefined : Math.max(0, Math.min(count, end - base + 1)), rows);
		const next = step === 'home' ? floor : Math.max(floor, Math.min(count, at - step));
		return next >= count ? undefined : base + next - 1;
	}
	const {lines} = matchedLines(log, total, filter);
	const floor = Math.min(Math.max(1, rows), lines.length);
	const at = bottomIndex(lines, end, rows);
	const next = step === 'home' ? floor : Math.max(floor, Math.min(lines.length, at - step));
	return next >= lines.length ? undefined : lines[next - 1]!.abs;
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
	const {tail, matched, endIdx, error} = window(log, scroll.total ?? log.length, filter, scroll.end, rows);
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
				text: `${j === 0 ? `${clock(l.t)} ${glyph(l)} ` : ' '.repeat(PREFIX)}${p}`,
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
			out.push({text: `${clock(l.t)} ${glyph(l)} ${text}`, parsed: l.parsed, note: l.note, ranges: f ? f.ranges(text).map(([a, b]) => [a + PREFIX, b + PREFIX] as [number, number]) : []});
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
