/**
 * FINDINGS (key `!`): every agent session's findings, newest first — when, what, where (model,
 * server, turns), the engine's evidence line and the fix. Renders ui/view-model/findings.ts only.
 */
import {Box} from 'ink';
import {memo} from 'react';
import {fit} from '../format.js';
import type {FindingRow} from '../view-model/findings.js';
import {Line, Span, Title} from './common.js';

export interface FindingsPaneProps {
	readonly rows: readonly FindingRow[];
	readonly width: number;
	readonly height: number;
}

const clock = (t: number): string => new Date(t).toISOString().slice(11, 19);

export const FindingsPane = memo(function FindingsPane({rows, width, height}: FindingsPaneProps) {
	const room = Math.max(0, height - 1);
	const perRow = 3;
	const shown = rows.slice(0, Math.max(0, Math.floor(room / perRow)));
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="FINDINGS" detail={fit(`${rows.length} in the agent sessions, newest first · !/Esc closes · a: agent view`, Math.max(0, width - 10))} />
			{rows.length === 0 ? <Line color="muted">no findings: no agent turn was truncated, refused, reloaded, missed its cache or ran out of time</Line> : null}
			{shown.flatMap(r => [
				<Line key={`${r.entry.sessionId}/${r.entry.kind}/h`}>
					<Span color="muted">{`${clock(r.entry.time)} `}</Span>
					<Span color="bad" bold>{`${r.mark} ${r.words}`}</Span>
					<Span>{` · ${r.where}`}</Span>
				</Line>,
				<Line key={`${r.entry.sessionId}/${r.entry.kind}/e`} color="muted">
					{fit(`         ${r.entry.evidence}`, width)}
				</Line>,
				<Line key={`${r.entry.sessionId}/${r.entry.kind}/f`} color="good">
					{fit(`         fix: ${r.entry.fix}`, width)}
				</Line>,
			])}
			{shown.length < rows.length ? <Line color="muted">{`+${rows.length - shown.length} more (snapshot --json lists all)`}</Line> : null}
		</Box>
	);
});
