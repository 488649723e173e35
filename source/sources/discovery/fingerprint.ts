/**
 * Which engine answers at a base URL, decided from unambiguous markers (engines.md §8), never
 * from "the port answered". `identify()` is pure over the collected answers; `fingerprint()`
 * collects them with short deadlines.
 */
import {FINGERPRINT_PATHS, identifyEngine, type Identity} from '../../engines/index.js';
import {httpGet, isAnswer, type HttpAnswer, type HttpResult, type ListRead} from '../http-get.js';

/** Paths asked of every candidate server (GET only, all side-effect free): every engine descriptor's. */
export const PROBE_PATHS: readonly string[] = FINGERPRINT_PATHS;

export type ProbePath = string;

/** The answers collected from one base URL; a missing key = no answer (error or timeout). */
export type ProbeResponses = Partial<Record<ProbePath, HttpAnswer>>;

export type {Identity};

/**
 * Decide the engine from collected answers: each engine's descriptor holds its rule, tried in rank
 * order where engines imitate each other (LocalAI answers Ollama routes, KoboldCpp emulates several
 * APIs, so their own markers come first). An unknown server with a valid `/v1/models` list is
 * `openai`; anything else is not an engine (undefined). Decisions that rest on a marker being absent
 * need those paths to have answered; otherwise undefined (try again).
 */
export function identify(responses: ProbeResponses): Identity | undefined {
	return identifyEngine(responses);
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

/**
 * Paths whose answer can be a long list (a model hub's /v1/models of 1.4 MB): read streaming, the
 * first items kept, so a big list still identifies its server.
 */
const LIST_PATHS: Readonly<Record<string, ListRead>> = {
	'/v1/models': {key: 'data', maxItems: 256},
	'/api/v0/models': {key: 'data', maxItems: 256},
	'/api/v1/models': {key: 'models', maxItems: 256},
	'/running': {key: 'running', maxItems: 256},
};

/** Ask every probe path of `baseUrl` in parallel (one deadline for all) and identify the engine. */
export async function fingerprint(baseUrl: string, options: FingerprintOptions = {}): Promise<FingerprintResult> {
	const base = baseUrl.replace(/\/+$/, '');
	const results = await Promise.all(
		PROBE_PATHS.map(async (path) => [path, await httpGet(base + path, {timeoutMs: options.timeoutMs, apiKey: options.apiKey, signal: options.signal, ...(LIST_PATHS[path] ? {list: LIST_PATHS[path]} : {maxBytes: 256 * 1024})})] as const),
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
