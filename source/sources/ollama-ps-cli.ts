/**
 * `ollama ps` through the CLI: used when Ollama's API is unreachable or the user passes
 * `--ollama-ps cli`. Argument array, 3 s timeout, killed on timeout; never throws.
 */
import {execa} from 'execa';
import {parseOllamaPsTable, type PsModelInfo} from '../system/ollama-ps.js';
import {sanitize} from '../util/sanitize.js';

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
		const r = await execa(bin, ['ps'], {
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
