/**
 * Key `w` in the agent view: the WHAT IF table — the selected session projected onto each measured
 * server × model (profiles from the controller, as profiles.json gives them), its own server first
 * (`*`), `unable` where a window is too small, `m` measuring the rest one at a time, Esc back to AGENT.
 * Fed from scripted llama.cpp lines through the real parser, reducer and store.
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {App} from '../../source/ui/app.js';
import {createParser} from '../../source/engines/index.js';
import {createStore, type MonitorStore} from '../../source/model/store.js';
import {feedLine} from '../../source/sources/log-source.js';
import type {Controller} from '../../source/types/controller.js';
import type {DepthPoint, Profile} from '../../source/types/whatif.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

/** An agent on llama-server: 4 turns of 600 uncached prompt tokens (300 ms) and 20 generated (500 ms), 2 s apart. */
function agentStore(): MonitorStore {
	const store = createStore({host: 'studio', now: T0});
	store.dispatch({type: 'server-seen', t: T0, server: {id: 'llama', engine: 'llamacpp', source: 'flag', url: 'http://127.0.0.1:8080'}});
	const llama = createParser('llamacpp');
	for (let task = 0; task < 4; task++) {
		const at = T0 + task * 2000;
		feedLine(llama, 'llama', `slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`, at, store.dispatch);
		feedLine(llama, 'llama', `slot print_timing: id  0 | task ${task} | prompt eval time =     300.00 ms /   600 tokens (    0.50 ms per token,  2000.00 tokens per second)`, at + 800, store.dispatch);
		feedLine(llama, 'llama', `slot print_timing: id  0 | task ${task} |        eval time =     500.00 ms /    20 tokens (   26.32 ms per token,    38.00 tokens per second)`, at + 800, store.dispatch);
		feedLine(llama, 'llama', `slot      release: id  0 | task ${task} | stop processing: n_tokens = 619, truncated = 0`, at + 800, store.dispatch);
	}
	// Another server with a loaded model and no profile: offered a measurement.
	store.dispatch({type: 'server-seen', t: T0, server: {id: 'other', engine: 'llamacpp', source: 'flag', url: 'http://127.0.0.1:8181'}});
	store.dispatch({type: 'server-models', t: T0, serverId: 'other', models: [{name: 'coder-30b', loaded: true}]});
	store.dispatch({type: 'tick', t: T0 + 60_000});
	store.publish();
	return store;
}

const pt = (promptTokens: number, ttftMs: number, msPerToken: number): DepthPoint => ({nominal: promptTokens, promptTokens, ttftMs, prefillTps: (promptTokens * 1000) / ttftMs, decodeTps: 1000 / msPerToken, t: T0});
const profile = (url: string, model: string, p: Partial<Profile> = {}): Profile => ({url, engine: 'llamacpp', model, measuredAt: T0 - 2 * 86_400_000, version: '0.9.0', points: [pt(40, 20, 25), pt(4096, 2048, 25)], cache: {reused: true, by: 'count'}, concurrency: 'parallel', ...p});

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

describe('key w in the agent view: WHAT IF', () => {
	it('the session on each profile, its own server first, unable where the window is small; m measures; Esc back', async () => {
		const store = agentStore();
		// The profiles name the model as the agent view labels it (read off the screen below).
		let label = '';
		const measure = vi.fn(async (onStep: (l: string) => void) => {
			onStep('depth 0: 40 prompt tokens');
			return {measured: 0, problems: []};
		});
		const controller: Controller = {
			probe: vi.fn(),
			cancelProbe: vi.fn(),
			startDemo: vi.fn(),
			quit: vi.fn(),
			setRefresh: vi.fn(),
			loadProfiles: async () => ({profiles: [profile('http://127.0.0.1:8080', label), profile('http://127.0.0.1:9090', label, {points: [pt(40, 10, 10), pt(4096, 1024, 10)]}), profile('http://127.0.0.1:9191', label, {contextWindow: 512})], file: 'profiles.json'}),
			measureProfiles: measure,
		};
		tui = renderTui(<App store={store} controller={controller} version="0.1.0" />, {columns: 160, rows: 50});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		tui.stdin.write('a');
		await waitFor(() => tui!.frame().includes('AGENT'), 'agent view');
		label = /AGENT\s+(.+?) on llama/.exec(tui.frame())![1]!;
		tui.stdin.write('w');
		await waitFor(() => tui!.frame().includes('WHAT IF') && tui!.frame().includes('127.0.0.1:9191'), 'what-if table');
		await settle();
		const f = tui.frame();
		const line = (url: string) => f.split('\n').find((l) => l.includes(url))!;
		// Its own server, projected the same way: 4 × (T(600) = 300 ms + 20 × 25 ms) + 3 × 1.2 s idle = 6.8 s.
		expect(line('127.0.0.1:8080')).toMatch(/^\*\s+127\.0\.0\.1:8080\s+llamacpp\s+\S+\s+6\.8 s\s/);
		// Twice the decode speed: 4 × (150 + 200) + 3600 = 5.0 s.
		expect(line('127.0.0.1:9090')).toMatch(/^\s+127\.0\.0\.1:9090\s+llamacpp\s+\S+\s+5\.0 s\s/);
		expect(line('127.0.0.1:9191')).toContain('unable  turn 1 needs 620 tokens, window 512');
		// The first turn's queue is not in the log: the recorded time, so the change and the own error, unknown.
		expect(f).toContain('own error --');
		expect(f).toContain('speeds only: answer quality is not judged');
		expect(f).toContain('Esc back  m measure');
		expect(f).toContain('not measured yet (m measures them, one at a time): 127.0.0.1:8181 coder-30b');
		tui.stdin.write('m');
		await waitFor(() => measure.mock.calls.length === 1, 'measure asked');
		await waitFor(() => tui!.frame().includes('every server × model here has a profile'), 'measure finished');
		tui.stdin.write('\u001b');
		await waitFor(() => tui!.frame().includes('AGENT') && !tui!.frame().includes('WHAT IF'), 'back to the agent view');
	});

	it('80×24: the table fits, cut at the width', async () => {
		const controller: Controller = {probe: vi.fn(), cancelProbe: vi.fn(), startDemo: vi.fn(), quit: vi.fn(), setRefresh: vi.fn(), loadProfiles: async () => ({profiles: [profile('http://127.0.0.1:9090', '--')]})};
		tui = renderTui(<App store={agentStore()} controller={controller} version="0.1.0" />, {columns: 80, rows: 24});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		tui.stdin.write('a');
		await waitFor(() => tui!.frame().includes('AGENT'), 'agent view');
		tui.stdin.write('w');
		await waitFor(() => tui!.frame().includes('WHAT IF') && tui!.frame().includes('127.0.0.1:9090'), 'what-if table');
		const lines = tui.frame().split('\n');
		expect(lines.length).toBeLessThanOrEqual(23);
		for (const l of lines) expect(Array.from(l).length, l).toBeLessThanOrEqual(80);
	});
});
