/**
 * The shared GET (source/sources/http-get.ts): any port, a hard cap, long lists streamed.
 * Issue 14 item 6 (large answers) and issue 15 (port 9 is not "bad port").
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {httpGet, httpPost, isAnswer, LIST_MAX_BYTES, type HttpAnswer} from '../../source/sources/http-get.js';
import {pollServer} from '../../source/sources/discovery/pollers.js';
import {MAX_MODELS} from '../../source/engines/answers.js';
import {fingerprint} from '../../source/sources/discovery/fingerprint.js';
import {reduce, initialState} from '../../source/model/reducer.js';
import {engineRows} from '../../source/ui/view-model/engines.js';

const servers: http.Server[] = [];
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => {
		s.closeAllConnections();
		s.close(() => resolve());
	})));
});

async function serve(handler: http.RequestListener): Promise<string> {
	const server = http.createServer(handler);
	servers.push(server);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An Ollama /api/ps entry as the docs show it (~420 bytes). */
const psModel = (i: number) => ({
	name: `model-${i}:latest`, model: `model-${i}:latest`, size: 5137025024, size_vram: 5137025024,
	digest: '2ae6f6dd7a3dd734790bbbf58b8909a606e0e7e97e94b7604e0aa7ae4490e6d8',
	details: {parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '7.2B', quantization_level: 'Q4_0'},
	expires_at: '2024-06-04T14:38:31.83753-07:00',
});

const SLOW = {timeoutMs: 30_000};

describe('httpGet', () => {
	it('reaches a port on fetch\'s blocked list (9): connection refused, not "bad port"', async () => {
		const refusedOrAnswered = await httpGet('http://127.0.0.1:9/', {timeoutMs: 5000});
		if (isAnswer(refusedOrAnswered)) expect(refusedOrAnswered.status).toBeGreaterThan(0);
		else expect(refusedOrAnswered.error).toBe('connection refused');
		// fetch does not even try (the Fetch standard's bad-port list).
		const viaFetch = await fetch('http://127.0.0.1:9/').then(() => 'answered', (e: {cause?: {message?: string}}) => e.cause?.message ?? String(e));
		expect(viaFetch).toBe('bad port');
	});

	it('POSTs a JSON body (length, type, key as asked) and reads the answer like a GET; a body that is not JSON is an error, not a request', async () => {
		const got: string[] = [];
		const url = await serve((req, res) => {
			let body = '';
			req.on('data', (c: Buffer) => (body += c.toString()));
			req.on('end', () => {
				got.push(`${req.method} ${req.url} ${req.headers['content-type']} ${req.headers['content-length']} ${req.headers.authorization} ${body}`);
				res.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}');
			});
		});
		const r = (await httpPost(`${url}/api/show`, {...SLOW, json: {model: 'qwen3:8b', verbose: true}, apiKey: 'k'})) as HttpAnswer;
		expect(r.status).toBe(200);
		expect(r.body).toBe('{"ok":true}');
		expect(got).toEqual(['POST /api/show application/json 35 Bearer k {"model":"qwen3:8b","verbose":true}']);
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		expect(await httpPost(url, {json: cyclic})).toEqual({error: expect.stringMatching(/^body is not JSON/)});
		expect(got).toHaveLength(1);
		const refused = await httpPost('http://127.0.0.1:9/api/show', {json: {}, timeoutMs: 5000});
		if (!isAnswer(refused)) expect(refused.error).toBe('connection refused');
	});

	it('speaks TLS to an https:// URL (node:https, loaded when first asked): a plain-HTTP server there is a TLS error, not a crash', async () => {
		const url = await serve((_req, res) => res.end('plain'));
		const r = await httpGet(url.replace('http:', 'https:'), {timeoutMs: 5000});
		expect(isAnswer(r)).toBe(false);
		expect((r as {error: string}).error).not.toMatch(/only http/);
		expect(await httpGet('ftp://127.0.0.1/')).toEqual({error: 'only http:// and https:// (got ftp:)'});
	});

	it('keeps status, lower-cased headers and the body; caps a plain read and says so', async () => {
		const url = await serve((_req, res) => res.writeHead(200, {'X-Thing': 'yes', server: 'llama.cpp'}).end('x'.repeat(5000)));
		const r = (await httpGet(url, {...SLOW, maxBytes: 1000})) as HttpAnswer;
		expect(r.status).toBe(200);
		expect(r.headers['x-thing']).toBe('yes');
		expect(r.headers.server).toBe('llama.cpp');
		expect(r.body).toBe('x'.repeat(1000));
		expect(r.truncated).toBe(true);
		const whole = (await httpGet(url, SLOW)) as HttpAnswer;
		expect(whole.body.length).toBe(5000);
		expect(whole.truncated).toBeUndefined();
	});

	it('sends the key only as asked, never follows a redirect, and a silent server times out', async () => {
		let auth: string | undefined;
		const url = await serve((req, res) => {
			auth = req.headers.authorization;
			if (req.url === '/silent') return; // never answers
			res.writeHead(302, {location: 'http://elsewhere.invalid/'}).end();
		});
		const r = (await httpGet(`${url}/x`, {...SLOW, apiKey: 'sk-1'})) as HttpAnswer;
		expect(r.status).toBe(302);
		expect(auth).toBe('Bearer sk-1');
		expect(await httpGet(`${url}/silent`, {timeoutMs: 300})).toEqual({error: 'no answer within 300 ms'});
		const ac = new AbortController();
		const pending = httpGet(`${url}/silent`, {timeoutMs: 30_000, signal: ac.signal});
		ac.abort();
		expect(await pending).toEqual({error: 'aborted'});
	});

	it('an /api/ps of 10,000 models (over 1 MB) keeps the first, counts all, and the poller says so', async () => {
		const body = JSON.stringify({models: Array.from({length: 10_000}, (_, i) => psModel(i))});
		expect(body.length).toBeGreaterThan(1 << 20);
		const url = await serve((req, res) => {
			if (req.url === '/api/ps') res.writeHead(200, {'content-type': 'application/json'}).end(body);
			else res.writeHead(200, {'content-type': 'application/json'}).end('{"version":"0.12.6"}');
		});
		const r = (await httpGet(`${url}/api/ps`, {...SLOW, list: {key: 'models', maxItems: 100}})) as HttpAnswer;
		expect(r.listTotal).toBe(10_000);
		expect(r.listTotalAtLeast).toBe(false);
		expect((r.json as {models: unknown[]}).models.length).toBe(100);
		expect(r.body.length).toBe(64 << 10); // the raw text kept beside a list read, never the whole

		const poll = await pollServer('ollama', {url, timeoutMs: 30_000, checkIdentity: true});
		expect(poll.ok).toBe(true);
		if (!poll.ok) return;
		expect(poll.models?.length).toBe(MAX_MODELS);
		expect(poll.models?.[0]?.name).toBe('model-0:latest');
		expect(poll.listed).toEqual({total: 10_000, atLeast: false});

		// On screen: the first 64 of 10,000.
		let state = reduce(initialState({host: 'h'}), {type: 'server-seen', t: 1, server: {id: url, engine: 'ollama', url, source: 'flag'}});
		state = reduce(state, {type: 'server-models', t: 2, serverId: url, models: poll.models!, listed: poll.listed});
		const rows = engineRows(state.servers, state.order, 3);
		expect(rows.at(-1)?.note).toBe('first 64 of 10,000 models listed');
	});

	it('a 1.4 MB /v1/models still identifies its server (vLLM), and a small list gets no note', async () => {
		const data = Array.from({length: 12_000}, (_, i) => ({id: `org/model-${i}`, object: 'model', created: 1, owned_by: 'vllm', root: `org/model-${i}`, max_model_len: 32768}));
		const big = JSON.stringify({object: 'list', data});
		expect(big.length).toBeGreaterThan(1.4e6);
		const url = await serve((req, res) => {
			if (req.url === '/v1/models') res.writeHead(200, {'content-type': 'application/json'}).end(big);
			else res.writeHead(404).end();
		});
		const fp = await fingerprint(url, {timeoutMs: 30_000});
		expect(fp.identity?.engine).toBe('vllm');
		const poll = await pollServer('vllm', {url, timeoutMs: 30_000, checkIdentity: false});
		expect(poll.ok && poll.listed).toEqual({total: 12_000, atLeast: false});

		const small = await serve((_req, res) => res.writeHead(200).end(JSON.stringify({object: 'list', data: data.slice(0, 3)})));
		const p2 = await pollServer('vllm', {url: small, timeoutMs: 30_000, checkIdentity: false});
		expect(p2.ok && p2.models?.length).toBe(3);
		expect(p2.ok && p2.listed).toBeUndefined();
	});

	it('a 100 MB /api/tags is not read whole: reading stops at the cap, what fits is kept, the count is a lower bound', async () => {
		const item = JSON.stringify({name: 'x:latest', model: 'x:latest', size: 1, digest: 'd'.repeat(64), details: {format: 'gguf'}});
		const total = 100 * (1 << 20);
		let sent = 0;
		let closedEarly = false as boolean;
		const url = await serve((_req, res) => {
			res.writeHead(200, {'content-type': 'application/json'});
			res.on('close', () => {
				closedEarly = sent < total;
			});
			res.write('{"models":[');
			const chunk = Array.from({length: 500}, () => item).join(',');
			const pump = () => {
				while (sent < total) {
					const ok = res.write(`${sent === 0 ? '' : ','}${chunk}`);
					sent += chunk.length + 1;
					if (!ok) return void res.once('drain', pump);
				}
				res.end(']}');
			};
			pump();
		});
		const r = (await httpGet(`${url}/api/tags`, {...SLOW, list: {key: 'models', maxItems: 64}})) as HttpAnswer;
		expect(r.truncated).toBe(true);
		expect(r.listTotalAtLeast).toBe(true);
		const perItem = item.length + 1;
		expect(r.listTotal).toBe(Math.floor((LIST_MAX_BYTES - '{"models":['.length) / perItem));
		expect((r.json as {models: unknown[]}).models.length).toBe(64);
		// The server sees the close once its socket does: wait for it (bounded), not a fixed 50 ms.
		for (let i = 0; i < 100 && closedEarly !== true; i++) await new Promise((resolve) => setTimeout(resolve, 20));
		expect(closedEarly).toBe(true);
		expect(sent).toBeLessThan(total / 2);
	});

	it('a body that is not JSON, or not an object, gives no json on a list read', async () => {
		const url = await serve((req, res) => res.writeHead(200).end(req.url === '/a' ? '<html>nope</html>' : '[1,2,3]'));
		const a = (await httpGet(`${url}/a`, {...SLOW, list: {key: 'data', maxItems: 4}})) as HttpAnswer;
		expect(a.json).toBeUndefined();
		expect(a.listTotal).toBeUndefined();
		expect(a.body).toBe('<html>nope</html>');
		const b = (await httpGet(`${url}/b`, {...SLOW, list: {key: 'data', maxItems: 4}})) as HttpAnswer;
		expect(b.json).toBeUndefined();
	});
});
