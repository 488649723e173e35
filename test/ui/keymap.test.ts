import {describe, expect, it} from 'vitest';
import {footerHints, footerText, helpLines, KEYMAP, keyName, resolveKey, type ActionId, type KeyScope} from '../../source/ui/keymap.js';

const none = {};

describe('keymap', () => {
	it('has no duplicate key within a scope and help text everywhere', () => {
		const scopes = new Set(KEYMAP.map(b => b.scope));
		for (const scope of scopes) {
			const keys = KEYMAP.filter(b => b.scope === scope).flatMap(b => b.keys);
			expect(new Set(keys).size, `duplicate key in ${scope}`).toBe(keys.length);
		}
		for (const b of KEYMAP) expect(b.help.length).toBeGreaterThan(3);
	});

	it('binds every key the design asks for', () => {
		const global: [string, ActionId][] = [
			['?', 'help'], ['f1', 'help'], ['q', 'quit'], ['ctrl+c', 'quit'], ['f10', 'quit'], ['ctrl+z', 'suspend'], ['m', 'pin-model'], ['h', 'history'], ['f', 'focus-table'],
			['left', 'log-left'], ['right', 'log-right'], ['w', 'log-wrap'], ['home', 'log-home'], ['end', 'log-end'], ['tab', 'select-next'], ['shift+tab', 'select-prev'], ['down', 'select-next'],
			['up', 'select-prev'], ['j', 'select-next'], ['k', 'select-prev'], ['+', 'refresh-faster'], ['-', 'refresh-slower'], ['space', 'pause'],
			['l', 'toggle-log'], ['/', 'filter'], ['t', 'theme'], ['escape', 'escape'], ['p', 'probe'], ['P', 'choose-prompt'], ['r', 'probe-twice'],
		];
		for (const [k, id] of global) expect(resolveKey(KEYMAP, ['always', 'global'], k)?.id, k).toBe(id);
		// The table scope, when it has focus, comes before global: ↑/↓ move in it, / filters it.
		expect(resolveKey(KEYMAP, ['always', 'table', 'global'], '/')?.id).toBe('table-filter');
		expect(resolveKey(KEYMAP, ['always', 'table', 'global'], 'down')?.id).toBe('table-down');
		expect(resolveKey(KEYMAP, ['always', 'table', 'global'], 's')?.id).toBe('table-sort');
		expect(resolveKey(KEYMAP, ['always', 'table', 'global'], 'return')?.id).toBe('table-detail');
		// Behind the too-small card only the always scope: q is no quit there, Ctrl+C is.
		expect(resolveKey(KEYMAP, ['always'], '?')).toBeUndefined();
		expect(resolveKey(KEYMAP, ['always'], 'ctrl+c')?.id).toBe('quit');
		expect(resolveKey(KEYMAP, ['empty', 'global'], 'd')?.id).toBe('demo');
		expect(resolveKey(KEYMAP, ['global'], 'd')).toBeUndefined();
	});

	it('names Ink keys', () => {
		expect(keyName('', {...none, tab: true})).toBe('tab');
		expect(keyName('', {...none, tab: true, shift: true})).toBe('shift+tab');
		expect(keyName('c', {...none, ctrl: true})).toBe('ctrl+c');
		expect(keyName(' ', none)).toBe('space');
		expect(keyName('P', {...none, shift: true})).toBe('P');
		expect(keyName('', {...none, escape: true})).toBe('escape');
		expect(keyName('abc', none)).toBeUndefined();
	});

	it('generates the footer and the help from the same table', () => {
		const scopes: KeyScope[] = ['global'];
		const text = footerText(footerHints(KEYMAP, scopes), 200);
		expect(text.startsWith('? help  q quit  Tab engine  m model  p probe')).toBe(true);
		// The rate keys are one hint, `+/- rate`, never `+ +-rate`.
		expect(footerText(footerHints(KEYMAP, scopes), 400)).toContain('+/- rate');
		expect(footerText(footerHints(KEYMAP, scopes), 400)).not.toContain('+-rate');
		expect(footerText(footerHints(KEYMAP, scopes), 14)).toBe('? help  q quit');
		const added = [...KEYMAP, {id: 'help' as const, keys: ['F1'], scope: 'global' as const, help: 'Help from a function key', footer: 'F1help'}];
		expect(footerText(footerHints(added, scopes), 400)).toContain('F1 F1help');
		expect(helpLines(added).some(l => l.includes('F1') && l.includes('Help from a function key'))).toBe(true);
	});
});

describe('help overlay lines', () => {
	it('lists every binding, and a compact form fits 80×24 (20 rows under the title)', () => {
		const full = helpLines(KEYMAP);
		for (const b of KEYMAP) if (b.scope !== 'help') expect(full.some(l => l.includes(b.help)), b.help).toBe(true);
		const compact = helpLines(KEYMAP, {compact: true});
		expect(compact.length).toBeLessThanOrEqual(20);
		expect(compact).toContain('Choosing a probe prompt: ↓/j/Tab Next prompt · ↑/k/S-Tab Previous prompt · Enter run · Esc close');
		expect(compact).toContain('When no engine is found: d demo');
	});
});
