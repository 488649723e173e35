import {Box} from 'ink';
import {memo, useEffect, useMemo, useRef} from 'react';
import {FIGURES, type FigureTable, type ModelFigures} from '../../model/figure-table.js';
import type {PassSample, ServerLoad} from '../../types/state.js';
import {batchText, decodeUnknownWhy, samplesOf, shownFigures} from '../view-model/passes.js';
import {nextScale} from '../../model/verdict.js';
import {ceilingRow, graphBlock, graphPlotWidth, markerRow, niceCeil, placeLabels, sparkline} from '../charts.js';
import {DASH, num, tpp, tps} from '../format.js';
import {passesVerdictLine, type Verdict} from '../verdict.js';
import {Line, Span, Title} from './common.js';

export interface PassesPaneProps {
	/** Figures of the selected server's models (deriveServer). */
	readonly figures: readonly ModelFigures[];
	readonly history: readonly PassSample[];
	readonly serverLabel?: string;
	/** What the server's status API says it runs now (batch size, waiting). */
	readonly load?: ServerLoad;
	readonly contention?: string;
	/** The selected server is the demo's simulated engine (its causes are simulated). */
	readonly demo?: boolean;
	readonly width: number;
	readonly height: number;
	/** Height of the tok/s graph; 0 = no graphs. */
	readonly graphRows: number;
	/** The model pinned with `m` (the pane stays on it); undefined = automatic. */
	readonly pinnedModel?: string;
	/** The figure table (model/figure-table.ts); tests add a record to it. */
	readonly table?: FigureTable;
}

const NO_FIGURES = {};

/**
 * The three figure lines, as plain text segments (label, value) so tests and the snapshot read them:
 * each figure of the table with a place on screen, on its line, in table order.
 */
export function passesLines(f: ModelFigures | undefined, table: FigureTable = FIGURES): [string, string][][] {
	const row = (f ?? NO_FIGURES) as never;
	const lines: [string, string][][] = [[], [], []];
	for (const {screen} of table) {
		if (!screen) continue;
		const value = screen.value(row);
		if (value === undefined) continue;
		const line = lines[screen.line]!;
		line.push([`${line.length > 0 ? '   ' : ''}${screen.label(row)}`, value]);
	}
	return lines;
}

const LEVEL_COLOR = {good: 'good', warn: 'warn', bad: 'bad', muted: 'muted'} as const;
const LEVEL_GLYPH = {good: '✓', warn: '!', bad: '✖', muted: '·'} as const;

export function VerdictLine({verdict}: {readonly verdict: Verdict}) {
	return (
		<Line>
			<Span color={LEVEL_COLOR[verdict.level]}>{`${LEVEL_GLYPH[verdict.level]} ${verdict.text}`}</Span>
		</Line>
	);
}

const GUTTER = 6;
const LABELS = 20;

export const PassesPane = memo(function PassesPane(props: PassesPaneProps) {
	const f = shownFigures(props.figures, props.pinnedModel);
	const pinned = props.pinnedModel !== undefined && f?.model === props.pinnedModel;
	const lines = useMemo(() => passesLines(f, props.table), [f, props.table]);
	const verdict = useMemo(() => passesVerdictLine(f, props.contention, props.demo === true), [f, props.contention, props.demo]);
	const others = props.figures.filter(x => x !== f && x.model).map(x => {
		const why = decodeUnknownWhy(x);
		return why === undefined ? x.model : `${x.model} (${why})`;
	});
	const detail = [
		`${f?.model ?? props.serverLabel ?? DASH}${pinned ? ' (pinned, m)' : props.figures.length > 1 ? ' (auto, m pins)' : ''}`,
		f?.engine,
		f?.runner,
		f?.set,
		others.length > 0 ? `also ${others.join(', ')}` : undefined,
		batchText(props.load),
	]
		.filter(Boolean)
		.join(' · ');
	return (
		<Box flexDirection="column" height={props.height} width={props.width}>
			<Title title="PASSES" detail={detail} />
			{lines.map((segments, i) => (
				<Line key={i}>
					{segments.map(([label, value], j) => (
						<Span key={j}>
							<Span color="muted">{label}</Span>
							{value}
						</Span>
					))}
				</Line>
			))}
			<VerdictLine verdict={verdict} />
			{props.graphRows > 0 ? <Graphs history={samplesOf(props.history, f)} figures={f} width={props.width} rows={props.graphRows} /> : null}
		</Box>
	);
});

interface GraphsProps {
	readonly history: readonly PassSample[];
	readonly figures?: ModelFigures;
	readonly width: number;
	readonly rows: number;
}

// The samples' readers at module level, not closures made anew each frame (issue 32: under a busy
// log V8 compiled each frame's new ones again).
const decodeOf = (s: PassSample) => s.decodeTps;
const passOf = (s: PassSample) => s.tokensPerPass;
const contentionOf = (s: PassSample) => s.contention;

/** tok/s braille graph with the ceiling line, contention marks under it, tokens-per-pass sparkline: one time axis. */
const Graphs = memo(function Graphs({history, figures, width, rows}: GraphsProps) {
	const plotWidth = graphPlotWidth({width, gutter: GUTTER, labelWidth: LABELS});
	// Only what is on screen (2 samples per cell) counts for the scale.
	const shown = useMemo(() => history.slice(-plotWidth * 2), [history, plotWidth]);
	const tpsValues = useMemo(() => shown.map(decodeOf), [shown]);
	const tppValues = useMemo(() => shown.map(passOf), [shown]);
	const flags = useMemo(() => shown.map(contentionOf), [shown]);
	const ceiling = figures?.ceilingTps;
	// The scale grows at once and shrinks slowly (model/verdict.ts nextScale); the drawn and printed
	// scale is that rounded up to a nice number, so it changes only when a step is crossed.
	const prevScale = useRef(0);
	const prevTppScale = useRef(0);
	const rawScale = useMemo(() => nextScale(prevScale.current, [...tpsValues, ceiling]), [tpsValues, ceiling]);
	const rawTppScale = useMemo(() => nextScale(prevTppScale.current, tppValues), [tppValues]);
	useEffect(() => {
		prevScale.current = rawScale;
		prevTppScale.current = rawTppScale;
	}, [rawScale, rawTppScale]);
	const scale = niceCeil(rawScale);
	const tppScale = niceCeil(rawTppScale);
	// `now` is the row's own figure (the same set as the lines above), not whichever sample is newest.
	const lastTps = figures?.decodeTps;
	const lastTpp = figures?.tokensPerPass;
	const cRow = ceilingRow(ceiling, scale, rows);
	const ceilingText = `┄ ceiling ${tps(ceiling)}`;
	const labels = placeLabels(rows, [
		// an old log's or an earlier probe's figure is the last one seen, not the present
		{row: 0, text: `${figures?.current === false ? 'last' : 'now'} ${tps(lastTps)} tok/s`},
		{row: cRow ?? 1, text: ceilingText},
		{row: rows - 1, text: `scale 0–${num(scale, scale < 10 ? 1 : 0)} tok/s`},
	]);
	const ceilingLabelRow = labels.indexOf(ceilingText);
	const block = graphBlock(tpsValues, {width, height: rows, max: scale, ceiling, gutter: GUTTER, labelWidth: LABELS, decimals: scale < 10 ? 1 : 0, labels});
	const marks = markerRow(flags, {width: plotWidth});
	const spark = sparkline(tppValues, {width: plotWidth, max: tppScale, samplesPerCell: 2});
	const hasMarks = marks.includes('!');
	return (
		<Box flexDirection="column">
			{block.map((row, i) => (
				<Line key={i} color={i === ceilingLabelRow ? undefined : 'tps'}>
					{i === ceilingLabelRow ? (
						<>
							<Span color="tps">{row.slice(0, GUTTER + 1 + plotWidth + 1)}</Span>
							<Span color="ceiling">{row.slice(GUTTER + 1 + plotWidth + 1)}</Span>
						</>
					) : (
						row
					)}
				</Line>
			))}
			<Line color="warn">{`${' '.repeat(GUTTER)} ${marks} ${hasMarks ? '! = contention' : ''}`}</Line>
			<Line>
				{' '.repeat(GUTTER)}
				<Span color="tpp">{` ${spark} `}</Span>
				{`tok/pass ${tpp(lastTpp)} (0–${num(tppScale, Number.isInteger(tppScale) ? 0 : 1)})`}
			</Line>
		</Box>
	);
});

