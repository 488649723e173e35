import {afterEach, describe, expect, it, vi} from 'vitest';
import {App, renderSnapshotText} from '../../source/ui/app.js';
import type {Controller} from '../../source/types/controller.js';
import {KEYMAP, type KeyBinding} from '../../source/ui/keymap.js';
import type {MonitorStore} from '../../source/model/store.js';
import {emptyStore, LLAMA, OLLAMA, richState, richStore, T0} from '../helpers/ui-state.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';
import {themeCycle} from '../../source/config/themes.js';
import type {Theme} from '../../source/ui/theme.js';

function fakeController(): Controller & {calls: Record<string, unknown[][]>} {
	const calls: Record<string, unknown[][]> = {};
	const rec =
		(name: string) =>
		(...args: unknown[]) => {
			(calls[name] ??= []).push(args);
		};
	return {
		calls,
		probe: vi.fn(rec('probe')),
		cancelProbe: vi.fn(rec('cancelProbe')),
		startDemo: vi.fn(rec('startDemo')),
		quit: vi.fn(rec('quit')),
		setRefresh: vi.fn(rec('setRefresh')),
	};
}

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

async function mount(opts: {columns: number; rows: number; store?: MonitorStore; controller?: Controller; keymap?: readonly KeyBinding[]; stdinIsTTY?: boolean; themes?: readonly Theme[]}) {
	const store = opts.store ?? richStore();
	const controller = opts.controller ?? fakeController();
	tui = renderTui(<App store={store} controller={controller} version="0.1.0" keymap={opts.keymap} themes={opts.themes} />, {
		columns: opts.columns,
		rows: opts.rows,
		stdinIsTTY: opts.stdinIsTTY,
	});
	await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
	await settle();
	return {tui, store, controller};
}

const lines = (frame: string) => frame.split('\n');
const BRAILLE = /[\u2801-\u28ff]/;

function expectFits(frame: string, columns: number, rows: number) {
	const ls = lines(frame);
	expect(ls.length).toBeLessThanOrEqual(rows - 1);
	for (const l of ls) expect(Array.from(l).length, l).toBeLessThanOrEqual(columns);
}

describe('App at the three reference sizes', () => {
	it('80×24 shows the essentials, -- for unknowns, the verdict; no graphs, requests or log', async () => {
		const {tui} = await mount({columns: 80, rows: 24});
		const f = tui.frame();
		expectFits(f, 80, 24);
		expect(f).toContain('ENGINES');
		expect(f).toMatch(/▸ ● up\s+ollama\s+127\.0\.0\.1:11434\s+qwen3:8b\s+100% GPU/);
		expect(f).toMatch(/● up\s+llamacpp\s+127\.0\.0\.1:8080\s+--/);
		// Column headers; the model names whole, the keep-alive left out before any name is cut.
		expect(f).toContain('  state engine   server          model      residency                    ctx');
		expect(f).toContain('▸ ● up  ollama   127.0.0.1:11434 qwen3:8b   100% GPU                     8192');
		expect(f).toContain('  ● up  llamacpp 127.0.0.1:8080  --         --                           4×8192');
		expect(f).not.toContain('from now');
		// No blank rows under ENGINES: PASSES follows the last engine row.
		expect(lines(f)[6]).toMatch(/^PASSES {2}qwen3:8b/);
		expect(f).toContain('48%/52% CPU/GPU ⚠ 48% on CPU');
		expect(f).toContain('decode 47.6 tok/s');
		expect(f).toContain('ceiling 55.7 tok/s   85% of ceiling');
		expect(f).toContain('! speculation on, but passes are slow: 51 GB/s of 273; contention: blender');
		expect(f).toContain('CONTENTION  ! blender 110 % CPU for 3 min');
		expect(f).toContain('PROBE');
		expect(f).toContain('decode 47.6 tok/s wall vs 52.4 reported  ⚠ differ by 9% (>5%)');
		expect(f).toContain('? help');
		expect(f).toContain('infertop CPU 1.2% RSS 85 MB');
		expect(f).not.toMatch(BRAILLE);
		expect(f).not.toContain('REQUESTS');
		expect(f).not.toContain('LOG ');
	});

	it("the graph's figure is `now` only while its set is of the last minute; ten minutes on it is the `last` one", async () => {
		const store = richStore();
		const {tui} = await mount({columns: 120, rows: 40, store});
		expect(tui.frame()).toContain('now 47.6 tok/s');
		store.dispatch({type: 'tick', t: T0 + 10 * 60_000});
		store.publish();
		await waitFor(() => tui.frame().includes('last 47.6 tok/s'), 'the old probe said as the last figure');
		expect(tui.frame()).not.toMatch(/now \d[\d.]* tok\/s/);
	});

	it('120×40 adds the graphs (ceiling, scale, contention marks) and the requests table', async () => {
		const {tui} = await mount({columns: 120, rows: 40});
		const f = tui.frame();
		expectFits(f, 120, 40);
		expect(f).toMatch(BRAILLE);
		expect(f).toContain('now 47.6 tok/s');
		expect(f).toContain('┄ ceiling 55.7');
		expect(f).toContain('scale 0–70 tok/s');
		expect(f).toContain('! = contention');
		expect(f).toContain('tok/pass 4.54 (0–5)');
		expect(f).toContain('REQUESTS');
		expect(f).toMatch(/▶ live\s+llamacpp\s+--\s+tg 51\.3 tok\/s, 120 tokens/);
		expect(f).toMatch(/llamacpp\s+Qwen3-8B-Q4_K_M\.gguf\s+300\s+0\s+750\.0\s+52\.2\s+5\.22\s+76%/);
		// The keep-alive says what it is.
		expect(f).toMatch(/qwen3:8b\s+100% GPU\s+8192\s+keep-alive 3 minutes/);
		// The tokens-per-pass sparkline's label is whole (it was cut to `tk/pas`).
		expect(f).not.toContain('tk/pas');
		expect(f).toMatch(/█ tok\/pass 4\.54 \(0–5\)/);
		expect(f).not.toContain('LOG ');
	});

	it('160×50 adds the log pane beside, parsed lines marked', async () => {
		const {tui} = await mount({columns: 160, rows: 50});
		const f = tui.frame();
		expectFits(f, 160, 50);
		expect(f).toContain('LOG  ~/.ollama/logs/server.log');
		expect(f).toMatch(/• slot print_timing/);
		expect(f).toContain('REQUESTS');
		expect(f).toMatch(BRAILLE);
	});

	it('shows the too-small card below 80×24 and follows resizes', async () => {
		const {tui} = await mount({columns: 120, rows: 40});
		tui.resize(70, 20);
		await waitFor(() => tui.frame().includes('Terminal too small'), 'too-small card');
		const f = tui.frame();
		expect(f).toContain('Width  70 ✖ (need 80)');
		expect(f).toContain('Height 20 ✖ (need 24)');
		expectFits(f, 70, 20);
		tui.resize(80, 24);
		await waitFor(() => tui.frame().includes('ENGINES'), 'back to the dashboard');
	});
});

describe('keys', () => {
	it('Tab moves the selection to the next engine (and the passes pane follows)', async () => {
		const {tui} = await mount({columns: 120, rows: 40});
		tui.stdin.write('\t');
		await waitFor(() => /▸ ● up\s+llamacpp/.test(tui.frame()), 'llamacpp selected');
		expect(tui.frame()).toContain('tok/pass 5.22 (engine 5.75)');
		expect(tui.frame()).toContain('ceiling -- tok/s   -- of ceiling');
		tui.stdin.write('\u001b[Z');
		await waitFor(() => /▸ ● up\s+ollama/.test(tui.frame()), 'Shift-Tab: back to ollama');
		tui.stdin.write('\u001b[B');
		await waitFor(() => /▸ ● up\s+llamacpp/.test(tui.frame()), 'down arrow: llamacpp');
		tui.stdin.write('k');
		await waitFor(() => /▸ ● up\s+ollama/.test(tui.frame()), 'k: back to ollama');
	});

	it('? opens the help overlay, Esc closes it', async () => {
		const {tui} = await mount({columns: 80, rows: 24});
		tui.stdin.write('?');
		await waitFor(() => tui.frame().includes('KEYS'), 'help open');
		expect(tui.frame()).toContain('Show all keys');
		expect(tui.frame()).toContain('Typing a log filter: Enter apply · Bksp Delete the last character · Esc cancel');
		expect(tui.frame()).not.toContain('more (a taller terminal');
		expectFits(tui.frame(), 80, 24);
		tui.stdin.write('\u001b');
		await waitFor(() => !tui.frame().includes('KEYS') && tui.frame().includes('ENGINES'), 'help closed');
	});

	it('space pauses the screen (PAUSED badge; the store holds its snapshot)', async () => {
		const {tui, store} = await mount({columns: 80, rows: 24});
		tui.stdin.write(' ');
		await waitFor(() => tui.frame().includes('PAUSED'), 'PAUSED badge');
		expect(store.isPaused()).toBe(true);
		const held = store.getPublished();
		store.dispatch({type: 'tick', t: T0 + 99_000});
		store.publish();
		expect(store.getPublished()).toBe(held);
		tui.stdin.write(' ');
		await waitFor(() => !tui.frame().includes('PAUSED'), 'resumed');
		expect(store.isPaused()).toBe(false);
	});

	it('l toggles the log pane', async () => {
		const {tui} = await mount({columns: 120, rows: 40});
		tui.stdin.write('l');
		await waitFor(() => tui.frame().includes('LOG  ~/.ollama/logs/server.log'), 'log shown');
		expectFits(tui.frame(), 120, 40);
		tui.stdin.write('l');
		await waitFor(() => !tui.frame().includes('LOG  '), 'log hidden');
	});

	it('/ filters the log: type a query, Enter applies, matches only', async () => {
		const {tui} = await mount({columns: 160, rows: 50});
		tui.stdin.write('/');
		await waitFor(() => tui.frame().includes('Enter applies'), 'editing');
		tui.stdin.write('task 2');
		await waitFor(() => tui.frame().includes('/ task 2'), 'draft typed');
		tui.stdin.write('\r');
		await waitFor(() => tui.frame().includes('filter task 2: 3 of 30 lines'), 'filter applied');
		const f = tui.frame();
		expect(f).toContain('task 21 | eval');
		expect(f).not.toContain('"/api/chat" line 1');
		// While typing, keys are text, not commands: q did not quit.
		tui.stdin.write('/');
		await waitFor(() => tui.frame().includes('Enter applies'), 'editing again');
		tui.stdin.write('\u001b');
		await waitFor(() => !tui.frame().includes('Enter applies'), 'stopped editing');
	});

	it('/re/ filters by regex', async () => {
		const {tui} = await mount({columns: 160, rows: 50});
		tui.stdin.write('/');
		await waitFor(() => tui.frame().includes('Enter applies'), 'editing');
		tui.stdin.write('/line [12]$/');
		tui.stdin.write('\r');
		await waitFor(() => tui.frame().includes('filter /line [12]$/: 2 of 30 lines'), 'regex applied');
	});

	it('p probes the selected server with the last prompt; r twice; P chooses the prompt', async () => {
		const controller = fakeController();
		const {tui} = await mount({columns: 80, rows: 24, controller});
		tui.stdin.write('p');
		await waitFor(() => (controller.calls['probe']?.length ?? 0) === 1, 'probe called');
		expect(controller.calls['probe']![0]).toEqual([OLLAMA, 'code', 1, 'qwen3:8b']);
		tui.stdin.write('\t');
		await waitFor(() => /▸ ● up\s+llamacpp/.test(tui.frame()), 'llamacpp selected');
		tui.stdin.write('r');
		await waitFor(() => (controller.calls['probe']?.length ?? 0) === 2, 'probe twice');
		// The model PASSES shows (request attribution names llama.cpp's model too): the probe asks for it.
		expect(controller.calls['probe']![1]).toEqual([LLAMA, 'code', 2, 'Qwen3-8B-Q4_K_M.gguf']);
		tui.stdin.write('P');
		await waitFor(() => tui.frame().includes('PROBE PROMPT'), 'prompt chooser');
		tui.stdin.write('j');
		await waitFor(() => /▸ prose/.test(tui.frame()), 'cursor on prose');
		tui.stdin.write('\r');
		await waitFor(() => (controller.calls['probe']?.length ?? 0) === 3, 'probe with prose');
		expect(controller.calls['probe']![2]).toEqual([LLAMA, 'prose', 1, 'Qwen3-8B-Q4_K_M.gguf']);
		await waitFor(() => !tui.frame().includes('PROBE PROMPT'), 'chooser closed');
	});

	it('+/- change the refresh interval; q quits through the controller', async () => {
		const controller = fakeController();
		const {tui} = await mount({columns: 80, rows: 24, controller});
		expect(tui.frame()).toContain('every 1.0 s');
		tui.stdin.write('+');
		await waitFor(() => (controller.calls['setRefresh']?.length ?? 0) === 1, 'faster');
		tui.stdin.write('-');
		await waitFor(() => (controller.calls['setRefresh']?.length ?? 0) === 2, 'slower');
		expect(controller.calls['setRefresh']).toEqual([[500], [1500]]);
		tui.stdin.write('q');
		await waitFor(() => (controller.calls['quit']?.length ?? 0) === 1, 'quit');
	});

	it('Esc cancels a running probe and the probe pane shows live progress', async () => {
		const controller = fakeController();
		const store = richStore();
		store.dispatch({type: 'probe-progress', running: {serverId: OLLAMA, startedAt: T0 + 60_000, prompt: 'code', tokens: 88, liveTps: 45.1, status: 'server busy (HTTP 429), retrying'}});
		store.publish();
		const {tui} = await mount({columns: 120, rows: 40, controller, store});
		expect(tui.frame()).toMatch(/▶ 88 tokens · 45\.1 tok\/s live · TTFT -- · 3\.0 s elapsed · server busy \(HTTP 429\), retrying/);
		tui.stdin.write('\u001b');
		await waitFor(() => (controller.calls['cancelProbe']?.length ?? 0) === 1, 'cancelProbe');
	});

	it('footer and help both come from the keymap: a new binding shows in both', async () => {
		const extra: KeyBinding = {id: 'help', keys: ['F'], scope: 'global', help: 'Help, from a binding added in a test', footer: 'extra-help'};
		const {tui} = await mount({columns: 120, rows: 40, keymap: [extra, ...KEYMAP]});
		expect(tui.frame()).toContain('F extra-help');
		tui.stdin.write('F');
		await waitFor(() => tui.frame().includes('Help, from a binding added in a test'), 'help lists it and F opens it');
	});
});

describe('live updates', () => {
	it('follows the store: new snapshots re-render, the graph scale grows at once, lost servers go stale', async () => {
		const store = richStore();
		const {tui} = await mount({columns: 120, rows: 40, store});
		expect(tui.frame()).toContain('scale 0–70 tok/s');
		store.dispatch({
			type: 'engine-event',
			serverId: OLLAMA,
			t: T0 + 64_000,
			event: {type: 'request', key: 's0/fast', model: 'qwen3:8b', started: true, decodedTokens: 120, accepted: 0, drafted: 0, decodeMs: 1000, done: true},
		});
		store.dispatch({type: 'server-lost', t: T0 + 64_000, serverId: LLAMA, error: 'connection refused'});
		store.dispatch({type: 'tick', t: T0 + 64_000});
		store.publish();
		await waitFor(() => tui.frame().includes('scale 0–150 tok/s'), 'scale grew');
		// The graph's `now` is the row's own figure (the same set of requests), not the newest sample.
		const decode = /decode (\S+) tok\/s/.exec(tui.frame())?.[1];
		expect(decode).toBe('50.5'); // (9 × 127 + 120) tokens in (9 × 2668 + 1000) ms
		expect(tui.frame()).toContain(`now ${decode} tok/s`);
		expect(tui.frame()).toContain('last 10 requests of qwen3:8b, 13 s');
		expect(tui.frame()).toMatch(/◌ stale\s+llamacpp.*connection refused/);
		expectFits(tui.frame(), 120, 40);
	});

	it('shows a recent notice in the footer, then the key hints again', async () => {
		const store = richStore();
		const {tui} = await mount({columns: 80, rows: 24, store});
		store.dispatch({type: 'notice', t: T0 + 63_000, level: 'error', text: 'metrics: listen EADDRINUSE 127.0.0.1:9464'});
		store.publish();
		await waitFor(() => tui.frame().includes('✖ metrics: listen EADDRINUSE 127.0.0.1:9464'), 'notice shown');
		expect(tui.frame()).not.toContain('? help');
		store.dispatch({type: 'tick', t: T0 + 63_000 + 16_000});
		store.publish();
		await waitFor(() => tui.frame().includes('? help'), 'hints back');
	});

	it('t cycles all four themes and says which; PgUp scrolls the log back', async () => {
		const {tui} = await mount({columns: 160, rows: 50, themes: themeCycle({name: 'dark'}).themes});
		tui.stdin.write('t');
		await waitFor(() => tui.frame().includes('ℹ theme light (2 of 4, t: next)'), 'theme light');
		tui.stdin.write('t');
		await waitFor(() => tui.frame().includes('ℹ theme high-contrast (3 of 4, t: next)'), 'theme high-contrast');
		tui.stdin.write('t');
		await waitFor(() => tui.frame().includes('ℹ theme no-color (4 of 4, t: next)'), 'theme no-color');
		tui.stdin.write('t');
		await waitFor(() => tui.frame().includes('ℹ theme dark (1 of 4, t: next)'), 'back to dark');
		expect(tui.frame()).toContain('  [GIN] 200 | POST "/api/chat" line 29');
	});

	it('PgUp holds the log where it is while new lines arrive (no drift); End follows again; Home jumps to the oldest', async () => {
		const {tui, store} = await mount({columns: 160, rows: 50});
		const more = (from: number, to: number) => {
			for (let i = from; i < to; i++) store.dispatch({type: 'log-line', serverId: OLLAMA, t: T0 + 20_000 + i * 10, text: `extra line ${i}`, parsed: false});
			store.publish();
		};
		more(0, 60);
		await waitFor(() => tui.frame().includes('extra line 59'), 'newest shown');
		tui.stdin.write('\u001b[5~');
		await waitFor(() => tui.frame().includes('held, 10 newer below (End follows)'), 'scrolled back');
		expect(tui.frame()).toContain('extra line 49');
		expect(tui.frame()).not.toContain('extra line 50');
		more(60, 75);
		await waitFor(() => tui.frame().includes('held, 25 newer below (End follows)'), 'still held');
		expect(tui.frame()).toContain('extra line 49');
		expect(tui.frame()).not.toContain('extra line 50');
		tui.stdin.write('\u001b[F');
		await waitFor(() => tui.frame().includes('extra line 74') && !tui.frame().includes('held,'), 'End follows');
		tui.stdin.write('\u001b[H');
		await waitFor(() => tui.frame().includes('[GIN] 200 | POST "/api/chat" line 1') && tui.frame().includes('held,'), 'Home: oldest');
	});
});

describe('empty state and non-TTY', () => {
	it('says what was looked for, how to point at a server, and offers the demo on d', async () => {
		const controller = fakeController();
		const {tui} = await mount({columns: 80, rows: 24, store: emptyStore(), controller});
		const f = tui.frame();
		expect(f).toContain('No inference engine found');
		expect(f).toContain('ports      11434, 8080, 1234');
		expect(f).toContain('infertop --server http://127.0.0.1:8080');
		expect(f).toContain('infertop --log PATH');
		expect(f).toContain('Or press d to start the built-in demo engine');
		expect(f).toContain('d demo');
		tui.stdin.write('d');
		await waitFor(() => (controller.calls['startDemo']?.length ?? 0) === 1, 'demo started');
	});

	it('does not crash when stdin is not a TTY; the footer says read-only', async () => {
		const {tui} = await mount({columns: 80, rows: 24, stdinIsTTY: false});
		expect(tui.frame()).toContain('read-only: no keyboard (stdin is not a TTY)');
		expect(tui.frame()).toContain('ENGINES');
	});

	it('shows DEMO whenever a server is the demo', async () => {
		const store = emptyStore();
		store.dispatch({type: 'server-seen', t: T0, server: {id: 'demo', engine: 'ollama', url: 'http://127.0.0.1:40001', source: 'demo', demo: true}});
		store.publish();
		const {tui} = await mount({columns: 80, rows: 24, store});
		expect(tui.frame()).toContain('infertop 0.1.0  DEMO');
	});
});

describe('renderSnapshotText', () => {
	it('fits every size from 80×24 up, for a busy and an empty state', () => {
		const sizes = [[80, 24], [81, 25], [100, 30], [119, 39], [130, 36], [159, 49], [200, 60], [300, 100]] as const;
		for (const state of [richState(), emptyStore().getPublished()]) {
			for (const [columns, rows] of sizes) {
				const text = renderSnapshotText(state, {columns, rows});
				expectFits(text, columns, rows);
				expect(text.split('\n').at(-1)).toMatch(/infertop CPU/);
			}
		}
	});

	it('renders plain text within rows − 1 and columns', () => {
		for (const [columns, rows] of [[80, 24], [120, 40], [160, 50]] as const) {
			const text = renderSnapshotText(richState(), {columns, rows}, '0.1.0');
			expect(text).not.toContain('\u001b');
			expectFits(text, columns, rows);
			expect(text).toContain('ENGINES');
			expect(text).toContain('snapshot · run infertop in a terminal to watch');
		}
	});
});

describe('key c: the comparison table', () => {
	it('c opens the table and starts a comparison; Esc cancels while it runs, then closes; c in the table runs it again once finished', async () => {
		const store = richStore();
		const controller = {...fakeController(), compare: vi.fn(), cancelCompare: vi.fn()};
		const {tui} = await mount({columns: 120, rows: 40, store, controller});
		tui.stdin.write('c');
		await waitFor(() => tui.frame().includes('COMPARE'), 'compare pane');
		expect(controller.compare).toHaveBeenCalledTimes(1);
		store.dispatch({type: 'compare-started', runId: 'r1', startedAt: T0, total: 6});
		store.dispatch({type: 'compare-progress', progress: {index: 0, total: 6, url: OLLAMA, model: 'qwen3:8b', prompt: 'code', run: 1, tokens: 12, liveTps: 41.5, ttftMs: 210, status: 'server busy (HTTP 429), retrying in 2 s', elapsedMs: 500, startedAt: T0}});
		store.publish();
		await waitFor(() => tui.frame().includes('retrying in 2 s'), 'live line');
		expect(tui.frame()).toContain(`▶ [1/6] ${OLLAMA} qwen3:8b · code run 1 · server busy (HTTP 429), retrying in 2 s · 12 tokens · 41.5 tok/s…`);
		tui.stdin.write('c');
		await settle();
		expect(controller.compare).toHaveBeenCalledTimes(1);
		tui.stdin.write('\u001b');
		await settle();
		expect(controller.cancelCompare).toHaveBeenCalledTimes(1);
		const result = {t: T0, engine: 'ollama', url: OLLAMA, model: 'qwen3:8b', protocol: 'ollama' as const, prompt: 'code', decodeTps: 47.6, reportedTps: 48, ttftMs: 200};
		store.dispatch({type: 'compare-row', row: {index: 0, runId: 'r1', url: OLLAMA, engine: 'ollama', model: 'qwen3:8b', prompt: 'code', run: 1, result}});
		store.dispatch({type: 'compare-row', row: {index: 1, runId: 'r1', url: OLLAMA, engine: 'ollama', model: 'qwen3:8b', prompt: 'code', run: 2, result: {...result, decodeTps: 49.9}}});
		store.dispatch({type: 'compare-finished', runId: 'r1', cancelled: true});
		store.publish();
		await waitFor(() => tui.frame().includes('cancelled'), 'finished');
		expect(tui.frame()).toMatch(/ollama@127\.0\.0\.1:11434\s+ollama\s+qwen3:8b\s+48–50\s+--\s+--\s+--\s+--\s+--/);
		tui.stdin.write('c');
		await settle();
		expect(controller.compare).toHaveBeenCalledTimes(2);
		tui.stdin.write('\u001b');
		await waitFor(() => !tui.frame().includes('COMPARE'), 'closed');
		expect(tui.frame()).toContain('ENGINES');
	});
});
