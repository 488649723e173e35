/**
 * Where engines write their logs by default (engines.md §1f). `defaultLogLocations` is pure (the
 * candidates and why); `findExistingLogs` keeps the ones that exist on this machine.
 */
import {access} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {EngineKind} from '../types/monitor.js';

export interface LogLocation {
	readonly engine: EngineKind;
	readonly kind: 'file' | 'cmd';
	readonly path?: string;
	readonly argv?: string[];
	readonly why: string;
	/** For `cmd` entries: the systemd unit files whose existence makes the command worth running. */
	readonly unitFiles?: string[];
}

const SYSTEMD_DIRS = ['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system', '/usr/local/lib/systemd/system'];

export function defaultLogLocations(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, homedir: string): LogLocation[] {
	const out: LogLocation[] = [];
	const p = platform === 'win32' ? path.win32 : path.posix;
	if (platform === 'darwin') {
		out.push({engine: 'ollama', kind: 'file', path: p.join(homedir, '.ollama', 'logs', 'server.log'), why: 'Ollama macOS app'});
	}
	if (platform === 'darwin' || platform === 'linux') {
		const prefixes = [env.HOMEBREW_PREFIX, '/opt/homebrew', '/usr/local', platform === 'linux' ? '/home/linuxbrew/.linuxbrew' : undefined]
			.filter((x): x is string => typeof x === 'string' && x.length > 0);
		for (const prefix of [...new Set(prefixes)]) {
			out.push({engine: 'ollama', kind: 'file', path: p.join(prefix, 'var', 'log', 'ollama.log'), why: `Homebrew service (${prefix})`});
		}
	}
	if (platform === 'linux') {
		out.push({
			engine: 'ollama',
			kind: 'cmd',
			argv: ['journalctl', '-u', 'ollama', '-f', '-o', 'cat'],
			why: 'systemd unit ollama.service',
			unitFiles: SYSTEMD_DIRS.map(d => `${d}/ollama.service`),
		});
	}
	if (platform === 'win32') {
		const local = env.LOCALAPPDATA ?? p.join(homedir, 'AppData', 'Local');
		out.push({engine: 'ollama', kind: 'file', path: p.join(local, 'Ollama', 'server.log'), why: 'Ollama for Windows'});
	}
	return out;
}

export interface LogLocationFs {
	exists(path: string): Promise<boolean>;
}

const realFs: LogLocationFs = {
	async exists(p) {
		try {
			await access(p);
			return true;
		} catch {
			return false;
		}
	},
};

/** The default locations that exist here (files that exist; journalctl only with an ollama unit). */
export async function findExistingLogs(
	platform: NodeJS.Platform = process.platform,
	env: Readonly<Record<string, string | undefined>> = process.env,
	homedir: string = os.homedir(),
	fs: LogLocationFs = realFs,
): Promise<LogLocation[]> {
	const candidates = defaultLogLocations(platform, env, homedir);
	const keep = await Promise.all(candidates.map(async c => {
		if (c.kind === 'file') return c.path !== undefined && fs.exists(c.path);
		for (const unit of c.unitFiles ?? []) if (await fs.exists(unit)) return true;
		return false;
	}));
	return candidates.filter((_c, i) => keep[i]);
}
