/**
 * A request entry's figures are worked out when first read, then kept (view-model/requests.ts
 * entryOf; issue 32, third round). At 1,000 requests a second every record of the 200-request ring is
 * new at each frame and the table shows ~10 of them: structure, not time. A frame sorted by time
 * works out the figures of the rows it shows only; a sort by a figure works out each entry's once;
 * what is read is what requestFigures gives, as a field (a spread, JSON).
 */
import {render} from 'ink-testing-library';
import {describe, expect, it, vi} from 'vitest';

// Counts the figures worked out (the work an entry did for each record when it was made).
const made = vi.hoisted(() => ({count: 0}));
vi.mock('../../source/model/figures.js', async importOriginal => (await import('../helpers/count-calls.js')).counting(await importOriginal<typeof import('../../source/model/figures.js')>(), 'requestFigures', made));
import {requestFigures} from '../../source/model/figures.js';
import type {RequestRecord, ServerState} from '../../source/types/state.js';
import {RequestsPane} from '../../source/ui/panes/requests.js';
import {noColorTheme} from '../../source/ui/theme.js';
import {ThemeContext} from '../../source/ui/theme-context.js';
import {requestEntries, tableEntries} from '../../source/ui/view-model/requests.js';
import type {TableSort} from '../../source/ui/view-state.js';
import {T0} from '../helpers/ui-state.js';

const HEIGHT = 12;

function busyServer(first: number): Record<string, ServerState> {
	const id = 'log:busy';
	// a llama.cpp request as the busy log gives it (default verbosity: the prompt worked out, `~`)
	const requests: RequestRecord[] = Array.from({length: 200}, (_, i) => {
		const k = first + i;
		return {serverId: id, key: `s${k % 8}/t${1000 + 3 * k}`, firstSeen: T0 + k * 1.25, lastSeen: T0 + k * 1.25 + 950.5, done: k % 50 !== 7, slot: k % 8, task: 1000 + 3 * k, prefillTokens: 12 + (k % 20), prefillMs: 3.1 * (12 + (k % 20)), generatedTokens: 64 + (k % 3) * 168, decodedTokens: 63 + (k % 3) * 168, decodeMs: 902.4 + k, engineTps: 70.92, promptTokens: 13 + (k % 20), cachedTokens: 1, promptEstimated: true};
	});
	const server = {id, engine: 'llamacpp', source: 'log', state: 'log-only', models: [], requests, history: [], buffers: {}, httpCount: 0, linesParsed: 0, linesUnparsed: 0, linesInconsistent: 0, answersInconsistent: 0, requestsSeen: 200, requestsByModel: {}, totals: {}, dropped: [], offloads: {}, log: {buffer: [], start: 0, end: 0, length: 0}, modelBytes: {}} as ServerState;
	return {[id]: server};
}

const pane = (rows: ReturnType<typeof tableEntries>, sort: TableSort) => (
	<ThemeContext.Provider value={noColorTheme()}>
		<RequestsPane entries={rows} total={rows.length} focused={false} cursor={0} sort={sort} filter="" width={120} height={HEIGHT} />
	</ThemeContext.Provider>
);

describe('an entry\'s figures worked out when read', () => {
	it('a frame of 200 new requests sorted by time works out the figures of the rows it shows only', () => {
		for (let frame = 0; frame < 3; frame++) {
			const servers = busyServer(frame * 1000);
			made.count = 0;
			const rows = tableEntries(requestEntries(servers, ['log:busy']), 'time', '');
			expect(made.count).toBe(0);
			const f = render(pane(rows, 'time'));
			const shown = rows.slice(0, HEIGHT - 2);
			expect(made.count).toBe(shown.filter(e => e.record.done).length);
			expect(made.count).toBeGreaterThan(5);
			f.unmount();
		}
	});

	it('a sort by a figure works out each entry\'s figures once; they are requestFigures\' own, read as a field', () => {
		const servers = busyServer(7000);
		made.count = 0;
		const entries = requestEntries(servers, ['log:busy']);
		const rows = tableEntries(entries, 'decode', '');
		const done = entries.filter(e => e.record.done).length;
		expect(made.count).toBe(done);
		const f = render(pane(rows, 'decode'));
		f.rerender(pane(tableEntries(entries, 'prompt', ''), 'prompt'));
		// every live row's too once read below; nothing worked out twice
		for (const e of entries) expect(e.figures).toEqual(requestFigures(e.record));
		expect(made.count).toBe(entries.length + entries.length);
		f.unmount();
		// a spread and JSON see the figures as a field
		const e = entries[0]!;
		expect(Object.keys(e)).toEqual(['key', 'record', 'engine', 'model', 'figures']);
		expect({...e}.figures).toBe(e.figures);
		expect(JSON.parse(JSON.stringify(e)).figures).toEqual(JSON.parse(JSON.stringify(requestFigures(e.record))));
		// one getter for every entry (a getter per entry would put each in V8's dictionary mode)
		const getters = new Set(entries.map(x => Object.getOwnPropertyDescriptor(x, 'figures')!.get));
		expect(getters.size).toBe(1);
	});
});
