/**
 * mlx_lm.server log parser (engines.md §3; ml-explore/mlx-lm mlx_lm/server.py @ d78bf58, 0.32.0):
 * `asctime - LEVEL - message` lines, stdlib access lines, `Starting httpd at …`. mlx-lm logs no
 * acceptance statistics and no per-request timings; a request is still known from its lines:
 * - `Prompt Cache: N sequences, X GB` (`_log_cache_stats`, v0.31.2+) is logged right before each
 *   request's cache lookup: it opens a request;
 * - `Prompt processing progress: P/T` (the keep-alive callback) counts the uncached part: T is the
 *   prefill, never the prompt;
 * - the access line `"POST /v1/chat/completions HTTP/1.1" 200 -` is written when the headers go out,
 *   after prefill (`_set_stream_headers` / `_set_completion_headers`): nothing later is logged at
 *   INFO, so it closes the request;
 * - at DEBUG, `Outgoing Response: {` + the tab-indented JSON of a non-streamed answer carries
 *   `usage.prompt_tokens`, `completion_tokens` and `prompt_tokens_details.cached_tokens`.
 * In batched serving several requests are open at once and the progress lines name none of them:
 * progress then counts for no request.
 */
import type {EngineEvent, LineParser} from '../types/events.js';
import {numberCheck} from '../util/numbers.js';
import {MAX_PARSE_CHARS, parseStdlibAccess, PYTHON_HOST, withCheck} from './answers.js';
import {OPENAI_MODEL_LIST, OPENAI_POLL, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		mlxlm: true;
	}
}

const LINE = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) - ([A-Z]+) - (.*)$/;
/** `logging.info(f"Prompt processing progress: {processed}/{total}")` — server.py:1363 @ d78bf58. */
const PROGRESS = /^Prompt processing progress: (-?\d+)\/(-?\d+)/;
/** `logging.info(f"Prompt Cache: {n_sequences} sequences, {n_bytes / 1e9:.2f} GB")` — server.py:443 @ d78bf58. */
const CACHE_STATS = /^Prompt Cache: \d+ sequences, [\d.]+ GB/;
/** `logging.info(f"Starting httpd at {host} on port {port}...")` — server.py:1696 @ d78bf58. */
const HTTPD = /^Starting httpd at (\S+) on port (\d+)/;
/** `json.dumps(resp, indent="\t")` lines of `Outgoing Response:` — server.py:1513 @ d78bf58 (tabs, or the two spaces sanitize() makes of them). */
const USAGE = /^(?:\t| {2})+"(prompt_tokens|completion_tokens|cached_tokens)": (\d+),?$/;
/**
 * The top-level `"model"` of `Incoming Request Body:` (server.py:1097-1098 @ d78bf58,
 * `json.dumps(self.body, indent="\t")`, logged before the request's cache lookup): the model the
 * server loads for it (mlx_lm.server serves the model a request names).
 */
const BODY_MODEL = /^(?:\t| {2})"model": "((?:[^"\\]|\\.){1,200})",?$/;
/**
 * `mlx_lm.generate --verbose` summary (mlx_lm/generate.py:781-789 @ d78bf58): `Prompt: {n} tokens,
 * {prompt_tps:.3f} tokens-per-sec`, `Generation: {n} tokens, {generation_tps:.3f} tokens-per-sec`,
 * `Peak memory: {x:.3f} GB`. The generation clock restarts after the first token (generate_step:
 * `tic` reset at n == 0), so its time covers n − 1 decode steps while the rate divides n by it.
 */
const GEN_PROMPT = /^Prompt: (\d+) tokens, ([\d.]+) tokens-per-sec$/;
const GEN_GENERATION = /^Generation: (\d+) tokens, ([\d.]+) tokens-per-sec$/;
/**
 * `print(f"[WARNING] Generating with a model that requires {model_mb} MB which is close to the maximum
 * recommended size of {max_rec_mb} MB. This can be slow. …")` — mlx_lm/generate.py:242-247 @ d78bf58
 * (wired_limit, run by stream_generate: mlx_lm.generate, mlx_lm.chat and the server's stream path).
 * Printed when the weights pass 0.9 × Metal's max_recommended_working_set_size; both sizes are
 * `bytes // 2**20` (MiB). The engine's own statement of the GPU's wired-memory limit.
 */
const WIRED_WARNING = /^\[WARNING\] Generating with a model that requires (\d+) MB which is close to the maximum recommended size of (\d+) MB\./;
const GENERATION_PATHS = new Set(['/v1/chat/completions', '/v1/completions', '/chat/completions', '/completions']);

export function createMlxLmParser(): LineParser {
	let seq = 0;
	/** Requests opened and not yet answered, oldest first. */
	const open: string[] = [];
	/** The request whose DEBUG `Outgoing Response` block is being read. */
	let debugKey: string | undefined;
	/** Inside an `Incoming Request Body` block; the model it names, for the request it opens next. */
	let inBody = false;
	let bodyModel: string | undefined;
	let lastClosed: string | undefined;
	/** `mlx_lm.generate` summary in progress. */
	let genSeq = 0;
	let genKey: string | undefined;
	const openRequest = (): EngineEvent => {
		const key = `mlxlm#${++seq}`;
		open.push(key);
		if (open.length > 64) open.shift();
		const model = bodyModel;
		bodyModel = undefined;
		return (model === undefined ? {type: 'request', key, started: true} : {type: 'request', key, started: true, model}) as EngineEvent;
	};
	const message = (msg: string): EngineEvent[] => {
		const c = msg.charCodeAt(0);
		if (c === 80 /* P */) {
			if (CACHE_STATS.test(msg)) return [openRequest()];
			const m = PROGRESS.exec(msg);
			if (m) {
				const check = numberCheck();
				const processed = check.count('processed', m[1]);
				const total = check.count('total', m[2]);
				if (processed === undefined || total === undefined) return withCheck([], check);
				const out: EngineEvent[] = [];
				// Before v0.31.2 no cache line opens the request: its first progress line does.
				if (open.length === 0) out.push(openRequest());
				const key = open.length === 1 ? open[0] : undefined;
				out.push({type: 'prefill-progress', ...(key !== undefined ? {key} : {}), processed, total, ...(total > 0 ? {progress: Math.min(1, processed / total)} : {})});
				if (key !== undefined && processed === total) out.push({type: 'request', key, prefillTokens: total});
				return out;
			}
			return [];
		}
		if (c === 73 /* I */ && msg.startsWith('Incoming Request Body:')) {
			inBody = true;
			bodyModel = undefined;
			return [];
		}
		if (c === 79 /* O */ && msg.startsWith('Outgoing Response:')) {
			debugKey = lastClosed;
			return [];
		}
		const m = HTTPD.exec(msg);
		if (m) return [{type: 'server-start', listen: `${m[1]}:${m[2]}`}];
		return [];
	};
	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || line.length > MAX_PARSE_CHARS) return null;
		const c = line.charCodeAt(0);
		if (c >= 48 && c <= 57 && line.charCodeAt(4) === 45 /* - */) {
			const m = LINE.exec(line);
			if (m) {
				debugKey = undefined;
				inBody = false;
				return message(m[3]!);
			}
		}
		if (c === 83 && line.startsWith('Starting httpd')) return message(line);
		if (c === 80 /* P */ && line.startsWith('Prompt: ')) {
			const g = GEN_PROMPT.exec(line);
			if (g) {
				const n = Number(g[1]);
				const tps = Number(g[2]);
				genKey = `mlxgen#${++genSeq}`;
				// `Prompt: N` is what mlx_lm calls the prompt (with --prompt-cache-file, the part after the cached
				// prefix, which nothing here states: the cached count stays unknown).
				return [{type: 'request', key: genKey, started: true, promptTokens: n, prefillTokens: n, ...(tps > 0 ? {prefillMs: (n / tps) * 1000} : {})} as unknown as EngineEvent];
			}
		}
		if (c === 71 /* G */ && line.startsWith('Generation: ') && genKey !== undefined) {
			const g = GEN_GENERATION.exec(line);
			if (g) {
				const n = Number(g[1]);
				const tps = Number(g[2]);
				const key = genKey;
				genKey = undefined;
				const ev: Record<string, unknown> = {type: 'request', key, done: true, generatedTokens: n, decodedTokens: Math.max(0, n - 1), engineTps: tps};
				if (tps > 0 && n > 0) ev.decodeMs = (n / tps) * 1000;
				return [ev as unknown as EngineEvent];
			}
		}
		if (c === 91 /* [ */ && line.startsWith('[WARNING] Generating with a model')) {
			const w = WIRED_WARNING.exec(line);
			if (w) {
				const check = numberCheck();
				const required = check.num('model MB', w[1], 'mib', {integer: true});
				const limit = check.num('maximum recommended MB', w[2], 'mib', {integer: true});
				return withCheck(limit === undefined || limit === 0 ? [] : [{type: 'gpu-limit', limitBytes: limit * 2 ** 20, ...(required !== undefined ? {requiredBytes: required * 2 ** 20} : {})}], check);
			}
		}
		if ((c === 80 && line.startsWith('Peak memory: ')) || line === '==========') return [];
		if ((c === 9 || c === 32) /* indented DEBUG JSON body */ || (c === 125 /* } */ && line.length === 1)) {
			if (line === '}') {
				debugKey = undefined;
				inBody = false;
				return [];
			}
			if (inBody) {
				const b = BODY_MODEL.exec(line);
				if (b) bodyModel = b[1]!.replace(/\\(.)/g, '$1');
				return [];
			}
			const u = USAGE.exec(line);
			if (u && debugKey !== undefined) {
				const n = Number(u[2]);
				const field = u[1] === 'prompt_tokens' ? 'promptTokens' : u[1] === 'completion_tokens' ? 'generatedTokens' : 'cachedTokens';
				return [{type: 'request', key: debugKey, [field]: n} as unknown as EngineEvent];
			}
			return [];
		}
		const h = parseStdlibAccess(line);
		if (h) {
			if (h.type === 'http' && h.method === 'POST' && GENERATION_PATHS.has(h.path.split('?')[0]!) && open.length > 0) {
				const key = open.shift()!;
				lastClosed = key;
				const ev: Record<string, unknown> = {type: 'request', key, done: true};
				if (h.status >= 400) ev.outcome = 'error';
				// http.server's log_request: the client's address (the agent view's sessions).
				if (h.client) ev.client = h.client;
				return [h, ev as unknown as EngineEvent];
			}
			return [h];
		}
		return null;
	};
	return {engine: 'mlxlm', push};
}

export const mlxlm: EngineDescriptor<'mlxlm'> = {
	kind: 'mlxlm',
	label: 'mlx-lm',
	logParser: createMlxLmParser,
	logSignature: {
		rules: [
			{weight: 4, test: l => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} - [A-Z]+ - /.test(l)},
			{weight: 2, test: l => l.startsWith('Starting httpd at ') || /^\S+ - - \[\d+\/\w+\/\d{4} [\d:]+\] "/.test(l)},
		],
	},
	logTimes: ['iso'],
	poll: OPENAI_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: true,
	defaultPorts: [8080],
	process: {
		names: ['mlx_lm.server'],
		candidates: [PYTHON_HOST, /mlx/i],
		// Python: the module or console script, not any mention of the word.
		matches: ({nameLower, command: cmd}) =>
			/(^|[/\s])mlx_lm[._](server|generate|chat)\b|(^|\s)-m\s+mlx_lm(\.server|\.generate|\.chat)?(\s|$)|(^|[/\s])mlx_lm\s+(server|generate|chat)\b|(^|[/\s])mlx-lm\s+(server|generate|chat)\b/.test(cmd)
			|| /^mlx_lm\.(server|generate|chat)$/.test(nameLower),
	},
	modelBytes: {localDirs: true},
	// Python's BaseHTTP server and model items without owned_by; only once every path answered
	// (it rests on other markers being absent).
	fingerprint: {
		rank: 100,
		paths: ['/v1/models'],
		identify: (e) => {
			if (e.models === undefined) return undefined;
			if (!e.all) return 'wait';
			const server = e.answer('/v1/models')?.headers.server ?? '';
			return /^BaseHTTP\/[\d.]+ Python\/[\d.]+/.test(server) && e.models.every((m) => !('owned_by' in m)) ? {models: e.modelIds} : undefined;
		},
	},
};
