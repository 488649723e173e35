/**
 * What the screen reads of a log while the store moves on (model/log-ring.ts keeps a log's lines in
 * an arena reused in a circle; issue 32). The screen renders the state the store last published,
 * which may be many appends behind: a key pressed between two publishes, a paused screen (space),
 * a log not on screen (its lines publish nothing). Whatever the store appends meanwhile, the
 * published state reads exactly the lines it held; the newest state reads the newest lines; and an
 * arena holds about one window of lines, not all that arrived.
 */
import {describe, expect, it} from 'vitest';
import {logLines, PIN_LAG} from '../../source/model/log-ring.js';
import {MAX_LOG_LINES} from '../../source/model/reducer.js';
import {createStore} from '../../source/model/store.js';
import type {LogBatchLine, MonitorState} from '../../source/types/state.js';
import {prng} from '../helpers/fuzz.js';

const ID = 'log:/var/log/llama-server.log';
const texts = (s: MonitorState): string[] => logLines(s.servers[ID]!.log).map(l => l.text);

/** Lines of varied width: ASCII, multi-byte, empty, a few thousand characters. */
function lines(r: () => number, from: number, n: number): LogBatchLine[] {
	const parts = ['srv  update_slots: ', 'é', '€ ', '😀', 'slot 0 | task ', ' ', '漢字'];
	return Array.from({length: n}, (_, i) => {
		const k = r() < 0.02 ? 3000 : r() < 0.05 ? 0 : Math.floor(r() * 30);
		let text = `${from + i} `;
		for (let j = 0; j < k; j++) text += parts[Math.floor(r() * parts.length)]!;
		return {t: 1_796_000_000_000 + from + i, text, parsed: false};
	});
}

describe('the published state reads its lines while the store moves on', () => {
	it('between publishes, paused, and with the log off screen: the published lines stay, the arena stays small', () => {
		const r = prng(4207);
		const store = createStore({now: 0});
		let n = 0;
		const append = (count: number) => {
			store.dispatch({type: 'log-batch', serverId: ID, lines: lines(r, n, count)});
			n += count;
		};
		append(50);
		store.publish();
		let shown = store.getPublished();
		let was = texts(shown);
		for (let round = 0; round < 60; round++) {
			// a few batches between publishes, sometimes far more than the ring holds
			const batches = 1 + Math.floor(r() * 6);
			for (let b = 0; b < batches; b++) append(r() < 0.1 ? 3 * MAX_LOG_LINES : Math.floor(r() * 400));
			// what a render now (a key pressed) reads of the published state: what it held
			expect(texts(shown)).toEqual(was);
			// the newest state reads the newest lines, numbered up to the last appended
			const newest = texts(store.getSnapshot());
			expect(newest.length).toBe(Math.min(n, MAX_LOG_LINES));
			expect(newest.at(-1)!.split(' ')[0]).toBe(String(n - 1));
			if (round === 20) {
				// paused for a long while: 20 × the ring arrives, the screen holds
				store.setPaused(true);
				for (let b = 0; b < 20; b++) append(MAX_LOG_LINES);
				expect(texts(store.getPublished())).toEqual(was);
				store.setPaused(false);
			} else if (round === 40) {
				// the log off screen: its lines publish nothing, and the published state still reads
				store.setLogShown(false);
				for (let b = 0; b < 12; b++) append(MAX_LOG_LINES / 2);
				expect(store.getPublished()).toBe(shown);
				expect(texts(shown)).toEqual(was);
				store.setLogShown(true);
			} else store.publish();
			shown = store.getPublished();
			was = texts(shown);
			expect(was.at(-1)!.split(' ')[0]).toBe(String(n - 1));
			// one arena, with line slots for about the window and what may lag behind it, never all that came
			const arena = store.getSnapshot().servers[ID]!.log.arena!;
			expect(arena.at.length).toBeLessThanOrEqual(2 ** Math.ceil(Math.log2(2 * ((PIN_LAG + 1) * MAX_LOG_LINES + 2))));
		}
		expect(n).toBeGreaterThan(30 * MAX_LOG_LINES);
	});
});
