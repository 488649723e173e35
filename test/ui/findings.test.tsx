/**
 * Issue 28 on the screen: the footer shows the newest agent finding until it is seen (`a`), the agent
 * view names the costliest finding with its fix above the turns and marks each turn's bar, and `!`
 * lists every finding with its time, evidence and fix. Fed through the real parsers, reducer and store
 * (an Ollama session whose prompt grows past a 4,096 num_ctx: test/model/findings.test.ts).
 */
import {afterEach, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import {createStore, type MonitorStore} from '../../source/model/store.js';
import type {Controller} from '../../source/types/controller.js';
import {Feed, ollamaGrowing} from '../helpers/agent-feed.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

const idle: Controller = {probe: () => undefined, cancelProbe: () => undefined, startDemo: () => undefined, quit: () => undefined, setRefresh: () => undefined};

function truncatedStore(): MonitorStore {
	const store = createStore({host: 'studio'});
	const f = ollamaGrowing('full', true, new Feed(a => store.dispatch(a)));
	store.dispatch({type: 'tick', t: f.state.now + 5000});
	store.publish();
	return store;
}

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

describe('agent findings on the screen', () => {
	it('footer until seen (a); the agent view\'s line and marks; ! lists them', async () => {
		tui = renderTui(<App store={truncatedStore()} controller={idle} version="0.1.0" />, {columns: 200, rows: 60});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		await settle();
		expect(tui.frame()).toContain('✖ prompt truncated: qwen3-coder:30b on Ollama (http://ollama) · turns 4–9 · fix: OLLAMA_CONTEXT_LENGTH=65536 · a: agent view, !: all findings');
		tui.stdin.write('a');
		await waitFor(() => tui!.frame().includes('AGENT'), 'the agent view');
		const frame = tui.frame();
		// The overlay takes the screen's width (the log pane steps aside, issue 30): the fix fits on the same line.
		expect(frame).toContain('✖ prompt truncated on 6 of 9 turns: 61,204 tokens into a 4,096 window (Ollama WARN "truncating input prompt") — fix: OLLAMA_CONTEXT_LENGTH=65536');
		// Turn 3 is near full, turns 4–9 truncated: their bars end with the marks.
		const rows = frame.split('\n').filter(l => /^\s*[1-9] /.test(l));
		expect(rows.map(l => l.split('│')[0]!.trimEnd()).map(l => (l.endsWith('✂') ? '✂' : l.endsWith('▲') ? '▲' : ''))).toEqual(['', '', '▲', '✂', '✂', '✂', '✂', '✂', '✂']);
		expect(frame).toContain('✂ truncated  ▲ context-near-full');
		tui.stdin.write('a');
		await waitFor(() => tui!.frame().includes('PASSES'), 'back to the panes');
		expect(tui.frame()).not.toContain('✖ prompt truncated');
		expect(tui.frame()).toContain('! findings');
		tui.stdin.write('!');
		await waitFor(() => tui!.frame().includes('FINDINGS'), 'the findings list');
		const list = tui.frame();
		expect(list).toContain('✂ prompt truncated · qwen3-coder:30b on Ollama (http://ollama) · turns 4–9');
		expect(list).toContain('level=WARN source=llama_server.go:317 msg="truncating input prompt" limit=4096');
		expect(list).toContain('fix: OLLAMA_CONTEXT_LENGTH=65536');
		expect(list).toContain('▲ context nearly full · qwen3-coder:30b on Ollama (http://ollama) · turn 3');
	});
});

describe('--notify', () => {
	it('once per new kind: a bell and an OSC 9 notification, its text stripped of anything that could end the sequence', async () => {
		const {findingRows, notifications} = await import('../../source/ui/view-model/findings.js');
		const f = ollamaGrowing('full');
		const rows = findingRows(f.state, 60_000);
		const notified = new Set<string>();
		const first = notifications(rows, notified);
		expect(first.kinds).toEqual(['truncated', 'context-near-full']);
		expect(first.sequence).toBe('\u0007\u001b]9;infertop: prompt truncated (qwen3-coder:30b); context nearly full (qwen3-coder:30b) · a: agent view\u0007');
		for (const k of first.kinds) notified.add(k);
		expect(notifications(rows, notified)).toEqual({kinds: [], sequence: ''});
		// A hostile model name cannot close the OSC early or move the cursor.
		const hostile = rows.map(r => ({...r, entry: {...r.entry, model: 'evil\u0007\u001b]0;pwned\u001b\\'}}));
		const seq = notifications(hostile, new Set()).sequence;
		expect(seq.slice(1, -1)).not.toMatch(/[\u0007\u009c]/);
		expect(seq.slice(2)).not.toContain('\u001b');
	});
});
