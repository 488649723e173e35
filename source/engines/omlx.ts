/**
 * oMLX (`jundot/omlx`, Apache 2.0): an MLX server for Apple silicon with continuous batching, a
 * paged KV cache kept hot in RAM and cold on SSD, and an engine pool that loads several models,
 * evicts the least recently used, pins some and unloads idle ones after a TTL. OpenAI and Anthropic
 * APIs on port 8000 (`omlx serve`, the menu-bar app, `brew services start omlx`).
 *
 * Everything below is read from upstream source text (no capture of a real oMLX log exists here).
 * Versions: `omlx/server.py` and `omlx/cli.py` at commit 0149651 (v0.3.5, 2026-04, the CHANGELOG of
 * that commit); `omlx/logging_config.py` at 8d20731; `omlx/scheduler.py` at 010c769;
 * `omlx/engine_pool.py` at 003dad6 (a 2026 version with the admission soft target);
 * `Formula/omlx.rb` at 027fe35 (v0.2.4); `omlx/settings.py` at 004308c.
 *
 * Logs (both use Python logging's `asctime` — `2026-04-16 10:22:33,123`):
 * - service log, `$(brew --prefix)/var/log/omlx.log` (Formula: `log_path` and `error_log_path`),
 *   i.e. the process's stdout + stderr: cli.py `logging.basicConfig(format="%(asctime)s - %(name)s
 *   - %(levelname)s - %(message)s")`, the start-up banner (`└─ Version: …`, `Starting server at …`)
 *   and uvicorn's own lines (`INFO:     Uvicorn running on …`; access lines only at log level trace).
 * - server log, `{base}/logs/server.log` (base `~/.omlx` or `OMLX_BASE_PATH`): logging_config.py
 *   `configure_file_logging` format `%(asctime)s - %(name)s - %(levelname)s - [%(request_id)s] -
 *   %(message)s`.
 * What each line means, and what it does NOT say:
 * - `Chat completion: N tokens in S.SSs (T.T tok/s)` (server.py, non-streaming requests only): N
 *   completion tokens; S and T are the whole request's wall time, prefill included, so T is NOT a
 *   decode rate and is not taken as one. Streamed requests log no such line.
 * - scheduler lines are DEBUG (seen only at `--log-level debug`): `Added request … with N prompt
 *   tokens`, `…: paged cache hit, C tokens in B blocks, R tokens remaining`, `Scheduled request …
 *   (N total)[, C cached], with cache|no cache`, `Request … finished: stop, N tokens`. The cached
 *   count is the prefix served from the paged cache; the log does not say whether a block came from
 *   the hot (RAM) tier or was restored from SSD (the per-tier counters live in the cache manager's
 *   stats, not in the log), so no tier is claimed here.
 * - `DFlash generation complete: N tokens, T tok/s, acceptance=A%, cycles=C` (engine/dflash.py
 *   v0.3.5, streamed DFlash requests): N tokens over C verify passes of the target model. The line
 *   names no model: it is the DFlash model's only when exactly one has DFlash on.
 * - engine pool lines: `Loaded model: X (…)`, `Evicting 'X' to fit 'Y' …`, `Evicting idle model 'X'
 *   for prefill headroom on 'Y' …`, `TTL expired for model 'X' (idle Ns > ttl Ns)`, `Unloaded
 *   model: X, …`, `DFlash enabled for X, draft=D`.
 * The batch size (requests running at once) is not in the log at INFO; `/api/status` says it.
 */
import type {EngineEvent, LineParser} from '../types/events.js';
import type {ModelInfo} from '../types/state.js';
import {clean, isRecord, MAX_MODELS, MAX_PARSE_CHARS, num, parseUvicorn, posInt, PYTHON_HOST, text, versionOf} from './answers.js';
import {OPENAI_MODEL_LIST, OPENAI_PROBE, type EngineDescriptor, type LogLocation, type LogLocationContext, type PollPlan} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		omlx: true;
	}
}

// logging_config.py (8d20731) file format, and cli.py (v0.3.5) basicConfig: the `[request_id] - ` part only in server.log.
const LINE = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) - ([\w.]+) - (TRACE|DEBUG|INFO|WARNING|ERROR|CRITICAL|Level \d+) - (?:\[([^\]\s]*)\] - )?(.*)$/;

// server.py (v0.3.5) `logger.info(f"Chat completion: {n} tokens in {elapsed:.2f}s ({tps:.1f} tok/s)")`, and `Completion: …`.
const COMPLETION = /^(?:Chat completion|Completion): (\d+) tokens in ([\d.]+)s \(([\d.]+) tok\/s\)$/;
// scheduler.py (010c769) add_request: `Added request {id} with {n} prompt tokens` (debug).
const ADDED = /^Added request (\S+) with (\d+) prompt tokens$/;
// scheduler.py (010c769): `Request {id}: paged cache hit, {c} tokens in {b} blocks, {r} tokens remaining, cache reconstructed`.
const HIT = /^Request (\S+): paged cache hit, (\d+) tokens in (\d+) blocks, (\d+) tokens remaining/;
// scheduler.py (010c769): `Request {id}: partial cache hit, {c} tokens in {b} blocks (originally {o} tokens), {r} tokens remaining`.
const PARTIAL = /^Request (\S+): partial cache hit, (\d+) tokens in (\d+) blocks \(originally (\d+) tokens\), (\d+) tokens remaining/;
// scheduler.py (010c769) _schedule_waiting: `Scheduled request {id} (uid={uid}) with {n} tokens to process ({total} total)[, {c} cached], {with cache|no cache}`.
const SCHEDULED = /^Scheduled request (\S+) \(uid=\d+\) with (\d+) tokens to process \((\d+) total\)(?:, (\d+) cached)?, (?:with|no) cache$/;
// scheduler.py (010c769) _process_batch_responses: `Request {id} finished: {finish_reason}, {n} tokens`.
const FINISHED = /^Request (\S+) finished: (\w+), (\d+) tokens$/;
// engine_pool.py (003dad6): `Loaded model: {id} (actual: …, local estimate: …, full model: …, total: …)`.
const LOADED = /^Loaded model: (\S+?)(?: \(|$)/;
// engine_pool.py (003dad6) get_engine: `Evicting '{victim}' to fit '{model_id}' under the admission soft target (…)`.
const EVICT_FIT = /^Evicting '(.+?)' to fit '(.+?)'/;
// engine_pool.py (003dad6) _evict_idle_lru_for_prefill: `Evicting idle model '{victim}' for prefill headroom on '{model}' (…)`.
const EVICT_PREFILL = /^Evicting idle model '(.+?)' for prefill headroom on '(.+?)'/;
// engine_pool.py (003dad6) check_ttl_expirations: `TTL expired for model '{id}' (idle {idle:.0f}s > ttl {ttl}s)`.
const TTL = /^TTL expired for model '(.+?)' \(idle (\d+)s > ttl (\d+)s\)/;
// engine_pool.py (003dad6) _unload_engine: `Unloaded model: {id}, freed=…`.
const UNLOADED = /^Unloaded (?:distributed )?model: (\S+?),/;
// engine_pool.py (003dad6) _load_engine: `DFlash enabled for {id}, draft={draft}`.
const DFLASH = /^DFlash enabled for (\S+), draft=(.+)$/;
// engine/dflash.py (v0.3.5) streaming summary: `DFlash generation complete: {n} tokens, {tps:.1f} tok/s, acceptance={ratio:.1%}, cycles={cycles}[, fallback=AR]`.
const DFLASH_DONE = /^DFlash generation complete: (\d+) tokens, ([\d.]+) tok\/s, acceptance=([\d.]+)%, cycles=(\d+)(, fallback=AR)?$/;
// engine/dflash.py (v0.3.5) start: `DFlashEngine loaded: target={model_name}, draft={draft}, max_ctx={n}, fallback={type}`.
const DFLASH_LOADED = /^DFlashEngine loaded: target=(.+?), draft=(.+?), max_ctx=\d+, fallback=\w+$/;
// cli.py (v0.3.5) banner `└─ Version: {v}` (ANSI colours stripped before parsing) and `Starting server at http://{host}:{port}`.
const BANNER_VERSION = /^[├└]─ Version: (\S+)$/;
const STARTING = /^Starting server at (\S+)$/;
// uvicorn's own start line (not in server.log: uvicorn's loggers do not propagate to the root handler).
const UVICORN_RUNNING = /^INFO: +Uvicorn running on (\S+)/;
// cli.py (v0.3.5) serve_command's other prints (stdout, in the service log): understood, no figure.
const PRINTS = /^(?:oMLX - |[├└]─ |Log directory: |Base path: |Model directories: |Max model memory: |Max process memory: |MCP config: |Mode: |paged SSD cache: |Hot cache: |Saved CLI arguments to settings\.json)/;

const int = (s: string | undefined): number | undefined => {
	if (s === undefined) return undefined;
	const n = Number(s);
	return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

export function createOmlxParser(): LineParser {
	let seq = 0;
	// Once the scheduler's own request lines show (debug level), they carry the requests; the
	// server's `Chat completion:` line for the same request would count it twice.
	let schedulerRequests = false;
	// Models with DFlash on and still loaded: a DFlash summary names no model; with exactly one, it is that one's.
	const dflashModels = new Set<string>();

	const request = (patch: Omit<Extract<EngineEvent, {type: 'request'}>, 'type'>): EngineEvent[] => [clean({type: 'request', ...patch}) as EngineEvent];

	const message = (logger: string, msg: string): EngineEvent[] => {
		const c = msg.charCodeAt(0);
		if (logger.startsWith('omlx.scheduler') || c === 65 /* A */ || c === 82 /* R */ || c === 83 /* S */) {
			let m = ADDED.exec(msg);
			if (m) {
				schedulerRequests = true;
				return request({key: `omlx/${m[1]!}`, started: true, promptTokens: int(m[2])});
			}
			m = HIT.exec(msg);
			if (m) {
				schedulerRequests = true;
				return request({key: `omlx/${m[1]!}`, cachedTokens: int(m[2]), prefillTokens: int(m[4])});
			}
			m = PARTIAL.exec(msg);
			if (m) {
				schedulerRequests = true;
				return request({key: `omlx/${m[1]!}`, cachedTokens: int(m[2]), prefillTokens: int(m[5])});
			}
			m = SCHEDULED.exec(msg);
			if (m) {
				schedulerRequests = true;
				const total = int(m[3]);
				// The cached part is printed only when it is more than 0: its absence says 0.
				const cached = m[4] !== undefined ? int(m[4]) : 0;
				if (total === undefined || cached === undefined || cached > total) return request({key: `omlx/${m[1]!}`});
				return request({key: `omlx/${m[1]!}`, promptTokens: total, cachedTokens: cached});
			}
			m = FINISHED.exec(msg);
			if (m) {
				schedulerRequests = true;
				return request({key: `omlx/${m[1]!}`, generatedTokens: int(m[3]), done: true});
			}
		}
		let m = DFLASH_DONE.exec(msg);
		if (m) {
			seq += 1;
			const generated = int(m[1]);
			const cycles = int(m[4]);
			// One cycle = one verify pass of the target over a drafted block (dflash-mlx `cycles_completed`).
			// Its tok/s and acceptance are kept out: the log does not say over which time or which counts
			// dflash-mlx takes them, and the counts rule gives tokens per pass from tokens and passes.
			const model = dflashModels.size === 1 ? [...dflashModels][0] : undefined;
			return request({key: `omlx#${seq}`, model, started: true, done: true, generatedTokens: generated, passes: cycles !== undefined && cycles > 0 ? cycles : undefined});
		}
		m = COMPLETION.exec(msg);
		if (m) {
			// (A streamed DFlash request logs only its summary above; a non-streaming one only this line.)
			if (schedulerRequests) return [];
			seq += 1;
			return request({key: `omlx#${seq}`, started: true, done: true, generatedTokens: int(m[1])});
		}
		m = LOADED.exec(msg);
		if (m) return [{type: 'model-loaded', model: m[1]!}];
		m = EVICT_FIT.exec(msg) ?? EVICT_PREFILL.exec(msg);
		if (m) {
			dflashModels.delete(m[1]!);
			return [{type: 'model-unloaded', model: m[1]!, reason: 'evicted', by: m[2]!}];
		}
		m = TTL.exec(msg);
		if (m) {
			dflashModels.delete(m[1]!);
			return [{type: 'model-unloaded', model: m[1]!, reason: 'ttl'}];
		}
		m = UNLOADED.exec(msg);
		if (m) {
			dflashModels.delete(m[1]!);
			return [{type: 'model-unloaded', model: m[1]!, reason: 'unloaded'}];
		}
		m = DFLASH.exec(msg);
		if (m) {
			dflashModels.add(m[1]!);
			return [{type: 'spec-init', kind: 'dflash', detail: `${m[1]!}, draft ${m[2]!.trim()}`}];
		}
		m = DFLASH_LOADED.exec(msg);
		if (m) return [{type: 'spec-init', kind: 'dflash', detail: `target ${m[1]!}, draft ${m[2]!}`}];
		m = STARTING.exec(msg);
		if (m) return [{type: 'server-start', listen: m[1]!}];
		return [];
	};

	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || line.length > MAX_PARSE_CHARS) return null;
		const c = line.charCodeAt(0);
		if (c >= 48 && c <= 57) {
			const m = LINE.exec(line);
			if (m) return message(m[2]!, m[5]!);
			return null;
		}
		const h = parseUvicorn(line);
		if (h) return [h];
		let m = UVICORN_RUNNING.exec(line);
		if (m) return [{type: 'server-start', listen: m[1]!}];
		m = BANNER_VERSION.exec(line);
		if (m) return [{type: 'server-start', version: m[1]!}];
		m = STARTING.exec(line);
		if (m) return [{type: 'server-start', listen: m[1]!}];
		if (PRINTS.test(line) || /^(?:INFO|WARNING|ERROR): /.test(line)) return [];
		return null;
	};
	return {engine: 'omlx', push};
}

// ---- answers ----------------------------------------------------------------------------------

/**
 * `GET /v1/models/status` (server.py v0.3.5: the engine pool's `get_status()` plus
 * `max_context_window`): every discovered model with `loaded`, `pinned`, `estimated_size`,
 * `actual_size` (the process-memory delta observed once its load settled) and `model_path`.
 * `sizeBytes` is the measured `actual_size` of a loaded model only; the estimate is not a size.
 */
export function omlxStatusModels(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.models as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.id);
		if (!name) continue;
		const loaded = typeof m.loaded === 'boolean' ? m.loaded : undefined;
		const actual = num(m.actual_size);
		out.push(clean<ModelInfo>({
			name,
			loaded,
			pinned: typeof m.pinned === 'boolean' ? m.pinned : undefined,
			sizeBytes: loaded === true && actual !== undefined && actual > 0 ? actual : undefined,
			contextLength: posInt(m.max_context_window) ?? posInt(m.model_context_length),
			modelPath: text(m.model_path, 1024),
		}));
	}
	return out.slice(0, MAX_MODELS);
}

/**
 * `GET /api/status` (server.py v0.3.5, "lightweight status endpoint for external tool polling"):
 * version, uptime, requests running (`active_requests`) and waiting over all loaded engines, and the
 * memory the pool holds against its limit (`model_memory_max` null = no limit).
 */
export interface OmlxStatus {
	readonly version?: string;
	readonly uptimeSeconds?: number;
	readonly running?: number;
	readonly waiting?: number;
	readonly loadedModels?: readonly string[];
	readonly modelMemoryBytes?: number;
	/** undefined: not said; null: no limit. */
	readonly modelMemoryLimitBytes?: number | null;
}

export function omlxStatus(body: unknown): OmlxStatus | undefined {
	if (!isRecord(body) || body.status !== 'ok') return undefined;
	const integer = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined);
	return clean({
		version: versionOf(body),
		uptimeSeconds: num(body.uptime_seconds),
		running: integer(body.active_requests),
		waiting: integer(body.waiting_requests),
		loadedModels: Array.isArray(body.loaded_models) ? body.loaded_models.flatMap((x) => (text(x) ? [text(x)!] : [])).slice(0, MAX_MODELS) : undefined,
		modelMemoryBytes: integer(body.model_memory_used),
		modelMemoryLimitBytes: body.model_memory_max === null ? null : integer(body.model_memory_max),
	});
}

/**
 * `GET /health` (server.py v0.3.5, no API key needed): `{"status": "healthy", "default_model": …,
 * "engine_pool": {"model_count", "loaded_count", "max_model_memory", "current_model_memory"},
 * "mcp": …}`. True when the answer has that shape.
 */
export function isOmlxHealth(body: unknown): boolean {
	if (!isRecord(body) || body.status !== 'healthy' || !('default_model' in body) || !isRecord(body.engine_pool)) return false;
	const p = body.engine_pool;
	return typeof p.model_count === 'number' && typeof p.loaded_count === 'number' && 'current_model_memory' in p;
}

const STATUS = '/api/status';
const MODELS_STATUS = '/v1/models/status';

export const OMLX_POLL: PollPlan = {
	paths: [MODELS_STATUS, STATUS],
	read: (a) => {
		const status = omlxStatus(a.json[STATUS]);
		const version = status?.version;
		const models = omlxStatusModels(a.json[MODELS_STATUS]);
		// A restart starts the uptime again.
		const uptime = status?.uptimeSeconds;
		const load = status
			? clean({running: status.running, waiting: status.waiting, memoryBytes: status.modelMemoryBytes, memoryLimitBytes: status.modelMemoryLimitBytes})
			: undefined;
		return {models, version, marker: clean({version, counters: uptime !== undefined ? {uptime} : undefined}), ...(load !== undefined ? {load} : {})};
	},
};

/** Where oMLX writes its logs on macOS (it runs nowhere else): the server log, and the Homebrew service log. */
export function omlxLogLocations({platform, env, homedir, join}: LogLocationContext): LogLocation[] {
	if (platform !== 'darwin') return [];
	const base = env.OMLX_BASE_PATH && env.OMLX_BASE_PATH.trim() !== '' ? env.OMLX_BASE_PATH.trim() : join(homedir, '.omlx');
	const out: LogLocation[] = [{engine: 'omlx', kind: 'file', path: join(base, 'logs', 'server.log'), why: 'oMLX server log'}];
	for (const prefix of [...new Set([env.HOMEBREW_PREFIX, '/opt/homebrew', '/usr/local'].filter((x): x is string => typeof x === 'string' && x.length > 0))]) {
		out.push({engine: 'omlx', kind: 'file', path: join(prefix, 'var', 'log', 'omlx.log'), why: `Homebrew service (${prefix})`});
	}
	return out;
}

/** `omlx serve` (the console script, from the CLI, the menu-bar app or `brew services`). */
export const isOmlxServer = (_name: string, commandLine: string): boolean => /(^|[/\s])omlx\s+serve\b|(^|\s)-m\s+omlx(?:\.cli)?\s+serve\b/.test(commandLine);

export const omlx: EngineDescriptor<'omlx'> = {
	kind: 'omlx',
	label: 'oMLX',
	logParser: createOmlxParser,
	logSignature: {
		rules: [
			{weight: 6, test: l => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} - omlx[\w.]* - [A-Z]+ - /.test(l)},
			{weight: 6, test: l => l.startsWith('oMLX - LLM inference')},
		],
		// The service log holds uvicorn lines too; oMLX's own logger names decide it.
		decisive: {atLeast: 6, rank: 3},
	},
	logTimes: ['iso'],
	poll: OMLX_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	quickMarks: {modelOwner: 'omlx'},
	unifiedMemory: true,
	defaultPorts: [8000],
	process: {
		names: ['omlx'],
		candidates: [PYTHON_HOST, /mlx/i],
		isServer: isOmlxServer,
		// The `omlx serve` console script (CLI, menu-bar app, `brew services`), a Python process.
		matches: ({command: cmd}) => /(^|[/\s])omlx\s+serve\b|(^|\s)-m\s+omlx(\.cli)?\s+serve\b/.test(cmd),
	},
	logLocations: omlxLogLocations,
	modelBytes: {localDirs: true},
	// server.py (v0.3.5) list_models: every item `owned_by="omlx"`; `/health` (no API key needed)
	// answers the engine pool's shape when `/v1/models` wants a key.
	fingerprint: {
		rank: 75,
		paths: ['/v1/models', '/health'],
		marker: (e) => e.ownedBy('omlx'),
		identify: (e) => {
			if (e.ownedBy('omlx')) return {models: e.modelIds};
			return isOmlxHealth(e.json('/health')) ? {models: e.modelIds} : undefined;
		},
	},
};
