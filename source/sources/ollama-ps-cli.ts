/**
 * `ollama ps` through the CLI: used when Ollama's API is unreachable or the user passes
 * `--ollama-ps cli`. Argument array, 3 s timeout, killed on timeout; never throws.
 */
import {loadExeca} from './lazy-execa.js';
import {parseOllamaPsTable, type PsModelInfo} from '../system/ollama-ps.js';
import {sanitize} from '../util/sanitize.js';
import type {Collector, Dispatch} from '../types/state.js';

export interface OllamaPsResult {
	readonly models: PsModelInfo[];
	readonly columns?: string[];
	/** Why there are no models, e.g. `ollama: not installed`, `ollama: timed out after 3 s`. */
	readonly reason?: string;
}

export interface ReadOllamaPsOptions {
	/** Executable (default `ollama`, looked up on PATH of `env` when given). */
	readonly bin?: string;
	/** Environment for the child (merged over process.env), e.g. OLLAMA_HOST. */
	readonly env?: Readonly<Record<string, string | undefined>>;
	readonly timeoutMs?: number;
	readonly now?: () => Date;
}

/** First meaningful line of a tool's error output, sanitized and short. */
export function firstLine(text: string | undefined, max = 120): string | undefined {
	if (!text) return undefined;
	const line = text.split(/\r?\n/).map((l) => sanitize(l, max).trim()).find((l) => l !== '');
	return line?.replace(/^Error:\s*/i, '');
}

export async function readOllamaPs(opts: ReadOllamaPsOptions = {}): Promise<OllamaPsResult> {
	const bin = opts.bin ?? 'ollama';
	const timeout = opts.timeoutMs ?? 3000;
	try {
		const r = await (await loadExeca())(bin, ['ps'], {
			env: opts.env,
			timeout,
			forceKillAfterDelay: 500,
			reject: false,
			stdin: 'ignore',
			maxBuffer: 1024 * 1024,
		});
		if (r.timedOut) return {models: [], reason: `ollama: timed out after ${timeout / 1000} s`};
		const code = (r as {code?: string}).code;
		if (code === 'ENOENT') return {models: [], reason: 'ollama: not installed'};
		if (code === 'EACCES') return {models: [], reason: 'ollama: permission denied'};
		if (r.failed) {
			const why = firstLine(String(r.stderr ?? '')) ?? firstLine(String(r.stdout ?? '')) ?? `exit ${r.exitCode ?? r.signal ?? '?'}`;
			return {models: [], reason: `ollama ps: ${why}`};
		}
		const table = parseOllamaPsTable(String(r.stdout ?? ''), opts.now?.() ?? new Date());
		if (table.columns.length === 0) return {models: [], reason: 'ollama ps: no table in output'};
		return {models: table.models, columns: table.columns};
	} catch (error) {
		const e = error as {code?: string; message?: string};
		if (e.code === 'ENOENT') return {models: [], reason: 'ollama: not installed'};
		return {models: [], reason: `ollama ps: ${firstLine(e.message) ?? 'failed'}`};
	}
}

export interface OllamaPsCollectorOptions {
	readonly serverId: string;
	readonly dispatch: Dispatch;
	/** Between the end of one read and the start of the next (default 2000 ms). */
	readonly intervalMs?: number;
	readonly read?: () => Promise<OllamaPsResult>;
}

/** `--ollama-ps cli`: residency from the `ollama ps` table, read every 2 s (a setTimeout chain, never overlapping). */
export function createOllamaPsCollector(options: OllamaPsCollectorOptions): Collector {
	const {serverId, dispatch} = options;
	const read = options.read ?? (() => readOllamaPs());
	let timer: NodeJS.Timeout | undefined;
	let stopped = false;
	const tick = async () => {
		const r = await read();
		if (stopped) return;
		if (r.reason) dispatch({type: 'log-state', serverId, text: r.reason});
		else dispatch({type: 'server-models', t: Date.now(), serverId, models: r.models});
		timer = setTimeout(() => void tick(), options.intervalMs ?? 2000);
	};
	return {
		start() {
			void tick();
		},
		async stop() {
			stopped = true;
			clearTimeout(timer);
		},
	};
}
