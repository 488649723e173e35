/**
 * The probe's wire protocols, pure: request bodies, and incremental stream parsers that turn the
 * bytes of an Ollama NDJSON stream or an OpenAI-style SSE stream into content arrivals and the
 * server's own counts. No I/O here; the reader in client.ts feeds text and timestamps.
 */
import {createParser, type EventSourceMessage} from 'eventsource-parser';
import {OLLAMA_PROTOCOL, type AnswerNumberKind, type ProbeProtocol, type ServerCounts} from '../types/probe.js';
import type {AnswerReading} from '../engines/descriptor.js';
import {isRecord} from '../engines/answers.js';
import {ANSWER_BLOCKS, ANSWER_STAMPS, engineOf} from '../engines/index.js';

export interface ProbeRequestSpec {
	readonly model?: string;
	readonly prompt: string;
	readonly maxTokens: number;
	readonly seed: number;
	readonly temperature?: number;
}

/** One protocol attempt: where to POST. */
export interface ProtocolPlan {
	readonly protocol: ProbeProtocol;
	readonly path: string;
	/** Fields the engine's plan adds to the request body (vLLM `include_metrics`). */
	readonly extraBody?: Readonly<Record<string, unknown>>;
}

export type StreamEvent =
	| {readonly type: 'token'; readonly text: string}
	| {readonly type: 'done'}
	| {readonly type: 'error'; readonly message: string};

export interface StreamParser {
	/** Feed decoded text; returns the events it completes. */
	feed(text: string): StreamEvent[];
	/** End of body: flush what is left. */
	end(): StreamEvent[];
	readonly counts: ServerCounts;
	/** Units understood so far (JSON lines or SSE events). */
	readonly understood: number;
	/** Units that were not the expected format. */
	readonly garbage: number;
}

/**
 * Numbers from a server's answer are checked where they enter (issue 14): absent → undefined;
 * present but not a finite number, negative, fractional where a count belongs, or beyond a sane
 * bound → undefined too, and the answer is noted as inconsistent (`counts.inconsistent`), never a
 * figure. The bounds are far past anything real: 1e9 tokens, 1e6 s, 1e7 tok/s.
 */
const BOUND: Record<AnswerNumberKind, number> = {count: 1e9, ns: 1e15, ms: 1e9, s: 1e6, rate: 1e7};

function checked(counts: ServerCounts, field: string, x: unknown, kind: AnswerNumberKind): number | undefined {
	if (x === undefined || x === null) return undefined;
	const ok = typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= BOUND[kind] && (kind !== 'count' || Number.isInteger(x));
	if (ok) return x;
	const shown = typeof x === 'number' ? String(x) : `a ${Array.isArray(x) ? 'list' : typeof x}`;
	note(counts, `${field} ${shown}`);
	return undefined;
}

function note(counts: ServerCounts, what: string): void {
	const list = (counts.inconsistent ??= []);
	if (list.length < 8 && !list.includes(what)) list.push(what);
}

/** Contradictions between two valid numbers (DESIGN §1: cached > prompt, accepted > drafted): both unknown. */
export function crossCheck(counts: ServerCounts): void {
	if (counts.cachedTokens !== undefined && counts.promptTokens !== undefined && counts.cachedTokens > counts.promptTokens) {
		note(counts, `cached ${counts.cachedTokens} > prompt ${counts.promptTokens} tokens`);
		counts.cachedTokens = undefined;
		counts.prefillTokens = undefined;
	}
	if (counts.accepted !== undefined && counts.drafted !== undefined && counts.accepted > counts.drafted) {
		note(counts, `accepted ${counts.accepted} > drafted ${counts.drafted}`);
		counts.accepted = undefined;
		counts.drafted = undefined;
	}
}
const obj = (x: unknown): Record<string, unknown> | undefined => (isRecord(x) ? x : undefined);
const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

export function requestBody(protocol: ProbeProtocol, spec: ProbeRequestSpec, extra?: Readonly<Record<string, unknown>>): Record<string, unknown> {
	const temperature = spec.temperature ?? 0;
	if (protocol === OLLAMA_PROTOCOL) {
		return {
			...(spec.model === undefined ? {} : {model: spec.model}),
			prompt: spec.prompt,
			stream: true,
			options: {num_predict: spec.maxTokens, temperature, seed: spec.seed},
		};
	}
	const common = {
		...(spec.model === undefined ? {} : {model: spec.model}),
		stream: true,
		stream_options: {include_usage: true},
		max_tokens: spec.maxTokens,
		temperature,
		seed: spec.seed,
	};
	if (protocol === 'openai-completions') return {...common, ...extra, prompt: spec.prompt};
	return {...common, ...extra, messages: [{role: 'user', content: spec.prompt}]};
}

export function defaultPath(protocol: ProbeProtocol): string {
	if (protocol === OLLAMA_PROTOCOL) return '/api/generate';
	if (protocol === 'openai-completions') return '/v1/completions';
	return '/v1/chat/completions';
}

/** Attempts in order; a 404 moves to the next (wrong protocol). */
export function protocolPlan(engine: string | undefined): ProtocolPlan[] {
	return engineOf(engine).probe.map(({protocol, path, extraBody}) => (extraBody ? {protocol, path, extraBody} : {protocol, path}));
}

/** Ollama `/api/generate` and `/api/chat`: one JSON object per line, durations in ns, metrics omitempty. */
export function createOllamaParser(): StreamParser {
	let buf = '';
	const counts: ServerCounts = {};
	const state = {understood: 0, garbage: 0};
	const line = (raw: string): StreamEvent[] => {
		const l = raw.trim();
		if (l === '') return [];
		let d: Record<string, unknown> | undefined;
		try {
			d = obj(JSON.parse(l));
		} catch {
			d = undefined;
		}
		if (!d) {
			state.garbage++;
			return [];
		}
		state.understood++;
		const out: StreamEvent[] = [];
		const err = str(d.error);
		if (err !== undefined) return [{type: 'error', message: err}];
		const msg = obj(d.message);
		const text = (str(d.response) ?? '') + (str(msg?.content) ?? '');
		const thinking = (str(d.thinking) ?? '') + (str(msg?.thinking) ?? '');
		if (text !== '' || thinking !== '') out.push({type: 'token', text: text || thinking});
		if (counts.model === undefined) counts.model = str(d.model);
		if (d.done === true) {
			// Metrics are omitempty: absent means 0 — but only on a done line that carries metrics at all.
			const evalCount = checked(counts, 'eval_count', d.eval_count, 'count');
			const evalNs = checked(counts, 'eval_duration', d.eval_duration, 'ns');
			const promptCount = checked(counts, 'prompt_eval_count', d.prompt_eval_count, 'count');
			const promptNs = checked(counts, 'prompt_eval_duration', d.prompt_eval_duration, 'ns');
			// api/types.go (ollama/ollama) GenerateResponse Metrics `LoadDuration time.Duration json:"load_duration,omitempty"`.
			const loadNs = checked(counts, 'load_duration', d.load_duration, 'ns');
			counts.source = OLLAMA_PROTOCOL;
			// Absent (omitempty) is 0; present but unbelievable stays unknown.
			counts.completionTokens = evalCount ?? (evalNs !== undefined && d.eval_count === undefined ? 0 : undefined);
			counts.decodeMs = evalNs === undefined ? undefined : evalNs / 1e6;
			counts.reportedTps = evalCount !== undefined && evalNs !== undefined && evalNs > 0 ? (evalCount * 1e9) / evalNs : undefined;
			counts.promptTokens = promptCount;
			counts.prefillMs = promptNs === undefined ? undefined : promptNs / 1e6;
			counts.loadMs = loadNs === undefined ? undefined : loadNs / 1e6;
			counts.doneReason = str(d.done_reason);
			out.push({type: 'done'});
		}
		return out;
	};
	return {
		feed(text) {
			buf += text;
			const out: StreamEvent[] = [];
			let i: number;
			while ((i = buf.indexOf('\n')) >= 0) {
				const l = buf.slice(0, i);
				buf = buf.slice(i + 1);
				out.push(...line(l));
			}
			// A single line never legitimately grows past a few MB; cap to stay bounded.
			if (buf.length > 4_000_000) {
				buf = '';
				state.garbage++;
			}
			return out;
		},
		end() {
			const l = buf;
			buf = '';
			return line(l);
		},
		counts,
		get understood() {
			return state.understood;
		},
		get garbage() {
			return state.garbage;
		},
	};
}

/** The reading an engine's answer block gets: the probe's checks over these counts. */
function readingOf(counts: ServerCounts): AnswerReading {
	return {counts, num: (field, value, kind) => checked(counts, field, value, kind), note: (what) => note(counts, what)};
}

/**
 * OpenAI-compatible SSE (`/v1/chat/completions`, `/v1/completions`), also llama.cpp's native
 * `/completion` stream (top-level `content`, `timings`) so its real captures replay.
 */
export function createSseParser(): StreamParser {
	const counts: ServerCounts = {};
	const reading = readingOf(counts);
	const state = {understood: 0, garbage: 0};
	let pending: StreamEvent[] = [];
	let usageCompletion: number | undefined;
	const onEvent = (ev: EventSourceMessage): void => {
		const data = ev.data.trim();
		if (data === '[DONE]') {
			state.understood++;
			pending.push({type: 'done'});
			return;
		}
		let d: Record<string, unknown> | undefined;
		try {
			d = obj(JSON.parse(data));
		} catch {
			d = undefined;
		}
		if (!d) {
			state.garbage++;
			return;
		}
		state.understood++;
		const err = d.error;
		if (err !== undefined) {
			const e = obj(err);
			pending.push({type: 'error', message: str(e?.message) ?? str(err) ?? 'error in stream'});
			return;
		}
		if (counts.model === undefined) counts.model = str(d.model);
		// Engines' stamps (llama.cpp's build in `system_fingerprint`), read by their descriptors.
		for (const stamp of ANSWER_STAMPS) {
			const v = str(d[stamp.field]);
			if (v !== undefined) stamp.read(v, counts);
		}
		let text = '';
		const choices = Array.isArray(d.choices) ? d.choices : [];
		const c0 = obj(choices[0]);
		if (c0) {
			const delta = obj(c0.delta);
			text += str(delta?.content) ?? '';
			text += str(delta?.reasoning_content) ?? str(delta?.reasoning) ?? '';
			text += str(c0.text) ?? '';
			const fr = str(c0.finish_reason);
			if (fr) {
				counts.doneReason = fr;
				pending.push({type: 'done'});
			}
		} else if (typeof d.content === 'string') {
			// llama.cpp native /completion stream.
			text += d.content;
			const tp = checked(counts, 'tokens_predicted', d.tokens_predicted, 'count');
			if (tp !== undefined && d.stop === true) counts.completionTokens = tp;
			const stopType = str(d.stop_type);
			if (stopType) counts.doneReason = stopType;
		}
		if (text !== '') pending.push({type: 'token', text});
		const usage = obj(d.usage);
		if (usage) {
			usageCompletion = checked(counts, 'usage.completion_tokens', usage.completion_tokens, 'count') ?? usageCompletion;
			const pt = checked(counts, 'usage.prompt_tokens', usage.prompt_tokens, 'count');
			if (pt !== undefined) counts.promptTokens = pt;
			// OpenAI `prompt_tokens_details.cached_tokens`; oMLX puts `cached_tokens` in usage itself (server.py v0.3.5 Usage).
			const cached = checked(counts, 'usage.prompt_tokens_details.cached_tokens', obj(usage.prompt_tokens_details)?.cached_tokens, 'count')
				?? checked(counts, 'usage.cached_tokens', usage.cached_tokens, 'count');
			if (cached !== undefined) counts.cachedTokens = cached;
			// oMLX `generation_tokens_per_second`: completion tokens over the time after the first token (server.py v0.3.5).
			const genTps = checked(counts, 'usage.generation_tokens_per_second', usage.generation_tokens_per_second, 'rate');
			if (genTps !== undefined && genTps > 0) counts.reportedTps = genTps;
			if (counts.source === undefined) counts.source = 'usage';
		}
		// Engines' own blocks (llama.cpp `timings`, LM Studio `stats`, vLLM `metrics`), read by their descriptors.
		for (const block of ANSWER_BLOCKS) {
			const b = obj(d[block.field]);
			if (b) block.read(b, reading);
		}
		// usage.completion_tokens is the count every OpenAI server gives; timings agree with it on llama.cpp.
		if (usageCompletion !== undefined) counts.completionTokens = usageCompletion;
		if (d.stop === true && typeof d.content === 'string') pending.push({type: 'done'});
	};
	const parser = createParser({
		onEvent,
		onError: () => {
			state.garbage++;
		},
	});
	const take = (): StreamEvent[] => {
		const out = pending;
		pending = [];
		return out;
	};
	return {
		feed(text) {
			parser.feed(text);
			return take();
		},
		end() {
			parser.feed('\n\n');
			return take();
		},
		counts,
		get understood() {
			return state.understood;
		},
		get garbage() {
			return state.garbage;
		},
	};
}

export function createStreamParser(protocol: ProbeProtocol): StreamParser {
	return protocol === OLLAMA_PROTOCOL ? createOllamaParser() : createSseParser();
}
