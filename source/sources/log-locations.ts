/**
 * Where engines write their logs by default (engines.md §1f). `defaultLogLocations` is pure (the
 * candidates and why); `findExistingLogs` keeps the ones that exist on this machine.
 */
import {access} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {ENGINES} from '../engines/index.js';
import type {LogLocation} from '../engines/descriptor.js';

export type {LogLocation} from '../engines/descriptor.js';

/** Every engine descriptor's default log locations on this platform (pure). */
export function defaultLogLocations(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, homedir: string): LogLocation[] {
	const p = platform === 'win32' ? path.win32 : path.posix;
	const ctx = {platform, env, homedir, join: (...parts: string[]) => p.join(...parts)};
	return Object.values(ENGINES).flatMap(d => d.logLocations?.(ctx) ?? []);
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
