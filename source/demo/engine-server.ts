/**
 * The demo engine's HTTP server: each request routed to the Ollama or the OpenAI-compatible API,
 * its `[GIN]` line written when its answer ends, and, for the `session` agent, its try recorded
 * as the engine saw it (arrival, end, status).
 */
import http from 'node:http';
import type {DemoTry} from './agent.js';
import type {DemoContext} from './engine-context.js';
import {asObject, jsonBody, readBody, textBody, type Json} from './engine-http.js';
import {ollamaGenerate, ollamaGet, ollamaShow} from './engine-ollama.js';
import {openAiComplete, openAiError, openAiModels} from './engine-openai.js';
import {nowNs, StoppedError} from './engine-schedule.js';
import {ginLine} from './logfmt.js';

const POSTS = ['/api/show', '/api/generate', '/api/chat', '/v1/chat/completions', '/v1/completions'];

async function route(ctx: DemoContext, req: http.IncomingMessage, res: http.ServerResponse, tReq: bigint): Promise<void> {
	const url = new URL(req.url ?? '/', 'http://localhost');
	const method = req.method ?? 'GET';
	const p = url.pathname;
	const getLike = method === 'GET' || method === 'HEAD';
	if (getLike && ollamaGet(ctx, p, res)) return;
	if (p === '/v1/models' && getLike) return openAiModels(ctx, res);
	if (!POSTS.includes(p) || method !== 'POST') return textBody(res, 404, '404 page not found');
	let body: Json;
	try {
		const raw = await readBody(req);
		const parsed: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
		const o = asObject(parsed);
		if (!o) throw new Error('expected a JSON object');
		body = o;
	} catch (e) {
		const msg = e instanceof Error ? e.message : 'invalid request';
		if (p.startsWith('/v1/')) return openAiError(res, 400, msg, 'invalid_request_error');
		return jsonBody(res, 400, {error: msg});
	}
	if (p === '/api/show') return ollamaShow(ctx, res, body);
	if (p === '/api/generate' || p === '/api/chat') return ollamaGenerate(ctx, req, res, body, p === '/api/chat', tReq);
	return openAiComplete(ctx, res, body, p === '/v1/chat/completions', tReq);
}

/** `session` agent: the try a request is, by its `x-demo-turn` header, added to its turn's trace. */
function recordTry(ctx: DemoContext, req: http.IncomingMessage, tReq: bigint): DemoTry | undefined {
	const turnId = ctx.sessionMode ? req.headers['x-demo-turn'] : undefined;
	if (typeof turnId !== 'string' || turnId.length > 32) return undefined;
	const attempt: DemoTry = {arriveNs: tReq};
	const t = ctx.traces.get(turnId) ?? {id: turnId, side: turnId.startsWith('s'), tries: []};
	t.tries.push(attempt);
	ctx.traces.set(turnId, t);
	ctx.tryOf.set(req, attempt);
	return attempt;
}

export function createDemoServer(ctx: DemoContext): http.Server {
	const server = http.createServer((req, res) => {
		const tReq = nowNs();
		const ip = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
		const attempt = recordTry(ctx, req, tReq);
		let logged = false;
		const gin = (): void => {
			if (logged) return;
			logged = true;
			const end = nowNs();
			if (attempt) {
				attempt.finishNs = end;
				attempt.status = res.statusCode;
			}
			ctx.log.write(ginLine(new Date(), res.statusCode, end - tReq, ip, req.method ?? 'GET', req.url ?? '/'));
		};
		res.on('finish', gin);
		res.on('close', gin);
		void ctx.sched.runTask(async () => {
			try {
				await route(ctx, req, res, tReq);
			} catch (e) {
				if (e instanceof StoppedError) {
					res.destroy();
					return;
				}
				if (!res.headersSent) jsonBody(res, 500, {error: e instanceof Error ? e.message : 'internal error'});
				else res.end();
			}
		});
	});
	server.keepAliveTimeout = 1000;
	return server;
}
