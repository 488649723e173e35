import net from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {performance} from 'node:perf_hooks';
import {ProbeError} from '../../source/probe/client.js';
import {inThreadTransport} from '../../source/probe/transport.js';
import {loadPrompt} from '../../source/probe/prompts.js';
import {runProbe, totalTimeoutFor, type RunProbeOptions} from '../../source/probe/run.js';
import {fixture, ollamaStream, openaiStream, replay, sseEvents, startServer, until, wait, type TestServer} from '../helpers/probe-server.js';

let servers: TestServer[] = [];
afterEach(async () => {
	await Promise.all(servers.map((s) => s.close()));
	servers = [];
});
async function serve(...args: Parameters<typeof startServer>): Promise<TestServer> {
	const s = await startServer(...args);
	servers.push(s);
	return s;
}

const fast = {firstTokenMs: 5000, interTokenMs: 3000};

async function probe(o: Partial<RunProbeOptions> & {target: RunProbeOptions['target']}) {
	return runProbe({prompt: await loadPrompt('code'), maxTokens: 64, timeouts: fast, ...o});
}

async function failure(o: Partial<RunProbeOptions> & {target: RunProbeOptions['target']}): Promise<ProbeError> {
	try {
		await probe(o);
	} catch (e) {
		expect(e).toBeInstanceOf(ProbeError);
		return e as ProbeError;
	}
	throw new Error('probe did not fail');
}

describe('OpenAI-compatible: replaying the real llama.cpp captures', () => {
	it('wall-clocks TTFT and decode tok/s from the stream; n from timings; reported from predicted_per_second', async () => {
		const s = await serve({'POST /v1/chat/completions': replay(sseEvents(fixture('chat-stream.sse')), {firstDelayMs: 120, gapMs: 4})});
		const {result} = await probe({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		expect(result.protocol).toBe('openai-chat');
		expect(result.ttftMs).toBeGreaterThanOrEqual(115);
		expect(result.ttftMs).toBeLessThan(1000);
		expect(result.completionTokens).toBe(64);
		// 63 gaps of ≥ 4 ms → at most ~250 tok/s
		expect(result.decodeTps).toBeLessThanOrEqual(63 / 0.252 + 1);
		expect(result.decodeTps).toBeGreaterThan(20);
		expect(result.reportedTps).toBeCloseTo(66.5676, 3);
		expect(result.tokensPerPass).toBe(1);
		expect(result.promptTokens).toBe(40);
		expect(result.cachedTokens).toBe(0);
		const req = JSON.parse(s.requests[0]!.body) as Record<string, unknown>;
		expect(req).toMatchObject({model: 'm', stream: true, stream_options: {include_usage: true}, max_tokens: 64, temperature: 0, seed: 42});
	});

	it('speculative capture: tokens per pass 4.85, acceptance 0.505; disagree flags a >5 % gap', async () => {
		const s = await serve({'POST /v1/chat/completions': replay(sseEvents(fixture('spec-chat-stream.sse')), {gapMs: 1})});
		const {result} = await probe({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		expect(result.tokensPerPass!.toFixed(2)).toBe('4.85');
		expect(result.acceptance!.toFixed(3)).toBe('0.505');
		// replayed at ~1 ms gaps the wall rate is far above the captured 51.7 tok/s
		expect(result.disagree).toBe(true);
	});

	it('cache reuse capture: cached tokens from timings.cache_n', async () => {
		const s = await serve({'POST /v1/chat/completions': replay(sseEvents(fixture('chat-stream-repeat.sse')))});
		const {result} = await probe({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		expect(result).toMatchObject({cachedTokens: 39, promptTokens: 40});
	});

	it('lithos-metal: X-Lithos-Metal-Decode-Steps header → completion tokens ÷ steps', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(40, {headers: {'X-Lithos-Metal-Decode-Steps': '10'}})});
		const {result} = await probe({target: {url: s.url, engine: 'lithos', model: 'm'}});
		expect(result).toMatchObject({completionTokens: 40, tokensPerPass: 4, passes: 10, tokensPerPassSource: 'lithos header'});
		expect(result.reportedTps).toBeUndefined();
	});

	it('LM Studio: stats on /api/v0', async () => {
		const s = await serve({
			'POST /api/v0/chat/completions': openaiStream(30, {final: {stats: {tokens_per_second: 50, time_to_first_token: 0.1, accepted_draft_tokens_count: 20, total_draft_tokens_count: 25}}}),
		});
		const {result} = await probe({target: {url: s.url, engine: 'lmstudio', model: 'm'}});
		expect(result).toMatchObject({reportedTps: 50, acceptance: 0.8, tokensPerPass: 3});
	});

	it('no usage in the stream: decode tok/s is unknown, never the chunk count', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(20, {usage: null})});
		const {result} = await probe({target: {url: s.url, engine: 'vllm', model: 'm'}});
		expect(result.ttftMs).toBeDefined();
		expect(result.decodeTps).toBeUndefined();
		expect(result.completionTokens).toBeUndefined();
	});

	it('picks the first model from /v1/models when none is named', async () => {
		const s = await serve({
			'GET /v1/models': (_q, res) => res.end(JSON.stringify({object: 'list', data: [{id: 'qwen3.8-27b', object: 'model'}]})),
			'POST /v1/chat/completions': openaiStream(5),
		});
		const {result} = await probe({target: {url: s.url, engine: 'vllm'}});
		expect(result.model).toBe('qwen3.8-27b');
		expect(JSON.parse(s.requests.at(-1)!.body)).toMatchObject({model: 'qwen3.8-27b'});
	});
});

describe('Ollama native', () => {
	it('NDJSON with ns durations; the model loaded in /api/ps; tokens per pass from the log callback in the probe window', async () => {
		const s = await serve({
			'GET /api/ps': (_q, res) => res.end(JSON.stringify({models: [{name: 'qwen3.8:27b-mlx', model: 'qwen3.8:27b-mlx'}]})),
			'POST /api/generate': ollamaStream(20, {firstDelayMs: 50, gapMs: 5, metrics: {eval_count: 20, eval_duration: 100_000_000, prompt_eval_count: 26, prompt_eval_duration: 130_079_000}}),
		});
		let windowSeen: [number, number] | undefined;
		let calls = 0;
		const before = Date.now();
		const {result} = await probe({
			target: {url: s.url, engine: 'ollama'},
			logWaitMs: 1000,
			logFigures: ({fromMs: from, toMs: to}) => {
				windowSeen = [from, to];
				// the log line arrives a little after the stream ends
				return ++calls < 3 ? undefined : {passes: 8, drafted: 16, accepted: 12};
			},
		});
		expect(result.protocol).toBe('ollama');
		expect(result.model).toBe('qwen3.8:27b-mlx');
		expect(result.reportedTps).toBeCloseTo(200, 6);
		expect(result.completionTokens).toBe(20);
		expect(result.tokensPerPass).toBe(2.5);
		expect(result.acceptance).toBe(0.75);
		expect(result.prefillTps).toBeUndefined();
		expect(result.promptTokens).toBe(26);
		expect(result.ttftMs).toBeGreaterThanOrEqual(45);
		expect(windowSeen![0]).toBeGreaterThanOrEqual(before);
		expect(windowSeen![1]).toBeGreaterThanOrEqual(windowSeen![0]);
		const req = JSON.parse(s.requests.at(-1)!.body) as Record<string, unknown>;
		expect(req).toMatchObject({model: 'qwen3.8:27b-mlx', stream: true, options: {num_predict: 64, temperature: 0, seed: 42}});
	});

	it('404 on the native API → tries the OpenAI one automatically', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(5)});
		const {result, plan} = await probe({target: {url: s.url, engine: 'ollama', model: 'm'}});
		expect(plan.path).toBe('/v1/chat/completions');
		expect(result.protocol).toBe('openai-chat');
		expect(s.requests.map((r) => r.path)).toEqual(['/api/generate', '/v1/chat/completions']);
	});

	it('404 on OpenAI → falls through to Ollama native', async () => {
		const s = await serve({'POST /api/generate': ollamaStream(5, {metrics: {eval_duration: 1e7}})});
		const {result} = await probe({target: {url: s.url, engine: 'openai', model: 'm'}});
		expect(result.protocol).toBe('ollama');
	});

	it('404 "model not found" is not a protocol problem', async () => {
		const s = await serve({
			'POST /api/generate': (_q, res) => {
				res.writeHead(404, {'content-type': 'application/json'});
				res.end('{"error":"model \'nope\' not found"}');
			},
		});
		const e = await failure({target: {url: s.url, engine: 'ollama', model: 'nope'}});
		expect(e.message).toBe("HTTP 404: model 'nope' not found");
		expect(s.requests).toHaveLength(1);
	});

	it('404 everywhere: one line', async () => {
		const s = await serve({});
		const e = await failure({target: {url: s.url, engine: 'ollama', model: 'm'}});
		expect(e.message).toMatch(/^HTTP 404 on \/api\/generate, \/v1\/chat\/completions: no known generation API/);
	});
});

describe('one-at-a-time servers: HTTP 429', () => {
	it('busy then OK: retried with a status line, not counted as a result', async () => {
		let n = 0;
		const ok = openaiStream(6);
		const s = await serve({
			'POST /v1/chat/completions': (req, res, body) => {
				if (n++ < 2) {
					res.writeHead(429, {'content-type': 'application/json'});
					res.end('{"detail":{"error":"model_busy","message":"a generation is already running"}}');
					return;
				}
				return ok(req, res, body);
			},
		});
		const statuses: string[] = [];
		const {result} = await probe({target: {url: s.url, engine: 'lithos', model: 'm'}, busyRetryBaseMs: 20, busyTimeoutMs: 5000, onProgress: (p) => p.status && statuses.push(p.status)});
		expect(result.completionTokens).toBe(6);
		expect(result.busyRetries).toBe(2);
		expect(statuses[0]).toMatch(/^server busy \(HTTP 429\), retrying in \d+ s$/);
		expect(n).toBe(3);
	});

	it('busy past the limit: fails with the limit in the reason', async () => {
		const s = await serve({
			'POST /v1/chat/completions': (_q, res) => {
				res.writeHead(429);
				res.end();
			},
		});
		const e = await failure({target: {url: s.url, engine: 'llamacpp', model: 'm'}, busyRetryBaseMs: 20, busyTimeoutMs: 150});
		expect(e.message).toBe('server busy (HTTP 429) for 150 ms');
		expect(s.requests.length).toBeGreaterThan(1);
	});
});

describe('failures: one line each, never a crash', () => {
	it('connection refused', async () => {
		const srv = net.createServer();
		await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
		const port = (srv.address() as net.AddressInfo).port;
		await new Promise<void>((r) => srv.close(() => r()));
		const e = await failure({target: {url: `http://127.0.0.1:${port}`, engine: 'llamacpp', model: 'm'}});
		expect(e.message).toBe(`connection refused by 127.0.0.1:${port} (is the server running?)`);
	});

	it('DNS failure', async () => {
		const e = await failure({target: {url: 'http://no-such-host.invalid:8080', engine: 'llamacpp', model: 'm'}});
		expect(e.message).toMatch(/cannot resolve host no-such-host\.invalid \(DNS failure\)|request to no-such-host\.invalid:8080 failed/);
	});

	it('TLS error (https to a plain-HTTP server)', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(3)});
		const e = await failure({target: {url: s.url.replace('http:', 'https:'), engine: 'llamacpp', model: 'm'}});
		expect(e.message).toMatch(/^TLS error talking to 127\.0\.0\.1:\d+/);
	});

	it('401: says the API key is missing and how to give it', async () => {
		const s = await serve({
			'POST /v1/chat/completions': (_q, res) => {
				res.writeHead(401, {'content-type': 'application/json'});
				res.end('{"error":{"message":"Invalid API Key","type":"authentication_error"}}');
			},
		});
		const e = await failure({target: {url: s.url, engine: 'lithos', model: 'm'}});
		expect(e.message).toBe('HTTP 401 unauthorized: API key missing: pass --api-key or set INFERTOP_API_KEY or LITHOS_METAL_API_KEY (Invalid API Key)');
	});

	it('the API key goes to this host as a bearer token', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(3)});
		await probe({target: {url: s.url, engine: 'lithos', model: 'm', apiKey: 'sekret'}});
		expect(s.requests[0]!.headers.authorization).toBe('Bearer sekret');
	});

	it('a redirect is not followed (the key never leaves the host)', async () => {
		const other = await serve({'POST /v1/chat/completions': openaiStream(3)});
		const s = await serve({
			'POST /v1/chat/completions': (_q, res) => {
				res.writeHead(307, {location: `${other.url}/v1/chat/completions`});
				res.end();
			},
		});
		const e = await failure({target: {url: s.url, engine: 'lithos', model: 'm', apiKey: 'sekret'}});
		expect(e.message).toMatch(/^HTTP 307 redirect to http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: not followed/);
		expect(other.requests).toHaveLength(0);
	});

	it('500 with the server message', async () => {
		const s = await serve({
			'POST /v1/chat/completions': (_q, res) => {
				res.writeHead(500, {'content-type': 'application/json'});
				res.end('{"error":{"code":500,"message":"[json.exception.parse_error.101] parse error","type":"server_error"}}');
			},
		});
		const e = await failure({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		expect(e.message).toBe('HTTP 500: [json.exception.parse_error.101] parse error');
	});

	it('a body that is not SSE / NDJSON', async () => {
		const html = (_q: unknown, res: import('node:http').ServerResponse) => {
			res.writeHead(200, {'content-type': 'text/html'});
			res.end('<html><body>Welcome to nginx</body></html>\n');
		};
		const s = await serve({'POST /v1/chat/completions': html, 'POST /api/generate': html});
		expect((await failure({target: {url: s.url, engine: 'llamacpp', model: 'm'}})).message).toBe('reply is not SSE (content-type text/html): "<html><body>Welcome to nginx</body></html>"');
		expect((await failure({target: {url: s.url, engine: 'ollama', model: 'm'}})).message).toMatch(/^reply is not NDJSON \(content-type text\/html\)/);
	});

	it('stalls before the first token (first-token timeout)', async () => {
		const s = await serve({
			'POST /v1/chat/completions': (_q, res) => {
				res.writeHead(200, {'content-type': 'text/event-stream'});
				res.flushHeaders();
			},
		});
		const e = await failure({target: {url: s.url, engine: 'llamacpp', model: 'm'}, timeouts: {firstTokenMs: 150, interTokenMs: 100}});
		expect(e.message).toBe('no token within 150 ms (server stalled before the first token)');
	});

	it('stalls mid-stream (inter-token timeout)', async () => {
		const s = await serve({
			'POST /v1/chat/completions': async (_q, res) => {
				res.writeHead(200, {'content-type': 'text/event-stream'});
				for (let i = 0; i < 3; i++) res.write(`data: {"choices":[{"delta":{"content":"x${i}"}}]}\n\n`);
				await wait(2000);
				res.end();
			},
		});
		const e = await failure({target: {url: s.url, engine: 'llamacpp', model: 'm'}, timeouts: {firstTokenMs: 1000, interTokenMs: 120}});
		expect(e.message).toBe('stream stalled: no token for 120 ms after 3 tokens');
	});

	it('server killed mid-stream', async () => {
		const s = await serve({
			'POST /api/generate': async (_q, res) => {
				res.writeHead(200, {'content-type': 'application/x-ndjson'});
				for (let i = 0; i < 4; i++) res.write(`{"response":"t${i}","done":false}\n`);
				await wait(30);
				res.socket?.destroy();
			},
		});
		const e = await failure({target: {url: s.url, engine: 'ollama', model: 'm'}});
		expect(e.message).toMatch(/^server closed the stream after 4 tokens/);
	});

	it('a stream that ends cleanly without a done line is reported, not scored', async () => {
		const s = await serve({
			'POST /api/generate': (_q, res) => {
				res.writeHead(200, {'content-type': 'application/x-ndjson'});
				res.end('{"response":"a","done":false}\n');
			},
		});
		const e = await failure({target: {url: s.url, engine: 'ollama', model: 'm'}});
		expect(e.message).toBe('server closed the stream after 1 tokens without finishing (killed mid-stream?)');
	});

	it('a stream with zero tokens', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(0)});
		const e = await failure({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		expect(e.message).toBe('the server streamed no tokens');
	});

	it('an error inside the stream', async () => {
		const s = await serve({
			'POST /api/generate': (_q, res) => {
				res.writeHead(200, {'content-type': 'application/x-ndjson'});
				res.end('{"error":"model runner has unexpectedly stopped, this may be due to resource limitations"}\n');
			},
		});
		const e = await failure({target: {url: s.url, engine: 'ollama', model: 'm'}});
		expect(e.message).toBe('server error in stream: model runner has unexpectedly stopped, this may be due to resource limitations');
	});

	it('cancel aborts the stream', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(200, {gapMs: 10})});
		const ac = new AbortController();
		const p = probe({target: {url: s.url, engine: 'llamacpp', model: 'm'}, signal: ac.signal, onProgress: (x) => x.tokens >= 3 && ac.abort()});
		await expect(p).rejects.toMatchObject({kind: 'cancelled', message: 'probe cancelled'});
	});
});

describe('in-thread transport (fallback when no worker starts): same behaviour', () => {
	const t = {transport: inThreadTransport};
	it('replays a capture', async () => {
		const s = await serve({'POST /v1/chat/completions': replay(sseEvents(fixture('spec-chat-stream.sse')), {firstDelayMs: 60, gapMs: 1})});
		const {result} = await probe({...t, target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		expect(result.tokensPerPass!.toFixed(2)).toBe('4.85');
		expect(result.ttftMs).toBeGreaterThanOrEqual(55);
	});
	it('killed mid-stream, stall, refused, cancel', async () => {
		const s = await serve({
			'POST /api/generate': async (_q, res) => {
				res.writeHead(200, {'content-type': 'application/x-ndjson'});
				for (let i = 0; i < 4; i++) res.write(`{"response":"t${i}","done":false}\n`);
				await wait(30);
				res.socket?.destroy();
			},
			'POST /v1/chat/completions': async (_q, res) => {
				res.writeHead(200, {'content-type': 'text/event-stream'});
				res.write('data: {"choices":[{"delta":{"content":"x"}}]}\n\n');
				await wait(2000);
				res.end();
			},
		});
		expect((await failure({...t, target: {url: s.url, engine: 'ollama', model: 'm'}})).message).toMatch(/^server closed the stream after 4 tokens/);
		expect((await failure({...t, target: {url: s.url, engine: 'llamacpp', model: 'm'}, timeouts: {firstTokenMs: 1000, interTokenMs: 100}})).message).toBe('stream stalled: no token for 100 ms after 1 tokens');
		const ac = new AbortController();
		const p = probe({...t, target: {url: s.url, engine: 'llamacpp', model: 'm'}, signal: ac.signal, onProgress: (x) => x.tokens >= 1 && ac.abort()});
		await expect(p).rejects.toMatchObject({kind: 'cancelled'});
	});
});

describe('worker transport', () => {
	it('stamps chunks in the worker: a busy main thread does not delay the first-token time', async () => {
		let firstWritten = false;
		const chunk = (c: string) => `data: ${JSON.stringify({choices: [{delta: {content: c}}]})}\n\n`;
		const s = await serve({
			'POST /v1/chat/completions': async (_q, res) => {
				res.writeHead(200, {'content-type': 'text/event-stream'});
				res.flushHeaders();
				await wait(40);
				res.write(chunk('a'));
				// http corks the socket until the next tick: let the chunk leave first.
				await new Promise((r) => setImmediate(r));
				firstWritten = true;
				await wait(5);
				res.write(chunk('b'));
				res.end(`data: ${JSON.stringify({choices: [], usage: {completion_tokens: 2}})}\n\ndata: [DONE]\n\n`);
			},
		});
		const p = probe({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		await until(() => firstWritten);
		// A long render on this thread just as the first token arrives.
		const end = performance.now() + 300;
		while (performance.now() < end) {
			/* busy */
		}
		const {result} = await p;
		expect(result.ttftMs).toBeGreaterThanOrEqual(35);
		expect(result.ttftMs).toBeLessThan(250);
	});
});

describe('an answer whose numbers contradict each other (issue 11 item 5)', () => {
	it('cached above prompt in the usage: the contradicting figure is dropped with its reason, the wall clock kept', async () => {
		const s = await serve({'POST /v1/chat/completions': openaiStream(12, {gapMs: 1, usage: {prompt_tokens: 106, completion_tokens: 12, prompt_tokens_details: {cached_tokens: 172}}})});
		const {result} = await probe({target: {url: s.url, engine: 'llamacpp', model: 'm'}});
		// Checked where the answer enters (protocols.ts): the contradicting figure is dropped, with its reason.
		expect(result.inconsistent).toEqual(['cached 172 > prompt 106 tokens']);
		expect(result.cachedTokens).toBeUndefined();
		expect(result.ttftMs).toBeGreaterThan(0); // wall-clocked by infertop itself, still true
	});

	it('no log request matches: tokens per pass is -- with the reason', async () => {
		const s = await serve({'POST /api/generate': ollamaStream(20, {gapMs: 1, metrics: {eval_count: 20, eval_duration: 100_000_000, prompt_eval_count: 26}})});
		const {result} = await probe({target: {url: s.url, engine: 'ollama', model: 'qwen3.8:27b-mlx'}, logWaitMs: 50, logFigures: () => ({reason: 'no log line for this request'})});
		expect(result.tokensPerPass).toBeUndefined();
		expect(result.logNote).toBe('no log line for this request');
	});
});

describe('stall and overall limits (issue 14: keep-alives never keep a probe alive)', () => {
	/** `n` tokens, then `keepAlive` every 20 ms until the client goes away. */
	const trickle = (ctype: string, token: (i: number) => string, keepAlive: string, n = 3) => async (_q: unknown, res: import('node:http').ServerResponse) => {
		res.writeHead(200, {'content-type': ctype});
		res.flushHeaders();
		for (let i = 0; i < n; i++) res.write(token(i));
		while (!res.destroyed) {
			await wait(20);
			if (!res.destroyed) res.write(keepAlive);
		}
	};
	const ndjson = trickle('application/x-ndjson', (i) => JSON.stringify({model: 'm', response: `t${i}`, done: false}) + '\n', JSON.stringify({model: 'm', response: '', done: false}) + '\n');
	const sse = trickle('text/event-stream', (i) => `data: ${JSON.stringify({choices: [{index: 0, delta: {content: `t${i}`}}]})}\n\n`, ': keep-alive\n\n');

	it('empty NDJSON chunks do not re-arm the stall limit: it is between tokens', async () => {
		const s = await serve({'POST /api/generate': ndjson});
		const e = await failure({target: {url: s.url, engine: 'ollama', model: 'm'}, timeouts: {firstTokenMs: 5000, interTokenMs: 200}});
		expect(e.message).toBe('stream stalled: no token for 200 ms after 3 tokens');
	});

	it('SSE comments (: keep-alive) do not re-arm it either', async () => {
		const s = await serve({'POST /v1/chat/completions': sse});
		const e = await failure({target: {url: s.url, engine: 'vllm', model: 'm'}, timeouts: {firstTokenMs: 5000, interTokenMs: 200}});
		expect(e.message).toBe('stream stalled: no token for 200 ms after 3 tokens');
	});

	it('keep-alives before the first token do not re-arm the first-token limit', async () => {
		const s = await serve({'POST /v1/chat/completions': trickle('text/event-stream', () => '', ': keep-alive\n\n', 0)});
		const e = await failure({target: {url: s.url, engine: 'vllm', model: 'm'}, timeouts: {firstTokenMs: 200, interTokenMs: 5000}});
		expect(e.message).toBe('no token within 200 ms (server stalled before the first token)');
	});

	it('the overall limit ends a stream that keeps sending tokens', async () => {
		const s = await serve({
			'POST /v1/chat/completions': trickle('text/event-stream', () => '', `data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'x'}}]})}\n\n`, 0),
		});
		const progress: number[] = [];
		const e = await failure({target: {url: s.url, engine: 'vllm', model: 'm'}, totalTimeoutMs: 400, onProgress: (p) => p.timeoutMs !== undefined && progress.push(p.timeoutMs)});
		expect(e.message).toBe('probe timed out after 400 ms (the overall limit, --timeout)');
		expect(progress.length).toBeGreaterThan(0);
		expect(new Set(progress)).toEqual(new Set([400]));
	});

	it('the overall limit covers busy retries too', async () => {
		const s = await serve({
			'POST /v1/chat/completions': (_q, res) => {
				res.writeHead(429, {'retry-after': '0'});
				res.end('{"error":{"message":"model_busy"}}');
			},
		});
		const e = await failure({target: {url: s.url, engine: 'lithos', model: 'm'}, totalTimeoutMs: 300, busyTimeoutMs: 60_000, busyRetryBaseMs: 50});
		expect(e.message).toBe('probe timed out after 300 ms (the overall limit, --timeout)');
	});

	it('the default overall limit: 5 min, 10 min for the long prompt (its first token alone may take 5); --timeout wins', () => {
		expect(totalTimeoutFor('code')).toBe(300_000);
		expect(totalTimeoutFor('long')).toBe(600_000);
		expect(totalTimeoutFor('long', 42_000)).toBe(42_000);
	});

	it('cancel still reads as cancelled, not as a timeout', async () => {
		const s = await serve({'POST /api/generate': ndjson});
		const ac = new AbortController();
		const p = probe({target: {url: s.url, engine: 'ollama', model: 'm'}, signal: ac.signal, totalTimeoutMs: 60_000, onProgress: (x) => x.tokens >= 3 && ac.abort()});
		await expect(p).rejects.toMatchObject({kind: 'cancelled'});
	});
});
