/**
 * What engines share, in one leaf: it imports nothing of engines/ (only types/ and util/), and every
 * engine file takes its helpers from here, never from another engine's file. An engine imports
 * another engine's module only to reuse that engine's whole log parser, where it writes that
 * engine's log (KoboldCpp, llama-swap, LM Studio and Ollama write llama.cpp's lines);
 * test/architecture/layers.test.ts checks both.
 *
 * - limits: MAX_PARSE_CHARS, MAX_MODELS;
 * - numbers in answers: readAnswer + num / posInt (util/numbers.ts checks each), and in log lines:
 *   finite, withCheck;
 * - HTTP answers: isRecord, text, clean, versionOf, parseJsonText, dataModels, openAiModels;
 * - formats more than one engine writes: uvicorn and http.server access lines (the Python servers),
 *   Python dict reprs, ggml's offload and buffer lines (llama.cpp and Ollama);
 * - processes: processBase, PYTHON_HOST.
 */
import type {EngineEvent} from '../types/events.js';
import type {ModelInfo} from '../types/state.js';
import {checkNumber, numberCheck, type NumberCheck, type NumberKind} from '../util/numbers.js';
import {sanitize} from '../util/sanitize.js';

// ---- limits ---------------------------------------------------------------------------------------

/** Lines longer than this are not log lines anyone wrote by hand: never run a regex over them. */
export const MAX_PARSE_CHARS = 8192;

/** Most models kept per server (mlx_lm lists the whole HF cache). */
export const MAX_MODELS = 64;

// ---- numbers --------------------------------------------------------------------------------------

/**
 * Problems found while one answer is read (util/numbers.ts). Set only around a synchronous read
 * (readAnswer), so concurrent pollers never share it.
 */
let answerProblems: string[] | undefined;

/** Read one answer, collecting the numbers in it that cannot be true (the answer is then inconsistent). */
export function readAnswer<T>(read: () => T): {readonly value: T; readonly problems: readonly string[]} {
	const outer = answerProblems;
	const problems: string[] = [];
	answerProblems = problems;
	try {
		return {value: read(), problems};
	} finally {
		answerProblems = outer;
	}
}

function checked(v: unknown, field: string, kind: NumberKind, integer: boolean): number | undefined {
	// Only numbers are judged: another type is another schema (a field we do not know), not a lie.
	if (typeof v !== 'number') return undefined;
	const c = checkNumber(field, v, kind, {integer});
	if (c.ok) return c.value;
	answerProblems?.push(c.problem);
	return undefined;
}

/** Bytes in an answer: not finite, negative or beyond a petabyte → unknown, and counted (readAnswer). */
export function num(v: unknown, field = 'size'): number | undefined {
	return checked(v, field, 'bytes', false);
}

/** A positive whole count in an answer (context sizes by default: bounded like token counts). */
export function posInt(v: unknown, field = 'count', kind: NumberKind = 'tokens'): number | undefined {
	const n = checked(v, field, kind, true);
	return n !== undefined && n > 0 ? n : undefined;
}

/** A number a log line printed (`nan`, empty and absent → undefined). */
export function finite(s: string | undefined): number | undefined {
	if (s === undefined || s === '' || s === 'nan') return undefined;
	const n = Number(s);
	return Number.isFinite(n) ? n : undefined;
}

/**
 * A line's events, plus one `inconsistent` event when a number on it could not be true (the
 * checker left that field unknown): the line is counted, its reason shown in the log pane.
 */
export function withCheck(events: EngineEvent[], check: NumberCheck): EngineEvent[] {
	const reason = check.reason();
	return reason === undefined ? events : [...events, {type: 'inconsistent', reason}];
}

// ---- HTTP answers ---------------------------------------------------------------------------------

export function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-empty string of an answer, trimmed and sanitized, at most `max` characters; else undefined. */
export function text(v: unknown, max = 200): string | undefined {
	return typeof v === 'string' && v.trim() !== '' ? sanitize(v.trim(), max) : undefined;
}

/** Drop undefined fields so equal models and events compare equal and JSON stays small. */
export function clean<T extends object>(o: T): T {
	const out: Record<string, unknown> = {};
	const src = o as Record<string, unknown>;
	for (const k in src) if (src[k] !== undefined) out[k] = src[k];
	return out as T;
}

export function versionOf(j: unknown): string | undefined {
	return isRecord(j) ? text(j.version, 64) : undefined;
}

/** A body that is a JSON object or array, parsed; undefined for anything else. */
export function parseJsonText(body: string | undefined): unknown {
	if (body === undefined) return undefined;
	const s = body.trim();
	if (!s.startsWith('{') && !s.startsWith('[')) return undefined;
	try {
		return JSON.parse(s) as unknown;
	} catch {
		return undefined;
	}
}

/**
 * The models of an OpenAI-shaped `{data: [{id, …}]}` list: `read` gives each entry's fields beyond
 * its name (the id, sanitised). Undefined when the body is not such a list.
 */
export function dataModels(body: unknown, read: (m: Record<string, unknown>, name: string) => Omit<ModelInfo, 'name'>): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.data)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.data as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.id);
		if (!name) continue;
		out.push(clean<ModelInfo>({name, ...read(m, name)}));
	}
	return out;
}

/** OpenAI-style `/v1/models` (vLLM, SGLang, lithos-metal, mlx_lm, KoboldCpp, LocalAI, any). */
export function openAiModels(body: unknown): ModelInfo[] | undefined {
	return dataModels(body, (m, name) => ({
		// vLLM/SGLang max_model_len, lithos-metal context_window: the context one request may use.
		contextLength: posInt(m.max_model_len, 'max_model_len') ?? posInt(m.context_window, 'context_window') ?? posInt(m.context_length, 'context_length'),
		modelPath: text(m.root, 1024) !== name ? text(m.root, 1024) : undefined,
	}))?.slice(0, MAX_MODELS);
}

// ---- formats more than one engine writes ----------------------------------------------------------

const UVICORN = /^(?:\([^)]*\) )?INFO: +(\[?[\da-fA-F.:]+\]?):(\d+) - "([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/;
const STDLIB = /^(\S+) - - \[[^\]]+\] "([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/;

/** uvicorn access line: `INFO:     172.31.0.1:37016 - "POST /v1/chat/completions HTTP/1.1" 200 OK`. */
export function parseUvicorn(line: string): EngineEvent | undefined {
	if (!line.includes('INFO:') || !line.includes('" ')) return undefined;
	const m = UVICORN.exec(line);
	if (!m) return undefined;
	return {type: 'http', client: m[1]!, method: m[3]!, path: m[4]!, status: Number(m[5])};
}

/** Python http.server access line: `127.0.0.1 - - [21/Aug/2026 18:48:30] "POST /v1/chat/completions HTTP/1.1" 200 -`. */
export function parseStdlibAccess(line: string): EngineEvent | undefined {
	if (!line.includes(' - - [')) return undefined;
	const m = STDLIB.exec(line);
	if (!m) return undefined;
	return {type: 'http', client: m[1]!, method: m[2]!, path: m[3]!, status: Number(m[4])};
}

/** A numeric entry of a Python dict repr without parsing the whole dict: `'steps': 37`. */
export function dictNumber(dict: string, key: string): number | undefined {
	const needle = `'${key}': `;
	const i = dict.indexOf(needle);
	if (i < 0) return undefined;
	const start = i + needle.length;
	let end = start;
	while (end < dict.length && dict.charCodeAt(end) !== 44 /* , */ && dict.charCodeAt(end) !== 125 /* } */) end++;
	return dictValueNumber(dict.slice(start, end));
}

/** A dict entry's value text (what follows `'key': `, up to the next `,` or `}`) as a number: `37`, ` 1.5e-3 `. */
export function dictValueNumber(value: string): number | undefined {
	const raw = value.trim();
	if (raw.length === 0 || !/^-?[\d.]+(?:e[-+]?\d+)?$/i.test(raw)) return undefined;
	const n = Number(raw);
	return Number.isFinite(n) ? n : undefined;
}

/** ggml's `offloaded N/M layers to GPU` (llama.cpp of every era, Ollama's runners too). */
export const OFFLOADED = /offloaded\s+(-?\d+)\/(-?\d+)\s+layers to GPU/;

/** An `offloaded N/M layers to GPU` match → an offload event, numbers checked. */
export function offloaded(m: RegExpExecArray): EngineEvent[] {
	const check: NumberCheck = numberCheck();
	const onGpu = check.num('layers offloaded', m[1], 'count', {integer: true});
	const total = check.num('layers', m[2], 'count', {integer: true});
	if (onGpu !== undefined && total !== undefined && onGpu > total) check.fail(`offloaded ${onGpu} of ${total} layers`);
	const ok = onGpu !== undefined && total !== undefined && onGpu <= total;
	return withCheck(ok ? [{type: 'offload', layersOnGpu: onGpu, layersTotal: total}] : [], check);
}

/** A ggml buffer's device: `CPU`, `BLAS`, `CPU_*`, `*_Host` stay on the CPU; `_Mapped`/`_REPACK`/`_Private` are stripped (Ollama's rule). */
export function bufferDevice(name: string): {device: string; onGpu: boolean} {
	const onGpu = !(name === 'CPU' || name === 'BLAS' || name.startsWith('CPU_') || name.endsWith('_Host'));
	const device = name.replace(/_(?:Mapped|REPACK|Private)$/, '');
	return {device, onGpu};
}

// ---- processes ------------------------------------------------------------------------------------

/** A process's executable name: last path part, lower case, without `.exe`. */
export function processBase(p: string): string {
	const parts = p.split(/[\\/]/);
	return (parts[parts.length - 1] ?? p).toLowerCase().replace(/\.exe$/, '');
}

/** Python interpreters and launchers: a Python server's process name (its command line says which). */
export const PYTHON_HOST = /^(python|pythonw|uv)\b/i;
