/**
 * SGLang log parser (engines.md §5): `Decode batch` (`.` and `,` separators, `accept len`),
 * `Prefill batch` (`#cached-token`) → interval-stats; uvicorn access lines.
 */
import type {EngineEvent, LineParser} from '../types/events.js';
import {numberCheck} from '../util/numbers.js';
import {clean, dictValueNumber, isRecord, MAX_PARSE_CHARS, parseUvicorn, PYTHON_HOST, withCheck} from './answers.js';
import {OPENAI_MODEL_LIST, OPENAI_PROBE, OPENAI_VERSIONED_POLL, type EngineDescriptor} from './descriptor.js';
import type {FingerprintEvidence} from './fingerprint.js';

declare module '../types/events.js' {
	interface EngineKinds {
		sglang: true;
	}
}

const PREFIX = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?: ([^\]]+))?\] (.*)$/;
const BATCH = /^(Decode|Prefill) batch(?: \[\d+\])?[.,] /;
const SPLIT = /, (?=[#a-zA-Z][^,:]*: )/;

/** `#running-req: 5, #token: 20800, token usage: 0.29, …` → {key: value}. */
export function sglangFields(body: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const part of body.split(SPLIT)) {
		const i = part.lastIndexOf(': ');
		if (i > 0) out[part.slice(0, i)] = part.slice(i + 2).replace(/%$/, '');
	}
	return out;
}

/**
 * Retraction (SGLang's preemption): scheduler.py `"KV cache pool is full. Retract requests. #retracted_reqs: N, …"`
 * (2025+), `"Decode out of memory happened. #retracted_reqs: N, …"` before.
 */
const RETRACT = /(?:KV cache pool is full\. Retract requests\.|Decode out of memory happened\.) #retracted_reqs: (\d+)/;

/**
 * The meta_info entries read, in one pass: each key at its first `'key': ` (where `dictNumber`'s
 * search finds it), its value (up to `,` or `}`) looked at without being consumed, so a value that
 * holds another key's text hides nothing (no key holds a quote, so no two matches overlap). One
 * `Finish` line a request under `--log-requests`: five `dictNumber` searches and `clean`'s copy made
 * a 1 KB line (level 0) cost 5.0 µs under the app's V8 flags (no TurboFan); this, 3.2 µs.
 */
const META_ENTRY = /'(prompt_tokens|completion_tokens|cached_tokens|spec_verify_ct|e2e_latency)': (?=([^,}]*))/g;
const FINISH_TYPE = /'finish_reason': \{'type': '(\w+)'/;

/**
 * `--log-requests`: tokenizer_manager.py `logger.info(f"Finish: obj={…}, out={…}")` (2024–2026; request_logger.py
 * `self._log(f"Finish: obj={obj_str}{headers_str}{out_str}")` in 2026). `out` is a dict repr whose
 * `meta_info` holds `prompt_tokens`, `completion_tokens`, `cached_tokens`, `e2e_latency` (s) and, with
 * speculative decoding, `spec_verify_ct` (verify passes).
 */
export function parseSglangFinish(msg: string, seq: number): EngineEvent | undefined {
	// The last one: `out`'s meta_info closes the line, after obj's and out's texts (a prompt or an
	// answer that quotes "'meta_info': {" comes before it).
	const i = msg.lastIndexOf("'meta_info': {");
	if (i < 0) return undefined;
	let prompt: string | undefined;
	let completion: string | undefined;
	let cached: string | undefined;
	let verify: string | undefined;
	let latency: string | undefined;
	META_ENTRY.lastIndex = i;
	for (let m = META_ENTRY.exec(msg); m !== null; m = META_ENTRY.exec(msg)) {
		const v = m[2]!;
		switch (m[1]) {
			case 'prompt_tokens': prompt ??= v; break;
			case 'completion_tokens': completion ??= v; break;
			case 'cached_tokens': cached ??= v; break;
			case 'spec_verify_ct': verify ??= v; break;
			default: latency ??= v; break;
		}
	}
	const e2e = valueNumber(latency);
	const finish = FINISH_TYPE.exec(msg.slice(i))?.[1];
	// The fields clean() would keep, in the same order, without the object it copies from.
	const ev: Record<string, unknown> = {type: 'request', key: `sglang#${seq}`, started: true, done: true};
	const promptTokens = valueNumber(prompt);
	if (promptTokens !== undefined) ev.promptTokens = promptTokens;
	const generatedTokens = valueNumber(completion);
	if (generatedTokens !== undefined) ev.generatedTokens = generatedTokens;
	const cachedTokens = valueNumber(cached);
	if (cachedTokens !== undefined) ev.cachedTokens = cachedTokens;
	const passes = valueNumber(verify);
	if (passes !== undefined) ev.passes = passes;
	if (e2e !== undefined) ev.wallMs = e2e * 1000;
	if (finish === 'abort') ev.outcome = 'cancelled';
	return ev as unknown as EngineEvent;
}

const valueNumber = (v: string | undefined): number | undefined => (v === undefined ? undefined : dictValueNumber(v));

export function parseSglangMessage(msg: string, state?: {retracted: number; finished: number}): EngineEvent[] | null {
	const c = msg.charCodeAt(0);
	if (state && (c === 75 /* K */ || c === 68 /* D */) && msg.includes('#retracted_reqs: ')) {
		const r = RETRACT.exec(msg);
		if (r) {
			state.retracted += Number(r[1]);
			return [{type: 'interval-stats', preemptedTotal: state.retracted}];
		}
	}
	if (state && c === 70 /* F */ && msg.startsWith('Finish: obj=')) {
		const ev = parseSglangFinish(msg, state.finished + 1);
		if (!ev) return [];
		state.finished += 1;
		return [ev];
	}
	let decode: boolean;
	if (c === 68 && msg.startsWith('Decode batch')) decode = true;
	else if (c === 80 && msg.startsWith('Prefill batch')) decode = false;
	else return [];
	const m = BATCH.exec(msg.length > 200 ? msg.slice(0, 40) : msg);
	if (!m) return [];
	// One pass over `key: value, key: value, …` (keys and values hold no ", ").
	let usage: number | undefined;
	let fullUsage: number | undefined;
	let gen: number | undefined;
	let input: number | undefined;
	let running: number | undefined;
	let queue: number | undefined;
	let acceptLen: number | undefined;
	let acceptRate: number | undefined;
	let cached: number | undefined;
	let fresh: number | undefined;
	let hitPct: number | undefined;
	const parts = msg.slice(m[0].length).split(', ');
	const check = numberCheck();
	for (const part of parts) {
		const i = part.indexOf(': ');
		if (i <= 0) continue;
		const v = part.slice(i + 2);
		const name = part.slice(0, i);
		switch (name) {
			case 'token usage': usage = check.num(name, v, 'ratio'); break;
			case 'full token usage': fullUsage = check.num(name, v, 'ratio'); break;
			case 'gen throughput (token/s)': gen = check.num(name, v, 'tps', {nanIsUnknown: true}); break;
			case 'input throughput (token/s)': input = check.num(name, v, 'tps', {nanIsUnknown: true}); break;
			case '#running-req': running = check.num(name, v, 'count', {integer: true}); break;
			case '#queue-req': queue = check.num(name, v, 'count', {integer: true}); break;
			case 'accept len': acceptLen = check.num(name, v, 'perPass', {nanIsUnknown: true}); break;
			case 'accept rate': acceptRate = check.num(name, v, 'ratio', {nanIsUnknown: true}); break;
			case '#cached-token': cached = check.count(name, v); break;
			case '#new-token': fresh = check.count(name, v); break;
			case 'cache hit rate': hitPct = check.num(name, v.endsWith('%') ? v.slice(0, -1) : v, 'percent', {nanIsUnknown: true}); break;
			default: break;
		}
	}
	const kvUsage = usage ?? fullUsage;
	if (decode) {
		return withCheck([clean({type: 'interval-stats', genTps: gen, running, waiting: queue, kvUsage, meanAcceptLen: acceptLen, acceptRate}) as EngineEvent], check);
	}
	let hit: number | undefined;
	if (cached !== undefined && fresh !== undefined && cached + fresh > 0) hit = cached / (cached + fresh);
	else if (hitPct !== undefined) hit = hitPct / 100;
	return withCheck([clean({type: 'interval-stats', promptTps: input, running, waiting: queue, kvUsage, prefixHitRate: hit, cachedTokens: cached, newTokens: fresh}) as EngineEvent], check);
}

/**
 * The longest `Finish` line read whole: the tail keeps the first 64 KiB of a line (sources/log-tail.ts
 * MAX_KEPT_LINE). At `--log-requests-level 2` SGLang cuts each text and id list to 2,048 (characters,
 * items: tokenizer_manager.py, sgl-project/sglang), so a Finish line runs to ~10-30 KB and its
 * meta_info, last, was past the 4,096 characters other lines are read to: the request went uncounted.
 * At level 3 nothing is cut, and a line past 64 KiB still loses its meta_info (its figures missing,
 * never wrong).
 */
export const SGLANG_FINISH_CHARS = 64 * 1024;
const FINISH_AT = /^\[[^\]]{10,60}\] Finish: obj=/;

export function createSglangParser(): LineParser {
	const state = {retracted: 0, finished: 0};
	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || (line.length > MAX_PARSE_CHARS && !(line.length <= SGLANG_FINISH_CHARS + 64 && FINISH_AT.test(line)))) return null;
		if (line.charCodeAt(0) === 91 /* [ */) {
			const m = PREFIX.exec(line);
			if (m) return parseSglangMessage(m[3]!, state);
			return null;
		}
		const h = parseUvicorn(line);
		if (h) return [h];
		if (/^(?:INFO|WARNING|ERROR):/.test(line)) return [];
		return null;
	};
	return {engine: 'sglang', push, maxChars: SGLANG_FINISH_CHARS};
}

/** SGLang's worker processes (`sglang::scheduler`) are not servers of their own. */
const notWorker = (name: string, cmd: string): boolean => !(/^sglang::/i.test(name) || /^sglang::/i.test(cmd.trim()));

/** SGLang `/get_model_info` {"model_path": …}, or owned_by "sglang". */
function sglangMarker(e: FingerprintEvidence): boolean {
	const info = e.json('/get_model_info');
	return (isRecord(info) && typeof info.model_path === 'string') || e.ownedBy('sglang');
}

export const sglang: EngineDescriptor<'sglang'> = {
	kind: 'sglang',
	label: 'SGLang',
	logParser: createSglangParser,
	logSignature: {
		rules: [
			{weight: 5, test: l => /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?: [^\]]+)?\] /.test(l)},
			{weight: 3, test: l => /(?:Decode|Prefill) batch[.,] /.test(l)},
		],
	},
	logTimes: ['iso'],
	poll: OPENAI_VERSIONED_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	quickMarks: {modelOwner: 'sglang'},
	unifiedMemory: false,
	oneModel: true,
	// tokenizer_manager.py logs a `Finish:` line with meta_info for each request under --log-requests
	requestFigures: 'start it with --log-requests',
	defaultPorts: [30000],
	process: {
		names: ['sglang'],
		candidates: [PYTHON_HOST, /sglang/i],
		isServer: notWorker,
		matches: ({name, command: cmd}) => /^sglang::/i.test(name) || /^sglang::/i.test(cmd) || /sglang\.launch_server\b|(^|[/\s])sglang\s+serve\b|-m\s+sglang\.srt\b/.test(cmd),
	},
	modelBytes: {localDirs: true},
	fingerprint: {rank: 70, paths: ['/get_model_info', '/version', '/v1/models'], marker: sglangMarker, identify: (e) => (sglangMarker(e) ? {version: e.version('/version'), models: e.modelIds} : undefined)},
};
