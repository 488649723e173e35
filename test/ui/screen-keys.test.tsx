/**
 * The screen's keys from issue 15, through the real App, store and key router (renderTui: a fake
 * TTY with rows). Each test names the frame text it waits for; nothing is timed.
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {App} from '../../source/ui/app.js';
import {HANDLERS} from '../../source/ui/key-router.js';
import {KEYMAP} from '../../source/ui/keymap.js';
import type {Controller} from '../../source/types/controller.js';
import type {MonitorStore} from '../../source/model/store.js';
import type {ProbeHistoryEntry} from '../../source/types/probe.js';
import {OLLAMA, richStore, T0} from '../helpers/ui-state.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

type Calls = Record<string, unknown[][]>;

function controllerFor(store: MonitorStore, extra: Partial<Controller> = {}): Controller & {calls: Calls} {
	const calls: Calls = {};
	const rec =
		(name: string, then?: (...args: unknown[]) => void) =>
		(...args: unknown[]) => {
			(calls[name] ??= []).push(args);
			then?.(...args);
		};
	return {
		calls,
		probe: vi.fn(rec('probe')),
		cancelProbe: vi.fn(rec('cancelProbe')),
		startDemo: vi.fn(rec('startDemo')),
		quit: vi.fn(rec('quit')),
		// As the runtime does: the new interval goes into the store (not published until the next tick).
		setRefresh: vi.fn(rec('setRefresh', ms => store.dispatch({type: 'refresh', refreshMs: ms as number}))),
		...extra,
	};
}

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

async function mount(columns: number, rows: number, extra: Partial<Controller> = {}, first = 'infertop 0.1.0') {
	const store = richStore();
	const controller = controllerFor(store, extra);
	tui = renderTui(<App store={store} controller={controller} version="0.1.0" />, {columns, rows});
	await waitFor(() => tui!.frame().includes(first), 'first frame');
	await settle();
	return {tui, store, controller};
}

describe('key handlers are data', () => {
	it('every action of the keymap has a handler (and the compiler checks the reverse)', () => {
		for (const b of KEYMAP) expect(typeof HANDLERS[b.id], b.id).toBe('function');
	});
});

describe('m pins the model', () => {
	it('PASSES stays on the pinned model, says so in its title, and p probes that model', async () => {
		const {tui, controller} = await mount(120, 40);
		expect(tui.frame()).toContain('PASSES  qwen3:8b (auto, m pins)');
		tui.stdin.write('m');
		await waitFor(() => tui.frame().includes('PASSES  qwen3:8b (pinned, m)'), 'pinned qwen3');
		expect(tui.frame()).toContain('ℹ PASSES and p stay on qwen3:8b (m: next model)');
		tui.stdin.write('m');
		await waitFor(() => tui.frame().includes('PASSES  gemma3:27b (pinned, m)'), 'pinned gemma');
		tui.stdin.write('p');
		await waitFor(() => (controller.calls['probe']?.length ?? 0) === 1, 'probe');
		expect(controller.calls['probe']![0]).toEqual([OLLAMA, 'code', 1, 'gemma3:27b']);
		tui.stdin.write('m');
		await waitFor(() => tui.frame().includes('PASSES  qwen3:8b (auto, m pins)'), 'auto again');
		expect(tui.frame()).toContain('ℹ PASSES follows the running model again (2 models)');
	});
});

describe('+/- act on every press and show at once', () => {
	it('three presses in one chunk take three steps; the header shows the new value before any publish', async () => {
		const {tui, controller, store} = await mount(80, 24);
		const published = store.getPublished();
		tui.stdin.write('+');
		tui.stdin.write('+');
		tui.stdin.write('-');
		await waitFor(() => (controller.calls['setRefresh']?.length ?? 0) === 3, 'three presses');
		expect(controller.calls['setRefresh']).toEqual([[500], [250], [500]]);
		await waitFor(() => tui.frame().includes('every 500 ms'), 'header now');
		// Nothing was published: the header read the store's newest refresh value.
		expect(store.getPublished()).toBe(published);
	});

	it('keys typed faster than one read (one chunk `++-`) are each a key, as in htop', async () => {
		const {tui, controller} = await mount(80, 24);
		tui.stdin.write('++-');
		await waitFor(() => (controller.calls['setRefresh']?.length ?? 0) === 3, 'three keys from one chunk');
		expect(controller.calls['setRefresh']).toEqual([[500], [250], [500]]);
		// `a?` in one burst: the agent view opens, then help over it.
		tui.stdin.write('a?');
		await waitFor(() => tui.frame().includes('KEYS  Esc or ? closes'), 'help after the agent key');
	});

	it('while paused too (the store owns pause: the badge comes from it)', async () => {
		const {tui, store} = await mount(80, 24);
		tui.stdin.write(' ');
		await waitFor(() => tui.frame().includes('PAUSED'), 'paused');
		expect(store.isPaused()).toBe(true);
		tui.stdin.write('-');
		await waitFor(() => tui.frame().includes('every 1.5 s'), 'slower while paused');
		store.setPaused(false);
		await waitFor(() => !tui.frame().includes('PAUSED'), 'the store resumed it, the badge follows');
	});
});

describe('keys behind the too-small card', () => {
	it('are inactive (no invisible help), except Ctrl+C / F10 which quit', async () => {
		const {tui, controller} = await mount(70, 20, {}, 'Terminal too small');
		expect(tui.frame()).toContain('Terminal too small');
		tui.stdin.write('?');
		tui.stdin.write('l');
		await settle();
		tui.resize(80, 24);
		await waitFor(() => tui.frame().includes('ENGINES'), 'grown');
		expect(tui.frame()).not.toContain('KEYS');
		tui.resize(70, 20);
		await waitFor(() => tui.frame().includes('Terminal too small'), 'small again');
		tui.stdin.write('\u001b[21~');
		await waitFor(() => (controller.calls['quit']?.length ?? 0) === 1, 'F10 quits');
		tui.stdin.write('\u0003');
		await waitFor(() => (controller.calls['quit']?.length ?? 0) === 2, 'Ctrl+C quits');
	});
});

describe('htop habits: F1, F10, Ctrl+Z', () => {
	it('F1 opens the help (xterm and VT220 sequences), F10 quits', async () => {
		const {tui, controller} = await mount(120, 40);
		tui.stdin.write('\u001bOP');
		await waitFor(() => tui.frame().includes('KEYS'), 'F1 help');
		tui.stdin.write('\u001b[11~');
		await waitFor(() => !tui.frame().includes('KEYS'), 'F1 closes it');
		tui.stdin.write('\u001b[21~');
		await waitFor(() => (controller.calls['quit']?.length ?? 0) === 1, 'F10');
	});

	it('Ctrl+Z blanks the screen, asks the controller to stop; the resume callback draws a full frame', async () => {
		let resume: (() => void) | undefined;
		const suspend = vi.fn((onResume: () => void) => {
			resume = onResume;
		});
		const {tui} = await mount(80, 24, {suspend});
		tui.stdin.write('\u001a');
		await waitFor(() => !tui.frame().includes('ENGINES'), 'blanked');
		await vi.waitFor(() => expect(suspend).toHaveBeenCalledTimes(1), {timeout: 5000, interval: 20});
		resume!();
		await waitFor(() => tui.frame().includes('ENGINES') && tui.frame().includes('PASSES'), 'full frame after fg');
	});
});

describe('the requests table', () => {
	it('f focuses it; ↓ scrolls past the last rows shown; s sorts; / filters; Enter opens one request; Esc goes back', async () => {
		const {tui} = await mount(120, 40);
		tui.stdin.write('f');
		await waitFor(() => tui.frame().includes('REQUESTS ▸'), 'focused');
		expect(tui.frame()).toContain('62 seen · sort time, newest first · 1–9 of 62 · ↑/↓ s / Enter · Esc leaves');
		for (let i = 0; i < 12; i++) tui.stdin.write('j');
		await waitFor(() => tui.frame().includes('5–13 of 62'), 'scrolled');
		tui.stdin.write('s');
		await waitFor(() => tui.frame().includes('sort decode, largest first'), 'sorted by decode');
		const rows = tui.frame().split('\n').filter(l => /^\d\d:\d\d:\d\d /.test(l));
		// Largest decode first: llamacpp's 52.2 tok/s, then the 47.6 ones.
		expect(rows[0]).toMatch(/llamacpp\s+Qwen3-8B-Q4_K_M\.gguf\s+300\s+0\s+750\.0\s+52\.2/);
		tui.stdin.write('/');
		await waitFor(() => tui.frame().includes('/ ▏ Enter applies'), 'typing');
		tui.stdin.write('llamacpp');
		tui.stdin.write('\r');
		await waitFor(() => tui.frame().includes('filter "llamacpp": 2 match'), 'filtered');
		tui.stdin.write('j');
		tui.stdin.write('\r');
		await waitFor(() => tui.frame().includes('REQUEST  llamacpp@127.0.0.1:8080/s1/t7'), 'detail');
		const f = tui.frame();
		expect(f).toMatch(/prompt tokens\s+300/);
		expect(f).toMatch(/cached tokens\s+0/);
		expect(f).toMatch(/prefill\s+750\.0 tok\/s/);
		expect(f).toMatch(/engine mean len\s+5\.75/);
		expect(f).toMatch(/tokens per pass\s+5\.22/);
		tui.stdin.write('\u001b');
		await waitFor(() => tui.frame().includes('REQUESTS ▸'), 'detail closed');
		tui.stdin.write('\u001b');
		await waitFor(() => tui.frame().includes('sort decode, largest first · 1') || !tui.frame().includes('filter "llamacpp"'), 'filter cleared');
		tui.stdin.write('\u001b');
		await waitFor(() => tui.frame().includes('· f focuses'), 'left the table');
		// Without the table's focus, / filters the log again (the log pane opens below for it).
		tui.stdin.write('/');
		await waitFor(() => tui.frame().includes('/ ▏  Enter applies · Esc stops editing'), 'log filter');
	});

	it('at 80×24 there is no table: f says why instead of focusing nothing', async () => {
		const {tui} = await mount(80, 24);
		tui.stdin.write('f');
		await waitFor(() => tui.frame().includes('the requests table needs a taller terminal'), 'said');
	});
});

describe('h: probe history', () => {
	it('reads the history through the controller and shows the last probes per server with a sparkline', async () => {
		const entries: ProbeHistoryEntry[] = [40, 44, 47.6].map((tps, i) => ({
			t: T0 - (3 - i) * 60_000,
			server: 'http://127.0.0.1:11434',
			engine: 'ollama',
			model: 'qwen3:8b',
			promptKind: 'code',
			promptTokens: 812,
			cachedTokens: i === 0 ? 0 : 800,
			ttftMs: 300 + i,
			decodeTps: tps,
		}));
		const loadProbeHistory = vi.fn(async () => ({entries, file: 'probes.csv'}));
		const {tui} = await mount(120, 40, {loadProbeHistory});
		tui.stdin.write('h');
		await waitFor(() => tui.frame().includes('PROBE HISTORY'), 'overlay');
		await waitFor(() => tui.frame().includes('ollama · 3 probes'), 'entries');
		expect(tui.frame()).toContain('  decode ▇██  last 47.6 tok/s · range 40.0–47.6 over the last 3 (wall clock)');
		tui.stdin.write('h');
		await waitFor(() => !tui.frame().includes('PROBE HISTORY'), 'closed');
	});
});
