/**
 * Where infertop keeps its two files (DESIGN §3): an optional config file in the XDG config dir and
 * the probe history CSV in the XDG state dir. It writes nowhere else.
 *
 * The layout is env-paths' (`envPaths('infertop', {suffix: ''})`), computed here from an explicit
 * env/platform/home so it can be tested and so a caller's environment (not the module-load one) is used:
 *
 * | platform | config file | probe history |
 * |---|---|---|
 * | Linux, BSD | `$XDG_CONFIG_HOME/infertop/config.json` (default `~/.config/infertop/config.json`) | `$XDG_STATE_HOME/infertop/probes.csv` (default `~/.local/state/infertop/probes.csv`) |
 * | macOS | `~/Library/Preferences/infertop/config.json` (or `$XDG_CONFIG_HOME/infertop/config.json` when set) | `~/Library/Application Support/infertop/probes.csv` (or `$XDG_STATE_HOME/…` when set) |
 * | Windows | `%APPDATA%\infertop\Config\config.json` | `%LOCALAPPDATA%\infertop\Data\probes.csv` |
 *
 * On macOS an explicitly set XDG variable wins: people who set it expect it to be honoured.
 */
import os from 'node:os';
import path from 'node:path';

export const APP_NAME = 'infertop';
export const CONFIG_FILE_NAME = 'config.json';
export const HISTORY_FILE_NAME = 'probes.csv';
/** Measured server × model profiles (`compare --depths`, issue 29), beside the probe history. */
export const PROFILES_FILE_NAME = 'profiles.json';

export interface PathContext {
	readonly env?: Readonly<Record<string, string | undefined>>;
	readonly platform?: NodeJS.Platform;
	readonly homedir?: string;
}

function resolveContext(ctx: PathContext = {}): {env: Readonly<Record<string, string | undefined>>; platform: NodeJS.Platform; home: string} {
	return {
		env: ctx.env ?? process.env,
		platform: ctx.platform ?? process.platform,
		home: ctx.homedir ?? os.homedir(),
	};
}

/** Only absolute XDG values count (the basedir spec says relative ones are invalid and must be ignored). */
function xdg(env: Readonly<Record<string, string | undefined>>, name: string, pathApi: path.PlatformPath): string | undefined {
	const value = env[name];
	return value && pathApi.isAbsolute(value) ? value : undefined;
}

const pathFor = (platform: NodeJS.Platform): path.PlatformPath => (platform === 'win32' ? path.win32 : path.posix);

/** The directory of the config file. */
export function configDir(ctx?: PathContext): string {
	const {env, platform, home} = resolveContext(ctx);
	const p = pathFor(platform);
	if (platform === 'win32') return p.join(env.APPDATA || p.join(home, 'AppData', 'Roaming'), APP_NAME, 'Config');
	const fromXdg = xdg(env, 'XDG_CONFIG_HOME', p);
	if (fromXdg) return p.join(fromXdg, APP_NAME);
	if (platform === 'darwin') return p.join(home, 'Library', 'Preferences', APP_NAME);
	return p.join(home, '.config', APP_NAME);
}

/** The directory of the probe history (state that should survive restarts, not config). */
export function stateDir(ctx?: PathContext): string {
	const {env, platform, home} = resolveContext(ctx);
	const p = pathFor(platform);
	if (platform === 'win32') return p.join(env.LOCALAPPDATA || p.join(home, 'AppData', 'Local'), APP_NAME, 'Data');
	const fromXdg = xdg(env, 'XDG_STATE_HOME', p);
	if (fromXdg) return p.join(fromXdg, APP_NAME);
	if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', APP_NAME);
	return p.join(home, '.local', 'state', APP_NAME);
}

/** The default config file path (it need not exist). */
export function configFile(ctx?: PathContext): string {
	return pathFor(resolveContext(ctx).platform).join(configDir(ctx), CONFIG_FILE_NAME);
}

/** The default probe history CSV path (it need not exist; the probe creates the directory when it first writes). */
export function historyFile(ctx?: PathContext): string {
	return pathFor(resolveContext(ctx).platform).join(stateDir(ctx), HISTORY_FILE_NAME);
}

/** `~` and `~/x` → the home directory; other paths are returned unchanged (relative ones stay relative to the cwd). */
export function expandHome(p: string, ctx?: PathContext): string {
	const {home, platform} = resolveContext(ctx);
	if (p === '~') return home;
	if (p.startsWith('~/') || (platform === 'win32' && p.startsWith('~\\'))) return pathFor(platform).join(home, p.slice(2));
	return p;
}

/** The measured profiles file (`compare --depths`): in the state dir, beside the probe history. */
export function profilesFile(ctx?: PathContext): string {
	return pathFor(resolveContext(ctx).platform).join(stateDir(ctx), PROFILES_FILE_NAME);
}
