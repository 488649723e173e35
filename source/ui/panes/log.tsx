import {Box} from 'ink';
import {memo, useMemo} from 'react';
import type {LogLine, LogRing} from '../../types/monitor.js';
import {logLines, logTail} from '../../model/log-ring.js';
import {sanitize} from '../../util/sanitize.js';
import {clock, fit} from '../format.js';
import {compileFilter} from '../view-state.js';
import {Line, Span, Title} from './common.js';

export interface LogPaneProps {
	readonly log: LogRing | readonly LogLine[];
	readonly label?: string;
	readonly logState?: string;
	readonly filter: string;
	readonly editing: boolean;
	readonly draft: string;
	/** Lines scrolled back from the newest. */
	readonly scroll: number;
	readonly width: number;
	readonly height: number;
}

export interface VisibleLog {
	readonly lines: {readonly text: string; readonly parsed: boolean; readonly note?: boolean; readonly ranges: [number, number][]}[];
	readonly matched: number;
	readonly error?: string;
}

/** Filter, scroll and cut the log to what fits, before anything renders. Pure. */
export function visibleLog(log: LogRing | readonly LogLine[], filter: string, scroll: number, rows: number, width: number): VisibleLog {
	const f = compileFilter(filter);
	// Without a filter only the visible tail is read (never a copy of the whole buffer).
	const matched = f ? logLines(log).filter(l => f.test(l.text)) : undefined;
	const total = matched ? matched.length : log.length;
	const shown = matched ? logTail(matched, rows, Math.max(0, scroll)) : logTail(log, rows, Math.max(0, scroll));
	const room = Math.max(1, width - 11);
	const lines = shown.map(l => {
		let full = sanitize(l.text, 1024);
		// A match past the right edge: start the line shortly before it, so the match is on screen.
		const first = f?.ranges(full)[0];
		if (first && first[1] > room - 1 && first[0] > 12) full = `…${full.slice(first[0] - 10)}`;
		const text = fit(full, room);
		return {text: `${clock(l.t)} ${l.note ? '!' : l.parsed ? '•' : ' '} ${text}`, parsed: l.parsed, note: l.note, ranges: f ? f.ranges(text).map(([a, b]) => [a + 11, b + 11] as [number, number]) : []};
	});
	return {lines, matched: total, error: f?.error};
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
		() => visibleLog(props.log, props.filter, props.scroll, rows, props.width),
		[props.log, props.filter, props.scroll, rows, props.width],
	);
	const filterLine = props.editing
		? `/ ${props.draft}▏  Enter applies · Esc stops editing`
		: props.filter
			? `filter ${props.filter}: ${view.matched} of ${props.log.length} lines${view.error ? ` (${view.error})` : ''} · Esc clears`
			: `${props.log.length} lines · • = parsed · ! = inconsistent · / filters · PgUp/PgDn scroll`;
	return (
		<Box flexDirection="column" height={props.height} width={props.width}>
			<Title title="LOG" detail={`${props.label ?? '--'}${props.logState ? ` · ${props.logState}` : ''}${props.scroll > 0 ? ` · ${props.scroll} lines back` : ''}`} />
			<Line color={props.editing ? 'accent' : 'muted'}>{filterLine}</Line>
			{view.lines.length === 0 && rows > 0 ? <Line color="muted">{props.filter ? 'no line matches' : 'no log lines yet'}</Line> : null}
			{view.lines.map((l, i) => (
				<Line key={i} color={l.note ? 'warn' : l.parsed ? undefined : 'muted'}>
					<Highlighted text={l.text} ranges={l.ranges} />
				</Line>
			))}
		</Box>
	);
});
