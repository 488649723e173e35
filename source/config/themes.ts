/**
 * Theme files: the shipped themes/ folder and user JSON files, read and checked here (I/O) and
 * parsed by ui/theme.ts (pure). The screen never reads a file itself.
 */
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {BUILTIN_THEMES, DEFAULT_THEME, NO_COLOR_THEME, noColorTheme, parseTheme, ThemeError, type Theme} from '../ui/theme.js';

let themesDirCache: string | undefined | null = null;

/** The shipped themes/ folder, found upward from this module (source/ui/ in dev, dist/ when bundled). */
export function themesDir(): string | undefined {
	if (themesDirCache !== null) return themesDirCache;
	let dir = path.dirname(fileURLToPath(import.meta.url));
	themesDirCache = undefined;
	for (let i = 0; i < 6; i++) {
		const candidate = path.join(dir, 'themes');
		if (existsSync(path.join(candidate, `${DEFAULT_THEME}.json`))) {
			themesDirCache = candidate;
			break;
		}
		const up = path.dirname(dir);
		if (up === dir) break;
		dir = up;
	}
	return themesDirCache;
}

function readJson(file: string, label: string): unknown {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		throw new ThemeError(`theme ${label}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
	}
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new ThemeError(`theme ${label}: invalid JSON: ${(error as Error).message}`);
	}
}

const cache = new Map<string, Theme>();

/**
 * Load a theme by built-in name (`dark`, `light`, `high-contrast`, `no-color`) or by path to a
 * JSON file. Throws ThemeError with a one-line reason (bad colour, unknown token, unreadable file).
 */
export function loadTheme(nameOrPath: string): Theme {
	const hit = cache.get(nameOrPath);
	if (hit) return hit;
	const isPath = nameOrPath.includes('/') || nameOrPath.includes('\\') || nameOrPath.endsWith('.json');
	let theme: Theme;
	if (nameOrPath === NO_COLOR_THEME) {
		theme = noColorTheme();
	} else if (isPath) {
		const base = nameOrPath === DEFAULT_THEME ? undefined : safeDefault();
		theme = parseTheme(readJson(nameOrPath, nameOrPath), path.basename(nameOrPath, '.json'), base);
	} else {
		const dir = themesDir();
		if (!dir) throw new ThemeError(`theme ${nameOrPath}: themes folder not found`);
		const file = path.join(dir, `${nameOrPath}.json`);
		if (!/^[a-z0-9-]+$/i.test(nameOrPath) || !existsSync(file)) {
			throw new ThemeError(`theme ${nameOrPath}: no such theme (built-in: ${[...BUILTIN_THEMES, NO_COLOR_THEME].join(', ')}; or a path to a .json file)`);
		}
		const base = nameOrPath === DEFAULT_THEME ? undefined : safeDefault();
		theme = parseTheme(readJson(file, nameOrPath), nameOrPath, base);
	}
	cache.set(nameOrPath, theme);
	return theme;
}

function safeDefault(): Theme | undefined {
	try {
		return loadTheme(DEFAULT_THEME);
	} catch {
		return undefined;
	}
}

/** NO_COLOR (non-empty, no-color.org), TERM=dumb, or --no-color. */
export function wantsNoColor(env: Readonly<Record<string, string | undefined>> = process.env, flag = false): boolean {
	if (flag) return true;
	if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return true;
	return env['TERM'] === 'dumb';
}

/** The theme to start with: no-color when asked for, else the named one, else dark; never throws. */
export function resolveTheme(options: {readonly name?: string; readonly noColor?: boolean; readonly env?: Readonly<Record<string, string | undefined>>}): {theme: Theme; error?: string} {
	if (wantsNoColor(options.env ?? process.env, options.noColor ?? false)) return {theme: noColorTheme()};
	try {
		return {theme: loadTheme(options.name ?? DEFAULT_THEME)};
	} catch (error) {
		const message = (error as Error).message;
		try {
			return {theme: loadTheme(DEFAULT_THEME), error: message};
		} catch {
			return {theme: noColorTheme(), error: message};
		}
	}
}

/** Every theme `t` cycles through: the shipped ones, then no colour. */
export const CYCLED_THEMES = [...BUILTIN_THEMES, NO_COLOR_THEME] as const;

/**
 * The themes the screen cycles with `t`, the chosen one first, then the other shipped themes and
 * no-color (all four), read here so the screen never reads a file. When no colour was asked for
 * (NO_COLOR, TERM=dumb, --no-color) only no-color. A theme that does not load is left out and
 * said in `error` (the screen shows it as a notice); never throws.
 */
export function themeCycle(options: {readonly name?: string; readonly noColor?: boolean; readonly env?: Readonly<Record<string, string | undefined>>}): {themes: Theme[]; error?: string} {
	const first = resolveTheme(options);
	if (first.theme.noColor) return {themes: [first.theme], error: first.error};
	const errors = first.error ? [first.error] : [];
	const rest: Theme[] = [];
	for (const name of CYCLED_THEMES) {
		if (name === first.theme.name) continue;
		try {
			rest.push(loadTheme(name));
		} catch (error) {
			errors.push((error as Error).message);
		}
	}
	return {themes: [first.theme, ...rest], error: errors.length > 0 ? errors.join('; ') : undefined};
}
