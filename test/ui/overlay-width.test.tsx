/**
 * Issue 30, layout at 160×50: the log pane sits beside the main column (60 columns of 160). An
 * overlay (help, history, compare, agent…) takes the width it needs: the log pane steps aside while
 * one is open, and `l` inside the overlay shows it (and hides it again).
 */
import {afterEach, describe, expect, it, vi} from 'vitest';
import {App} from '../../source/ui/app.js';
import {createStore} from '../../source/model/store.js';
import type {Controller} from '../../source/types/controller.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

function store() {
	const s = createStore({host: 'studio', now: T0});
	s.dispatch({type: 'server-seen', t: T0, server: {id: 'llama', engine: 'llamacpp', source: 'flag', url: 'http://127.0.0.1:8080', logLabel: 'server.log'}});
	s.dispatch({type: 'log-line', serverId: 'llama', t: T0, text: 'srv  llama_server: model loaded', parsed: true});
	s.dispatch({type: 'tick', t: T0 + 1000});
	s.publish();
	return s;
}

const controller = (): Controller => ({probe: vi.fn(), cancelProbe: vi.fn(), startDemo: vi.fn(), quit: vi.fn(), setRefresh: vi.fn()});

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

describe('160×50: overlays take the width they need', () => {
	it('help is not cut; the log pane steps aside; `l` shows and hides it inside the overlay', async () => {
		tui = renderTui(<App store={store()} controller={controller()} version="0.1.0" />, {columns: 160, rows: 50});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		expect(tui.frame()).toContain('LOG');
		tui.stdin.write('?');
		await waitFor(() => tui!.frame().includes('Show all keys'), 'help');
		await settle();
		const help = tui.frame();
		expect(help).not.toMatch(/\bLOG\b/);
		// The longest help lines, whole.
		expect(help).toContain("Agent view: where an agent's time goes (queue, prefill, decode, idle)");
		expect(help).toContain('Pin a model for PASSES and the probe (each model in turn, then auto)');
		tui.stdin.write('l');
		await waitFor(() => /\bLOG\b/.test(tui!.frame()), 'log shown inside the overlay');
		tui.stdin.write('l');
		await waitFor(() => !/\bLOG\b/.test(tui!.frame()), 'log hidden again');
		tui.stdin.write('\u001b');
		await waitFor(() => !tui!.frame().includes('Show all keys'), 'help closed');
		await settle();
		// Closed: the main view as the user left it (hidden).
		expect(tui.frame()).not.toMatch(/\bLOG\b/);
	});
});

describe('80×24: a notice is read whole', () => {
	it('a notice longer than the footer wraps onto the rows it needs (the panes give them up), nothing cut', async () => {
		const s = store();
		const text = 'server.log is the log of http://127.0.0.1:8080 (its --log-file): read once, as that server\'s; the backlog is read again with the process\'s start time';
		s.dispatch({type: 'notice', t: T0 + 1000, level: 'info', text});
		s.publish();
		tui = renderTui(<App store={s} controller={controller()} version="0.1.0" />, {columns: 80, rows: 24});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		await settle();
		const f = tui.frame();
		const lines = f.split('\n');
		expect(lines.length).toBeLessThanOrEqual(23);
		expect(lines.every(l => Array.from(l).length <= 80)).toBe(true);
		// Every word of it on screen, in order, across its rows.
		expect(f.replace(/\s+/g, ' ')).toContain(`ℹ ${text}`.replace(/\s+/g, ' '));
	});
});

describe('80×24: the probe\'s lines wrap into the rows CONTENTION does not use', () => {
	it('fitRows: a long line continues on the next row while rows are left for the lines after it', async () => {
		const {fitRows} = await import('../../source/ui/format.js');
		const lines = [{text: 'aaa bbb ccc ddd'}, {text: 'eee'}];
		expect(fitRows(lines, 8, 3).map(l => l.text)).toEqual(['aaa bbb', 'ccc ddd', 'eee']);
		// Two rows: the first line keeps one (the pane cuts it), the second its own.
		expect(fitRows(lines, 8, 2).map(l => l.text)).toEqual(['aaa bbb ccc ddd', 'eee']);
		expect(fitRows(lines, 8, 1).map(l => l.text)).toEqual(['aaa bbb ccc ddd']);
	});

	it('the empty PROBE pane\'s hint is read whole at 80×24', async () => {
		tui = renderTui(<App store={store()} controller={controller()} version="0.1.0" />, {columns: 80, rows: 24});
		await waitFor(() => tui!.frame().includes('PROBE'), 'first frame');
		await settle();
		expect(tui.frame().replace(/\s+/g, ' ')).toContain('no probe yet: p probes the selected server, P chooses the prompt, r runs it twice');
	});
});

describe('120×40: help in one column where the rows allow it', () => {
	it('no help line is cut', async () => {
		tui = renderTui(<App store={store()} controller={controller()} version="0.1.0" />, {columns: 120, rows: 40});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		tui.stdin.write('?');
		await waitFor(() => tui!.frame().includes('Show all keys'), 'help');
		await settle();
		const f = tui.frame();
		expect(f).toContain("Agent view: where an agent's time goes (queue, prefill, decode, idle)");
		expect(f).toContain('Probe history: the last probes per server (from the CSV)');
		expect(f).not.toMatch(/…$/m);
	});
});
