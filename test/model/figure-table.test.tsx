/**
 * A figure is one record (issue 31): a table extended by one made-up record, through the same
 * functions the monitor uses, shows the figure in `snapshot --json`, in the Prometheus exposition
 * and on the PASSES pane, and changes nothing else. The made-up figure is DESIGN §1's "drafted per
 * pass" (seed 000: 458 drafted over 225 iterations = 2.04), which infertop does not show.
 */
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {render} from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {feedLine} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {deriveModels, deriveServer} from '../../source/model/derive.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {FIGURES, figure, sums, type FigureRecord, type FigureTable, type ModelFigures} from '../../source/model/figure-table.js';
import {renderMetrics} from '../../source/metrics/exporter.js';
import {PassesPane, passesLines} from '../../source/ui/panes/passes.js';
import {num} from '../../source/ui/format.js';
import {noColorTheme} from '../../source/ui/theme.js';
import {ThemeContext} from '../../source/ui/theme-context.js';
import type {Action, MonitorState} from '../../source/types/state.js';

const ID = 'ollama@127.0.0.1:11434';
const MODEL = 'qwen3.6:27b-mlx-bf16';

/** The first request of samples/ollama-mlx.log (seed 000) on an M4 Pro, with its model's bytes per token. */
function seed000(): MonitorState {
	const lines = readFileSync(fileURLToPath(new URL('../../samples/ollama-mlx.log', import.meta.url)), 'utf8').split('\n').slice(0, 14);
	const t0 = Date.parse('2026-08-21T18:47:50.012-07:00');
	let s = initialState({now: t0});
	const dispatch = (a: Action) => {
		s = reduce(s, a);
	};
	dispatch({type: 'bandwidth', bandwidth: {gbs: 273, source: 'table: Apple M4 Pro', chip: 'Apple M4 Pro'}});
	dispatch({type: 'server-seen', t: t0, server: {id: ID, engine: 'ollama', url: 'http://127.0.0.1:11434', source: 'flag'}});
	dispatch({type: 'model-bytes', serverId: ID, model: MODEL, bytesPerToken: 14.45e9, source: 'gguf tensors'});
	const parser = createParser('ollama');
	lines.forEach((line, i) => feedLine(parser, ID, line, t0 + i * 1000, dispatch));
	dispatch({type: 'tick', t: t0 + 15_000});
	return s;
}

type Row = ModelFigures & {readonly draftedPerPass?: number};

/** The one record: drafted tokens per target pass, over the requests of the set. */
const DRAFTED_PER_PASS: FigureRecord<'draftedPerPass', 'tokens/pass', Row> & {readonly json: {readonly digits: 2}} = {
	key: 'draftedPerPass',
	unit: 'tokens/pass',
	of: {
		requests: rs => {
			const s = sums(rs, ({r, t}) => (r.drafted !== undefined && t.passes !== undefined && t.passes > 0 ? [r.drafted, t.passes] : undefined));
			return s.n > 0 ? s.a / s.b : undefined;
		},
	},
	overBatch: true,
	json: {digits: 2},
	prometheus: {name: 'infertop_drafted_tokens_per_pass', type: 'gauge', help: 'Draft tokens proposed per forward pass of the target model.'},
	screen: {line: 1, label: () => 'drafted/pass ', value: f => num(f.draftedPerPass, 2)},
};
const TABLE: FigureTable = [...FIGURES, DRAFTED_PER_PASS];

describe('a figure is one record', () => {
	it('derive computes it from the set, by its record', () => {
		const [f] = deriveServer(seed000(), ID, TABLE) as Row[];
		expect(f!.model).toBe(MODEL);
		expect(f!.set).toBe(`last request of ${MODEL}, 2 s`);
		expect(f!.draftedPerPass).toBe(458 / 225);
		expect(f!.tokensPerPass).toBe(512 / 225);
	});

	it('snapshot --json has it under its key, rounded as the record says, and nothing else changes', () => {
		const s = seed000();
		const plain = toSnapshot(s, 'test');
		const more = toSnapshot(s, 'test', {figures: TABLE});
		const row = more.models[0] as Record<string, unknown>;
		expect(row.draftedPerPass).toBe(2.04);
		expect(Object.keys(row).at(-1)).toBe('draftedPerPass');
		expect('draftedPerPass' in plain.models[0]!).toBe(false);
		const {draftedPerPass: _, ...rest} = row;
		expect(JSON.stringify({...more, models: [rest]})).toBe(JSON.stringify(plain));
	});

	it('the exporter writes it as its gauge, and nothing else changes', () => {
		const s = seed000();
		const plain = renderMetrics(s, deriveModels(s));
		const more = renderMetrics(s, deriveModels(s, TABLE), undefined, TABLE);
		const added = [
			'# HELP infertop_drafted_tokens_per_pass Draft tokens proposed per forward pass of the target model.',
			'# TYPE infertop_drafted_tokens_per_pass gauge',
			`infertop_drafted_tokens_per_pass{engine="ollama",server="http://127.0.0.1:11434",model="${MODEL}"} ${458 / 225}`,
		];
		const lines = more.split('\n');
		const at = lines.indexOf(added[0]!);
		expect(lines.slice(at, at + 3)).toEqual(added);
		expect([...lines.slice(0, at), ...lines.slice(at + 3)].join('\n')).toBe(plain);
	});

	it('the PASSES pane shows it on its line, after the figures before it in the table', () => {
		const s = seed000();
		const figures = deriveServer(s, ID, TABLE);
		expect(passesLines(figures[0], TABLE)[1]).toEqual([['ms/pass ', '--'], ['   B ', '14.45 GB (gguf tensors)'], ['   drafted/pass ', '2.04']]);
		const pane = (table?: FigureTable) =>
			stripAnsi(
				render(
					<ThemeContext.Provider value={noColorTheme()}>
						<PassesPane figures={table ? figures : deriveServer(s, ID)} history={[]} width={100} height={6} graphRows={0} table={table} />
					</ThemeContext.Provider>,
				).lastFrame() ?? '',
			).split('\n');
		expect(pane(TABLE)[2]).toBe('ms/pass --   B 14.45 GB (gguf tensors)   drafted/pass 2.04');
		expect(pane()[2]).toBe('ms/pass --   B 14.45 GB (gguf tensors)');
		expect(pane(TABLE).filter((_, i) => i !== 2)).toEqual(pane().filter((_, i) => i !== 2));
	});

	it('the compiler holds a record to its unit and the row to the table', () => {
		// A formula must return its unit's type…
		// @ts-expect-error a text unit's formula returns a number
		figure({key: 'wrong', unit: 'text', of: {probe: p => p.decodeTps}, overBatch: false, json: false});
		// … and a screen reads only figures the table has.
		// @ts-expect-error no figure decodeTpz
		figure({key: 'typo', unit: 'tok/s', of: {}, overBatch: false, json: false, screen: {line: 0, label: (): string => '', value: (f): string => String(f.decodeTpz)}});
		// The row's type is the table's: every key of a record is a figure, with its unit's type.
		const f: ModelFigures = {serverId: 's', engine: 'ollama', requestCount: 0, decodeTps: 1, processor: '100% GPU', batch: {running: 2}};
		// @ts-expect-error decodeTps is a number (tok/s)
		const g: ModelFigures = {...f, decodeTps: '1'};
		expect([f.decodeTps, g.serverId]).toEqual([1, 's']);
		// Unique keys: a record is the only one of its figure.
		expect(new Set(FIGURES.map(r => r.key)).size).toBe(FIGURES.length);
	});
});
