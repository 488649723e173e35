/**
 * A key is one binding in its scope's row of ui/scopes.ts (issue 31): a made-up `%` binding for the
 * probe, added to a copy of the global row and handed to the real App, shows in the footer and in
 * the help, and pressing it runs the action's handler (the controller is asked to probe the
 * selected server's model). The control: without the row's binding, `%` does nothing.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import type {Controller} from '../../source/types/controller.js';
import {keymapOf} from '../../source/ui/keymap.js';
import {SCOPES, type ScopeTable} from '../../source/ui/scopes.js';
import {richStore} from '../helpers/ui-state.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

const BANG = {id: 'probe', keys: ['%'], help: 'Probe now, from a binding added in a test', footer: 'probe-now'} as const;
const SCOPES_PLUS: ScopeTable = {...SCOPES, global: {...SCOPES.global, keys: [...SCOPES.global.keys, BANG]}};

function recorder(): {controller: Controller; probes: unknown[][]} {
	const probes: unknown[][] = [];
	const controller: Controller = {probe: (...args) => void probes.push(args), cancelProbe: () => undefined, startDemo: () => undefined, quit: () => undefined, setRefresh: () => undefined};
	return {controller, probes};
}

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

describe('a key is one binding in its scope\'s row', () => {
	it('the table gives it to the keymap, in its scope, after the row\'s other keys', () => {
		const keymap = keymapOf(SCOPES_PLUS);
		expect(keymap.filter(b => b.keys.includes('%'))).toEqual([{...BANG, keys: ['%'], scope: 'global'}]);
		expect(keymapOf(SCOPES).some(b => b.keys.includes('%'))).toBe(false);
	});

	it('% shows in the footer and the help, and runs the probe handler', async () => {
		const {controller, probes} = recorder();
		tui = renderTui(<App store={richStore()} controller={controller} version="0.1.0" scopes={SCOPES_PLUS} />, {columns: 220, rows: 90});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		await settle();
		expect(tui.frame()).toContain('% probe-now');
		tui.stdin.write('%');
		await waitFor(() => probes.length === 1, 'the handler asked the controller to probe');
		expect(probes[0]).toEqual(['ollama@127.0.0.1:11434', 'code', 1, 'qwen3:8b']);
		tui.stdin.write('?');
		await waitFor(() => tui!.frame().includes('Probe now, from a binding added in a test'), 'the help lists it');
	});

	it('control: without the binding, % does nothing', async () => {
		const {controller, probes} = recorder();
		tui = renderTui(<App store={richStore()} controller={controller} version="0.1.0" />, {columns: 220, rows: 90});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		await settle();
		expect(tui.frame()).not.toContain('probe-now');
		tui.stdin.write('%');
		await settle();
		expect(probes).toEqual([]);
		tui.stdin.write('p');
		await waitFor(() => probes.length === 1, 'p still probes');
	});
});
