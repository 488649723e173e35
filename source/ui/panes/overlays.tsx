import {Box} from 'ink';
import type {ProbePromptKind} from '../../types/probe.js';
import {helpLines, type KeyBinding} from '../keymap.js';
import type {ScopeTable} from '../scopes.js';
import {PROMPT_KINDS} from '../view-state.js';
import {Line, Span, Title} from './common.js';

export function HelpOverlay({keymap, scopes, width, height}: {readonly keymap: readonly KeyBinding[]; readonly scopes?: ScopeTable; readonly width: number; readonly height: number}) {
	const room = Math.max(0, height - 1);
	const full = helpLines(keymap, {scopes});
	// The full help where it fits; else the compact one: the global keys in one column where the rows
	// allow it (nothing cut), else in two.
	const oneColumn = full.length <= room ? full : helpLines(keymap, {compact: true, width, scopes, oneColumn: true});
	const lines = oneColumn.length <= room && oneColumn.every(l => Array.from(l).length <= width) ? oneColumn : helpLines(keymap, {compact: true, width, scopes});
	const shown = lines.length > room ? [...lines.slice(0, Math.max(0, room - 1)), `… ${lines.length - room + 1} more (a taller terminal shows all)`] : lines;
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="KEYS" detail="Esc or ? closes" />
			{shown.map((l, i) => (
				<Line key={i} color={l.startsWith('  ') || l.includes(': ') ? undefined : 'accent'} bold={!l.startsWith('  ') && !l.includes(': ')}>
					{l || ' '}
				</Line>
			))}
		</Box>
	);
}

/** What each probe prompt asks for (source/probe/prompts.ts). */
export const PROMPT_HELP: Record<Exclude<ProbePromptKind, 'file'>, string> = {
	code: 'write a small Python class (code)',
	prose: 'about 400 words of plain prose (hard for speculation)',
	repeat: 'one sentence 40 times (easy for speculation)',
	hex: '600 random hexadecimal digits',
	long: 'a long source file and a question (prefill; r shows prefix-cache reuse)',
};

export function PromptOverlay(props: {readonly cursor: number; readonly current: ProbePromptKind; readonly serverLabel?: string; readonly width: number; readonly height: number}) {
	return (
		<Box flexDirection="column" height={props.height} width={props.width}>
			<Title title="PROBE PROMPT" detail={`probe ${props.serverLabel ?? '--'} with · ↑/↓ choose · Enter runs · Esc closes`} />
			{PROMPT_KINDS.slice(0, Math.max(0, props.height - 1)).map((k, i) => (
				<Line key={k} inverse={i === props.cursor}>
					{i === props.cursor ? '▸ ' : '  '}
					<Span bold>{k.padEnd(8)}</Span>
					{PROMPT_HELP[k]}
					{k === props.current ? <Span color="muted">{'  (last used)'}</Span> : null}
				</Line>
			))}
		</Box>
	);
}

export function TooSmall({columns, rows, need}: {readonly columns: number; readonly rows: number; readonly need: {readonly columns: number; readonly rows: number}}) {
	const okW = columns >= need.columns;
	const okH = rows >= need.rows;
	const h = Math.max(1, rows - 1);
	const lines = [
		<Line key="t" bold color="warn">
			Terminal too small
		</Line>,
		<Line key="w">
			{'Width  '}
			<Span color={okW ? 'good' : 'bad'}>{`${columns} ${okW ? '✓' : '✖'}`}</Span>
			{` (need ${need.columns})`}
		</Line>,
		<Line key="h">
			{'Height '}
			<Span color={okH ? 'good' : 'bad'}>{`${rows} ${okH ? '✓' : '✖'}`}</Span>
			{` (need ${need.rows})`}
		</Line>,
		<Line key="n" color="muted">
			{`Needed: ${need.columns}×${need.rows}, now ${columns}×${rows}`}
		</Line>,
	];
	return (
		<Box flexDirection="column" width={Math.max(1, columns)} height={h}>
			{lines.slice(0, h)}
		</Box>
	);
}
