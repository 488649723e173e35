import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {fingerprint, identify, type ProbeResponses} from '../../source/sources/discovery/fingerprint.js';
import {scanPorts, tcpAccepts} from '../../source/sources/discovery/port-scan.js';
import {freePort, startFake, startSilent, type Fake, type FakeKind} from './fake-engines.js';

const answer = (body: string, headers: Record<string, string> = {}, status = 200) => ({status, headers, body});

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
		expect(identify({'/api/version': answer('{"version":"0.33.0"}')})).toBeUndefined();
		expect(identify({'/': answer('Ollama is running'), '/api/version': answer('{"version":"0.33.0"}')})).toEqual({engine: 'ollama', version: '0.33.0'});
	});

	it('llama-server by its Server header alone (e.g. a 401 when --api-key is set)', () => {
		expect(identify({'/v1/models': answer('{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}', {server: 'llama.cpp'}, 401)})?.engine).toBe('llamacpp');
	});

	it('model list without owned_by behind a non-Python server is a plain OpenAI server, not mlx_lm', () => {
		const list = '{"object":"list","data":[{"id":"m","object":"model","created":1}]}';
		expect(identify({'/v1/models': answer(list, {server: 'uvicorn'})})?.engine).toBe('openai');
		expect(identify({'/v1/models': answer(list, {server: 'BaseHTTP/0.6 Python/3.12.11'})})?.engine).toBe('mlxlm');
	});

	it('a JSON body that is not a model list is not an engine', () => {
		expect(identify({'/v1/models': answer('{"data":[{"name":"x"}]}')})).toBeUndefined();
		expect(identify({'/v1/models': answer('[1,2,3]')})).toBeUndefined();
		expect(identify({'/v1/models': answer('not json')})).toBeUndefined();
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
		const r = await fingerprint(fakes.get(kind)!.url, {timeoutMs: 2000});
		expect(r.identity?.engine).toBe(engine);
		expect(r.identity?.version).toBe(version);
	});

	it('lists the models the server names', async () => {
		const r = await fingerprint(fakes.get('llamacpp')!.url, {timeoutMs: 2000});
		expect(r.identity?.models).toEqual(['models/big-random-llama-8L-1024d-q8_0.gguf']);
	});

	it('a plain nginx 404 page and a JSON API that is not an LLM are ignored', async () => {
		for (const kind of ['nginx404', 'json-api'] as const) {
			const r = await fingerprint(fakes.get(kind)!.url, {timeoutMs: 2000});
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

	it('scans every port in parallel: a silent port does not hold up the others and the scan ends within its budget', async () => {
		const ports = [silent.port, closedPort, ...[...fakes.values()].map((f) => f.port)];
		const budgetMs = 300 + 600; // connect + fingerprint deadline
		const scan = scanPorts({ports, hosts: ['127.0.0.1'], connectTimeoutMs: 300, fingerprintTimeoutMs: 600});
		// Generous bound (4× the budget) for a loaded 2-core box; a sequential scan of 14 ports would need far more.
		const outcome = await Promise.race([scan, new Promise<'late'>((r) => setTimeout(() => r('late'), budgetMs * 4))]);
		expect(outcome).not.toBe('late');
		const results = outcome as Awaited<typeof scan>;
		const byPort = new Map(results.map((r) => [r.port, r]));
		expect(byPort.get(closedPort)?.open).toBe(false);
		expect(byPort.get(silent.port)?.open).toBe(true);
		expect(byPort.get(silent.port)?.fingerprint?.identity).toBeUndefined();
		for (const [kind, engine] of expected) expect(byPort.get(fakes.get(kind)!.port)?.fingerprint?.identity?.engine).toBe(engine);
		expect(byPort.get(fakes.get('nginx404')!.port)?.fingerprint?.identity).toBeUndefined();
		expect(byPort.get(fakes.get('ollama')!.port)?.id).toBe(`http://127.0.0.1:${fakes.get('ollama')!.port}`);
	});

	it('skip() leaves known ports unfingerprinted', async () => {
		const f = fakes.get('vllm')!;
		const before = f.requests.length;
		const [r] = await scanPorts({ports: [f.port], hosts: ['127.0.0.1'], skip: () => true});
		expect(r?.open).toBe(true);
		expect(r?.fingerprint).toBeUndefined();
		expect(f.requests.length).toBe(before);
	});
});
