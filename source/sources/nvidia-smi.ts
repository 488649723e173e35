/**
 * nvidia-smi through execa: argument arrays, 2 s timeout, killed on timeout, never throws.
 * Missing tool or a hang → a reason (`nvidia-smi: not installed`, `nvidia-smi: timed out after 2 s`),
 * figures stay undefined (`--`).
 */
import {accessSync, constants, statSync} from 'node:fs';
import path from 'node:path';
import {loadExeca} from './lazy-execa.js';
import {APPS_QUERY_FIELDS, GPU_QUERY_FIELDS, parseNvidiaApps, parseNvidiaGpus, type NvidiaApp, type NvidiaGpu} from '../system/nvidia-smi.js';
import {firstLine} from './ollama-ps-cli.js';

export interface NvidiaSmiOptions {
	readonly bin?: string;
	readonly env?: Readonly<Record<string, string | undefined>>;
	readonly timeoutMs?: number;
}

export interface NvidiaSmiResult {
	readonly gpus: NvidiaGpu[];
	readonly apps: NvidiaApp[];
	/** Set when the tool is missing, hangs or fails; apps may still be empty for other reasons. */
	readonly reason?: string;
	/** True when nvidia-smi is not on this machine (the caller may stop asking). */
	readonly missing?: boolean;
}

/**
 * Whether a bare command name is an executable file in one of PATH's folders (POSIX). Most machines
 * have no nvidia-smi: looking costs a few access() calls, where spawning it costs a process (and
 * loading execa). Windows (PATHEXT, App Paths) is left to the spawn.
 */
export function onPath(bin: string, envPath: string | undefined, platform: NodeJS.Platform = process.platform): boolean {
	if (platform === 'win32' || bin.includes('/')) return true;
	for (const dir of (envPath ?? '').split(path.delimiter)) {
		if (dir === '') continue;
		const file = path.join(dir, bin);
		try {
			accessSync(file, constants.X_OK);
			if (statSync(file).isFile()) return true;
		} catch {}
	}
	return false;
}

async function smi(args: string[], opts: NvidiaSmiOptions): Promise<{stdout?: string; reason?: string; missing?: boolean}> {
	const bin = opts.bin ?? 'nvidia-smi';
	const timeout = opts.timeoutMs ?? 2000;
	if (!onPath(bin, opts.env?.PATH ?? process.env.PATH)) return {reason: 'nvidia-smi: not installed', missing: true};
	try {
		const r = await (await loadExeca())(bin, args, {env: opts.env, timeout, forceKillAfterDelay: 300, reject: false, stdin: 'ignore', maxBuffer: 1024 * 1024});
		if (r.timedOut) return {reason: `nvidia-smi: timed out after ${timeout / 1000} s`};
		const code = (r as {code?: string}).code;
		if (code === 'ENOENT') return {reason: 'nvidia-smi: not installed', missing: true};
		if (code === 'EACCES') return {reason: 'nvidia-smi: permission denied'};
		if (r.failed) {
			const why = firstLine(String(r.stdout ?? '')) ?? firstLine(String(r.stderr ?? '')) ?? `exit ${r.exitCode ?? r.signal ?? '?'}`;
			return {reason: `nvidia-smi: ${why}`};
		}
		return {stdout: String(r.stdout ?? '')};
	} catch (error) {
		const e = error as {code?: string; message?: string};
		if (e.code === 'ENOENT') return {reason: 'nvidia-smi: not installed', missing: true};
		return {reason: `nvidia-smi: ${firstLine(e.message) ?? 'failed'}`};
	}
}

/** GPUs and compute apps. The apps query runs only when the GPU query worked. */
export async function readNvidiaSmi(opts: NvidiaSmiOptions = {}): Promise<NvidiaSmiResult> {
	const g = await smi([`--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'], opts);
	if (g.stdout === undefined) return {gpus: [], apps: [], reason: g.reason, ...(g.missing ? {missing: true} : {})};
	const gpus = parseNvidiaGpus(g.stdout);
	const a = await smi([`--query-compute-apps=${APPS_QUERY_FIELDS.join(',')}`, '--format=csv,noheader,nounits'], opts);
	if (a.stdout === undefined) return {gpus, apps: [], reason: a.reason};
	return {gpus, apps: parseNvidiaApps(a.stdout, gpus)};
}
