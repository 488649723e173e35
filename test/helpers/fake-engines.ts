/**
 * Local HTTP servers (127.0.0.1, port 0 or a given port) that answer like each engine's
 * fingerprint routes. llama-server answers with the REAL captures in test/fixtures/discovery/.
 */
import http from 'node:http';
import net from 'node:net';
import {readFileSync} from 'node:fs';

const FIXTURES = new URL('../fixtures/discovery/llama.cpp/', import.meta.url);

export function fixture(name: string): string {
	return readFileSync(new URL(name, FIXTURES), 'utf8');
}

interface Reply {
	status?: number;
	headers?: Record<string, string>;
	body: string | (() => string);
}

type Routes = Record<string, Reply | (() => Reply)>;

export type FakeKind =
	| 'ollama' | 'llamacpp' | 'mlxlm' | 'vllm' | 'lithos' | 'sglang' | 'lmstudio' | 'llamaswap' | 'koboldcpp' | 'localai'
	| 'openai' | 'nginx404' | 'json-api';

const J = {'content-type': 'application/json'};

export interface FakeState {
	/** Ollama /api/ps body. */
	ps: unknown;
	version: string;
	/** llama-server Process-Start-Time-Unix and /slots body. */
	startTime: string;
	slots: string;
	metrics: string;
}

function routesFor(kind: FakeKind, st: FakeState): {routes: Routes; notFound: Reply; common?: Record<string, string>} {
	switch (kind) {
		case 'ollama':
			return {
				routes: {
					'/': {headers: {'content-type': 'text/plain; charset=utf-8'}, body: 'Ollama is running'},
					'/api/version': () => ({headers: J, body: JSON.stringify({version: st.version})}),
					'/api/ps': () => ({headers: J, body: JSON.stringify(st.ps)}),
				},
				notFound: {status: 404, headers: {'content-type': 'text/plain'}, body: '404 page not found'},
			};
		case 'llamacpp': {
			const llamaHeaders = {'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': ''};
			return {
				common: {server: 'llama.cpp'},
				routes: {
					'/props': {headers: llamaHeaders, body: fixture('props.json')},
					'/slots': () => ({headers: llamaHeaders, body: st.slots}),
					'/v1/models': {headers: llamaHeaders, body: fixture('models.json')},
					'/models': {headers: llamaHeaders, body: fixture('models.json')},
					'/health': {headers: llamaHeaders, body: '{"status":"ok"}'},
					'/metrics': () => ({headers: {'content-type': 'text/plain; version=0.0.4', 'process-start-time-unix': st.startTime}, body: st.metrics}),
				},
				notFound: {status: 404, headers: llamaHeaders, body: '{"error":{"message":"File Not Found","type":"not_found_error","code":404}}'},
			};
		}
		case 'mlxlm':
			return {
				common: {server: 'BaseHTTP/0.6 Python/3.12.11'},
				routes: {
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'mlx-community/Qwen3-4B-4bit', object: 'model', created: 1795993440}]})},
					'/health': {headers: J, body: '{"status": "ok"}'},
				},
				notFound: {status: 404, headers: {}, body: ''},
			};
		case 'vllm':
			return {
				common: {server: 'uvicorn'},
				routes: {
					'/version': {headers: J, body: '{"version":"0.11.0"}'},
					'/health': {headers: {}, body: ''},
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'Qwen/Qwen3-8B', object: 'model', created: 1795993440, owned_by: 'vllm', root: 'Qwen/Qwen3-8B', parent: null, max_model_len: 32768, permission: []}]})},
				},
				notFound: {status: 404, headers: J, body: '{"detail":"Not Found"}'},
			};
		case 'lithos':
			return {
				common: {server: 'uvicorn'},
				routes: {
					'/health': {headers: J, body: '{"status":"ok"}'},
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'nvidia/Qwen3.8-27B-NVFP4', object: 'model', created: 1795993440, owned_by: 'lithos-metal', context_window: 32768}]})},
				},
				notFound: {status: 404, headers: J, body: '{"detail":"Not Found"}'},
			};
		case 'sglang':
			return {
				common: {server: 'uvicorn'},
				routes: {
					'/get_model_info': {headers: J, body: JSON.stringify({model_path: 'Qwen/Qwen3-8B', tokenizer_path: 'Qwen/Qwen3-8B', is_generation: true})},
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'Qwen/Qwen3-8B', object: 'model', created: 1795993440, owned_by: 'sglang', root: 'Qwen/Qwen3-8B', max_model_len: 40960}]})},
				},
				notFound: {status: 404, headers: J, body: '{"detail":"Not Found"}'},
			};
		case 'lmstudio':
			return {
				routes: {
					'/api/v0/models': {headers: J, body: JSON.stringify({object: 'list', data: [
						{id: 'qwen2-vl-7b-instruct', object: 'model', type: 'vlm', publisher: 'mlx-community', arch: 'qwen2_vl', compatibility_type: 'mlx', quantization: '4bit', state: 'not-loaded', max_context_length: 32768},
						{id: 'meta-llama-3.1-8b-instruct', object: 'model', type: 'llm', publisher: 'lmstudio-community', arch: 'llama', compatibility_type: 'gguf', quantization: 'Q4_K_M', state: 'loaded', max_context_length: 131072},
					]})},
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'qwen2-vl-7b-instruct', object: 'model', owned_by: 'organization_owner'}, {id: 'meta-llama-3.1-8b-instruct', object: 'model', owned_by: 'organization_owner'}]})},
				},
				notFound: {status: 200, headers: J, body: '{"error":"Unexpected endpoint or method. (GET /x)"}'},
			};
		case 'llamaswap':
			return {
				routes: {
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'qwen-coder', object: 'model', created: 1795993440, owned_by: 'llama-swap'}, {id: 'gemma', object: 'model', created: 1795993440, owned_by: 'llama-swap'}]})},
					'/running': {headers: J, body: JSON.stringify({running: [{model: 'qwen-coder', state: 'ready', cmd: 'llama-server --port 9999 -m q.gguf', proxy: 'http://127.0.0.1:9999', ttl: 300, name: '', description: ''}]})},
				},
				notFound: {status: 404, headers: {'content-type': 'text/plain'}, body: '404 page not found'},
			};
		case 'koboldcpp':
			return {
				routes: {
					'/': {headers: {'content-type': 'text/html'}, body: '<!DOCTYPE html><html><head><title>KoboldAI Lite</title></head><body></body></html>'},
					'/api/extra/version': {headers: J, body: '{"result":"KoboldCpp","version":"1.98.1","protected":false,"txt2img":false}'},
					'/api/version': {headers: J, body: '{"version":"0.6.4"}'},
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'koboldcpp/Qwen3-8B-Q4_K_M', object: 'model', created: 1, owned_by: 'koboldcpp', permission: [], root: 'koboldcpp'}]})},
				},
				notFound: {status: 404, headers: J, body: '{"detail":"Not Found"}'},
			};
		case 'localai':
			// LocalAI with its Ollama routes AND the `/` heartbeat flag on: it must still be LocalAI.
			return {
				routes: {
					'/': {headers: {'content-type': 'text/plain; charset=UTF-8'}, body: 'Ollama is running'},
					'/api/version': {headers: J, body: '{"version":"0.6.4"}'},
					'/api/ps': {headers: J, body: '{"models":[]}'},
					'/api/tags': {headers: J, body: '{"models":[]}'},
					'/version': {headers: J, body: '{"version":"v3.5.0","commit":"abc"}'},
					'/readyz': {headers: {'content-type': 'text/plain'}, body: 'OK'},
					'/healthz': {headers: {'content-type': 'text/plain'}, body: 'OK'},
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'qwen3-8b', object: 'model'}]})},
				},
				notFound: {status: 404, headers: J, body: '{"message":"Not Found"}'},
			};
		case 'openai':
			return {
				routes: {
					'/v1/models': {headers: J, body: JSON.stringify({object: 'list', data: [{id: 'my-model', object: 'model', created: 1, owned_by: 'someone'}]})},
				},
				notFound: {status: 404, headers: J, body: '{"error":"not found"}'},
			};
		case 'nginx404':
			return {
				common: {server: 'nginx/1.27.0'},
				routes: {},
				notFound: {status: 404, headers: {'content-type': 'text/html'}, body: '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.27.0</center>\r\n</body>\r\n</html>\r\n'},
			};
		case 'json-api':
			// A JSON API that is not an LLM server: answers everything with JSON, none of it a model list.
			return {
				routes: {
					'/': {headers: J, body: '{"service":"inventory","status":"ok"}'},
					'/version': {headers: J, body: '{"version":"2.3.1"}'},
					'/v1/models': {headers: J, body: '{"items":[{"name":"widget"}]}'},
				},
				notFound: {status: 404, headers: J, body: '{"error":"no such route"}'},
			};
	}
}

export interface Fake {
	readonly kind: FakeKind;
	readonly port: number;
	readonly url: string;
	readonly state: FakeState;
	/** Paths asked, in order, with their Authorization header. */
	readonly requests: {path: string; authorization?: string}[];
	close(): Promise<void>;
}

export function defaultState(): FakeState {
	return {
		ps: {models: []},
		version: '0.33.0-rc2',
		startTime: '2694686529',
		slots: fixture('slots-idle.json'),
		metrics: fixture('metrics-idle.txt'),
	};
}

/** Start a fake engine on 127.0.0.1 (port 0 = free port, or a given port to restart on). */
export async function startFake(kind: FakeKind, options: {port?: number; state?: Partial<FakeState>} = {}): Promise<Fake> {
	const state = {...defaultState(), ...options.state};
	const {routes, notFound, common} = routesFor(kind, state);
	const requests: {path: string; authorization?: string}[] = [];
	const server = http.createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0] ?? '/';
		requests.push({path, authorization: req.headers.authorization});
		const route = routes[path];
		const reply = route === undefined ? notFound : typeof route === 'function' ? route() : route;
		const body = typeof reply.body === 'function' ? reply.body() : reply.body;
		res.writeHead(reply.status ?? 200, {...common, ...reply.headers, 'content-length': Buffer.byteLength(body)});
		res.end(req.method === 'HEAD' ? undefined : body);
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
	});
	const port = (server.address() as net.AddressInfo).port;
	return {
		kind,
		port,
		url: `http://127.0.0.1:${port}`,
		state,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** A TCP port that accepts connections and never answers. */
export async function startSilent(): Promise<{port: number; close(): Promise<void>}> {
	const sockets = new Set<net.Socket>();
	const server = net.createServer((s) => {
		sockets.add(s);
		s.on('error', () => {});
		s.on('close', () => sockets.delete(s));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const port = (server.address() as net.AddressInfo).port;
	return {
		port,
		close: () =>
			new Promise<void>((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve());
			}),
	};
}

/** A port number that nothing listens on (bound then released). */
export async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const port = (server.address() as net.AddressInfo).port;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

/** Wait until `predicate()` holds (small awaits, deadline); throws with `what` on timeout. */
export async function waitFor(predicate: () => boolean, what: string, deadlineMs = 15000): Promise<void> {
	const end = Date.now() + deadlineMs;
	while (!predicate()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}
