import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {BUILTIN_THEMES, isValidColor, parseTheme, THEME_TOKENS, ThemeError} from '../../source/ui/theme.js';
import {loadTheme, resolveTheme, themeCycle, wantsNoColor} from '../../source/config/themes.js';

const dir = mkdtempSync(path.join(tmpdir(), 'infertop-theme-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

describe('themes', () => {
	it('loads every shipped theme with every token valid', () => {
		for (const name of [...BUILTIN_THEMES]) {
			const t = loadTheme(name);
			expect(t.noColor).toBe(false);
			for (const token of THEME_TOKENS) expect(isValidColor(t.colors[token]), `${name}.${token}`).toBe(true);
		}
		const nc = loadTheme('no-color');
		expect(nc.noColor).toBe(true);
		expect(THEME_TOKENS.every(t => nc.colors[t] === undefined)).toBe(true);
	});

	it('ships no-color.json with every token null', async () => {
		const file = new URL('../../themes/no-color.json', import.meta.url);
		const t = loadTheme(file.pathname);
		expect(t.noColor).toBe(true);
	});

	it('accepts Ink colour forms and rejects the rest', () => {
		for (const ok of ['cyan', 'redBright', 'gray', '#fff', '#5fd7ff', 'rgb(1, 2, 255)', 'ansi256(208)']) expect(isValidColor(ok), ok).toBe(true);
		for (const bad of ['grene', '#ggg', '#12345', 'rgb(1,2,300)', 'ansi256(999)', '', 12, '\u001b[31m']) expect(isValidColor(bad), String(bad)).toBe(false);
	});

	it('rejects a theme file with a bad colour, naming the token and the value', () => {
		const file = path.join(dir, 'bad.json');
		writeFileSync(file, JSON.stringify({name: 'bad', colors: {text: 'white', good: 'grene'}}));
		expect(() => loadTheme(file)).toThrow(ThemeError);
		expect(() => loadTheme(file)).toThrow(/token "good" has an invalid colour "grene"/);
	});

	it('rejects unknown tokens and broken JSON; a partial theme inherits from dark', () => {
		expect(() => parseTheme({colors: {txet: 'red'}}, 'typo', loadTheme('dark'))).toThrow(/unknown token "txet"/);
		const broken = path.join(dir, 'broken.json');
		writeFileSync(broken, '{"colors": {');
		expect(() => loadTheme(broken)).toThrow(/invalid JSON/);
		expect(() => loadTheme('no-such-theme')).toThrow(/no such theme/);
		const partial = parseTheme({colors: {accent: '#ff0000'}}, 'partial', loadTheme('dark'));
		expect(partial.colors.accent).toBe('#ff0000');
		expect(partial.colors.good).toBe(loadTheme('dark').colors.good);
	});

	it('chooses no colour under NO_COLOR (non-empty), TERM=dumb or --no-color', () => {
		expect(wantsNoColor({NO_COLOR: '1'})).toBe(true);
		expect(wantsNoColor({NO_COLOR: ''})).toBe(false);
		expect(wantsNoColor({TERM: 'dumb'})).toBe(true);
		expect(wantsNoColor({}, true)).toBe(true);
		expect(wantsNoColor({TERM: 'xterm-256color'})).toBe(false);
		expect(resolveTheme({name: 'light', env: {NO_COLOR: '1'}}).theme.noColor).toBe(true);
		const fallback = resolveTheme({name: 'nope', env: {}});
		expect(fallback.theme.name).toBe('dark');
		expect(fallback.error).toMatch(/no such theme/);
	});
});

describe('the theme cycle (read in config, passed to the screen)', () => {
	it('cycles all four, the chosen one first', () => {
		expect(themeCycle({name: 'light', env: {}}).themes.map(t => t.name)).toEqual(['light', 'dark', 'high-contrast', 'no-color']);
		expect(themeCycle({name: 'dark', env: {}}).error).toBeUndefined();
	});

	it('a bad theme is a notice, not a crash: dark first, the reason in error', () => {
		const file = path.join(dir, 'broken.json');
		writeFileSync(file, '{"colors": {"accent": "not-a-colour"}}');
		const c = themeCycle({name: file, env: {}});
		expect(c.themes.map(t => t.name)).toEqual(['dark', 'light', 'high-contrast', 'no-color']);
		expect(c.error).toMatch(/accent/);
		expect(themeCycle({name: 'nope', env: {}}).error).toMatch(/^theme nope: no such theme/);
	});

	it('only no-color when no colour was asked for', () => {
		expect(themeCycle({name: 'light', env: {NO_COLOR: '1'}}).themes.map(t => t.name)).toEqual(['no-color']);
	});
});
