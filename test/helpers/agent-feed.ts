/**
 * A monitor state fed line by line through the real parsers and reducer, each line at the time given
 * (as a live tail would), for the agent-view scenario tests; plus the engines' upstream line formats
 * those tests speak. Sources of each format are cited where the tests use them.
 */
import {createParser} from '../../source/engines/index.js';
import {feedLine} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import type {EngineKind} from '../../source/types/events.js';
import {emptySystem} from '../../source/types/system.js';
import {GIB} from '../../source/model/wired-limit.js';

export const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

export class Feed {
	state: MonitorState = initialState({now: T0});
	private readonly parsers = new Map<string, ReturnType<typeof createParser>>();
	/** `sink`: every action also goes there (a store the screen tests render). */
	constructor(private readonly sink?: (a: Action) => void) {}
	dispatch = (a: Action): void => {
		this.state = reduce(this.state, a);
		this.sink?.(a);
	};
	server(id: string, engine: EngineKind, url = `http://${id}`): this {
		this.dispatch({type: 'server-seen', t: T0, server: {id, engine, source: 'flag', url}});
		this.parsers.set(id, createParser(engine));
		return this;
	}
	line(id: string, t: number, line: string): this {
		feedLine(this.parsers.get(id)!, id, line, t, this.dispatch);
		this.dispatch({type: 'tick', t: Math.max(this.state.now, t)});
		return this;
	}
	lines(id: string, t: number, lines: readonly string[]): this {
		for (const l of lines) this.line(id, t, l);
		return this;
	}
}

/** An Ollama slog line (log/slog TextHandler, as Ollama's server writes it). */
export const slog = (t: number, level: string, source: string, msg: string, attrs = ''): string =>
	`time=${new Date(t).toISOString()} level=${level} source=${source} msg="${msg}"${attrs ? ` ${attrs}` : ''}`;

/** `[GIN]` access line (gin v1.10.0 defaultLogFormatter). */
export const gin = (status: number, latency: string, ip: string, path = '/api/chat'): string =>
	`[GIN] 2026/12/01 - 10:00:00 | ${status} | ${latency.padStart(13)} | ${ip.padStart(15)} | POST     "${path}"`;

export interface TaskFigures {
	readonly window: number;
	readonly prompt: number;
	readonly cached: number;
	readonly prefillMs: number;
	readonly decodeMs: number;
	readonly generated: number;
	readonly slot?: number;
	readonly truncated?: 0 | 1;
}

/**
 * One request's llama-server lines at `-lv 4` (Ollama ≥ 0.30 always; llama-server with -lv 4) —
 * tools/server/server-context.cpp @ 3f545be (ngxson/llama.cpp): `processing task` (launch_slot_),
 * `new prompt, n_ctx_slot = %d, n_keep = %d, task.n_tokens = %d` (:3020, TRACE), `cached n_tokens = %d,
 * memory_seq_rm [%d, end)` (TRACE), the print_timing block, `stop processing: n_tokens = %d, truncated = %d` (:502).
 */
export function llamaTask(task: number, f: TaskFigures, middle: readonly string[] = []): string[] {
	const id = `id  ${f.slot ?? 0} | task ${task} |`;
	const prefilled = f.prompt - f.cached;
	return [
		`slot launch_slot_: ${id} processing task, is_child = 0`,
		`slot   operator(): ${id} new prompt, n_ctx_slot = ${f.window}, n_keep = 0, task.n_tokens = ${f.prompt}`,
		`slot   operator(): ${id} cached n_tokens = ${f.cached}, memory_seq_rm [${f.cached}, end)`,
		...middle,
		`slot print_timing: ${id} prompt eval time = ${f.prefillMs.toFixed(2).padStart(10)} ms / ${String(prefilled).padStart(5)} tokens (    0.50 ms per token,  2000.00 tokens per second)`,
		`slot print_timing: ${id}        eval time = ${f.decodeMs.toFixed(2).padStart(10)} ms / ${String(f.generated).padStart(5)} tokens (   20.20 ms per token,    49.50 tokens per second)`,
		`slot print_timing: ${id}       total time = ${(f.prefillMs + f.decodeMs).toFixed(2).padStart(10)} ms / ${String(prefilled + f.generated).padStart(5)} tokens`,
		`slot      release: ${id} stop processing: n_tokens = ${Math.min(f.window, f.prompt + f.generated - 1)}, truncated = ${f.truncated ?? 0}`,
	];
}

/** An agent session whose prompts grow past a 4,096 num_ctx: 9 turns, the last 6 past the window. */
const SENT = [1200, 2500, 3900, 6000, 12_000, 20_000, 35_000, 48_000, 61_204];

/**
 * Ollama's truncation, two eras of `slog.Warn("truncating input prompt", "limit", …, "prompt", …, "keep", …, "new", …)`:
 * - v0.30.0 … v0.30.10 (llm/llama_server.go:293 @ 2c71d8d): `limit` = num_ctx, the prompt cut to num_ctx − 1;
 *   before v0.30 the runners logged the same keys (runner/ollamarunner/runner.go:187 @ c28ddc0, v0.24.0).
 * - v0.30.11+ (c191a14, llm/llama_server.go:317 @ fb30760): `limit = num_ctx − max((num_ctx − keep)/2, 1)`,
 *   about half the window survives (keep = num_keep 4, + 1 for the BOS token).
 */
export function ollamaGrowing(form: 'full' | 'half', warn = true, f = new Feed()): Feed {
	f.server('ollama', 'ollama');
	f.dispatch({type: 'server-models', t: T0, serverId: 'ollama', models: [{name: 'qwen3-coder:30b', format: 'gguf', runner: 'gguf', contextLength: 4096}]});
	SENT.forEach((sent, i) => {
		const t = T0 + 1000 + i * 30_000;
		const keep = form === 'full' ? 4 : 5;
		const limit = form === 'full' ? 4096 : 4096 - Math.max(Math.floor((4096 - keep) / 2), 1);
		const held = sent > 4095 ? (form === 'full' ? 4095 : limit) : sent;
		if (warn && sent > 4095) f.line('ollama', t, slog(t, 'WARN', 'llama_server.go:317', 'truncating input prompt', `limit=${limit} prompt=${sent} keep=${keep} new=${held}`));
		// A cut prompt keeps only its first `keep` tokens of what the slot held.
		const cached = i === 0 ? 0 : sent > 4095 ? keep : SENT[i - 1]!;
		f.lines('ollama', t + 2000, llamaTask(i, {window: 4096, prompt: held, cached, prefillMs: (held - cached) * 0.5, decodeMs: 2000, generated: 100}));
		f.line('ollama', t + 2000, gin(200, '2.5s', '127.0.0.1'));
	});
	return f;
}


/**
 * A llama-server agent whose prefill is about to pass the client's 300 s: two turns that measure the
 * model's prefill rate (300 tok/s), then, at `T0 + 410 s`, a third of 125,000 prompt tokens (12
 * cached) launched and still prefilling at `T0 + 420 s` (the lines of llamaTask's first three).
 */
export function prefillingPast300s(f = new Feed()): Feed {
	f.server('llama', 'llamacpp');
	f.lines('llama', T0 + 60_000, llamaTask(1, {window: 131_072, prompt: 18_000, cached: 0, prefillMs: 60_000, decodeMs: 2000, generated: 50}));
	f.lines('llama', T0 + 400_000, llamaTask(2, {window: 131_072, prompt: 110_000, cached: 18_000, prefillMs: 306_666.67, decodeMs: 3000, generated: 60}));
	return f;
}

/** The third turn of prefillingPast300s launched, and the clock at `T0 + 420 s`. */
export function launchLongPrefill(f: Feed): Feed {
	f.lines('llama', T0 + 410_000, llamaTask(3, {window: 131_072, prompt: 125_000, cached: 12, prefillMs: 0, decodeMs: 0, generated: 0}).slice(0, 3));
	f.dispatch({type: 'tick', t: T0 + 420_000});
	return f;
}

/**
 * An Ollama on a 128 GB Mac (wired limit at its default, 0) holding a 108 GB model, over what the GPU
 * may wire (model/wired-limit.ts), with two agent turns (the second reusing the first's prompt).
 */
export function ollamaOnMacOverLimit(f = new Feed()): Feed {
	f.server('ollama', 'ollama', 'http://127.0.0.1:11434');
	f.dispatch({type: 'server-models', t: T0, serverId: 'ollama', models: [{name: 'big', format: 'gguf', runner: 'gguf', sizeVramBytes: 108e9}]});
	f.dispatch({type: 'system', system: {...emptySystem(), gpus: [{index: 0, name: 'Apple M1 Ultra', unified: true, utilizationPct: 94, source: 'ioreg'}], mac: {memsizeBytes: 128 * GIB, wiredLimitMb: 0}}});
	f.lines('ollama', T0 + 2000, llamaTask(0, {window: 32_768, prompt: 3000, cached: 0, prefillMs: 3000, decodeMs: 9000, generated: 60}));
	f.lines('ollama', T0 + 20_000, llamaTask(1, {window: 32_768, prompt: 3300, cached: 3000, prefillMs: 300, decodeMs: 9000, generated: 60}));
	return f;
}
