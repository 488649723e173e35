/**
 * Under traffic the REQUESTS rows move down the table every frame, but most of them are the same
 * requests: a row's text is made once per entry and model column width (panes/requests.tsx rowText),
 * not anew each frame (issue 32, third round). Structure, not time: a frame with one new request makes
 * one row's text; the frame is what entryText makes of every row, as before.
 */
import {render} from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import {describe, expect, it, vi} from 'vitest';

// Counts the row clocks made: entryText makes one per finished row (nothing else in the pane does).
const clocks = vi.hoisted(() => ({count: 0}));
vi.mock('../../source/ui/format.js', async importOriginal => (await import('../helpers/count-calls.js')).counting(await importOriginal<typeof import('../../source/ui/format.js')>(), 'clock', clocks));
import type {RequestRecord, ServerState} from '../../source/types/state.js';
import {entryText, modelColumn, RequestsPane, rowText} from '../../source/ui/panes/requests.js';
import {noColorTheme} from '../../source/ui/theme.js';
import {ThemeContext} from '../../source/ui/theme-context.js';
import {requestEntries, tableEntries} from '../../source/ui/view-model/requests.js';
import {richState, T0} from '../helpers/ui-state.js';

const HEIGHT = 12;
const WIDTH = 120;

describe('REQUESTS rows made once per request', () => {
	it('a frame with one new request makes one row text; the frame is entryText of every row shown', () => {
		const base = richState();
		const id = base.order[0]!;
		const server = base.servers[id]!;
		let k = 0;
		// a llama.cpp request as the busy log gives it: counts, times, one finished a few ms apart
		const request = (): RequestRecord => {
			k++;
			return {serverId: id, key: `s${k % 8}/t${1000 + 3 * k}`, firstSeen: T0 + k * 7.25, lastSeen: T0 + k * 7.25 + 950.5, done: true, slot: k % 8, task: 1000 + 3 * k, prefillTokens: 12 + (k % 20), prefillMs: 3.1 * (12 + (k % 20)), generatedTokens: 64, decodedTokens: 63, decodeMs: 902.4, engineTps: 70.92, promptTokens: 13 + (k % 20), cachedTokens: 1, promptEstimated: true};
		};
		let ring: RequestRecord[] = Array.from({length: 200}, request);
		const servers = (): Record<string, ServerState> => ({...base.servers, [id]: {...server, requests: ring}});
		const rowsOf = () => tableEntries(requestEntries(servers(), base.order), 'time', '');
		const frame = (rows: ReturnType<typeof rowsOf>) => (
			<ThemeContext.Provider value={noColorTheme()}>
				<RequestsPane entries={rows} total={rows.length} focused={false} cursor={0} sort="time" filter="" width={WIDTH} height={HEIGHT} />
			</ThemeContext.Provider>
		);
		const first = rowsOf();
		const shown = HEIGHT - 2;
		clocks.count = 0;
		const f = render(frame(first));
		// a live row (another server's request in flight) has no clock
		expect(clocks.count).toBe(first.slice(0, shown).filter(e => e.record.done).length);
		expect(clocks.count).toBeGreaterThan(5);
		for (let step = 0; step < 5; step++) {
			// one request finishes: the oldest leaves the ring, every row on screen moves down one
			ring = [...ring.slice(1), request()];
			const rows = rowsOf();
			clocks.count = 0;
			f.rerender(frame(rows));
			expect(clocks.count).toBe(1);
			// what is on screen is entryText of each row, made anew (the counter aside)
			const modelWidth = modelColumn(rows.slice(0, shown), WIDTH);
			const lines = stripAnsi(f.lastFrame() ?? '').split('\n').slice(2);
			expect(lines).toEqual(rows.slice(0, shown).map(e => entryText(e, modelWidth)));
		}
		f.unmount();
	});

	it('a row is made again for another model column width', () => {
		const s = richState();
		const e = requestEntries(s.servers, s.order).find(x => x.record.done)!;
		clocks.count = 0;
		expect(rowText(e, 16)).toBe(entryText(e, 16));
		expect(rowText(e, 16)).toBe(entryText(e, 16));
		expect(rowText(e, 24)).toBe(entryText(e, 24));
		// rowText made two (16 and 24), entryText three
		expect(clocks.count).toBe(5);
	});
});
