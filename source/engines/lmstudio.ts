/**
 * LM Studio: the `lms log stream` parser (text blocks with `--stats`, and `--json`), REST v1
 * (≥ 0.4.0) and v0 (≥ 0.3.6) model lists, and its own chat endpoint for the probe (`stats` in answers).
 */
import type {EngineEvent, LineParser} from '../types/events.js';
import type {ModelInfo} from '../types/state.js';
import {own} from '../util/sanitize.js';
import {clean, dataModels, isRecord, MAX_MODELS, MAX_PARSE_CHARS, num, posInt, text} from './answers.js';
import {CHAT, COMPLETIONS, OPENAI_MODEL_LIST, OPENAI_POLL, type AnswerBlock, type EngineDescriptor} from './descriptor.js';
import {createLlamaCppParser} from './llamacpp.js';

declare module '../types/events.js' {
	interface EngineKinds {
		lmstudio: true;
	}
}

// ---- `lms log stream` ---------------------------------------------------------------------------
//
// lmstudio-ai/lms src/subcommands/log.ts @ 07b7252 (lms 0.3.43, 2026-08-13):
// - `--json`: `console.log(JSON.stringify(log))` per event, `{timestamp, data: {type, …}}`;
// - text, `--source model` (default): `timestamp: <Date.toLocaleString()>`, `type: <data.type>`,
//   `modelIdentifier: <id>`, then for `llm.prediction.input` `modelPath: …` and `input:` + the text, for
//   `llm.prediction.output` `output:` + the text, then with `--stats` one `<key>: <value>` line per
//   entry of `data.stats` (or `No stats available`), then two empty lines;
// - `--source server`: `data.content` as is; `--source runtime`:
//   `[LEVEL] <engineName>@<engineVersion> (<engineType>) <modelIdentifier> pid=<pid> <message>`.
// The stats keys are LLMPredictionStats of @lmstudio/sdk (stopReason, tokensPerSecond, numGpuLayers,
// timeToFirstTokenSec, totalTimeSec, promptTokensCount, predictedTokensCount, totalTokensCount,
// usedDraftModelKey, totalDraftTokensCount, acceptedDraftTokensCount, rejected…, ignored…).

const BLOCK_KEY = /^(timestamp|type|modelIdentifier|modelPath): (.*)$/;
const STAT = /^(stopReason|tokensPerSecond|numGpuLayers|timeToFirstTokenSec|totalTimeSec|promptTokensCount|predictedTokensCount|totalTokensCount|usedDraftModelKey|totalDraftTokensCount|acceptedDraftTokensCount|rejectedDraftTokensCount|ignoredDraftTokensCount): (\S.*)$/;
const RUNTIME = /^\[([A-Z]+)\] (\S+@\S+) \(([^)]+)\)(?: (?!pid=)(\S+))?(?: pid=(\d+))? (.*)$/;

/** LLMPredictionStats (camelCase) → request fields; every number checked. */
export function lmStudioStatsFields(stats: Record<string, unknown>): Record<string, unknown> {
	const n = (k: string): number | undefined => {
		const v = stats[k];
		return num(typeof v === 'string' && v.trim() !== '' ? Number(v) : v);
	};
	const stop = typeof stats.stopReason === 'string' ? stats.stopReason : undefined;
	const ttft = n('timeToFirstTokenSec');
	const total = n('totalTimeSec');
	return clean({
		promptTokens: n('promptTokensCount'),
		generatedTokens: n('predictedTokensCount'),
		engineTps: n('tokensPerSecond'),
		ttftMs: ttft === undefined ? undefined : ttft * 1000,
		wallMs: total === undefined ? undefined : total * 1000,
		drafted: n('totalDraftTokensCount'),
		accepted: n('acceptedDraftTokensCount'),
		outcome: stop === 'failed' ? 'error' : stop === 'userStopped' || stop === 'modelUnloaded' ? 'cancelled' : undefined,
		// @lmstudio/sdk LLMPredictionStopReason: the output budget (`maxTokens`) or the window ran out.
		finishReason: stop === 'maxPredictedTokensReached' || stop === 'contextLengthReached' ? 'length' : stop === 'eosFound' || stop === 'stopStringFound' || stop === 'toolCalls' ? 'stop' : undefined,
	});
}

/**
 * LM Studio's own runtime errors (closed source: the lines as captured in lmstudio-ai/lmstudio-bug-tracker
 * issues, not checked against a source): a tool call it could not parse (`Failed to generate a tool
 * call (this tool call will be omitted from the response): Failed to parse tool call: …`, #942, #1528),
 * and the context overflows (`Trying to keep the first N tokens when context the overflows. However,
 * the model is loaded with context length of only M tokens…`, `Reached context length of N tokens with
 * model (arch: X) that does not currently support mid-generation context overflow.`, #1024, #1251).
 */
const LMS_TOOL_FAILED = /Failed to parse tool call/;
const LMS_KEEP_OVERFLOW = /Trying to keep the first (\d+) tokens when context the overflows\. However, the model is loaded with context length of only (\d+) tokens/;
const LMS_REACHED = /Reached context length of (\d+) tokens with model/;

/** An LM Studio runtime/server message that says a request failed for its tool call or its context. */
export function lmStudioSignal(message: string): EngineEvent[] | undefined {
	const evidence = message.length > 300 ? `${message.slice(0, 299)}…` : message;
	if (LMS_TOOL_FAILED.test(message)) return [{type: 'agent-signal', signal: {kind: 'tool-call-failed', evidence}}];
	let m = LMS_KEEP_OVERFLOW.exec(message);
	if (m) return [{type: 'agent-signal', signal: clean({kind: 'context-exceeded', evidence, keep: num(Number(m[1])), window: num(Number(m[2]))})}];
	m = LMS_REACHED.exec(message);
	if (m) return [{type: 'agent-signal', signal: clean({kind: 'context-exceeded', evidence, window: num(Number(m[1]))})}];
	return undefined;
}

export function createLmStudioLogParser(): LineParser {
	/** Runtime log messages of the llama.cpp engine are llama.cpp lines. */
	const llama = createLlamaCppParser();
	let seq = 0;
	let block: {type?: string; model?: string; inText?: boolean} = {};
	/** The request an `llm.prediction.input` block opened, waiting for its output block. */
	let openKey: string | undefined;
	let outKey: string | undefined;

	const request = (fields: Record<string, unknown>): EngineEvent => ({type: 'request', ...fields}) as unknown as EngineEvent;

	const startOutput = (model: string | undefined): EngineEvent[] => {
		const key = openKey ?? `lms#${++seq}`;
		openKey = undefined;
		outKey = key;
		return [request(clean({key, model, started: true, done: true}))];
	};

	const json = (line: string): EngineEvent[] | null => {
		let v: unknown;
		try {
			v = JSON.parse(line);
		} catch {
			// A long answer was cut at the line cap: still one request, figures unknown.
			if (line.includes('"type":"llm.prediction.output"')) return startOutput(undefined);
			return line.includes('"type":"llm.prediction.') || line.includes('"type":"server.log"') || line.includes('"type":"runtime.log"') ? [] : null;
		}
		if (!isRecord(v) || !isRecord(v.data) || typeof v.data.type !== 'string') return null;
		const d = v.data;
		const model = text(d.modelIdentifier);
		// `llm.prediction` is the first form of the input event (lms-shared-types before the output event).
		if (d.type === 'llm.prediction.input' || d.type === 'llm.prediction') {
			openKey = `lms#${++seq}`;
			return [request(clean({key: openKey, model, started: true}))];
		}
		if (d.type === 'llm.prediction.output') {
			const out = startOutput(model);
			if (isRecord(d.stats)) out.push(request({key: outKey!, ...lmStudioStatsFields(d.stats)}));
			return out;
		}
		if ((d.type === 'runtime.log' || d.type === 'server.log') && typeof d.message === 'string') {
			const signal = lmStudioSignal(d.message);
			if (signal) return signal;
		}
		if (d.type === 'runtime.log' && typeof d.message === 'string') return llama.push(d.message) ?? [];
		return [];
	};

	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0) return null;
		// lms-shared-types diagnosticsLogEventSchema: z.object({timestamp: z.number(), data: …}).
		if (line.charCodeAt(0) === 123 /* { */ && line.includes('"data":{"type":"')) return json(line);
		if (line.length > MAX_PARSE_CHARS) return null;
		const b = BLOCK_KEY.exec(line);
		if (b && (b[1] !== 'timestamp' || !block.inText || /\d/.test(b[2]!))) {
			if (b[1] === 'timestamp') {
				block = {};
				outKey = undefined;
				return [];
			}
			if (b[1] === 'type') {
				block.type = own(b[2]);
				return b[2]!.startsWith('llm.prediction.') ? [] : null;
			}
			if (b[1] === 'modelIdentifier') {
				block.model = own(text(b[2]));
				if (block.type === 'llm.prediction.input') {
					openKey = `lms#${++seq}`;
					return [request(clean({key: openKey, model: block.model, started: true}))];
				}
				return [];
			}
			return [];
		}
		if (line === 'output:' && block.type === 'llm.prediction.output') {
			block.inText = true;
			return startOutput(block.model);
		}
		if (line === 'input:' && block.type === 'llm.prediction.input') {
			block.inText = true;
			return [];
		}
		if (outKey !== undefined) {
			const s = STAT.exec(line);
			if (s) {
				block.inText = false;
				const fields = lmStudioStatsFields({[s[1]!]: s[2]});
				return Object.keys(fields).length > 0 ? [request({key: outKey, ...fields})] : [];
			}
			if (line === 'No stats available') return [];
		}
		if (block.inText) return [];
		const r = RUNTIME.exec(line);
		if (r) return lmStudioSignal(r[6]!) ?? llama.push(r[6]!) ?? [];
		const signal = lmStudioSignal(line);
		if (signal) return signal;
		return null;
	};
	return {engine: 'lmstudio', push};
}

function lmStudioV0Items(j: unknown): Record<string, unknown>[] | undefined {
	if (!isRecord(j) || !Array.isArray(j.data)) return undefined;
	const items = (j.data as unknown[]).filter(isRecord);
	if (items.length === 0) return j.object === 'list' && (j.data as unknown[]).length === 0 ? [] : undefined;
	return items.some((m) => 'compatibility_type' in m || ('state' in m && 'max_context_length' in m)) ? items : undefined;
}

function lmStudioV1Items(j: unknown): Record<string, unknown>[] | undefined {
	if (!isRecord(j) || !Array.isArray(j.models)) return undefined;
	const items = (j.models as unknown[]).filter(isRecord);
	return items.length > 0 && items.some((m) => 'loaded_instances' in m && 'key' in m) ? items : undefined;
}

function sortLoaded(models: ModelInfo[]): ModelInfo[] {
	return [...models].sort((a, b) => Number(b.loaded === true) - Number(a.loaded === true)).slice(0, MAX_MODELS);
}

/** LM Studio `GET /api/v1/models` (≥ 0.4.0): loaded_instances carry the configured context. */
export function lmStudioV1Models(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.models as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.key) ?? text(m.id);
		if (!name) continue;
		const instances = Array.isArray(m.loaded_instances) ? m.loaded_instances.filter(isRecord) : [];
		const config = instances[0] && isRecord(instances[0].config) ? instances[0].config : {};
		const quant = isRecord(m.quantization) ? text(m.quantization.name, 32) : text(m.quantization, 32);
		out.push(clean<ModelInfo>({
			name,
			format: text(m.format, 16),
			family: text(m.architecture, 64),
			parameterSize: text(m.params_string, 32),
			quantization: quant,
			modelBytes: posInt(m.size_bytes, 'size_bytes', 'bytes'),
			contextLength: posInt(config.context_length, 'context_length'),
			loaded: instances.length > 0,
		}));
	}
	return sortLoaded(out);
}

/** LM Studio `GET /api/v0/models` (≥ 0.3.6): state loaded / not-loaded. */
export function lmStudioV0Models(body: unknown): ModelInfo[] | undefined {
	const out = dataModels(body, (m) => {
		const state = text(m.state, 32);
		return {
			format: text(m.compatibility_type, 16),
			family: text(m.arch, 64),
			quantization: text(m.quantization, 32),
			// loaded_context_length where newer builds send it; max_context_length is the model's limit, not the loaded context.
			contextLength: posInt(m.loaded_context_length, 'loaded_context_length'),
			loaded: state === 'loaded' ? true : state === 'not-loaded' ? false : undefined,
		};
	});
	return out === undefined ? undefined : sortLoaded(out);
}

/** LM Studio's own chat endpoint (`/api/v0/chat/completions`) answers with `stats`: seconds, not ms. */
export const LMSTUDIO_STATS: AnswerBlock = {
	field: 'stats',
	read: (s, {counts, num}) => {
		counts.source = 'stats';
		const tps = num('stats.tokens_per_second', s.tokens_per_second, 'rate');
		if (tps !== undefined) counts.reportedTps = tps;
		const ttft = num('stats.time_to_first_token', s.time_to_first_token, 's') ?? num('stats.time_to_first_token_seconds', s.time_to_first_token_seconds, 's');
		if (ttft !== undefined) counts.engineTtftMs = ttft * 1000;
		const gen = num('stats.generation_time', s.generation_time, 's');
		if (gen !== undefined) counts.decodeMs = gen * 1000;
		const acc = num('stats.accepted_draft_tokens_count', s.accepted_draft_tokens_count, 'count');
		const total = num('stats.total_draft_tokens_count', s.total_draft_tokens_count, 'count');
		if (acc !== undefined) counts.accepted = acc;
		if (total !== undefined) counts.drafted = total;
		const predicted = num('stats.predicted_tokens_count', s.predicted_tokens_count, 'count') ?? num('stats.total_output_tokens', s.total_output_tokens, 'count');
		if (predicted !== undefined && counts.completionTokens === undefined) counts.completionTokens = predicted;
	},
	passes: {label: 'lmstudio stats', firstTokenFromPrompt: false, noDraftIsOnePerPass: true},
};

export const lmstudio: EngineDescriptor<'lmstudio'> = {
	kind: 'lmstudio',
	label: 'LM Studio',
	logParser: createLmStudioLogParser,
	// `lms log stream` lines (src/subcommands/log.ts @ 07b7252): decisive, so a runtime log's llama.cpp
	// messages or a server log's OpenAI paths do not make it llama.cpp or openai.
	logSignature: {
		rules: [
			{weight: 5, test: l => l.startsWith('type: llm.prediction.')},
			{weight: 5, test: l => l.startsWith('{"') && /"data":\{"type":"(?:llm\.prediction|server\.log|runtime\.log)/.test(l)},
			{weight: 2, test: l => l.startsWith('modelIdentifier: ')},
			{weight: 2, test: l => /^\[[A-Z]+\] \S+@\S+ \((?:llm|embedding)\)/.test(l)},
		],
		decisive: {atLeast: 5, rank: 0},
	},
	logTimes: [],
	poll: {
		paths: ['/api/v1/models', '/api/v0/models'],
		fallback: OPENAI_POLL,
		read: (a) => ({models: lmStudioV1Models(a.json['/api/v1/models']) ?? lmStudioV0Models(a.json['/api/v0/models']), marker: {}}),
	},
	probe: [{protocol: 'openai-chat', path: '/api/v0/chat/completions'}, CHAT, COMPLETIONS],
	answerBlocks: [LMSTUDIO_STATS],
	apiKeyEnv: ['LM_API_TOKEN'],
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	defaultPorts: [1234],
	process: {
		names: ['LM Studio'],
		candidates: [/lm.?studio/i],
		// The app, its helpers and its engine workers live under `LM Studio` / `~/.lmstudio`: a
		// folder rule, so tried after every engine's own (an mlx_lm or llama-server in it is that engine).
		matches: ({name, command: cmd}) => /^lm studio( helper.*)?$/i.test(name) || /LM Studio\.app\/|LM-Studio[^/\s]*\.AppImage|[/\\]lm-studio[/\\]|[/\\]\.lmstudio[/\\]/i.test(cmd),
		matchLast: true,
	},
	modelBytes: {localDirs: true},
	// REST v0 (compatibility_type/state) or v1 (loaded_instances).
	fingerprint: {
		rank: 60,
		paths: ['/api/v0/models', '/api/v1/models', '/v1/models'],
		identify: (e) => {
			const v0 = lmStudioV0Items(e.json('/api/v0/models'));
			const v1 = lmStudioV1Items(e.json('/api/v1/models'));
			if (v0 === undefined && v1 === undefined) return undefined;
			return {models: e.modelIds ?? v0?.map((m) => String(m.id))};
		},
	},
};
