/**
 * vLLM log parser (engines.md §4): periodic stats lines (V1 current/older, V0), `SpecDecoding metrics`
 * (all forms) and V0 `Speculative metrics`, uvicorn access lines, `(APIServer pid=N) ` prefixes.
 */
import type {EngineEvent, LineParser} from '../types/events.js';
import {numberCheck} from '../util/numbers.js';
import {clean, isRecord, MAX_PARSE_CHARS, parseUvicorn, PYTHON_HOST, withCheck} from './answers.js';
import {CHAT, COMPLETIONS, OLLAMA_GENERATE, OPENAI_MODEL_LIST, OPENAI_VERSIONED_POLL, type AnswerBlock, type EngineDescriptor} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		vllm: true;
	}
}

/**
 * vllm/logger.py `_FORMAT`: `%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s` (V0 ≥ 0.6.4 and V1),
 * `%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s` before (≤ 0.6: no opening bracket);
 * `(APIServer pid=N) ` / `(EngineCore_DP0 pid=N) ` process prefixes in V1.
 */
const PREFIX = /^(?:\([^)]*pid=\d+\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2} (?:\[[^\]:]+:\d+\]|[\w.]+:\d+\]) /;
/** PREFIX, sticky: `test` then `lastIndex` is where the message starts, without a match array and its string. */
const PREFIX_AT = new RegExp(PREFIX.source, 'y');
// Numbers are captured with their sign: a negative one is counted as inconsistent, not skipped.
const STATS = /^(?:(?:Engine \d+|\d+ Engines Aggregated): )?Avg prompt throughput: (-?[\d.]+) tokens\/s, Avg generation throughput: (-?[\d.]+) tokens\/s, Running: (-?\d+) reqs(.*)$/;
const WAITING = /(?:Waiting|Pending): (-?\d+) reqs/;
/** vllm/v1/metrics/loggers.py `log_parts.append("Preemptions: %d")` (only when > 0; preemptions in the window). */
const PREEMPTIONS = /Preemptions: (-?\d+)/;
/** V0 core/scheduler.py / V1 core/sched/scheduler.py `_preempt…` warning, every 50th: `total_num_cumulative_preemption=%d`. */
const CUMULATIVE_PREEMPTION = /total_num_cumulative_preemption=(-?\d+)/;
const KV = /GPU KV cache usage: (-?[\d.]+)%/;
const PREFIX_HIT = /(?<!External )Prefix cache hit rate: (-?[\d.]+)%/;
const MEAN_LEN = /Mean acceptance length: (-?[\d.]+|nan)/;
const ACCEPTED = /Accepted: (-?\d+) tokens/;
const DRAFTED = /Drafted: (-?\d+) tokens/;
const RATE = /(?:Avg )?Draft acceptance rate: (-?[\d.]+|nan)(%?)/;
/**
 * vLLM ≤ 0.6 (V0) `Speculative metrics:` line, vllm/engine/metrics.py `_format_spec_decode_metrics_str`
 * (@ 00c33e81b: "Number of draft tokens tokens", "Number of emitted tokens tokens"; 0.5–0.6 without
 * the doubled word): counts from vllm/spec_decode/metrics.py (@ 027b48554) AsyncMetricsCollector,
 * running totals since the server started. A pass (one scored sequence step) is k drafted tokens
 * (`get_max_num_emitted_tokens`: draft_tokens // k sequences): tokens per pass = emitted ÷ (draft ÷ k).
 */
const V0_K = /Number of speculative tokens: (-?\d+)/;
const V0_ACCEPTED = /Number of accepted tokens: (-?\d+)/;
const V0_DRAFT = /Number of draft tokens(?: tokens)?: (-?\d+)/;
const V0_EMITTED = /Number of emitted tokens(?: tokens)?: (-?\d+)/;
const LISTEN = /(?:Starting vLLM API server \d+ on|Uvicorn running on) (\S+)/;
const VERSION = /vLLM API server version (\S+)/;

interface VllmState {
	preemptionsSeen?: boolean;
	/** The last V0 `Speculative metrics` totals: the next line's window is the difference. */
	v0Totals?: {accepted: number; draft: number; emitted: number};
}

/** V0 `Speculative metrics` with its counts: the window since the last such line (the totals since start for the first). */
function v0Speculative(msg: string, state: VllmState | undefined): EngineEvent[] | undefined {
	const check = numberCheck();
	const k = check.num('Number of speculative tokens', V0_K.exec(msg)?.[1], 'count', {integer: true});
	const accepted = check.count('Number of accepted tokens', V0_ACCEPTED.exec(msg)?.[1]);
	const draft = check.count('Number of draft tokens', V0_DRAFT.exec(msg)?.[1]);
	const emitted = check.count('Number of emitted tokens', V0_EMITTED.exec(msg)?.[1]);
	if (k === undefined || accepted === undefined || draft === undefined || emitted === undefined) return undefined;
	const prev = state?.v0Totals;
	if (state) state.v0Totals = {accepted, draft, emitted};
	// A restart (totals went down) starts over from the new totals.
	const grown = prev !== undefined && accepted >= prev.accepted && draft >= prev.draft && emitted >= prev.emitted;
	const w = grown ? {accepted: accepted - prev.accepted, draft: draft - prev.draft, emitted: emitted - prev.emitted} : {accepted, draft, emitted};
	if (k <= 0 || w.draft <= 0) return withCheck([], check);
	if (w.accepted > w.draft) check.fail(`accepted ${w.accepted} above drafted ${w.draft}`);
	const passes = w.draft / k;
	const perPass = check.num('emitted per pass', w.emitted / passes, 'perPass');
	return withCheck(check.problems.length > 0 ? [] : [clean({type: 'interval-stats', meanAcceptLen: perPass, accepted: w.accepted, drafted: w.draft, acceptRate: w.accepted / w.draft}) as EngineEvent], check);
}

export function parseVllmMessage(msg: string, state?: VllmState): EngineEvent[] | null {
	const c = msg.charCodeAt(0);
	if ((c === 69 || c === 65 || (c >= 48 && c <= 57)) && msg.includes('Avg prompt throughput')) {
		const m = STATS.exec(msg);
		if (m) {
			const rest = m[4]!;
			if (state && rest.includes('Preemptions: ')) state.preemptionsSeen = true;
			const check = numberCheck();
			const kv = check.num('GPU KV cache usage', KV.exec(rest)?.[1], 'percent');
			const hit = check.num('Prefix cache hit rate', PREFIX_HIT.exec(rest)?.[1], 'percent');
			return withCheck([clean({
				type: 'interval-stats',
				promptTps: check.num('Avg prompt throughput', m[1], 'tps'),
				genTps: check.num('Avg generation throughput', m[2], 'tps'),
				running: check.num('Running', m[3], 'count', {integer: true}),
				waiting: check.num('Waiting', WAITING.exec(rest)?.[1], 'count', {integer: true}),
				// vLLM V1 appends it only when > 0: once this log has shown one, its absence means 0
				// (a build that never prints it leaves the figure unknown).
				preemptions: check.count('Preemptions', PREEMPTIONS.exec(rest)?.[1]) ?? (state?.preemptionsSeen ? 0 : undefined),
				kvUsage: kv !== undefined ? kv / 100 : undefined,
				prefixHitRate: hit !== undefined ? hit / 100 : undefined,
			}) as EngineEvent], check);
		}
	}
	if (c === 83 && (msg.startsWith('SpecDecoding metrics') || msg.startsWith('Speculative metrics'))) {
		const v0 = msg.startsWith('Speculative metrics') ? v0Speculative(msg, state) : undefined;
		if (v0) return v0;
		const rate = RATE.exec(msg);
		const check = numberCheck();
		let acceptRate = check.num('Draft acceptance rate', rate?.[1], rate?.[2] === '%' ? 'percent' : 'ratio', {nanIsUnknown: true});
		if (acceptRate !== undefined && rate?.[2] === '%') acceptRate /= 100;
		return withCheck([clean({
			type: 'interval-stats',
			meanAcceptLen: check.num('Mean acceptance length', MEAN_LEN.exec(msg)?.[1], 'perPass', {nanIsUnknown: true}),
			accepted: check.count('Accepted', ACCEPTED.exec(msg)?.[1]),
			drafted: check.count('Drafted', DRAFTED.exec(msg)?.[1]),
			acceptRate,
		}) as EngineEvent], check);
	}
	// Busy `--enable-log-requests` logs are mostly `Received request %s: prompt: %r, params: %s,
	// prompt_token_ids: %s, …` (vllm/entrypoints/logger.py @ 01ff126) and `Added request %s.`
	// (vllm/v1/engine/async_llm.py @ 8ef0b5f): per request a line of 0.8–8 KB (the prompt, the
	// sampling params, the token ids) and a short one, which carry no figure. What is left to test
	// scans the whole line: VERSION and LISTEN (each a regex) need one of two phrases, whose
	// rare first letters make plain searches cheap; `total_num_…` starts with a letter the params and
	// prompts are full of, so `cumulative_preemption=` is looked for first. Received lines under the
	// app's V8 flags (no TurboFan): 760 chars 0.79 → 0.53 µs, 3.5 KB 2.4 → 0.75 µs.
	// Lines that carry the user's prompt or the model's output are the user's text: a phrase quoted in
	// them is not the server's (a prompt quoting `vLLM API server version 0.11.0` made a server start
	// of version "0.11.0',"). `Received request %s: prompt: %r, …` (vllm/entrypoints/logger.py @
	// 01ff126), `Request %s details: prompt: %r, …` (DEBUG) and `Generated response %s%s: output: %r,
	// …` (--enable-log-outputs; logger.py @ 63c2b7a) make no event.
	if ((c === 82 /* R */ && (msg.startsWith('Received request ') || (msg.startsWith('Request ') && / details: prompt: /.test(msg.slice(0, 200))))) || (c === 71 /* G */ && msg.startsWith('Generated response '))) return [];
	if (msg.includes('cumulative_preemption=') && msg.includes('total_num_cumulative_preemption=')) {
		const check = numberCheck();
		const n = check.count('total_num_cumulative_preemption', CUMULATIVE_PREEMPTION.exec(msg)?.[1]);
		return withCheck(n === undefined ? [] : [{type: 'interval-stats', preemptedTotal: n}], check);
	}
	// `logger.exception("Error in extracting tool call from response.")` — vllm/tool_parsers/hermes_tool_parser.py
	// @ becf329 (and the other tool parsers): the call reaches the client as plain text.
	if (c === 69 /* E */ && msg.startsWith('Error in extracting tool call')) return [{type: 'agent-signal', signal: {kind: 'tool-call-failed', evidence: msg.length > 300 ? `${msg.slice(0, 299)}…` : msg}}];
	if (!msg.includes('vLLM API server ') && !msg.includes('Uvicorn running on ')) return [];
	let m = VERSION.exec(msg);
	if (m) return [{type: 'server-start', version: m[1]}];
	m = LISTEN.exec(msg);
	if (m) return [{type: 'server-start', listen: m[1]}];
	return [];
}

export function createVllmParser(): LineParser {
	const state: VllmState = {};
	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || line.length > MAX_PARSE_CHARS) return null;
		const c = line.charCodeAt(0);
		if (c === 40 /* ( */ || c === 68 || c === 73 || c === 87 || c === 69 || c === 67) {
			PREFIX_AT.lastIndex = 0;
			if (PREFIX_AT.test(line)) return parseVllmMessage(line.slice(PREFIX_AT.lastIndex), state);
			const h = parseUvicorn(line);
			if (h) return [h];
			// `(APIServer pid=1) INFO:     Started server process` and other uvicorn lines.
			if (/^(?:\([^)]*pid=\d+\) )?(?:INFO|WARNING|ERROR):/.test(line)) return [];
		}
		return null;
	};
	return {engine: 'vllm', push};
}

/** vLLM's worker processes (`VLLM::EngineCore`) are not servers of their own. */
const notWorker = (name: string, cmd: string): boolean => !(/^VLLM::/i.test(name) || /^VLLM::/i.test(cmd.trim()));

/**
 * vLLM's per-request `metrics` object (vllm-project/vllm PR #46768, merged 2026-06-25: top-level in
 * Chat/Completions answers, the last chunk when streaming, with `--enable-per-request-metrics` and
 * the request's `include_metrics`): `time_to_first_token_ms`, `generation_time_ms`, `queue_time_ms`,
 * `mean_itl_ms`, `tokens_per_second`; PR #48915 (`--per-request-spec-decode-metrics`) adds
 * `speculative_decoding{num_draft_tokens, num_accepted_draft_tokens, mean_acceptance_length, …}`.
 * They feed the engine's own figures (reported tok/s, engine TTFT, draft counts); the wall clock stays ours.
 */
export const VLLM_METRICS: AnswerBlock = {
	field: 'metrics',
	read: (m, {counts, num, note}) => {
		const tps = num('metrics.tokens_per_second', m.tokens_per_second, 'rate');
		if (tps !== undefined) counts.reportedTps = tps;
		const ttft = num('metrics.time_to_first_token_ms', m.time_to_first_token_ms, 'ms');
		if (ttft !== undefined) counts.engineTtftMs = ttft;
		const spec = isRecord(m.speculative_decoding) ? m.speculative_decoding : undefined;
		if (spec) {
			const drafted = num('metrics.speculative_decoding.num_draft_tokens', spec.num_draft_tokens, 'count');
			const accepted = num('metrics.speculative_decoding.num_accepted_draft_tokens', spec.num_accepted_draft_tokens, 'count');
			if (drafted !== undefined && accepted !== undefined && accepted > drafted) {
				note(`metrics.speculative_decoding: ${accepted} accepted of ${drafted} drafted`);
			} else if (drafted !== undefined && accepted !== undefined) {
				counts.drafted = drafted;
				counts.accepted = accepted;
				if (counts.source === undefined || counts.source === 'usage') counts.source = 'metrics';
			}
		}
	},
	// The counts rule over completion tokens; the block gives figures only with its draft counts.
	passes: {label: 'vllm metrics', firstTokenFromPrompt: false, noDraftIsOnePerPass: false},
};

export const vllm: EngineDescriptor<'vllm'> = {
	kind: 'vllm',
	label: 'vLLM',
	logParser: createVllmParser,
	logSignature: {
		rules: [
			{weight: 5, test: l => /^(?:\([^)]*pid=\d+\) )?(?:INFO|WARNING|ERROR|DEBUG) \d{2}-\d{2} \d{2}:\d{2}:\d{2} \[/.test(l)},
			{weight: 3, test: l => l.includes('SpecDecoding metrics') || /Avg prompt throughput: .* tokens\/s/.test(l)},
		],
	},
	logTimes: ['mmdd', 'iso'],
	poll: OPENAI_VERSIONED_POLL,
	// `include_metrics` asks a vLLM started with `--enable-per-request-metrics` (PR #46768) for its
	// per-request `metrics`; older builds ignore unknown fields (OpenAIBaseModel warns, accepts).
	probe: [{...CHAT, extraBody: {include_metrics: true}}, {...COMPLETIONS, extraBody: {include_metrics: true}}, OLLAMA_GENERATE],
	answerBlocks: [VLLM_METRICS],
	apiKeyEnv: ['VLLM_API_KEY'],
	modelList: OPENAI_MODEL_LIST,
	quickMarks: {modelOwner: 'vllm'},
	unifiedMemory: false,
	oneModel: true,
	// --enable-log-requests logs each request as it arrives (its prompt and parameters), never its figures
	requestFigures: 'batch figures are under PASSES',
	defaultPorts: [8000],
	process: {
		names: ['vllm'],
		candidates: [PYTHON_HOST, /vllm/i],
		isServer: notWorker,
		// `vllm serve`, the OpenAI entrypoint, and its `VLLM::EngineCore` workers.
		matches: ({name, command: cmd}) => /^VLLM::/.test(name) || /^VLLM::/.test(cmd) || /(^|[/\s])vllm\s+serve\b|vllm\.entrypoints\b/.test(cmd),
	},
	modelBytes: {localDirs: true},
	fingerprint: {rank: 90, paths: ['/v1/models', '/version'], marker: (e) => e.ownedBy('vllm'), identify: (e) => (e.ownedBy('vllm') ? {version: e.version('/version'), models: e.modelIds} : undefined)},
};
