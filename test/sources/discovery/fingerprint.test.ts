import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {fingerprint, identify, PROBE_PATHS, type ProbeResponses} from '../../../source/sources/discovery/fingerprint.js';
import {scanPorts, tcpAccepts} from '../../../source/sources/discovery/port-scan.js';
import {freePort, startFake, startSilent, type Fake, type FakeKind} from '../../helpers/fake-engines.js';

const answer = (body: string, headers: Record<string, string> = {}, status = 200) => ({status, headers, body});
/** Every probe path answered 404 (a server that has none of them), overridden by `r`. */
const all404 = (r: ProbeResponses): ProbeResponses => ({...Object.fromEntries(PROBE_PATHS.map((p) => [p, answer('404 page not found', {}, 404)])), ...r});

describe('identify (pure)', () => {
	it('is undefined for no answers at all', () => {
		expect(identify({})).toBeUndefined();
	});

	it('LocalAI by its well-known document, even when it answers Ollama routes', () => {
		const r: ProbeResponses = {
			'/': answer('Ollama is running'),
			'/api/version': answer('{"version":"0.6.4"}'),
			'/.well-known/localai.json': answer('{"version":"v3.7.0","endpoints":{}}'),
		};
		expect(identify(r)?.engine).toBe('localai');
	});

	it('a 200 JSON error on every path (LM Studio style) is not a LocalAI document', () => {
		const err = answer('{"error":"Unexpected endpoint or method. (GET /.well-known/localai.json)"}');
		expect(identify({'/.well-known/localai.json': err, '/readyz': err, '/version': err})).toBeUndefined();
	});

	it('Ollama needs the / body, not just /api/version', () => {
		expect(identify(all404({'/api/version': answer('{"version":"0.33.0"}')}))).toBeUndefined();
		expect(identify(all404({'/': answer('Ollama is running'), '/api/version': answer('{"version":"0.33.0"}')}))).toEqual({engine: 'ollama', version: '0.33.0'});
	});

	it('a LocalAI whose own markers timed out is not taken for Ollama (undecided, tried again)', () => {
		const r = all404({'/': answer('Ollama is running'), '/api/version': answer('{"version":"0.6.4"}')});
		delete r['/readyz'];
		delete r['/version'];
		expect(identify(r)).toBeUndefined();
	});

	it('an OpenAI list is only "openai" once every other marker has answered', () => {
		const list = answer('{"object":"list","data":[{"id":"m","object":"model"}]}');
		expect(identify(all404({'/v1/models': list}))?.engine).toBe('openai');
		const partial = all404({'/v1/models': list});
		delete partial['/api/v0/models']; // LM Studio's marker timed out
		expect(identify(partial)).toBeUndefined();
	});

	it('llama-server by its Server header alone (e.g. a 401 when --api-key is set)', () => {
		expect(identify({'/v1/models': answer('{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}', {server: 'llama.cpp'}, 401)})?.engine).toBe('llamacpp');
	});

	it('model list without owned_by behind a non-Python server is a plain OpenAI server, not mlx_lm', () => {
		const list = '{"object":"list","data":[{"id":"m","object":"model","created":1}]}';
		expect(identify(all404({'/v1/models': answer(list, {server: 'uvicorn'})}))?.engine).toBe('openai');
		expect(identify(all404({'/v1/models': answer(list, {server: 'BaseHTTP/0.6 Python/3.12.11'})}))?.engine).toBe('mlxlm');
	});

	it('a JSON body that is not a model list is not an engine', () => {
		expect(identify(all404({'/v1/models': answer('{"data":[{"name":"x"}]}')}))).toBeUndefined();
		expect(identify(all404({'/v1/models': answer('[1,2,3]')}))).toBeUndefined();
		expect(identify(all404({'/v1/models': answer('not json')}))).toBeUndefined();
	});
});

const expected: [FakeKind, string, string | undefined][] = [
	['ollama', 'ollama', '0.33.0-rc2'],
	['llamacpp', 'llamacpp', 'b10587-3f545be'],
	['mlxlm', 'mlxlm', undefined],
	['vllm', 'vllm', '0.11.0'],
	['lithos', 'lithos', undefined],
	['sglang', 'sglang', undefined],
	['lmstudio', 'lmstudio', undefined],
	['llamaswap', 'llamaswap', undefined],
	['koboldcpp', 'koboldcpp', '1.98.1'],
	['localai', 'localai', 'v3.5.0'],
	['openai', 'openai', undefined],
];

describe('fingerprint over HTTP (fake engines on 127.0.0.1)', () => {
	const fakes = new Map<FakeKind, Fake>();
	let silent: Awaited<ReturnType<typeof startSilent>>;
	let closedPort: number;

	beforeAll(async () => {
		for (const kind of [...expected.map((e) => e[0]), 'nginx404', 'json-api'] as FakeKind[]) fakes.set(kind, await startFake(kind));
		silent = await startSilent();
		closedPort = await freePort();
	});
	afterAll(async () => {
		await Promise.all([...fakes.values()].map((f) => f.close()));
		await silent.close();
	});

	it.each(expected)('%s is identified as %s (version %s)', async (kind, engine, version) => {
		const r = await fingerprint(fakes.get(kind)!.url, {timeoutMs: 5000});
		expect(r.identity?.engine).toBe(engine);
		expect(r.identity?.version).toBe(version);
	});

	it('lists the models the server names', async () => {
		const r = await fingerprint(fakes.get('llamacpp')!.url, {timeoutMs: 5000});
		expect(r.identity?.models).toEqual(['models/big-random-llama-8L-1024d-q8_0.gguf']);
	});

	it('a plain nginx 404 page and a JSON API that is not an LLM are ignored', async () => {
		for (const kind of ['nginx404', 'json-api'] as const) {
			const r = await fingerprint(fakes.get(kind)!.url, {timeoutMs: 5000});
			expect(r.answered).toBe(true);
			expect(r.identity).toBeUndefined();
			expect(r.error).toBe('not an inference server');
		}
	});

	it('a port that accepts and never answers gives a timeout, not an engine', async () => {
		const r = await fingerprint(`http://127.0.0.1:${silent.port}`, {timeoutMs: 300});
		expect(r.answered).toBe(false);
		expect(r.identity).toBeUndefined();
		expect(r.error).toMatch(/no answer within 300 ms/);
	});

	it('tcpAccepts tells open from closed', async () => {
		expect(await tcpAccepts('127.0.0.1', fakes.get('ollama')!.port)).toBe(true);
		expect(await tcpAccepts('127.0.0.1', closedPort)).toBe(false);
	});

	it('scans every port in parallel: silent ports do not hold up the others and the scan ends within its budget', async () => {
		const silent2 = await startSilent();
		const silent3 = await startSilent();
		try {
			const some: FakeKind[] = ['ollama', 'llamacpp', 'localai', 'nginx404'];
			const ports = [silent.port, silent2.port, silent3.port, closedPort, ...some.map((k) => fakes.get(k)!.port)];
			const connectMs = 1000;
			const fingerprintMs = 4000;
			const scan = scanPorts({ports, hosts: ['127.0.0.1'], connectTimeoutMs: connectMs, fingerprintTimeoutMs: fingerprintMs});
			// Three silent ports one after the other would need 3 × 4 s; in parallel the whole scan fits in one budget.
			const outcome = await Promise.race([scan, new Promise<'late'>((r) => setTimeout(() => r('late'), 2 * fingerprintMs + connectMs))]);
			expect(outcome).not.toBe('late');
			const results = outcome as Awaited<typeof scan>;
			const byPort = new Map(results.map((r) => [r.port, r]));
			expect(byPort.get(closedPort)?.open).toBe(false);
			for (const p of [silent.port, silent2.port, silent3.port]) {
				expect(byPort.get(p)?.open).toBe(true);
				expect(byPort.get(p)?.fingerprint?.identity).toBeUndefined();
				expect(byPort.get(p)?.fingerprint?.error).toMatch(/no answer within/);
			}
			for (const kind of ['ollama', 'llamacpp', 'localai'] as const) expect(byPort.get(fakes.get(kind)!.port)?.fingerprint?.identity?.engine).toBe(kind);
			expect(byPort.get(fakes.get('nginx404')!.port)?.fingerprint?.identity).toBeUndefined();
			expect(byPort.get(fakes.get('ollama')!.port)?.id).toBe(`http://127.0.0.1:${fakes.get('ollama')!.port}`);
		} finally {
			await silent2.close();
			await silent3.close();
		}
	});

	it('skip() leaves known ports unfingerprinted', async () => {
		const f = await startFake('vllm');
		try {
			const [r] = await scanPorts({ports: [f.port], hosts: ['127.0.0.1'], skip: () => true});
			expect(r?.open).toBe(true);
			expect(r?.fingerprint).toBeUndefined();
			expect(f.requests).toEqual([]);
		} finally {
			await f.close();
		}
	});
});
