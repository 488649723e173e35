/**
 * Scripted local servers for the probe tests: node:http on 127.0.0.1, port 0.
 */
import {readFileSync} from 'node:fs';
import http from 'node:http';
import type {AddressInfo} from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => unknown;

export interface TestServer {
	readonly url: string;
	readonly requests: {method: string; path: string; headers: http.IncomingHttpHeaders; body: string}[];
	close(): Promise<void>;
}

export async function startServer(routes: Record<string, Handler>, fallback?: Handler): Promise<TestServer> {
	const requests: TestServer['requests'] = [];
	const sockets = new Set<import('node:net').Socket>();
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const body = Buffer.concat(chunks).toString('utf8');
			const path = (req.url ?? '/').split('?')[0]!;
			requests.push({method: req.method ?? 'GET', path, headers: req.headers, body});
			const h = routes[`${req.method} ${path}`] ?? routes[path] ?? fallback;
			if (!h) {
				res.writeHead(404, {'content-type': 'application/json'});
				res.end('{"error":{"message":"File Not Found","type":"not_found_error","code":404}}');
				return;
			}
			void Promise.resolve(h(req, res, body)).catch(() => res.destroy());
		});
	});
	server.on('connection', (s) => {
		sockets.add(s);
		s.on('close', () => sockets.delete(s));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve());
			}),
	};
}

export const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Poll a predicate (no fixed sleeps). */
export async function until(pred: () => boolean, deadlineMs = 5000): Promise<void> {
	const end = Date.now() + deadlineMs;
	while (!pred()) {
		if (Date.now() > end) throw new Error('condition not met in time');
		await wait(5);
	}
}

export function fixture(name: string): string {
	return readFileSync(new URL(`../fixtures/probe/${name}`, import.meta.url), 'utf8');
}

/** The SSE events of a capture, each with its trailing blank line. */
export function sseEvents(text: string): string[] {
	return text
		.split(/\n\n/)
		.filter((e) => e.trim() !== '')
		.map((e) => `${e}\n\n`);
}

/** Replay events: `firstDelayMs` before the first event carrying content, `gapMs` between the rest. */
export function replay(events: string[], o: {firstDelayMs?: number; gapMs?: number; headers?: Record<string, string>; status?: number} = {}): Handler {
	return async (_req, res) => {
		res.writeHead(o.status ?? 200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...o.headers});
		res.flushHeaders();
		let first = true;
		for (const e of events) {
			if (first && /"content":"[^"]/.test(e)) {
				await wait(o.firstDelayMs ?? 0);
				first = false;
			} else if (!first) await wait(o.gapMs ?? 0);
			if (res.destroyed) return;
			res.write(e);
		}
		res.end();
	};
}

/** An Ollama /api/generate stream: n tokens at gapMs, done line with the given metrics. */
export function ollamaStream(n: number, o: {firstDelayMs?: number; gapMs?: number; metrics?: Record<string, unknown>} = {}): Handler {
	return async (_req, res) => {
		res.writeHead(200, {'content-type': 'application/x-ndjson'});
		res.flushHeaders();
		await wait(o.firstDelayMs ?? 0);
		for (let i = 0; i < n; i++) {
			if (i > 0) await wait(o.gapMs ?? 0);
			if (res.destroyed) return;
			res.write(JSON.stringify({model: 'qwen3.8:27b-mlx', created_at: new Date().toISOString(), response: `t${i} `, done: false}) + '\n');
		}
		res.end(
			JSON.stringify({
				model: 'qwen3.8:27b-mlx',
				created_at: new Date().toISOString(),
				response: '',
				done: true,
				done_reason: 'length',
				eval_count: n,
				...o.metrics,
			}) + '\n',
		);
	};
}

/** An OpenAI chat stream of n tokens plus a final usage chunk (and optional extra fields). */
export function openaiStream(n: number, o: {gapMs?: number; firstDelayMs?: number; usage?: Record<string, unknown> | null; final?: Record<string, unknown>; headers?: Record<string, string>} = {}): Handler {
	const events: string[] = [];
	events.push(`data: ${JSON.stringify({choices: [{index: 0, delta: {role: 'assistant', content: ''}}]})}\n\n`);
	for (let i = 0; i < n; i++) events.push(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: `w${i} `}, finish_reason: null}]})}\n\n`);
	events.push(`data: ${JSON.stringify({choices: [{index: 0, delta: {}, finish_reason: 'length'}]})}\n\n`);
	if (o.usage !== null) events.push(`data: ${JSON.stringify({choices: [], usage: o.usage ?? {prompt_tokens: 20, completion_tokens: n, total_tokens: 20 + n}, ...o.final})}\n\n`);
	events.push('data: [DONE]\n\n');
	return replay(events, {gapMs: o.gapMs, firstDelayMs: o.firstDelayMs, headers: o.headers});
}
