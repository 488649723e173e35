import {Box} from 'ink';
import {memo, useEffect, useMemo, useRef} from 'react';
import type {ModelFigures} from '../../types/figures.js';
import type {PassSample, ServerLoad} from '../../types/state.js';
import {nextScale} from '../../model/verdict.js';
import {ceilingRow, graphBlock, graphPlotWidth, markerRow, niceCeil, placeLabels, sparkline} from '../charts.js';
import {DASH, gb, gbs, num, pct, tpp, tps} from '../format.js';
import {batchSummary} from '../format.js';
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
}

/** The model the pane is about: the one running right now (newest finished request) with figures, else the first. */
export function primaryFigures(figures: readonly ModelFigures[]): ModelFigures | undefined {
	const withFigures = figures.filter(f => f.decodeTps !== undefined || f.tokensPerPass !== undefined);
	if (withFigures.length === 0) return figures[0];
	return withFigures.reduce((a, b) => ((b.lastRequestAt ?? 0) > (a.lastRequestAt ?? 0) ? b : a));
}

/** The model the pane shows: the pinned one while the server has it, else primaryFigures. Pure. */
export function shownFigures(figures: readonly ModelFigures[], pinnedModel: string | undefined): ModelFigures | undefined {
	if (pinnedModel !== undefined) {
		const hit = figures.find(f => f.model === pinnedModel);
		if (hit) return hit;
	}
	return primaryFigures(figures);
}

/** History samples of the model the pane shows (a sample without model or runner belongs to every model). */
export function samplesOf(history: readonly PassSample[], f: ModelFigures | undefined): readonly PassSample[] {
	if (!f) return history;
	return history.filter(s => {
		if (f.runner !== undefined && s.runner !== undefined) return s.runner === f.runner;
		if (f.model !== undefined && s.model !== undefined && !s.model.includes('/')) return s.model === f.model;
		return true;
	});
}

const isEstimate = (source: string | undefined) => source !== undefined && (source.startsWith('~') || /estimat/i.test(source));

/** `5.22 (engine 5.75)` when the engine's own figure differs from the counts. */
export function tppWithEngine(f: ModelFigures | undefined): string {
	const ours = tpp(f?.tokensPerPass);
	const theirs = f?.engineTokensPerPass;
	if (theirs === undefined || tpp(theirs) === ours) return ours;
	return `${ours} (engine ${tpp(theirs)})`;
}

/** The three figure lines, as plain text segments (label, value) so tests and the snapshot read them. */
export function passesLines(f: ModelFigures | undefined): [string, string][][] {
	const bSource = f?.bytesPerTokenSource?.replace(/^~\s*/, '');
	const b = f?.bytesPerToken === undefined ? DASH : `${isEstimate(f.bytesPerTokenSource) ? '~' : ''}${gb(f.bytesPerToken)}`;
	const effShare = f?.effectiveBandwidthGBs !== undefined && f.bandwidthGBs ? f.effectiveBandwidthGBs / f.bandwidthGBs : undefined;
	return [
		[
			// A sum over N running requests is shown as one aggregate, never as one request's speed.
			f?.aggregateTps !== undefined && f.decodeTps === undefined
				? ['aggregate ', `${tps(f.aggregateTps)} tok/s over ${f.running ?? '?'} running`]
				: ['decode ', `${tps(f?.decodeTps)} tok/s`],
			['   tok/pass ', tppWithEngine(f)],
			['   accept ', pct(f?.acceptance, 1)],
			['   passes/s ', num(f?.passesPerSec, 1)],
		],
		[
			['ms/pass ', num(f?.msPerPass, 1)],
			['   B ', b + (bSource && f?.bytesPerToken !== undefined ? ` (${bSource})` : '')],
			// vLLM/SGLang: the window's throughput is the batch's, never one sequence's.
			...(f?.batch?.genTps !== undefined ? [['   batch ', batchSummary({genTps: f.batch.genTps, running: f.batch.running})] as [string, string]] : []),
		],
		[
			['ceiling ', `${tps(f?.ceilingTps)} tok/s`],
			['   ', `${pct(f?.pctOfCeiling)} of ceiling`],
			['   eff. BW ', `${gbs(f?.effectiveBandwidthGBs)} = ${pct(effShare)} of ${gbs(f?.bandwidthGBs)}`],
		],
	];
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

/** `3 running, 1 waiting` as the server's status API says (several running: its throughput is shared by them). */
export function batchText(load: ServerLoad | undefined): string | undefined {
	if (load?.running === undefined) return undefined;
	return `${load.running} running${load.waiting !== undefined && load.waiting > 0 ? `, ${load.waiting} waiting` : ''}`;
}

const GUTTER = 6;
const LABELS = 20;

export const PassesPane = memo(function PassesPane(props: PassesPaneProps) {
	const f = shownFigures(props.figures, props.pinnedModel);
	const pinned = props.pinnedModel !== undefined && f?.model === props.pinnedModel;
	const lines = useMemo(() => passesLines(f), [f]);
	const verdict = useMemo(() => passesVerdictLine(f, props.contention, props.demo === true), [f, props.contention, props.demo]);
	const others = props.figures.filter(x => x !== f && x.model).map(x => x.model);
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

/** tok/s braille graph with the ceiling line, contention marks under it, tokens-per-pass sparkline: one time axis. */
const Graphs = memo(function Graphs({history, figures, width, rows}: GraphsProps) {
	const plotWidth = graphPlotWidth({width, gutter: GUTTER, labelWidth: LABELS});
	// Only what is on screen (2 samples per cell) counts for the scale.
	const shown = useMemo(() => history.slice(-plotWidth * 2), [history, plotWidth]);
	const tpsValues = useMemo(() => shown.map(s => s.decodeTps), [shown]);
	const tppValues = useMemo(() => shown.map(s => s.tokensPerPass), [shown]);
	const flags = useMemo(() => shown.map(s => s.contention), [shown]);
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

