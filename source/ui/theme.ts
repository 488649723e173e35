/**
 * Colour themes as data (themes/*.json): semantic tokens only; panes never name a colour.
 * Every colour is validated (Ink/chalk colour name, #hex, rgb(), ansi256()); `null` means "no colour".
 * A theme may omit tokens (they come from dark.json) but may not carry unknown or invalid ones.
 */

export const THEME_TOKENS = [
	'text',
	'muted',
	'accent',
	'good',
	'warn',
	'bad',
	'tps',
	'tpp',
	'ceiling',
	'border',
	'badge',
	'badgeBg',
	'selected',
] as const;

export type ThemeToken = (typeof THEME_TOKENS)[number];

/** A colour for <Text color>; undefined = terminal default (no colour code written). */
export type ThemeColors = Readonly<Record<ThemeToken, string | undefined>>;

export interface Theme {
	readonly name: string;
	readonly colors: ThemeColors;
	/** True for the no-colour theme: panes may lean on bold/inverse instead. */
	readonly noColor: boolean;
}

/** Built-in themes cycled by `t` (no-color is chosen by NO_COLOR / --no-color / TERM=dumb). */
export const BUILTIN_THEMES = ['dark', 'light', 'high-contrast'] as const;
export const DEFAULT_THEME = 'dark';
export const NO_COLOR_THEME = 'no-color';

const CHALK_NAMES = new Set([
	'black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white', 'gray', 'grey',
	'blackBright', 'redBright', 'greenBright', 'yellowBright', 'blueBright', 'magentaBright', 'cyanBright', 'whiteBright',
]);

/** Whether Ink's <Text color> accepts the value (src/colorize.ts: chalk name, #hex, rgb(), ansi256()). */
export function isValidColor(value: unknown): value is string {
	if (typeof value !== 'string') return false;
	if (CHALK_NAMES.has(value)) return true;
	if (/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) return true;
	const rgb = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(value);
	if (rgb) return rgb.slice(1).every(n => Number(n) <= 255);
	const a = /^ansi256\(\s*(\d{1,3})\s*\)$/.exec(value);
	return a !== null && Number(a[1]) <= 255;
}

export class ThemeError extends Error {
	override readonly name = 'ThemeError';
}

/** An all-undefined theme, also the last resort when no theme file can be read. */
export function noColorTheme(): Theme {
	const colors = Object.fromEntries(THEME_TOKENS.map(t => [t, undefined])) as Record<ThemeToken, undefined>;
	return {name: NO_COLOR_THEME, colors, noColor: true};
}

/**
 * Validate parsed theme JSON. `base` fills tokens the file leaves out.
 * Throws ThemeError naming the token and the value when a colour is invalid.
 */
export function parseTheme(json: unknown, label: string, base?: Theme): Theme {
	if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ThemeError(`theme ${label}: not a JSON object`);
	const obj = json as {name?: unknown; colors?: unknown};
	if (typeof obj.colors !== 'object' || obj.colors === null || Array.isArray(obj.colors)) {
		throw new ThemeError(`theme ${label}: missing "colors" object`);
	}
	const raw = obj.colors as Record<string, unknown>;
	const out: Partial<Record<ThemeToken, string | undefined>> = {};
	for (const [token, value] of Object.entries(raw)) {
		if (!(THEME_TOKENS as readonly string[]).includes(token)) {
			throw new ThemeError(`theme ${label}: unknown token "${token}" (tokens: ${THEME_TOKENS.join(', ')})`);
		}
		if (value === null) {
			out[token as ThemeToken] = undefined;
			continue;
		}
		if (!isValidColor(value)) {
			throw new ThemeError(
				`theme ${label}: token "${token}" has an invalid colour ${JSON.stringify(value)} (use a colour name such as "cyan" or "redBright", #hex, rgb(r,g,b) or ansi256(n))`,
			);
		}
		out[token as ThemeToken] = value;
	}
	const colors = {} as Record<ThemeToken, string | undefined>;
	for (const t of THEME_TOKENS) {
		if (t in out) colors[t] = out[t];
		else if (base) colors[t] = base.colors[t];
		else throw new ThemeError(`theme ${label}: token "${t}" is missing`);
	}
	const name = typeof obj.name === 'string' && obj.name !== '' ? obj.name : label;
	const noColor = THEME_TOKENS.every(t => colors[t] === undefined);
	return {name, colors, noColor};
}
