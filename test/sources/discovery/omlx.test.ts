/**
 * oMLX on port 8000's neighbours: one scripted HTTP server on 127.0.0.1 (port 0) whose routes are
 * swapped between an oMLX-like server (answers shaped as server.py v0.3.5 writes them: `/health`,
 * `/v1/models` with `owned_by: "omlx"`, `/v1/models/status`, `/api/status`, FastAPI's 404/401
 * bodies), vLLM, lithos-metal and a bare OpenAI server — the same port each time, so only the
 * answers can tell them apart. Then the oMLX poll plan over the same HTTP.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {engineOf} from '../../../source/engines/index.js';
import {fingerprint} from '../../../source/sources/discovery/fingerprint.js';
import {createPoller, runPlan} from '../../../source/sources/discovery/pollers.js';
import {initialState, reduce} from '../../../source/model/reducer.js';
import {toSnapshot} from '../../../source/model/snapshot.js';
import {batchText} from '../../../source/ui/panes/passes.js';
import type {Action} from '../../../source/types/state.js';

interface Reply {
	readonly status?: number;
	readonly body: unknown;
}
type Routes = Record<string, (auth: string | undefined) => Reply>;

const J = (body: unknown, status = 200): Reply => ({status, body});
const NOT_FOUND = J({detail: 'Not Found'}, 404);

const MODELS_STATUS = {
	final_ceiling: 0,
	current_model_memory: 4917845606,
	model_count: 2,
	loaded_count: 1,
	models: [
		{id: 'Qwen3-8B-4bit', model_path: '/Users/demo/.omlx/models/Qwen3-8B-4bit', loaded: true, is_loading: false, estimated_size: 5057323008, actual_size: 4917845606, pinned: false, engine_type: 'batched', model_type: 'llm', model_context_length: 40960, max_context_window: 32768, max_tokens: 32768},
		{id: 'Qwen3-Embedding-0.6B', model_path: '/Users/demo/.omlx/models/Qwen3-Embedding-0.6B', loaded: false, is_loading: false, estimated_size: 1277752934, actual_size: null, pinned: true, engine_type: 'embedding', model_type: 'embedding', model_context_length: null, max_context_window: 32768, max_tokens: 32768},
	],
};
const API_STATUS = {
	status: 'ok', version: '0.3.5', uptime_seconds: 812.4, models_discovered: 2, models_loaded: 1, models_loading: 0,
	default_model: 'Qwen3-8B-4bit', loaded_models: ['Qwen3-8B-4bit'], total_requests: 14, active_requests: 3, waiting_requests: 1,
	total_prompt_tokens: 20110, total_completion_tokens: 2930, total_cached_tokens: 9984, cache_efficiency: 49.6,
	avg_prefill_tps: 812.3, avg_generation_tps: 41.7, model_memory_used: 4917845606, model_memory_max: null,
	model_memory_used_formatted: '4.58GB', model_memory_max_formatted: 'unlimited',
};
const HEALTH = {status: 'healthy', default_model: 'Qwen3-8B-4bit', engine_pool: {model_count: 2, loaded_count: 1, max_model_memory: null, current_model_memory: 4917845606}, mcp: null};
const OMLX_MODELS = {object: 'list', data: [
	{id: 'Qwen3-8B-4bit', object: 'model', created: 1776330000, owned_by: 'omlx', capabilities: {type: 'text', streaming: true, vision: false, function_calling: true, max_tokens: 32768}},
	{id: 'Qwen3-Embedding-0.6B', object: 'model', created: 1776330000, owned_by: 'omlx', capabilities: {type: 'text', streaming: true, vision: false, function_calling: true, max_tokens: 32768}},
]};

/** server.py verify_api_key: 401 "API key required"; /v1/ routes answer the OpenAI error body, others `{"detail": …}`. */
function keyed(key: string | undefined, path: string, ok: unknown): (auth: string | undefined) => Reply {
	return (auth) => {
		if (key === undefined || auth === `Bearer ${key}`) return J(ok);
		return path.startsWith('/v1/')
			? J({error: {message: 'API key required', type: 'authentication_error', param: null, code: null}}, 401)
			: J({detail: 'API key required'}, 401);
	};
}

function omlxRoutes(key?: string): Routes {
	return {
		'/health': () => J(HEALTH),
		'/v1/models': keyed(key, '/v1/models', OMLX_MODELS),
		'/v1/models/status': keyed(key, '/v1/models/status', MODELS_STATUS),
		'/api/status': keyed(key, '/api/status', API_STATUS),
	};
}

const OTHERS: Record<'vllm' | 'lithos' | 'openai', Routes> = {
	vllm: {
		'/version': () => J({version: '0.11.0'}),
		'/health': () => ({status: 200, body: ''}),
		'/v1/models': () => J({object: 'list', data: [{id: 'Qwen/Qwen3-8B', object: 'model', created: 1795993440, owned_by: 'vllm', root: 'Qwen/Qwen3-8B', parent: null, max_model_len: 32768, permission: []}]}),
	},
	lithos: {
		'/health': () => J({status: 'ok'}),
		'/v1/models': () => J({object: 'list', data: [{id: 'nvidia/Qwen3.8-27B-NVFP4', object: 'model', created: 1795993440, owned_by: 'lithos-metal', context_window: 32768}]}),
	},
	// A bare OpenAI-compatible server that even answers a healthy /health.
	openai: {
		'/health': () => J({status: 'healthy'}),
		'/v1/models': () => J({object: 'list', data: [{id: 'my-model', object: 'model', created: 1, owned_by: 'someone'}]}),
	},
};

let routes: Routes = {};
let server: http.Server;
let url: string;

beforeAll(async () => {
	server = http.createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0]!;
		const route = routes[path];
		const reply = route ? route(req.headers.authorization) : NOT_FOUND;
		const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
		res.writeHead(reply.status ?? 200, {'content-type': 'application/json', server: 'uvicorn'});
		res.end(body);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('fingerprint on one port: oMLX vs vLLM vs lithos-metal vs a bare OpenAI server', () => {
	it('oMLX by owned_by "omlx", with its models', async () => {
		routes = omlxRoutes();
		const r = await fingerprint(url, {timeoutMs: 5000});
		expect(r.identity).toEqual({engine: 'omlx', models: ['Qwen3-8B-4bit', 'Qwen3-Embedding-0.6B']});
	});

	it('oMLX with an API key set: /v1/models answers 401, /health still says it is oMLX', async () => {
		routes = omlxRoutes('sk-local');
		const r = await fingerprint(url, {timeoutMs: 5000});
		expect(r.identity?.engine).toBe('omlx');
		expect(r.identity?.models).toBeUndefined();
	});

	it.each([['vllm', 'vllm'], ['lithos', 'lithos'], ['openai', 'openai']] as const)('%s on the same port is %s, not oMLX', async (kind, engine) => {
		routes = OTHERS[kind];
		const r = await fingerprint(url, {timeoutMs: 5000});
		expect(r.identity?.engine).toBe(engine);
	});
});

describe('oMLX poll plan over HTTP', () => {
	const ctx = () => ({url, timeoutMs: 5000, checkIdentity: true});

	it('models (loaded, pinned, measured size, context) and version from /v1/models/status + /api/status', async () => {
		routes = omlxRoutes();
		const r = await runPlan(engineOf('omlx').poll, ctx());
		expect(r).toEqual({
			ok: true,
			version: '0.3.5',
			marker: {version: '0.3.5', counters: {uptime: 812.4}},
			// 3 running at once: the batch; the pool has no memory limit.
			load: {running: 3, waiting: 1, memoryBytes: 4917845606, memoryLimitBytes: null},
			models: [
				{name: 'Qwen3-8B-4bit', loaded: true, pinned: false, sizeBytes: 4917845606, contextLength: 32768, modelPath: '/Users/demo/.omlx/models/Qwen3-8B-4bit'},
				{name: 'Qwen3-Embedding-0.6B', loaded: false, pinned: true, contextLength: 32768, modelPath: '/Users/demo/.omlx/models/Qwen3-Embedding-0.6B'},
			],
		});
	});

	it('behind an API key: alive (it answered) but nothing known without the key; with it, everything', async () => {
		routes = omlxRoutes('sk-local');
		expect(await runPlan(engineOf('omlx').poll, ctx())).toEqual({ok: true, marker: {}});
		const r = await runPlan(engineOf('omlx').poll, {...ctx(), apiKey: 'sk-local'});
		expect(r.ok && r.models?.length).toBe(2);
	});
});

describe('oMLX load: poller → store → snapshot and screen', () => {
	it('the poller dispatches what /api/status says only when it changes; the snapshot and the passes title carry it', async () => {
		routes = omlxRoutes();
		const actions: Action[] = [];
		const info = {id: url, engine: 'omlx' as const, url, source: 'port-scan' as const};
		const poller = createPoller({server: info, dispatch: (a) => actions.push(a), intervalMs: 60_000, timeoutMs: 5000});
		await poller.pollNow();
		await poller.pollNow();
		await poller.stop();
		const loads = actions.filter((a) => a.type === 'server-load');
		expect(loads).toEqual([{type: 'server-load', t: expect.any(Number), serverId: url, load: {running: 3, waiting: 1, memoryBytes: 4917845606, memoryLimitBytes: null}}]);
		let state = reduce(initialState(), {type: 'server-seen', t: 1, server: info});
		for (const a of actions) state = reduce(state, a);
		const snap = toSnapshot(state, 'test');
		expect(snap.servers[0]!.load).toEqual({running: 3, waiting: 1, memoryBytes: 4917845606, memoryLimitBytes: null, memoryUnlimited: true});
		expect(batchText(state.servers[url]!.load)).toBe('3 running, 1 waiting');
	});

	it('a server that says nothing has load null; a limit is a limit', () => {
		const state = reduce(initialState(), {type: 'server-seen', t: 1, server: {id: 'x', engine: 'omlx', url: 'http://x', source: 'flag'}});
		expect(toSnapshot(state, 'test').servers[0]!.load).toBeNull();
		const limited = reduce(state, {type: 'server-load', t: 2, serverId: 'x', load: {running: 1, memoryLimitBytes: 34359738368}});
		expect(toSnapshot(limited, 'test').servers[0]!.load).toEqual({running: 1, waiting: null, memoryBytes: null, memoryLimitBytes: 34359738368, memoryUnlimited: false});
		expect(batchText(limited.servers.x!.load)).toBe('1 running');
		expect(batchText(undefined)).toBeUndefined();
	});
});

describe('oMLX processes', () => {
	it('the `omlx serve` Python process is an oMLX server with its listening port; `omlx launch` is not', async () => {
		const {findEngineProcesses} = await import('../../../source/sources/discovery/processes.js');
		const found = findEngineProcesses(
			[
				{pid: 501, name: 'Python', command: '/opt/homebrew/Cellar/omlx/0.3.5/libexec/bin/python3.11', params: '/opt/homebrew/bin/omlx serve'},
				{pid: 502, name: 'Python', command: '/opt/homebrew/Cellar/omlx/0.3.5/libexec/bin/python3.11', params: '/opt/homebrew/bin/omlx launch codex'},
			],
			[{protocol: 'tcp', localAddress: '127.0.0.1', localPort: '8000', state: 'LISTEN', pid: 501}],
		);
		expect(found).toEqual([{pid: 501, engine: 'omlx', name: 'Python', commandLine: '/opt/homebrew/Cellar/omlx/0.3.5/libexec/bin/python3.11 /opt/homebrew/bin/omlx serve', ports: [8000]}]);
	});
});
