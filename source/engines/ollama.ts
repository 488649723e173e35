/**
 * Ollama server log parser (engines.md §1e): slog lines, `[GIN]` request lines, journald prefixes,
 * runner start/ready/offload lines of every era, the MLX engine's per-request lines, and — since
 * Ollama 0.30 — raw llama-server lines, which are delegated to the llama.cpp parser (runner `gguf`).
 */
import type {EngineEvent, LineParser, OllamaRunner} from '../types/events.js';
import type {ModelInfo} from '../types/state.js';
import {numberCheck} from '../util/numbers.js';
import {own} from '../util/sanitize.js';
import {bufferDevice, clean, isRecord, MAX_MODELS, MAX_PARSE_CHARS, num, OFFLOADED, offloaded, posInt, processBase, text, versionOf, withCheck} from './answers.js';
import {ok} from './fingerprint.js';
import {CHAT, OLLAMA_GENERATE, OPENAI_MODEL_LIST, type EngineDescriptor, type LogLocation, type LogLocationContext} from './descriptor.js';
import {createLlamaCppParser} from './llamacpp.js';

declare module '../types/events.js' {
	interface EngineKinds {
		ollama: true;
	}
}

type Ev = EngineEvent;

const JOURNALD = /^\w{3} +\d+ \d{2}:\d{2}:\d{2} \S+ [^[\s]+\[\d+\]: /;
const SLOG = /^time=(\S+) level=([A-Z]+(?:[+-]\d+)?) source=(\S+) msg=("(?:[^"\\]|\\.)*"|\S+)(.*)$/;
const ATTR = /("(?:[^"\\]|\\.)*"|[\w.]+)=("(?:[^"\\]|\\.)*"|\S*)/g;
const GIN = /^\[GIN\] (\d{4}\/\d{2}\/\d{2} - \d{2}:\d{2}:\d{2}) \|\s*(\d{3})\s*\|\s*(\S+)\s*\|\s*(\S+)\s*\|\s*([A-Z]+)\s+"([^"]*)"/;
/** Paths that run a generation (the agent view's turns): Ollama's own and its OpenAI/Anthropic-compatible routes. */
const GENERATION_PATHS: ReadonlySet<string> = new Set(['/api/chat', '/api/generate', '/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/messages']);
const GOLOG = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} \S+:\d+: (.*)$/;
const LISTENING = /^Listening on (\S+) \(version ([^)]+)\)/;
const STARTED = /^(?:llama runner|llama-server) started in ([\d.]+) seconds/;
const SIZE = /^(-?[\d.]+)\s*(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)$/;

/** Go `time.Duration.String()` (`39.45µs`, `8.12s`, `1m2.5s`, `1h0m3s`) → milliseconds. */
export function goDurationMs(s: string): number | undefined {
	if (s.length === 0 || s.length > 40) return undefined;
	const re = /([\d.]+)(h|ms|µs|μs|us|ns|m|s)/gy;
	let total = 0;
	let pos = 0;
	let m: RegExpExecArray | null;
	while ((m = re.exec(s)) !== null) {
		const v = Number(m[1]);
		if (!Number.isFinite(v)) return undefined;
		switch (m[2]) {
			case 'h': total += v * 3_600_000; break;
			case 'm': total += v * 60_000; break;
			case 's': total += v * 1000; break;
			case 'ms': total += v; break;
			case 'ns': total += v / 1e6; break;
			default: total += v / 1000;
		}
		pos = re.lastIndex;
	}
	return pos === s.length && pos > 0 ? total : undefined;
}

/** `4.3 GiB` → MiB (binary units as Go's format prints them). */
export function sizeToMiB(s: string): number | undefined {
	const m = SIZE.exec(s.trim());
	if (!m) return undefined;
	const v = Number(m[1]);
	const scale: Record<string, number> = {B: 1 / 1048576, KiB: 1 / 1024, MiB: 1, GiB: 1024, TiB: 1048576, KB: 1e3 / 1048576, MB: 1e6 / 1048576, GB: 1e9 / 1048576, TB: 1e12 / 1048576};
	return v * scale[m[2]!]!;
}

const unquote = (s: string): string => (s.length >= 2 && s.charCodeAt(0) === 34 ? s.slice(1, -1).replace(/\\(.)/g, '$1') : s);

/** slog attributes after `msg=`: `k=v`, quoted keys and values. */
export function slogAttrs(attrs: string): Record<string, string> {
	const out: Record<string, string> = {};
	ATTR.lastIndex = 0;
	let m: RegExpExecArray | null;
	while ((m = ATTR.exec(attrs)) !== null) {
		out[unquote(m[1]!)] = unquote(m[2]!);
		if (m[0].length === 0) ATTR.lastIndex++;
	}
	return out;
}

/**
 * What one Ollama parser remembers between the lines of one log. The parser is this state and the
 * module functions below, each one kind of line; `createOllamaParser` ties them together.
 *
 * Ollama's per-request lines (MLX `speculative decode stats`, raw llama-server lines, `[GIN]`) do
 * not name the model: they are tied to a model only while one model of that runner has been
 * started since the server started (its load lines); with two, the request's model is left to
 * other evidence (model/attribution.ts), never guessed as the last one loaded.
 */
interface OllamaState {
	readonly mlxStarted: Set<string>;
	readonly ggufStarted: Set<string>;
	/** Raw llama-server lines (Ollama ≥ 0.30, runner `gguf`). */
	readonly llama: LineParser;
	/**
	 * Requests that finished (llama-server `release`, MLX stats/ServeHTTP) before their `[GIN]` line,
	 * oldest first: gin logs a request when its handler returns, after the runner finished it. The
	 * next `[GIN]` line of a generation path gives the oldest its client address and wall time.
	 */
	readonly awaitingAccess: string[];
	/** `[GIN]` lines of generations that came before their request finished (the other order), oldest first. */
	readonly accessAhead: Record<string, unknown>[];
	/** Requests already given (or queued for) their access line. */
	readonly paired: Set<string>;
	/** Prompt + eval time the runner logged per request: a `[GIN]` latency shorter than that is not its line. */
	readonly partsOf: Map<string, number>;
	mlxSeq: number;
	mlxKey: string | undefined;
	mlxModel: string | undefined;
	/** The GGUF model being loaded now (its offload lines follow). */
	ggufModel: string | undefined;
	/** The model name came from `loading model via llama-server model=` (better than a blob path). */
	ggufNamed: boolean;
	/** The MLX request whose `ServeHTTP` line (its wall time, its close) has not come yet. */
	mlxOpen: string | undefined;
	/**
	 * A runner started for a model while another was up: the scheduler started it for one pending
	 * request and hands that request to it first (server/sched.go processPending, "Block other
	 * requests until we get this pending request running"). The next request opened is that model's.
	 */
	mlxNext: string | undefined;
	/** The same for a GGUF runner: its first task, whose id restarts at or below the earlier runner's last. */
	ggufNext: {model: string; maxTask: number} | undefined;
	/** The highest llama-server task id seen since the last runner started. */
	ggufMaxTask: number;
	/** Requests tied to a model by a runner's start (above), by key. */
	readonly modelOfKey: Map<string, string>;
}

function newOllamaState(): OllamaState {
	const ggufStarted = new Set<string>();
	const s: OllamaState = {
		mlxStarted: new Set(),
		ggufStarted,
		llama: createLlamaCppParser({runner: 'gguf', model: () => (ggufStarted.size <= 1 ? s.ggufModel : undefined)}),
		mlxNext: undefined,
		ggufNext: undefined,
		ggufMaxTask: -1,
		modelOfKey: new Map(),
		awaitingAccess: [],
		accessAhead: [],
		paired: new Set(),
		partsOf: new Map(),
		mlxSeq: 0,
		mlxKey: undefined,
		mlxModel: undefined,
		ggufModel: undefined,
		ggufNamed: false,
		mlxOpen: undefined,
	};
	return s;
}

/** Whether an access line's latency can be this request's: not shorter than the runner's own times. */
function fits(s: OllamaState, key: string, patch: Record<string, unknown>): boolean {
	const parts = s.partsOf.get(key) ?? 0;
	return typeof patch.accessMs !== 'number' || patch.accessMs + 1 >= parts;
}

/** Note the runner's times of each request, and pair each finished one with its access line. */
function noteDone(s: OllamaState, evs: Ev[] | null): Ev[] | null {
	if (evs) {
		for (const e of [...evs]) {
			if (e.type !== 'request') continue;
			const parts = (e.prefillMs ?? 0) + (e.decodeMs ?? 0);
			if (parts > 0) {
				s.partsOf.set(e.key, (s.partsOf.get(e.key) ?? 0) + parts);
				if (s.partsOf.size > 64) s.partsOf.delete(s.partsOf.keys().next().value!);
			}
			// A request closes on more than one line (MLX: stats, then ServeHTTP): it waits for one access line.
			if (e.done === true && e.outcome === undefined && !s.awaitingAccess.includes(e.key) && !s.paired.has(e.key)) {
				s.paired.add(e.key);
				if (s.paired.size > 64) s.paired.delete(s.paired.values().next().value!);
				const ahead = s.accessAhead.shift();
				if (ahead === undefined) s.awaitingAccess.push(e.key);
				else if (fits(s, e.key, ahead)) evs.push({...ahead, key: e.key} as unknown as Ev);
			} else if (e.outcome !== undefined) {
				const i = s.awaitingAccess.indexOf(e.key);
				if (i >= 0) s.awaitingAccess.splice(i, 1);
			}
		}
		if (s.awaitingAccess.length > 16) s.awaitingAccess.splice(0, s.awaitingAccess.length - 16);
	}
	return evs;
}

/** An offload line belongs to the GGUF model being loaded (a log with two loads has one line each). */
function ofModel(s: OllamaState, events: Ev[]): Ev[] {
	return s.ggufModel === undefined ? events : events.map(e => (e.type === 'offload' ? {...e, model: s.ggufModel} : e));
}

function tieKey(s: OllamaState, key: string, model: string): void {
	s.modelOfKey.set(key, model);
	if (s.modelOfKey.size > 64) s.modelOfKey.delete(s.modelOfKey.keys().next().value!);
}

function openMlx(s: OllamaState): string {
	s.mlxSeq += 1;
	s.mlxKey = `mlx#${s.mlxSeq}`;
	s.mlxOpen = s.mlxKey;
	if (s.mlxNext !== undefined) {
		tieKey(s, s.mlxKey, s.mlxNext);
		s.mlxNext = undefined;
	}
	return s.mlxKey;
}

/** The model of an MLX request: the runner started for it, else the only MLX runner started. */
const mlxModelOf = (s: OllamaState, key: string): string | undefined => s.modelOfKey.get(key) ?? s.mlxModel;

function mlxReq(s: OllamaState, key: string, fields: Record<string, unknown>): Ev {
	const ev: Record<string, unknown> = {type: 'request', key, runner: 'mlx', ...fields};
	const model = mlxModelOf(s, key);
	if (model !== undefined) ev.model = model;
	return ev as unknown as Ev;
}

/**
 * The embedded llama-server's events, tied to Ollama's models: a request to the model whose runner
 * was started for it (or to the only GGUF model started), never to the last one loaded; an
 * offload line to the model being loaded.
 */
function ofGguf(s: OllamaState, events: Ev[] | null): Ev[] | null {
	if (events === null || events.length === 0) return events;
	const out: Ev[] = [];
	for (const e of ofModel(s, events)) {
		if (e.type !== 'request') {
			out.push(e);
			continue;
		}
		if (e.started === true && e.task !== undefined && s.ggufNext !== undefined && e.task <= s.ggufNext.maxTask) {
			tieKey(s, e.key, s.ggufNext.model);
			s.ggufNext = undefined;
		}
		if (e.task !== undefined && e.task > s.ggufMaxTask) s.ggufMaxTask = e.task;
		const model = s.modelOfKey.get(e.key) ?? (s.ggufStarted.size <= 1 ? s.ggufModel : undefined);
		const {model: _guess, ...rest} = e;
		out.push((model === undefined ? rest : {...rest, model}) as Ev);
	}
	return out;
}

/** The MLX runner's per-request slog lines (the hot ones); undefined when `msg` is none of them. */
function mlxLine(s: OllamaState, msg: string, attrs: string): Ev[] | undefined {
	const c = msg.charCodeAt(0);
	if (c === 99 /* c */ && (msg === 'cache hit' || msg === 'cache miss')) {
		const a = slogAttrs(attrs);
		// The runner serialises requests (pipeline.go `pipelineSlot = 0`): a new one closes the last.
		const prev = s.mlxOpen;
		const key = openMlx(s);
		const out: Ev[] = prev !== undefined ? [mlxReq(s, prev, {done: true})] : [];
		const ev: Record<string, unknown> = {type: 'request', key, runner: 'mlx', started: true};
		const model = mlxModelOf(s, key);
		if (model !== undefined) ev.model = model;
		const check = numberCheck();
		const total = check.count('total', a.total);
		const cached = check.count('cached', a.cached);
		const left = check.count('left', a.left);
		// `matched`: the prefix this prompt shares with a cached one (x/mlxrunner/prefix_cache.go:125 @ fb30760).
		const matched = check.count('matched', a.matched);
		if (matched !== undefined) ev.sharedPrefixTokens = matched;
		if (total !== undefined) ev.promptTokens = total;
		if (cached !== undefined) ev.cachedTokens = cached;
		else if (msg === 'cache miss' && a.cached === undefined) ev.cachedTokens = 0;
		if (left !== undefined) ev.prefillTokens = left;
		out.push(...withCheck([ev as unknown as Ev], check));
		return out;
	}
	// x/mlxrunner/server.go @ fb30760 (since 44bdd9a2e, v0.17.6; same in v0.24.0 … v0.33.0-rc2):
	// slog.Log(ctx, level, "ServeHTTP", "method", …, "path", …, "took", time.Since(t), "status", "200 OK")
	// at INFO below 300. POST /v1/completions is one generation: it closes the request with its wall
	// time whether or not a `speculative decode stats` line came (no draft head, logprobs).
	if (msg === 'ServeHTTP') {
		const a = slogAttrs(attrs);
		if (a.method !== 'POST' || (a.path !== '/v1/completions' && a.path !== '/completion')) return [];
		const key = s.mlxOpen ?? openMlx(s);
		s.mlxOpen = undefined;
		s.mlxKey = undefined;
		const fields: Record<string, unknown> = {done: true};
		const wall = a.took === undefined ? undefined : goDurationMs(a.took);
		if (wall !== undefined) fields.wallMs = wall;
		const status = /^(\d{3})/.exec(a.status ?? '')?.[1];
		if (status !== undefined && Number(status) >= 400) fields.outcome = 'error';
		return [mlxReq(s, key, fields)];
	}
	// x/mlxrunner/runner.go @ fb30760 (since 0f23b7bff): slog.Info("Request terminated", "error", err).
	if (msg === 'Request terminated') {
		const key = s.mlxOpen;
		if (key === undefined) return [];
		const err = slogAttrs(attrs).error ?? '';
		return [mlxReq(s, key, /context canceled/.test(err) ? {outcome: 'cancelled'} : {outcome: 'error', error: text(err)})];
	}
	if (msg === 'Prompt processing progress') {
		const a = slogAttrs(attrs);
		const check = numberCheck();
		const processed = check.count('processed', a.processed);
		const total = check.count('total', a.total);
		if (processed === undefined) return withCheck([], check);
		const ev: Record<string, unknown> = {type: 'prefill-progress', processed};
		if (s.mlxKey !== undefined) ev.key = s.mlxKey;
		if (total !== undefined && total > 0) {
			ev.total = total;
			ev.progress = Math.min(1, processed / total);
		}
		return withCheck([ev as unknown as Ev], check);
	}
	if (msg === 'speculative decode stats' || msg === 'MTP decode stats') return mlxDecodeStats(s, attrs);
	return undefined;
}

/** `speculative decode stats` / `MTP decode stats`: the MLX request's passes and draft counts (its wall time comes on the ServeHTTP line after it). */
function mlxDecodeStats(s: OllamaState, attrs: string): Ev[] {
	const a = slogAttrs(attrs);
	const key = s.mlxKey ?? openMlx(s);
	s.mlxKey = undefined;
	const check = numberCheck();
	const iterations = check.count('iterations', a.iterations);
	const accepted = check.count('accepted', a.accepted);
	const drafted = check.count('drafted', a.drafted);
	const generated = check.count('generated', a.generated);
	const avgAccepted = check.num('avg_accepted', a.avg_accepted, 'perPass');
	const decoded = generated ?? (iterations !== undefined && accepted !== undefined ? iterations + accepted : undefined);
	const ev: Record<string, unknown> = {type: 'request', key, runner: 'mlx', done: true};
	const model = mlxModelOf(s, key);
	if (model !== undefined) ev.model = model;
	if (iterations !== undefined) ev.passes = iterations;
	if (drafted !== undefined) ev.drafted = drafted;
	if (accepted !== undefined) ev.accepted = accepted;
	if (decoded !== undefined) {
		ev.decodedTokens = decoded;
		ev.generatedTokens = decoded;
	}
	if (avgAccepted !== undefined) ev.engineMeanLen = 1 + avgAccepted;
	return withCheck([ev as unknown as Ev], check);
}

/** The server's and its runners' slog lines: start, model loads, offload, memory, speculative set-up. */
function serverLine(s: OllamaState, msg: string, attrs: string, line = ''): Ev[] {
	let m = LISTENING.exec(msg);
	if (m) {
		s.mlxStarted.clear();
		s.ggufStarted.clear();
		s.mlxModel = undefined;
		s.mlxNext = undefined;
		s.ggufNext = undefined;
		s.ggufMaxTask = -1;
		return [{type: 'server-start', listen: m[1], version: m[2]}];
	}
	m = STARTED.exec(msg);
	if (m) {
		s.ggufNamed = false;
		const check = numberCheck();
		return withCheck([clean({type: 'model-loaded', runner: 'gguf', seconds: check.num('started in', m[1], 'seconds'), model: s.ggufModel, evidence: evidenceOf(line)}) as Ev], check);
	}
	if (msg === 'mlx runner is ready') return [clean({type: 'model-loaded', runner: 'mlx', model: s.mlxModel, evidence: evidenceOf(line)}) as Ev];
	const signal = agentSignal(s, msg, attrs, line);
	if (signal) return signal;
	m = OFFLOADED.exec(msg);
	if (m) return ofModel(s, offloaded(m));
	if (msg === 'offload' || msg.startsWith('offload to ')) {
		const a = slogAttrs(attrs);
		const check = numberCheck();
		const total = check.num('layers.model', a['layers.model'], 'count', {integer: true});
		const onGpu = check.num('layers.offload', a['layers.offload'] ?? a['layers.real'], 'count', {integer: true});
		if (total !== undefined && onGpu !== undefined && onGpu > total) check.fail(`offloaded ${onGpu} of ${total} layers`);
		else if (total !== undefined && onGpu !== undefined) return withCheck(ofModel(s, [{type: 'offload', layersOnGpu: onGpu, layersTotal: total}]), check);
		return withCheck([], check);
	}
	if (msg === 'model weights' || msg === 'kv cache' || msg === 'compute graph') {
		const a = slogAttrs(attrs);
		const name = a.device ?? a.buffer;
		const check = numberCheck();
		const size = a.size === undefined ? undefined : sizeToMiB(a.size);
		const mib = size === undefined ? undefined : check.num('size', size, 'mib');
		if (name === undefined || mib === undefined) return withCheck([], check);
		const {device, onGpu} = bufferDevice(name);
		const kind = msg === 'model weights' ? 'model' : msg === 'kv cache' ? 'KV' : 'compute';
		return withCheck([{type: 'buffer', device, kind, mib, onGpu}], check);
	}
	// x/mlxrunner/client.go:391 @ fb3076099: slog.Info("starting mlx runner subprocess", "model", c.modelName, "port", c.port).
	if (msg === 'starting mlx runner subprocess') {
		const a = slogAttrs(attrs);
		if (a.model !== undefined) {
			// kept for the run: a string of its own, not a view onto the read (util/sanitize.ts own())
			const model = own(a.model);
			s.mlxStarted.add(model);
			s.mlxModel = s.mlxStarted.size === 1 ? model : undefined;
			// Only while no MLX request is open: one already running may have others queued behind it.
			s.mlxNext = s.mlxStarted.size === 1 || s.mlxOpen !== undefined ? undefined : model;
		}
		return [];
	}
	// llm/llama_server.go @ fb3076099: :433 slog.Info("starting llama-server", "cmd", cmd) (the
	// command line, `--model <blob path>`), then :1048 slog.Info("loading model via llama-server",
	// "model", s.modelPath) (the same blob path). Older eras: `starting llama server` / `starting runner`.
	if (msg === 'loading model via llama-server' || msg === 'starting llama-server' || msg === 'starting llama server' || msg === 'starting runner') {
		const a = slogAttrs(attrs);
		if (a.model !== undefined) {
			s.ggufModel = own(a.model);
			s.ggufNamed = true;
		} else if (!s.ggufNamed) {
			const fromCmd = /--model (\S+)/.exec(a.cmd ?? '')?.[1];
			if (fromCmd !== undefined) s.ggufModel = own(fromCmd);
		}
		if (s.ggufModel !== undefined && (msg === 'loading model via llama-server' || !s.ggufNamed) && !s.ggufStarted.has(s.ggufModel)) {
			s.ggufStarted.add(s.ggufModel);
			// A second model's runner: its first task is the request it was started for.
			s.ggufNext = s.ggufStarted.size === 1 ? undefined : {model: s.ggufModel, maxTask: s.ggufMaxTask};
		}
		return [];
	}
	if (msg === 'Loaded draft model') {
		const a = slogAttrs(attrs);
		return [{type: 'spec-init', kind: 'mlx-draft', detail: a.model ?? a.path ?? a.name}];
	}
	if (msg === 'MTP greedy decode enabled') return [{type: 'spec-init', kind: 'mtp', detail: attrs.trim() || undefined}];
	return [];
}

/** An evidence line: one line, capped (the parser's input is already sanitized). */
const evidenceOf = (line: string): string => (line.length > 300 ? `${line.slice(0, 299)}…` : line);

/**
 * `slog.Warn("<parser> tool call parsing failed", "error", err)` — model/parsers/{qwen3coder,qwen3,
 * qwen35,qwen3vl,gemma4,glm46,deepseek3,lfm2,cogito}.go and x/models/glm4_moe_lite/parser.go @ fb30760
 * (v0.33.0-rc2); the parser's name is the model family (`qwen`, `qwen3.5`, `glm-4.6`…).
 */
const TOOL_PARSE_FAILED = /^[\w.-]+ tool call parsing failed$/;

/**
 * What the server's slog lines say went wrong for a request (issue 28); placed on a turn by time.
 * - `slog.Warn("truncating input prompt", "limit", limit, "prompt", len(tokens), "keep", nKeep, "new", len(truncated))`
 *   — llm/llama_server.go:317 @ fb30760 (v0.33.0-rc2). `limit` = `contextShiftPromptLimit(num_ctx, keep)`
 *   = num_ctx − max((num_ctx − keep)/2, 1) since c191a14 (v0.30.11); num_ctx before it
 *   (llm/llama_server.go:293 @ 2c71d8d, v0.30.0; runner/{llama,ollama}runner/runner.go @ c28ddc0, v0.24.0:
 *   `"limit", s.cache.numCtx`). Same message and keys in every era.
 * - `slog.Info("llama-server model predicted to exceed available memory, evicting", "predicted", …,
 *   "predicted_num_ctx", …, "available", …)` — server/sched.go:551 @ fb30760.
 * - `slog.Warn("llama-server load failed; reducing automatic context and retrying once", …
 *   "old_num_ctx", …, "new_num_ctx", …)` — server/sched.go:652 @ fb30760.
 */
function agentSignal(s: OllamaState, msg: string, attrs: string, line: string): Ev[] | undefined {
	const c = msg.charCodeAt(0);
	if (c === 116 /* t */ && msg === 'truncating input prompt') {
		const a = slogAttrs(attrs);
		const check = numberCheck();
		const signal = clean({kind: 'truncated', evidence: evidenceOf(line), model: s.ggufModel ?? s.mlxModel, limit: check.count('limit', a.limit), prompt: check.count('prompt', a.prompt), keep: check.count('keep', a.keep), kept: check.count('new', a.new)});
		return withCheck([{type: 'agent-signal', signal} as unknown as Ev], check);
	}
	if (msg.endsWith('tool call parsing failed') && TOOL_PARSE_FAILED.test(msg)) {
		return [{type: 'agent-signal', signal: clean({kind: 'tool-call-failed', evidence: evidenceOf(line), model: s.ggufModel ?? s.mlxModel})} as unknown as Ev];
	}
	if (c === 108 /* l */ && msg === 'llama-server model predicted to exceed available memory, evicting') {
		const a = slogAttrs(attrs);
		const check = numberCheck();
		return withCheck([{type: 'agent-signal', signal: clean({kind: 'evicting', evidence: evidenceOf(line), window: check.count('predicted_num_ctx', a.predicted_num_ctx)})} as unknown as Ev], check);
	}
	if (c === 108 /* l */ && msg === 'llama-server load failed; reducing automatic context and retrying once') {
		const a = slogAttrs(attrs);
		const check = numberCheck();
		return withCheck([{type: 'agent-signal', signal: clean({kind: 'context-shrunk', evidence: evidenceOf(line), window: check.count('new_num_ctx', a.new_num_ctx), limit: check.count('old_num_ctx', a.old_num_ctx)})} as unknown as Ev], check);
	}
	return undefined;
}

/** A `[GIN]` access line: the HTTP event, a busy answer, or the wall time and client of a generation. */
function ginLine(s: OllamaState, m: RegExpExecArray): Ev[] {
	const ev: Record<string, unknown> = {type: 'http', status: Number(m[2]), method: m[5], path: m[6], client: m[4]};
	const check = numberCheck();
	const lat = check.num('latency', goDurationMs(m[3]!), 'ms');
	if (lat !== undefined) ev.latencyMs = lat;
	const out: Ev[] = [ev as unknown as Ev];
	const status = Number(m[2]);
	const client = m[4]!;
	if (m[5] === 'POST' && GENERATION_PATHS.has(m[6]!.split('?')[0]!)) {
		// server/routes.go handleScheduleError (ollama/ollama @ fb30760): ErrMaxQueue ("server busy,
		// please try again.  maximum pending requests exceeded") → 503; 429 kept for proxies in front.
		if (status === 503 || status === 429) out.push({type: 'busy', status, reason: 'server busy', client});
		else if (status >= 200 && status < 300) {
			const patch: Record<string, unknown> = {type: 'request', client};
			if (lat !== undefined) patch.accessMs = lat;
			// In order, one to one: a latency shorter than the runner's own times is not that
			// request's (a contradiction): neither is matched, and the next line pairs afresh.
			const key = s.awaitingAccess.shift();
			if (key !== undefined) {
				if (fits(s, key, patch)) out.push({...patch, key} as unknown as Ev);
			} else {
				s.accessAhead.push(patch);
				if (s.accessAhead.length > 4) s.accessAhead.shift();
			}
		}
	}
	return withCheck(out, check);
}

/** One raw line: journald prefix off, then slog, `[GIN]`, Go log, or a raw llama-server line. */
function pushLine(s: OllamaState, raw: string): EngineEvent[] | null {
	if (raw.length === 0 || raw.length > MAX_PARSE_CHARS) return null;
	let line = raw;
	let c = line.charCodeAt(0);
	// journald: `Aug 22 17:36:22 host ollama[30907]: `
	if (c >= 65 && c <= 90 && line.charCodeAt(3) === 32) {
		const m = JOURNALD.exec(line);
		if (m) {
			line = line.slice(m[0].length);
			c = line.charCodeAt(0);
		}
	}
	if (c === 116 /* t */ && line.startsWith('time=')) {
		const m = SLOG.exec(line);
		if (m) {
			const msg = unquote(m[4]!);
			return noteDone(s, mlxLine(s, msg, m[5]!) ?? serverLine(s, msg, m[5]!, line));
		}
	}
	if (c === 91 /* [ */ && line.startsWith('[GIN]')) {
		const m = GIN.exec(line);
		return m ? ginLine(s, m) : [];
	}
	if (c >= 48 && c <= 57 && line.charCodeAt(4) === 47 /* 2023/12/03 … Go log */) {
		const m = GOLOG.exec(line);
		if (m) {
			const started = STARTED.exec(m[1]!);
			if (started) {
				const check = numberCheck();
				return withCheck([clean({type: 'model-loaded', runner: 'gguf', seconds: check.num('started in', started[1], 'seconds'), model: s.ggufModel, evidence: evidenceOf(line)}) as Ev], check);
			}
			return [];
		}
	}
	// Everything else in an Ollama ≥ 0.30 log is a raw llama-server line.
	return noteDone(s, ofGguf(s, s.llama.push(line)));
}

export function createOllamaParser(): LineParser {
	const s = newOllamaState();
	return {engine: 'ollama', push: (line) => pushLine(s, line)};
}


export type {OllamaRunner};

// ---- Ollama's own formulas ----------------------------------------------------------------------

const known = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);

/** GPU residency (0..1) from Ollama's size / size_vram. */
export function gpuResidency(size: number | undefined, sizeVram: number | undefined): number | undefined {
	if (!known(size) || !known(sizeVram) || size <= 0 || sizeVram > size) return undefined;
	return sizeVram / size;
}

/** PROCESSOR exactly as `ollama ps` prints it (cmd/cmd.go ListRunningHandler). */
export function ollamaProcessor(size: number | undefined, sizeVram: number | undefined): string | undefined {
	if (!known(size) || !known(sizeVram)) return undefined;
	if (sizeVram === 0) return '100% CPU';
	if (sizeVram === size) return '100% GPU';
	if (sizeVram > size || size === 0) return 'Unknown';
	const cpuPercent = Math.round(((size - sizeVram) / size) * 100);
	return `${cpuPercent}%/${100 - cpuPercent}% CPU/GPU`;
}

/** Ollama's format.HumanBytes: decimal units; ≥10 → integer (truncated), else one decimal. */
export function ollamaHumanBytes(b: number): string {
	const units: [number, string][] = [[1e12, 'TB'], [1e9, 'GB'], [1e6, 'MB'], [1e3, 'KB']];
	for (const [scale, unit] of units) {
		if (b >= scale) {
			const v = b / scale;
			if (v >= 10) return `${Math.trunc(v)} ${unit}`;
			const one = Math.round(v * 10) / 10;
			return Number.isInteger(one) ? `${one} ${unit}` : `${one.toFixed(1)} ${unit}`;
		}
	}
	return `${Math.trunc(b)} B`;
}

/**
 * Ollama's MLX engine reports quantized safetensors tensors by quant type with the unpacked shape
 * (server/.. getTensorInfoFromManifest): [elements per group, bytes per group incl. scale/bias],
 * groups as in Ollama's tensor blob format (int4/32 affine BF16 scale+bias, int8/64 affine,
 * mxfp8/32 with an E8M0 scale). NVFP4 (16 values + one E4M3 scale) is GGML type 40, same bits.
 */
const OLLAMA_MLX_QUANTS: Readonly<Record<string, readonly [number, number]>> = {
	INT4: [32, 16 + 2 + 2],
	INT8: [64, 64 + 2 + 2],
	MXFP8: [32, 32 + 1],
};

// ---- the engine unit ----------------------------------------------------------------------------

export function runnerOfFormat(format: string | undefined): OllamaRunner | undefined {
	if (format === 'gguf') return 'gguf';
	if (format === 'safetensors') return 'mlx';
	return undefined;
}

/** Ollama `GET /api/ps` → models, PROCESSOR exactly as `ollama ps` prints it. */
export function ollamaPsModels(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.models as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.name) ?? text(m.model);
		if (!name) continue;
		const d = isRecord(m.details) ? m.details : {};
		const size = num(m.size, 'size');
		const sizeVram = num(m.size_vram, 'size_vram');
		const format = text(d.format, 40);
		out.push(clean<ModelInfo>({
			name,
			sizeBytes: size,
			sizeVramBytes: sizeVram,
			processor: ollamaProcessor(size, sizeVram),
			gpuResidency: gpuResidency(size, sizeVram),
			contextLength: posInt(m.context_length, 'context_length'),
			expiresAt: text(m.expires_at, 64),
			format,
			runner: runnerOfFormat(format),
			family: text(d.family, 64),
			parameterSize: text(d.parameter_size, 32),
			quantization: text(d.quantization_level, 32),
			digest: text(m.digest, 128),
			loaded: true,
		}));
	}
	return out.slice(0, MAX_MODELS);
}

const SYSTEMD_DIRS = ['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system', '/usr/local/lib/systemd/system'];

/** Where Ollama writes its server log by default (engines.md §1f). */
export function ollamaLogLocations({platform, env, homedir, join}: LogLocationContext): LogLocation[] {
	const out: LogLocation[] = [];
	if (platform === 'darwin') {
		out.push({engine: 'ollama', kind: 'file', path: join(homedir, '.ollama', 'logs', 'server.log'), why: 'Ollama macOS app'});
	}
	if (platform === 'darwin' || platform === 'linux') {
		const prefixes = [env.HOMEBREW_PREFIX, '/opt/homebrew', '/usr/local', platform === 'linux' ? '/home/linuxbrew/.linuxbrew' : undefined]
			.filter((x): x is string => typeof x === 'string' && x.length > 0);
		for (const prefix of [...new Set(prefixes)]) {
			out.push({engine: 'ollama', kind: 'file', path: join(prefix, 'var', 'log', 'ollama.log'), why: `Homebrew service (${prefix})`});
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
		const local = env.LOCALAPPDATA ?? join(homedir, 'AppData', 'Local');
		out.push({engine: 'ollama', kind: 'file', path: join(local, 'Ollama', 'server.log'), why: 'Ollama for Windows'});
	}
	return out;
}

export const ollama: EngineDescriptor<'ollama'> = {
	kind: 'ollama',
	label: 'Ollama',
	logParser: createOllamaParser,
	logSignature: {
		rules: [
			{weight: 5, test: l => l.startsWith('time=') && l.includes(' level=') && l.includes(' source=')},
			{weight: 5, test: l => l.startsWith('[GIN]')},
			{weight: 3, test: l => /llama runner started in|msg="?Listening on .*\(version /.test(l)},
		],
		// An Ollama log carries llama-server lines too (Ollama ≥ 0.30): any Ollama evidence decides it.
		decisive: {atLeast: 3, rank: 1},
		journaldUnit: {test: /ollama/i, weight: 2},
	},
	logTimes: ['slog', 'gin'],
	poll: {
		paths: ['/api/ps'],
		identityPaths: ['/api/version'],
		read: (a) => {
			const version = versionOf(a.json['/api/version']);
			return {models: ollamaPsModels(a.json['/api/ps']), version, marker: {version}};
		},
	},
	probe: [OLLAMA_GENERATE, CHAT],
	modelList: [
		{path: '/api/ps', list: 'models', keys: ['name', 'model']},
		{path: '/api/tags', list: 'models', keys: ['name', 'model']},
		...OPENAI_MODEL_LIST,
	],
	unifiedMemory: false,
	keepAlive: true,
	modelMemory: {
		residency: (m) => ({gpuResidency: gpuResidency(m.sizeBytes, m.sizeVramBytes), processor: ollamaProcessor(m.sizeBytes, m.sizeVramBytes)}),
		vramSource: 'ollama ps size_vram',
	},
	tensorQuants: OLLAMA_MLX_QUANTS,
	// docs/context-length.mdx @ fb30760 asks ≥ 64000 for agents; envconfig/config.go: OLLAMA_CONTEXT_LENGTH,
	// OLLAMA_KEEP_ALIVE, OLLAMA_MAX_LOADED_MODELS, OLLAMA_NUM_PARALLEL; server/sched.go needsReload: any change of num_ctx reloads.
	agentFixes: {
		contextLength: (tokens) => `OLLAMA_CONTEXT_LENGTH=${tokens}`,
		keepAlive: 'OLLAMA_KEEP_ALIVE=-1',
		moreModels: 'OLLAMA_MAX_LOADED_MODELS=2',
		sameOptions: 'send the same num_ctx every turn (or none, with OLLAMA_CONTEXT_LENGTH set)',
		parallel: 'OLLAMA_NUM_PARALLEL=2',
	},
	quickMarks: {rootBody: /Ollama is running/},
	hostEnv: {name: 'OLLAMA_HOST', fallback: 'http://127.0.0.1:11434'},
	defaultPorts: [11434],
	process: {
		names: ['ollama'],
		candidates: [/ollama/i],
		// The server, its runners (all eras: `ollama runner`, `ollama_llama_server`) and the desktop
		// app (which starts `ollama serve`); `ollama run` / `ollama ps` are clients, not the engine.
		matches: ({name, nameLower: nl, exeLower: el, command: cmd, args}) => {
			if (nl === 'ollama_llama_server' || el === 'ollama_llama_server') return true;
			if (nl === 'ollama app') return true; // Windows tray app, which starts `ollama serve`
			if (nl !== 'ollama' && el !== 'ollama') return false;
			if (/^(serve|runner)\b/.test(args)) return true;
			return name === 'Ollama' || /Ollama\.app\/Contents\/MacOS\/Ollama\b/.test(cmd) || /(^|\/)ollama app/i.test(cmd);
		},
		// Ollama's runners (`ollama runner`, `ollama_llama_server`) are not servers of their own.
		isServer: (name, cmd) => {
			const first = processBase(cmd.trim().split(/\s+/)[0] ?? '');
			return !(processBase(name.trim()) === 'ollama_llama_server' || first === 'ollama_llama_server' || /\srunner\b/.test(cmd.trim()));
		},
	},
	logLocations: ollamaLogLocations,
	modelBytes: {ollamaBlobs: true, ollamaShow: true},
	// The `/` body is the marker; /api/version gives the version. LocalAI (heartbeat flag on) and
	// KoboldCpp answer Ollama routes too, so their paths must have answered (any status): a marker
	// missing because its request timed out proves nothing.
	fingerprint: {
		rank: 30,
		paths: ['/', '/api/version'],
		identify: (e) => {
			const root = e.answer('/');
			if (!ok(root) || root.body.trim() !== 'Ollama is running') return undefined;
			if (!e.answered(['/.well-known/localai.json', '/version', '/readyz', '/api/extra/version'])) return 'wait';
			return {version: e.version('/api/version')};
		},
	},
};
