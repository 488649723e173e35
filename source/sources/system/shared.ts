/**
 * What the system collector's subsystems share: the platform they read, the collector's reasons
 * (why a figure is missing), the words an error becomes, and systeminformation, loaded on first
 * use only where it still earns its place (static facts, macOS memory, battery outside Linux,
 * Windows).
 */
import {firstLine} from '../ollama-ps-cli.js';

export type Mutable<T> = {-readonly [K in keyof T]: T[K]};

export interface PlatformFacts {
	readonly platform: NodeJS.Platform;
	readonly darwin: boolean;
	readonly linux: boolean;
	/** Linux, and the machine infertop runs on: /proc and /sys are read directly. */
	readonly nativeProc: boolean;
}

export function platformFacts(platform: NodeJS.Platform): PlatformFacts {
	const linux = platform === 'linux';
	return {platform, darwin: platform === 'darwin', linux, nativeProc: linux && platform === process.platform};
}

/** Set (a text) or clear (undefined) the reason under `key`. */
export type SetReason = (key: string, text: string | undefined) => void;

export function errWords(error: unknown): string {
	const e = error as {code?: string; message?: string};
	if (e?.code === 'EACCES' || e?.code === 'EPERM') return 'permission denied';
	if (e?.code === 'ENOENT') return 'not available';
	return firstLine(e?.message) ?? 'failed';
}

type SI = typeof import('systeminformation');
let siModule: Promise<SI> | undefined;
export const loadSi = (): Promise<SI> => (siModule ??= import('systeminformation').then((m) => ((m as {default?: SI}).default ?? m) as SI));
