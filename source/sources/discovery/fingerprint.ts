/**
 * Which engine answers at a base URL, decided from unambiguous markers (engines.md §8), never
 * from "the port answered". `identify()` is pure over the collected answers; `fingerprint()`
 * collects them with short deadlines.
 */
import type {EngineKind} from '../../types/monitor.js';
import {sanitize} from '../../util/sanitize.js';
import {httpGet, isAnswer, isRecord, parseJson, type HttpAnswer, type HttpResult} from './http.js';

/** Paths asked of every candidate server (GET only, all side-effect free). */
export const PROBE_PATHS = [
	'/',
	'/api/version',
	'/props',
	'/v1/models',
	'/version',
	'/get_model_info',
	'/api/v0/models',
	'/api/v1/models',
	'/running',
	'/api/extra/version',
	'/.well-known/localai.json',
	'/readyz',
] as const;

export type ProbePath = (typeof PROBE_PATHS)[number];

/** The answers collected from one base URL; a missing key = no answer (error or timeout). */
export type ProbeResponses = Partial<Record<ProbePath, HttpAnswer>>;

export interface Identity {
	readonly engine: EngineKind;
	readonly version?: string;
	/** Model ids the server listed, where it lists them. */
	readonly models?: readonly string[];
}

function ok(r: HttpAnswer | undefined): r is HttpAnswer {
	return r !== undefined && r.status >= 200 && r.status < 300;
}

function json(r: HttpAnswer | undefined): unknown {
	return ok(r) ? parseJson(r.body) : undefined;
}

function str(v: unknown): string | undefined {
	return typeof v === 'string' && v.trim() !== '' ? sanitize(v.trim(), 80) : undefined;
}

/** `/v1/models` `data` array when it is a valid OpenAI model list (every item has a string id). */
function openAiModelList(r: HttpAnswer | undefined): Record<string, unknown>[] | undefined {
	const j = json(r);
	if (!isRecord(j) || !Array.isArray(j.data)) return undefined;
	const items = j.data as unknown[];
	if (!items.every((m) => isRecord(m) && typeof m.id === 'string')) return undefined;
	if (j.object !== 'list' && !items.some((m) => isRecord(m) && m.object === 'model')) return undefined;
	return items as Record<string, unknown>[];
}

function ownedBy(items: Record<string, unknown>[] | undefined, owner: string): boolean {
	return items !== undefined && items.length > 0 && items.some((m) => m.owned_by === owner);
}

function modelIds(items: Record<string, unknown>[] | undefined): string[] | undefined {
	if (!items) return undefined;
	return items.map((m) => sanitize(String(m.id), 200));
}

function versionOf(r: HttpAnswer | undefined): string | undefined {
	const j = json(r);
	return isRecord(j) ? str(j.version) : undefined;
}

/** Any answer carried `Server: llama.cpp`. */
function llamaHeader(responses: ProbeResponses): boolean {
	return Object.values(responses).some((r) => r !== undefined && /^llama\.cpp\b/i.test(r.headers.server ?? ''));
}

const BUILD_INFO = /^b\d+-[0-9a-f]+$/;

function llamaProps(r: HttpAnswer | undefined): Record<string, unknown> | undefined {
	const j = json(r);
	if (!isRecord(j) || !isRecord(j.default_generation_settings)) return undefined;
	return j;
}

function lmStudioV0(r: HttpAnswer | undefined): Record<string, unknown>[] | undefined {
	const j = json(r);
	if (!isRecord(j) || !Array.isArray(j.data)) return undefined;
	const items = (j.data as unknown[]).filter(isRecord);
	if (items.length === 0) return j.object === 'list' && (j.data as unknown[]).length === 0 ? [] : undefined;
	return items.some((m) => 'compatibility_type' in m || ('state' in m && 'max_context_length' in m)) ? items : undefined;
}

function lmStudioV1(r: HttpAnswer | undefined): Record<string, unknown>[] | undefined {
	const j = json(r);
	if (!isRecord(j) || !Array.isArray(j.models)) return undefined;
	const items = (j.models as unknown[]).filter(isRecord);
	return items.length > 0 && items.some((m) => 'loaded_instances' in m && 'key' in m) ? items : undefined;
}

function answeredAll(responses: ProbeResponses, paths: readonly ProbePath[]): boolean {
	return paths.every((p) => responses[p] !== undefined);
}

/**
 * Decide the engine from collected answers. Order matters where engines imitate each other:
 * LocalAI answers Ollama routes and KoboldCpp emulates several APIs, so their own markers are
 * checked first; Ollama needs its `/` body; an unknown server with a valid `/v1/models` list is
 * `openai`; anything else is not an engine (undefined). Decisions that rest on a marker being
 * absent (Ollama, mlx_lm, openai) need those paths to have answered; otherwise undefined (try again).
 */
export function identify(responses: ProbeResponses): Identity | undefined {
	const models = openAiModelList(responses['/v1/models']);
	const ids = modelIds(models);

	const props = llamaProps(responses['/props']);
	const buildInfo = props && typeof props.build_info === 'string' && BUILD_INFO.test(props.build_info) ? props.build_info : undefined;
	const info = json(responses['/get_model_info']);
	const sglangInfo = isRecord(info) && typeof info.model_path === 'string';
	const otherMarker = llamaHeader(responses) || buildInfo !== undefined || sglangInfo ||
		['vllm', 'sglang', 'lithos-metal', 'llamacpp', 'llama-swap'].some((o) => ownedBy(models, o));

	// LocalAI: its own well-known document, or /version + /readyz with no other engine's marker.
	// (The document carries `version`/`endpoints`; LM Studio answers unknown paths 200 {"error":…}.)
	const localai = json(responses['/.well-known/localai.json']);
	const localaiDoc = isRecord(localai) && !('error' in localai) && (typeof localai.version === 'string' || isRecord(localai.endpoints));
	if (localaiDoc || (versionOf(responses['/version']) !== undefined && ok(responses['/readyz']) && !otherMarker)) {
		return {engine: 'localai', version: versionOf(responses['/version']), models: ids};
	}

	// KoboldCpp: /api/extra/version {"result":"KoboldCpp","version":…}.
	const kobold = json(responses['/api/extra/version']);
	if (isRecord(kobold) && kobold.result === 'KoboldCpp') {
		return {engine: 'koboldcpp', version: str(kobold.version), models: ids};
	}

	// Ollama: the `/` body is the marker; /api/version gives the version. LocalAI (heartbeat flag on)
	// and KoboldCpp answer Ollama routes too, so their paths must have answered (any status):
	// a marker missing because its request timed out proves nothing.
	const root = responses['/'];
	if (ok(root) && root.body.trim() === 'Ollama is running') {
		if (!answeredAll(responses, ['/.well-known/localai.json', '/version', '/readyz', '/api/extra/version'])) return undefined;
		return {engine: 'ollama', version: versionOf(responses['/api/version'])};
	}

	// llama-swap: owned_by "llama-swap" or GET /running {"running":[…]}.
	const running = json(responses['/running']);
	if (ownedBy(models, 'llama-swap') || (isRecord(running) && Array.isArray(running.running))) {
		return {engine: 'llamaswap', models: ids};
	}

	// llama-server: `Server: llama.cpp`, or /props with build_info b<N>-<sha> + default_generation_settings.
	if (llamaHeader(responses) || buildInfo !== undefined || ownedBy(models, 'llamacpp')) {
		return {engine: 'llamacpp', version: buildInfo ?? (props ? str(props.build_info) : undefined), models: ids};
	}

	// LM Studio: REST v0 (compatibility_type/state) or v1 (loaded_instances).
	const v0 = lmStudioV0(responses['/api/v0/models']);
	const v1 = lmStudioV1(responses['/api/v1/models']);
	if (v0 !== undefined || v1 !== undefined) {
		return {engine: 'lmstudio', models: ids ?? v0?.map((m) => String(m.id))};
	}

	// SGLang: /get_model_info {"model_path": …} or owned_by "sglang".
	if (sglangInfo || ownedBy(models, 'sglang')) {
		return {engine: 'sglang', version: versionOf(responses['/version']), models: ids};
	}

	if (ownedBy(models, 'lithos-metal')) return {engine: 'lithos', models: ids};

	if (ownedBy(models, 'vllm')) return {engine: 'vllm', version: versionOf(responses['/version']), models: ids};

	if (models !== undefined) {
		// Only "none of the above" makes a plain OpenAI server: every probe must have answered.
		if (!answeredAll(responses, PROBE_PATHS)) return undefined;
		// mlx_lm.server: Python's BaseHTTP server and model items without owned_by.
		const server = responses['/v1/models']?.headers.server ?? '';
		if (/^BaseHTTP\/[\d.]+ Python\/[\d.]+/.test(server) && models.every((m) => !('owned_by' in m))) {
			return {engine: 'mlxlm', models: ids};
		}
		return {engine: 'openai', models: ids};
	}
	return undefined;
}

export interface FingerprintOptions {
	readonly timeoutMs?: number;
	readonly apiKey?: string;
	readonly signal?: AbortSignal;
}

export interface FingerprintResult {
	readonly identity?: Identity;
	/** True when at least one path answered HTTP. */
	readonly answered: boolean;
	/** Why nothing was identified (first failure), for notices. */
	readonly error?: string;
}

/** Ask every probe path of `baseUrl` in parallel (one deadline for all) and identify the engine. */
export async function fingerprint(baseUrl: string, options: FingerprintOptions = {}): Promise<FingerprintResult> {
	const base = baseUrl.replace(/\/+$/, '');
	const results = await Promise.all(
		PROBE_PATHS.map(async (path) => [path, await httpGet(base + path, {timeoutMs: options.timeoutMs, apiKey: options.apiKey, signal: options.signal, maxBytes: 256 * 1024})] as const),
	);
	const responses: ProbeResponses = {};
	let error: string | undefined;
	for (const [path, r] of results as (readonly [ProbePath, HttpResult])[]) {
		if (isAnswer(r)) responses[path] = r;
		else error ??= r.error;
	}
	const count = Object.keys(responses).length;
	const answered = count > 0;
	const identity = identify(responses);
	let why: string | undefined;
	if (!identity) why = !answered ? error : count < PROBE_PATHS.length ? `partial answer (${PROBE_PATHS.length - count} of ${PROBE_PATHS.length} requests: ${error})` : 'not an inference server';
	return {identity, answered, error: why};
}
