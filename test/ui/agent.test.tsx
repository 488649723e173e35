/**
 * Key `a`: the AGENT view at 80×24 and 160×50 — a stacked bar per turn (the last 20), the budget in
 * words, `--` and `?` for unknown parts, the other sessions — fed from scripted lithos-metal and
 * llama.cpp lines through the real parsers, reducer and store.
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {App} from '../../source/ui/app.js';
import {createParser} from '../../source/engines/index.js';
import {createStore} from '../../source/model/store.js';
import {feedLine} from '../../source/sources/log-source.js';
import type {Controller} from '../../source/types/controller.js';
import type {MonitorStore} from '../../source/model/store.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

function agentStore(): MonitorStore {
	const store = createStore({host: 'studio', now: T0});
	store.dispatch({type: 'server-seen', t: T0, server: {id: 'lithos', engine: 'lithos', source: 'flag', url: 'http://127.0.0.1:8000'}});
	store.dispatch({type: 'server-seen', t: T0, server: {id: 'llama', engine: 'llamacpp', source: 'flag', url: 'http://127.0.0.1:8080'}});
	const lithos = createParser('lithos');
	const llama = createParser('llamacpp');
	const line = (p: ReturnType<typeof createParser>, id: string, t: number, l: string) => feedLine(p, id, l, t, store.dispatch);
	line(lithos, 'lithos', T0, 'INFO:monolith.serve:lithos-metal ready: http://127.0.0.1:8000 — model=qwen3.8-27b; DSpark=disabled; verification rows=1');
	// 25 turns of one agent on lithos: each 1.3 s of work, then a 1 s tool pause; turn 7 logs no prefill time.
	for (let i = 0; i < 25; i++) {
		const end = T0 + 1300 + i * 2300;
		const prefill = i === 6 ? '' : ` 'prefill_wall_ms': ${300 + i * 10}.0,`;
		line(lithos, 'lithos', end, `INFO:monolith.serve:Generation: {'steps': 40, 'decode_gpu_ms': 900.0, 'wall_ms': 1300.0,${prefill} 'cached_prompt_tokens': ${i * 1000}}`);
		line(lithos, 'lithos', end, 'INFO:     10.0.0.9:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
	}
	// Another agent on llama-server (no client in its log): two turns.
	for (const [task, at] of [[0, T0 + 2000], [1, T0 + 6000]] as const) {
		line(llama, 'llama', at, `slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`);
		line(llama, 'llama', at + 800, `slot print_timing: id  0 | task ${task} | prompt eval time =     300.00 ms /   600 tokens (    0.50 ms per token,  2000.00 tokens per second)`);
		line(llama, 'llama', at + 800, `slot print_timing: id  0 | task ${task} |        eval time =     500.00 ms /    20 tokens (   26.32 ms per token,    38.00 tokens per second)`);
		line(llama, 'llama', at + 800, `slot      release: id  0 | task ${task} | stop processing: n_tokens = 619, truncated = 0`);
	}
	store.dispatch({type: 'tick', t: T0 + 60_000});
	store.publish();
	return store;
}

const controller = (): Controller => ({probe: vi.fn(), cancelProbe: vi.fn(), startDemo: vi.fn(), quit: vi.fn(), setRefresh: vi.fn()});

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

async function open(columns: number, rows: number): Promise<string> {
	tui = renderTui(<App store={agentStore()} controller={controller()} version="0.1.0" />, {columns, rows});
	await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
	tui.stdin.write('a');
	await waitFor(() => tui!.frame().includes('AGENT'), 'agent view');
	await settle();
	return tui.frame();
}

function expectFits(frame: string, columns: number, rows: number) {
	const ls = frame.split('\n');
	expect(ls.length).toBeLessThanOrEqual(rows - 1);
	for (const l of ls) expect(Array.from(l).length, l).toBeLessThanOrEqual(columns);
}

const turnRows = (frame: string) => frame.split('\n').filter(l => /^\s+\d+\s+(?:--|~?[\d,.k]+)\s+~?[\d,.k]+\s/.test(l));

describe('key a: the AGENT view', () => {
	it('160×50: the newest session, its last 20 turns as bars, the budget in words with what is unknown, the other session', async () => {
		const f = await open(160, 50);
		expectFits(f, 160, 50);
		expect(f).toContain('AGENT  qwen3.8-27b on lithos · client 10.0.0.9 · 25 turns');
		const rows = turnRows(f);
		expect(rows).toHaveLength(20);
		expect(rows[0]).toMatch(/^\s+6\s/);
		expect(rows.at(-1)).toMatch(/^\s+25\s/);
		// Turn 7 logged no prefill time: `--` in its column, `?` in its bar.
		const seventh = rows.find(r => /^\s+7\s/.test(r))!;
		expect(seventh).toMatch(/0\.0ms\s+--\s+900ms\s+1\.00s \?█+·+/);
		// The words wrap between clauses to the pane's width (the overlay takes the screen's: the log pane steps aside).
		// Shares over the 24 turns whose every part is known: prefill Σ(300 + 10 i) less turn 7's = 10140 ms,
		// decode 24 × 900 ms, idle 23 × 1 s (the first turn has none): 68 % / 32 % of the wait, idle 42 % of wall time.
		expect(f).toContain("decode is 68 % of this agent's wait; cache saving unknown (no measured prefill rate); prefill 32 %; queue 0 %; idle between turns 42 % of wall time");
		expect(f).toContain('shares over the 24 turns fully known; unknown: prefill (1 of 25)');
		expect(f).toContain('queue 0.0ms  prefill --  decode 22.50s  idle 24.00s  cache saved --');
		expect(f).toContain('-- on llama · one client assumed (the log names none) · 2 turns: decode is 63 % of this agent\'s wai');
		// Tab: the next engine's newest session in full, the other below.
		tui!.stdin.write('\t');
		await waitFor(() => tui!.frame().includes('AGENT  -- on llama'), 'the llama session');
		const g = tui!.frame();
		expect(g).toContain('AGENT  -- on llama · one client assumed (the log names none) · 2 turns');
		// Prompt and cached worked out from `stop processing` (llama.cpp default verbosity): `~`. The first
		// turn's queue is unknown (nothing says when it arrived); the second's 0, idle = launch − last release.
		expect(turnRows(g).map(r => r.trim().split(/\s+/).slice(0, 6))).toEqual([
			['1', '~600', '~0', '--', '300ms', '500ms'],
			['2', '~600', '~0', '0.0ms', '300ms', '500ms'],
		]);
		expect(turnRows(g)[1]).toMatch(/500ms\s+3\.20s ░?▓+█+·+/);
		expect(g).toContain('qwen3.8-27b on lithos · client 10.0.0.9 · 25 turns: decode is 68 %');
	});

	it('80×24: it fits, fewer bars, the words first; a closes it again', async () => {
		const f = await open(80, 24);
		expectFits(f, 80, 24);
		expect(f.split('\n').slice(2, 6)).toEqual([
			"decode is 68 % of this agent's wait",
			'cache saving unknown (no measured prefill rate); prefill 32 %; queue 0 %',
			'idle between turns 42 % of wall time; shares over the 24 turns fully known',
			'unknown: prefill (1 of 25)',
		]);
		const rows = turnRows(f);
		expect(rows.length).toBeGreaterThanOrEqual(10);
		expect(rows.at(-1)).toMatch(/^\s+25\s/);
		tui!.stdin.write('a');
		await waitFor(() => !tui!.frame().includes('AGENT'), 'closed');
		expect(tui!.frame()).toContain('ENGINES');
	});
});
