import {Box} from 'ink';
import {memo} from 'react';
import {COMPARE_COLUMNS, compareLines} from '../../model/compare.js';
import type {CompareProgress, CompareState} from '../../types/compare.js';
import {elapsed, int, ms, tps} from '../format.js';
import {Line, Span, Title} from './common.js';

export interface ComparePaneProps {
	readonly compare?: CompareState;
	readonly now: number;
	readonly width: number;
	readonly height: number;
}

/** The live line of one running probe. Pure. */
export function compareRunningLine(p: CompareProgress, now: number): string {
	// The status (a busy server's wait) first: on a narrow screen the line is cut from its end.
	const status = p.status ? ` · ${p.status}` : '';
	const took = elapsed(Math.max(p.elapsedMs, now - p.startedAt));
	return `▶ [${p.index + 1}/${p.total}] ${p.url} ${p.model ?? '--'} · ${p.prompt} run ${p.run}${status} · ${int(p.tokens)} tokens · ${tps(p.liveTps)} tok/s live · TTFT ${ms(p.ttftMs)} · ${took}`;
}

/** The table's text rows (header first), columns padded to fit. Pure. */
export function compareTableRows(c: CompareState): string[] {
	const lines = compareLines(c.rows);
	const cells = [[...COMPARE_COLUMNS], ...lines.map((l) => [l.url.replace(/^https?:\/\//, ''), l.engine, l.model, ...l.cells])];
	const widths = COMPARE_COLUMNS.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
	return cells.map((r) => r.map((s, i) => (i < 3 ? s.padEnd(widths[i]!) : s.padStart(widths[i]!))).join('  ').trimEnd());
}

export const ComparePane = memo(function ComparePane({compare, now, width, height}: ComparePaneProps) {
	const room = Math.max(0, height - 1);
	const lines: {text: string; color?: 'accent' | 'bad' | 'warn' | 'muted'; bold?: boolean}[] = [];
	let detail = 'c starts · code / prose / long, 2 runs each, one request at a time per machine';
	if (!compare) {
		lines.push({text: 'no comparison yet: c runs code, prose and the ~27K-token long prompt twice each on every loaded model of every server', color: 'muted'});
	} else {
		const state = compare.finished ? (compare.cancelled ? 'cancelled' : 'finished') : 'running';
		detail = `run ${compare.runId} · ${compare.rows.length}/${compare.total} · ${state} · ${elapsed(now - compare.startedAt)} · ${compare.finished ? 'c again · Esc closes' : 'Esc cancels'}`;
		for (const p of compare.running) lines.push({text: compareRunningLine(p, now), color: 'accent'});
		if (compare.error) lines.push({text: `✖ ${compare.error}`, color: 'bad'});
		compareTableRows(compare).forEach((t, i) => lines.push({text: t, bold: i === 0}));
		for (const l of compareLines(compare.rows)) for (const e of l.errors.filter((x) => !x.endsWith(': cancelled'))) lines.push({text: `✖ ${l.model}: ${e}`, color: 'bad'});
		lines.push({text: 'tok/s: wall-clocked decode; long: wait (TTFT, s) / writes (tok/s); 2nd TTFT: the long prompt again (cache reuse); -- = not known', color: 'muted'});
	}
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="COMPARE" detail={detail} />
			{lines.slice(0, room).map((l, i) => (
				<Line key={i} bold={l.bold}>
					{l.color ? <Span color={l.color}>{l.text}</Span> : l.text}
				</Line>
			))}
		</Box>
	);
});
