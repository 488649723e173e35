/**
 * The effective configuration: built-in defaults < config file < command-line flags.
 *
 * ## Config file (paste into the readme)
 *
 * Optional. infertop reads `config.json` from its config directory:
 * `$XDG_CONFIG_HOME/infertop/config.json` (default `~/.config/infertop/config.json`) on Linux,
 * `~/Library/Preferences/infertop/config.json` on macOS, `%APPDATA%\infertop\Config\config.json`
 * on Windows; `--config PATH` reads another file instead. infertop never writes this file;
 * `infertop --print-config` prints the effective settings in the same format, each with where it
 * came from (default, file or flag).
 *
 * The format is JSON with comments (JSONC): `//` and `/* *\/` comments and trailing commas are
 * allowed. Every key is optional; `null` means "use the default". A bad value (wrong type, out of
 * range, unknown key, a syntax error) is reported with its line and column and the default is used
 * for it; infertop still starts.
 *
 * ```jsonc
 * {
 *   // Servers to watch and probe besides the ones discovered on this machine (flag: --server URL).
 *   // A string or {url, apiKey?, apiKeyEnv?}. Prefer apiKeyEnv (the name of an environment
 *   // variable holding the key) to writing a key here. A key is only ever sent to its own server.
 *   "servers": ["http://127.0.0.1:11434", {"url": "https://gpu-box:8000", "apiKeyEnv": "VLLM_API_KEY"}],
 *   // Logs to tail (flag: --log): PATH, ENGINE=PATH to name the engine, cmd:COMMAND to run a
 *   // command and read its output (e.g. "cmd:journalctl -fu ollama"), ENGINE=cmd:COMMAND.
 *   "logs": ["~/.ollama/logs/server.log", "llamacpp=/tmp/llama-server.log"],
 *   // Memory bandwidth in GB/s for the ceiling (flag: --bandwidth); default: the built-in chip table.
 *   "bandwidth": 546,
 *   // Colour theme: a name from themes/ or a path to a theme JSON file (flag: --theme).
 *   "theme": "dark",
 *   // Screen refresh in ms, 250..10000; also "2s" (flag: --refresh).
 *   "refresh": 1000,
 *   // Probe history CSV (flag: --history); default: probes.csv in the XDG state directory.
 *   "history": null,
 *   // Demo engine: "auto" (only when no engine is found), true (always), false (never) (flag: --demo).
 *   "demo": "auto",
 *   // How to read Ollama's loaded models: "api" (GET /api/ps) or "cli" (run `ollama ps`).
 *   "ollamaPs": "api",
 *   // How long a probe retries a busy server (HTTP 429 / 503), seconds; also "2m" (flag: --busy-timeout).
 *   "busyTimeout": 30,
 *   // Agent view: the longest pause between two turns of one session, seconds; also "2m" (flag: --session-gap).
 *   "sessionGap": 60,
 *   // Serve Prometheus metrics on this address (flag: --serve-metrics); true = 127.0.0.1:9464.
 *   "serveMetrics": null,
 *   // No colours (also NO_COLOR in the environment, or --no-color).
 *   "noColor": false
 * }
 * ```
 *
 * Lists given as flags replace the file's lists (they are not appended): `--server X` watches X,
 * not X plus the servers of the file.
 */
import fs from 'node:fs';
import type {EngineKind} from '../types/events.js';
import {ENGINE_KINDS} from '../engines/index.js';
import {parseListenAddress, DEFAULT_METRICS_ADDR} from '../metrics/address.js';
import {parseJsonc, type JsonNode, type Position} from './jsonc.js';
import {configFile, expandHome, historyFile, type PathContext} from './paths.js';
import {redactUserinfo, sanitizeDeep, sanitizeName} from '../util/sanitize.js';

export interface ServerEntry {
	/** Normalised: scheme added when missing (`http://`), no trailing slash. */
	readonly url: string;
	/** A key written in the file (discouraged: prefer apiKeyEnv). Never printed. */
	readonly apiKey?: string;
	/** Name of the environment variable holding the key. */
	readonly apiKeyEnv?: string;
}

export type DemoMode = 'auto' | boolean;
export type OllamaPsMode = 'api' | 'cli';

export interface Config {
	readonly servers: readonly ServerEntry[];
	/** Log specs as given: `PATH`, `ENGINE=PATH`, `cmd:COMMAND`, `ENGINE=cmd:COMMAND` (`~` expanded). See parseLogSpec. */
	readonly logs: readonly string[];
	/** GB/s; undefined = from the chip table. */
	readonly bandwidth?: number;
	readonly theme: string;
	/** Screen refresh, ms (250..10000). */
	readonly refresh: number;
	/** Probe history CSV; undefined = historyFile() (probes.csv in the XDG state dir). */
	readonly history?: string;
	readonly demo: DemoMode;
	readonly ollamaPs: OllamaPsMode;
	/** Seconds a probe keeps retrying a busy server. */
	readonly busyTimeout: number;
	/** Agent view: the longest pause between two turns of one session, seconds. */
	readonly sessionGap: number;
	/** `HOST:PORT` to serve Prometheus metrics on; undefined = off. */
	readonly serveMetrics?: string;
	readonly noColor: boolean;
}

export type ConfigKey = keyof Config;
export type PartialConfig = {-readonly [K in ConfigKey]?: Config[K]};
export type Origin = 'default' | 'file' | 'flag';

export interface EffectiveConfig extends Config {
	/** Where each value came from. */
	readonly origin: Readonly<Record<ConfigKey, Origin>>;
	/** The config file that was read, if any. */
	readonly configPath?: string;
}

export const REFRESH_MIN_MS = 250;
export const REFRESH_MAX_MS = 10_000;

export const DEFAULTS: Config = Object.freeze({
	servers: Object.freeze([]) as readonly ServerEntry[],
	logs: Object.freeze([]) as readonly string[],
	bandwidth: undefined,
	theme: 'dark',
	refresh: 1000,
	history: undefined,
	demo: 'auto',
	ollamaPs: 'api',
	busyTimeout: 30,
	sessionGap: 60,
	serveMetrics: undefined,
	noColor: false,
});

export const CONFIG_KEYS: readonly ConfigKey[] = ['servers', 'logs', 'bandwidth', 'theme', 'refresh', 'history', 'demo', 'ollamaPs', 'busyTimeout', 'sessionGap', 'serveMetrics', 'noColor'];

/** The flag that sets each key (for messages and --print-config). */
export const FLAG_OF: Readonly<Record<ConfigKey, string>> = {
	servers: '--server',
	logs: '--log',
	bandwidth: '--bandwidth',
	theme: '--theme',
	refresh: '--refresh',
	history: '--history',
	demo: '--demo',
	ollamaPs: '--ollama-ps',
	busyTimeout: '--busy-timeout',
	sessionGap: '--session-gap',
	serveMetrics: '--serve-metrics',
	noColor: '--no-color',
};

// ---------------------------------------------------------------------------------------------
// Validation: one validator per key over a positioned JSON node, shared by the file and the flags.

type Report = (message: string, at?: Position) => void;
type Validator<K extends ConfigKey> = (node: JsonNode, report: Report, ctx: PathContext) => Config[K] | undefined;

const kindName = (node: JsonNode): string => (node.kind === 'number' && !Number.isFinite(node.value) ? 'number' : node.kind);

function durationValue(node: JsonNode, unit: 'ms' | 's'): number | undefined {
	if (node.kind === 'number') return Number.isFinite(node.value) ? node.value : undefined;
	if (node.kind !== 'string') return undefined;
	const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(node.value);
	if (!m) return undefined;
	const n = Number(m[1]);
	const given = (m[2] ?? unit) as 'ms' | 's' | 'm';
	const ms = given === 'ms' ? n : given === 's' ? n * 1000 : n * 60_000;
	return unit === 'ms' ? ms : ms / 1000;
}

function normaliseUrl(raw: string): {url: string} | {error: string} {
	const text = raw.trim();
	if (text === '') return {error: 'empty URL'};
	const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
	let url: URL;
	try {
		url = new URL(withScheme);
	} catch {
		return {error: `"${raw}" is not a URL`};
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return {error: `"${raw}": only http:// and https:// servers`};
	// The warning never repeats the password it warns about.
	if (url.username || url.password) return {error: `"${redactUserinfo(raw)}": put credentials in apiKeyEnv, not in the URL`};
	return {url: url.href.replace(/\/+$/, '')};
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const serverEntry = (node: JsonNode, report: Report): ServerEntry | undefined => {
	if (node.kind === 'string') {
		const u = normaliseUrl(node.value);
		if ('error' in u) return void report(u.error, node);
		return {url: u.url};
	}
	if (node.kind !== 'object') return void report(`a server is a URL string or {"url", "apiKey", "apiKeyEnv"}, not ${kindName(node)}`, node);
	let url: string | undefined;
	let apiKey: string | undefined;
	let apiKeyEnv: string | undefined;
	let bad = false;
	for (const e of node.entries) {
		if (e.key === 'url') {
			if (e.value.kind !== 'string') {
				report(`url: expected a string, found ${kindName(e.value)}`, e.value);
				bad = true;
				continue;
			}
			const u = normaliseUrl(e.value.value);
			if ('error' in u) {
				report(u.error, e.value);
				bad = true;
			} else url = u.url;
		} else if (e.key === 'apiKey') {
			if (e.value.kind === 'string' && e.value.value !== '') apiKey = e.value.value;
			else if (e.value.kind !== 'null') report('apiKey: expected a non-empty string', e.value);
		} else if (e.key === 'apiKeyEnv') {
			if (e.value.kind === 'string' && ENV_NAME.test(e.value.value)) apiKeyEnv = e.value.value;
			else if (e.value.kind !== 'null') report('apiKeyEnv: expected the name of an environment variable, e.g. "VLLM_API_KEY"', e.value);
		} else report(`unknown key "${e.key}" in a server (known: url, apiKey, apiKeyEnv)`, e.keyPos);
	}
	if (url === undefined) {
		if (!bad) report('a server needs a "url"', node);
		return undefined;
	}
	return {url, ...(apiKey === undefined ? {} : {apiKey}), ...(apiKeyEnv === undefined ? {} : {apiKeyEnv})};
};

/** A log spec, parsed. `engine` is set for `ENGINE=…`. */
export type LogSpec =
	| {readonly kind: 'file'; readonly path: string; readonly engine?: EngineKind}
	| {readonly kind: 'cmd'; readonly command: string; readonly engine?: EngineKind};

/**
 * `PATH` | `ENGINE=PATH` | `cmd:COMMAND` | `ENGINE=cmd:COMMAND`. ENGINE is one of ENGINE_KINDS.
 * A prefix before `=` that contains no path separator and is not an engine is an error (a typo such
 * as `olama=/x` should not silently become a file called `olama=/x`).
 */
export function parseLogSpec(spec: string): {ok: true; spec: LogSpec} | {ok: false; error: string} {
	let rest = spec.trim();
	let engine: EngineKind | undefined;
	const m = /^([A-Za-z][\w-]*)=(.*)$/s.exec(rest);
	if (m) {
		const name = m[1]!.toLowerCase();
		if (!(ENGINE_KINDS as readonly string[]).includes(name)) return {ok: false, error: `"${spec}": unknown engine "${m[1]}" (known: ${ENGINE_KINDS.join(', ')})`};
		engine = name as EngineKind;
		rest = m[2]!.trim();
	}
	if (rest.startsWith('cmd:')) {
		const command = rest.slice(4).trim();
		if (command === '') return {ok: false, error: `"${spec}": empty command after cmd:`};
		return {ok: true, spec: {kind: 'cmd', command, ...(engine ? {engine} : {})}};
	}
	if (rest === '') return {ok: false, error: `"${spec}": empty path`};
	return {ok: true, spec: {kind: 'file', path: rest, ...(engine ? {engine} : {})}};
}

const logEntry = (node: JsonNode, report: Report, ctx: PathContext): string | undefined => {
	if (node.kind !== 'string') return void report(`a log is a string (PATH, ENGINE=PATH or cmd:COMMAND), not ${kindName(node)}`, node);
	const parsed = parseLogSpec(node.value);
	if (!parsed.ok) return void report(parsed.error, node);
	const s = parsed.spec;
	if (s.kind === 'cmd') return node.value.trim();
	const path = expandHome(s.path, ctx);
	return s.engine ? `${s.engine}=${path}` : path;
};

/**
 * Most servers, and most logs, infertop watches (from flags and the file alike). Each server is
 * identified, then polled every 2 s, and each log followed: a list past this is refused (flags: one
 * line, exit 2; the file: a warning, the first ones kept), never left to run without bound.
 */
export const MAX_WATCHED = 64;

function list<T>(node: JsonNode, report: Report, item: (n: JsonNode) => T | undefined, what?: string): T[] | undefined {
	let items = node.kind === 'array' ? node.items : [node];
	if (what !== undefined && items.length > MAX_WATCHED) {
		report(`${items.length} ${what} named: at most ${MAX_WATCHED} are watched (each is read all the time)`, node);
		items = items.slice(0, MAX_WATCHED);
	}
	const out: T[] = [];
	for (const n of items) {
		const v = item(n);
		if (v !== undefined) out.push(v);
	}
	// All entries bad: fall back to the default (an empty list would silently mean "none").
	return items.length > 0 && out.length === 0 ? undefined : out;
}

const VALIDATORS: {readonly [K in ConfigKey]: Validator<K>} = {
	servers: (node, report) => list(node, report, (n) => serverEntry(n, report), 'servers'),
	logs: (node, report, ctx) => list(node, report, (n) => logEntry(n, report, ctx), 'logs'),
	bandwidth: (node, report) => {
		const v = node.kind === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(node.value) ? Number(node.value) : node.kind === 'number' ? node.value : undefined;
		if (v === undefined || !(v > 0) || v > 100_000) return void report('expected memory bandwidth in GB/s, a number in 0..100000 (e.g. 546)', node);
		return v;
	},
	theme: (node, report) => {
		if (node.kind !== 'string' || node.value.trim() === '') return void report('expected a theme name or a path to a theme file', node);
		return node.value.trim();
	},
	refresh: (node, report) => {
		const ms = durationValue(node, 'ms');
		if (ms === undefined || ms < REFRESH_MIN_MS || ms > REFRESH_MAX_MS) return void report(`expected ${REFRESH_MIN_MS}..${REFRESH_MAX_MS} ms (a number, or "2s")`, node);
		return Math.round(ms);
	},
	history: (node, report, ctx) => {
		if (node.kind !== 'string' || node.value.trim() === '') return void report('expected a file path', node);
		return expandHome(node.value.trim(), ctx);
	},
	demo: (node, report) => {
		if (node.kind === 'boolean') return node.value;
		if (node.kind === 'string' && ['auto', 'true', 'false'].includes(node.value)) return node.value === 'auto' ? 'auto' : node.value === 'true';
		return void report('expected "auto", true or false', node);
	},
	ollamaPs: (node, report) => {
		if (node.kind === 'string' && (node.value === 'api' || node.value === 'cli')) return node.value;
		return void report('expected "api" or "cli"', node);
	},
	busyTimeout: (node, report) => {
		const s = durationValue(node, 's');
		if (s === undefined || s < 0 || s > 3600) return void report('expected seconds, 0..3600 (a number, or "2m")', node);
		return s;
	},
	sessionGap: (node, report) => {
		const s = durationValue(node, 's');
		if (s === undefined || !(s > 0) || s > 86_400) return void report('expected seconds, more than 0 and at most 86400 (a number, or "2m")', node);
		return s;
	},
	serveMetrics: (node, report) => {
		if (node.kind === 'boolean') return node.value ? DEFAULT_METRICS_ADDR : undefined;
		if (node.kind !== 'string') return void report('expected HOST:PORT (e.g. "127.0.0.1:9464")', node);
		const a = parseListenAddress(node.value);
		if (!a.ok) return void report(a.error, node);
		return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
	},
	noColor: (node, report) => {
		if (node.kind === 'boolean') return node.value;
		return void report('expected true or false', node);
	},
};

function validateKey<K extends ConfigKey>(key: K, node: JsonNode, report: Report, ctx: PathContext): Config[K] | undefined {
	return (VALIDATORS[key] as Validator<K>)(node, report, ctx);
}

/** Keys a file may carry that are not settings (editor schema hints). */
const IGNORED_KEYS = new Set(['$schema', '$comment']);

/**
 * Validate a parsed config document. Every problem is `FILE:LINE:COL: message`; bad values are
 * left out of the result (so the default applies to them).
 */
export function validateConfigNode(node: JsonNode, file: string, ctx: PathContext = {}): {partial: PartialConfig; problems: string[]} {
	const problems: string[] = [];
	const partial: PartialConfig = {};
	if (node.kind !== 'object') {
		problems.push(`${file}:${node.line}:${node.col}: the config must be a JSON object ({…}), not ${kindName(node)}; using the defaults`);
		return {partial, problems};
	}
	const seen = new Set<string>();
	for (const e of node.entries) {
		const where = (at: Position = e.value): string => `${file}:${at.line}:${at.col}`;
		if (IGNORED_KEYS.has(e.key)) continue;
		if (!(CONFIG_KEYS as readonly string[]).includes(e.key)) {
			const hint = CONFIG_KEYS.find((k) => k.toLowerCase() === e.key.toLowerCase().replace(/[-_]/g, '') || `${k}s` === e.key || k === `${e.key}s`);
			problems.push(`${where(e.keyPos)}: unknown key "${e.key}"${hint ? ` (did you mean "${hint}"?)` : ''}; ignored`);
			continue;
		}
		const key = e.key as ConfigKey;
		if (seen.has(key)) problems.push(`${where(e.keyPos)}: "${key}" given twice; the last one counts`);
		seen.add(key);
		if (e.value.kind === 'null') {
			delete partial[key];
			continue;
		}
		const mine: string[] = [];
		const report: Report = (message, at) => mine.push(`${where(at)}: ${key}: ${message}`);
		const value = validateKey(key, e.value, report, ctx);
		if (value === undefined) {
			delete partial[key];
			if (mine.length > 0) mine[mine.length - 1] += '; using the default';
			problems.push(...mine);
			continue;
		}
		// A list with some bad entries keeps the good ones.
		problems.push(...mine.map((m) => `${m}; skipped`));
		(partial as Record<string, unknown>)[key] = value;
	}
	return {partial, problems};
}

// ---------------------------------------------------------------------------------------------
// Flags

/**
 * What the command line gives (config/flags.ts), by flag. `undefined` or an empty list = not given.
 * Numbers may arrive as strings. `color: false` is `--no-color`.
 */
export interface FlagValues {
	readonly server?: readonly string[] | string;
	readonly log?: readonly string[] | string;
	readonly bandwidth?: number | string;
	readonly theme?: string;
	readonly refresh?: number | string;
	readonly history?: string;
	readonly demo?: boolean | string;
	readonly ollamaPs?: string;
	readonly busyTimeout?: number | string;
	readonly sessionGap?: number | string;
	readonly serveMetrics?: string | boolean;
	readonly noColor?: boolean;
	readonly color?: boolean;
}

const FLAG_SOURCES: readonly (readonly [keyof FlagValues, ConfigKey])[] = [
	['server', 'servers'],
	['log', 'logs'],
	['bandwidth', 'bandwidth'],
	['theme', 'theme'],
	['refresh', 'refresh'],
	['history', 'history'],
	['demo', 'demo'],
	['ollamaPs', 'ollamaPs'],
	['busyTimeout', 'busyTimeout'],
	['sessionGap', 'sessionGap'],
	['serveMetrics', 'serveMetrics'],
	['noColor', 'noColor'],
];

/** A plain value as a position-less node (flags have no line/column). */
function toNode(value: unknown): JsonNode {
	const pos = {line: 0, col: 0};
	if (Array.isArray(value)) return {kind: 'array', items: value.map(toNode), ...pos};
	if (typeof value === 'string') return {kind: 'string', value, ...pos};
	if (typeof value === 'number') return {kind: 'number', value, ...pos};
	if (typeof value === 'boolean') return {kind: 'boolean', value, ...pos};
	if (value === null || value === undefined) return {kind: 'null', value: null, ...pos};
	return {kind: 'object', entries: Object.entries(value as Record<string, unknown>).map(([key, v]) => ({key, keyPos: pos, value: toNode(v)})), ...pos};
}

/** Validate the flags with the same rules as the file. Problems read `--refresh: expected …`. */
export function configFromFlags(flags: FlagValues, ctx: PathContext = {}): {partial: PartialConfig; problems: string[]} {
	const problems: string[] = [];
	const partial: PartialConfig = {};
	const given: Partial<Record<keyof FlagValues, unknown>> = {...flags};
	if (given.noColor === undefined && flags.color === false) given.noColor = true;
	for (const [flag, key] of FLAG_SOURCES) {
		const raw = given[flag];
		if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) continue;
		// Say what was typed (one value; lists name their bad entry in the message already).
		const got = typeof raw === 'string' || typeof raw === 'number' ? `, got ${JSON.stringify(String(raw))}` : '';
		const value = validateKey(key, toNode(raw), (message) => problems.push(`${FLAG_OF[key]}: ${message}${message.includes('"') && !message.startsWith('expected') ? '' : got}`), ctx);
		if (value !== undefined) (partial as Record<string, unknown>)[key] = value;
	}
	return {partial, problems};
}

// ---------------------------------------------------------------------------------------------
// Load and merge

export interface LoadOptions {
	/** `--config PATH`: read this file; a missing one is a problem. Without it, the XDG file is read if present. */
	readonly path?: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
	readonly platform?: NodeJS.Platform;
	readonly homedir?: string;
	/** For tests. */
	readonly readFile?: (path: string) => string;
}

export interface LoadResult {
	/** Defaults < file. */
	readonly config: EffectiveConfig;
	/** Just the valid values of the file. */
	readonly file: PartialConfig;
	/** The file that was read, if one was. */
	readonly source?: string;
	/** Human-readable, `FILE:LINE:COL: …`. Never thrown. */
	readonly problems: string[];
}

/** Largest config file read: a settings file is a few KB; `--config /dev/zero` must not grow without end. */
export const MAX_CONFIG_BYTES = 1 << 20;

/** The file's text, at most MAX_CONFIG_BYTES (a device or a pipe is read up to the cap too); past it, an error saying so. */
function readConfigText(file: string): string {
	const fd = fs.openSync(file, 'r');
	try {
		const buf = Buffer.alloc(MAX_CONFIG_BYTES + 1);
		let n = 0;
		while (n < buf.length) {
			const got = fs.readSync(fd, buf, n, buf.length - n, null);
			if (got === 0) break;
			n += got;
		}
		if (n > MAX_CONFIG_BYTES) throw new Error(`larger than ${MAX_CONFIG_BYTES / (1 << 20)} MiB, not a config file`);
		return buf.toString('utf8', 0, n);
	} finally {
		fs.closeSync(fd);
	}
}

/** Read and validate the config file. Never throws: every problem is reported and the default used. */
export function loadConfig(options: LoadOptions = {}): LoadResult {
	const ctx: PathContext = {env: options.env, platform: options.platform, homedir: options.homedir};
	const explicit = options.path !== undefined && options.path.trim() !== '';
	const filePath = explicit ? expandHome(options.path!.trim(), ctx) : configFile(ctx);
	const read = options.readFile ?? readConfigText;
	const none = (problems: string[]): LoadResult => ({config: mergeConfig(DEFAULTS, {}, {}), file: {}, problems});
	let text: string;
	try {
		text = read(filePath);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' && !explicit) return none([]);
		const why = code === 'ENOENT' ? 'not found' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : ((error as Error).message ?? String(error));
		return none([`${filePath}: cannot read the config file (${why}); using the defaults`]);
	}
	const parsed = parseJsonc(text);
	if (!parsed.ok) {
		const {line, col, message} = parsed.error;
		return {...none([`${filePath}:${line}:${col}: ${message}; the file is ignored, using the defaults`]), source: filePath};
	}
	const {partial, problems} = validateConfigNode(parsed.node, filePath, ctx);
	return {config: mergeConfig(DEFAULTS, partial, {}, filePath), file: partial, source: filePath, problems};
}

/** defaults < file < flags, key by key (lists are replaced, not appended). */
export function mergeConfig(defaults: Config, file: PartialConfig, flags: PartialConfig, configPath?: string): EffectiveConfig {
	const out: Record<string, unknown> = {};
	const origin = {} as Record<ConfigKey, Origin>;
	for (const key of CONFIG_KEYS) {
		if (flags[key] !== undefined) {
			out[key] = flags[key];
			origin[key] = 'flag';
		} else if (file[key] !== undefined) {
			out[key] = file[key];
			origin[key] = 'file';
		} else {
			out[key] = defaults[key];
			origin[key] = 'default';
		}
	}
	return {...(out as unknown as Config), origin, ...(configPath === undefined ? {} : {configPath})};
}

export interface ResolveOptions extends LoadOptions {
	readonly flags?: FlagValues;
}

/**
 * The one call for the CLI: read the file, validate the flags, merge. `problems` holds all of them;
 * `flagProblems` just the command line's: the file's are warnings (its default applies), a bad
 * flag is an error (the CLI exits 2: the user just typed it).
 */
export function resolveConfig(options: ResolveOptions = {}): {config: EffectiveConfig; problems: string[]; fileProblems: string[]; flagProblems: string[]} {
	const loaded = loadConfig(options);
	const fromFlags = configFromFlags(options.flags ?? {}, {env: options.env, platform: options.platform, homedir: options.homedir});
	return {
		config: mergeConfig(DEFAULTS, loaded.file, fromFlags.partial, loaded.source),
		problems: [...loaded.problems, ...fromFlags.problems],
		fileProblems: loaded.problems,
		flagProblems: fromFlags.problems,
	};
}

/** What a numeric command-line flag accepts. */
export interface NumberFlagRule {
	readonly min: number;
	readonly max: number;
	readonly integer?: boolean;
	/** Said after the range, e.g. `seconds`. */
	readonly unit?: string;
}

/**
 * A numeric flag as typed (the command line gives the text): a plain decimal number within the rule, else a
 * one-line message naming the flag, what was given and the accepted range.
 */
export function parseNumberFlag(flag: string, raw: string | number | undefined, rule: NumberFlagRule): {value?: number; error?: string} {
	if (raw === undefined) return {};
	const text = String(raw).trim();
	const v = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
	const range = `${rule.integer ? 'an integer' : 'a number'} in ${rule.min}..${rule.max}${rule.unit ? ` ${rule.unit}` : ''}`;
	if (!Number.isFinite(v) || v < rule.min || v > rule.max || (rule.integer === true && !Number.isInteger(v))) {
		return {error: `${flag}: expected ${range}, got ${JSON.stringify(text)}`};
	}
	return {value: v};
}

/** The key of a server: the file's apiKey, else the variable named by apiKeyEnv. Only send it to `entry.url`. */
export function resolveApiKey(entry: ServerEntry, env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
	if (entry.apiKey) return entry.apiKey;
	if (entry.apiKeyEnv) {
		const v = env[entry.apiKeyEnv];
		return v ? v : undefined;
	}
	return undefined;
}

/** The probe history path in effect. */
export function effectiveHistoryPath(config: Config, ctx?: PathContext): string {
	return config.history ?? historyFile(ctx);
}

// ---------------------------------------------------------------------------------------------
// --print-config

const DEFAULT_NOTES: Partial<Record<ConfigKey, (ctx: PathContext) => string>> = {
	bandwidth: () => 'from the chip table',
	history: (ctx) => historyFile(ctx),
	serveMetrics: () => 'off',
};

function printable(key: ConfigKey, value: unknown): unknown {
	if (key === 'servers') {
		// Never print a key: mask it (a file holding one should be private anyway).
		return (value as readonly ServerEntry[]).map((s) => (s.apiKey === undefined && s.apiKeyEnv === undefined ? s.url : {...s, ...(s.apiKey === undefined ? {} : {apiKey: '***'})}));
	}
	return value === undefined ? null : value;
}

/**
 * `infertop --print-config`: the effective settings as JSONC, each line commented with where the
 * value came from. The output is itself a valid config file (keys written in the file are masked
 * as "***", so paste the real key back or use apiKeyEnv).
 */
export function formatConfig(config: EffectiveConfig, ctx: PathContext = {}): string {
	const lines: string[] = [];
	lines.push(config.configPath ? `// config file: ${sanitizeName(config.configPath)}` : `// config file: none (looked for ${sanitizeName(configFile(ctx))})`);
	lines.push('// precedence: default < file < flag');
	lines.push('{');
	CONFIG_KEYS.forEach((key, index) => {
		const origin = config.origin[key];
		const value = config[key];
		const note = value === undefined && DEFAULT_NOTES[key] ? `: ${DEFAULT_NOTES[key]!(ctx)}` : '';
		const comma = index < CONFIG_KEYS.length - 1 ? ',' : '';
		const flag = origin === 'flag' ? ` (${FLAG_OF[key]})` : '';
		lines.push(`\t${JSON.stringify(key)}: ${JSON.stringify(sanitizeDeep(printable(key, value)))}${comma} // ${origin}${flag}${sanitizeName(note)}`);
	});
	lines.push('}');
	return lines.join('\n');
}
