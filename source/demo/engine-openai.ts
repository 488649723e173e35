/**
 * The demo engine's OpenAI-compatible API, as Ollama serves it: `/v1/models`,
 * `/v1/chat/completions` and `/v1/completions` (server-sent events or one answer, `usage` when
 * asked for), with OpenAI's error shape.
 */
import type http from 'node:http';
import type {DemoContext} from './engine-context.js';
import {generate} from './engine-generate.js';
import {asNumber, asObject, chatMessages, jsonBody, renderChat, type Json} from './engine-http.js';
import {findModel} from './engine-models.js';

export function openAiError(res: http.ServerResponse, status: number, message: string, type: string): void {
	jsonBody(res, status, {error: {message, type, param: null, code: null}});
}

/** `GET /v1/models`. */
export function openAiModels(ctx: DemoContext, res: http.ServerResponse): void {
	const created = Math.floor(Date.parse(ctx.modifiedAt) / 1000);
	jsonBody(res, 200, {object: 'list', data: ctx.models.map((m) => ({id: m.spec.name, object: 'model', created, owned_by: 'library'}))});
}

/** `POST /v1/chat/completions` (`chat`) or `POST /v1/completions`. */
export async function openAiComplete(ctx: DemoContext, res: http.ServerResponse, body: Json, chat: boolean, tReq: bigint): Promise<void> {
	const m = findModel(ctx.models, body.model);
	if (typeof body.model !== 'string' || body.model === '') return openAiError(res, 400, 'model is required', 'invalid_request_error');
	if (!m) return openAiError(res, 404, `model "${body.model}" not found, try pulling it first`, 'not_found_error');
	let rendered: string;
	let userText: string;
	if (chat) {
		const list = chatMessages(body);
		if (list.length === 0) return openAiError(res, 400, 'invalid message format', 'invalid_request_error');
		rendered = renderChat(list);
		userText = [...list].reverse().find((x) => x.role === 'user')?.content ?? '';
	} else {
		const prompt = typeof body.prompt === 'string' ? body.prompt : Array.isArray(body.prompt) && typeof body.prompt[0] === 'string' ? body.prompt[0] : undefined;
		if (prompt === undefined) return openAiError(res, 400, 'invalid prompt', 'invalid_request_error');
		rendered = prompt;
		userText = prompt;
	}
	const stream = body.stream === true;
	const includeUsage = asObject(body.stream_options)?.include_usage === true;
	const maxTokens = asNumber(body.max_completion_tokens) ?? asNumber(body.max_tokens);
	const id = `${chat ? 'chatcmpl' : 'cmpl'}-${ctx.nextId++}`;
	const created = Math.floor(Date.now() / 1000);
	const object = chat ? 'chat.completion.chunk' : 'text_completion';
	const base = (): Json => ({id, object, created, model: m.spec.name, system_fingerprint: 'fp_ollama'});
	const choice = (text: string, finish: string | null): Json =>
		chat ? {index: 0, delta: {role: 'assistant', content: text}, finish_reason: finish} : {text, index: 0, finish_reason: finish};
	if (stream) res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive'});
	const r = await generate(
		ctx,
		{model: m, rendered, userText, numPredict: maxTokens, seed: asNumber(body.seed)},
		(texts) => {
			if (!stream || texts.length === 0 || res.writableEnded || res.destroyed) return;
			res.write(texts.map((t) => `data: ${JSON.stringify({...base(), choices: [choice(t, null)]})}\n\n`).join(''));
		},
		() => res.destroyed,
		tReq,
	);
	if (r.aborted || res.destroyed) return void res.end();
	const usage = {prompt_tokens: r.promptTokens, completion_tokens: r.nGen, total_tokens: r.promptTokens + r.nGen};
	if (stream) {
		let out = `data: ${JSON.stringify({...base(), choices: [choice('', r.doneReason)]})}\n\n`;
		if (includeUsage) out += `data: ${JSON.stringify({...base(), choices: [], usage})}\n\n`;
		out += 'data: [DONE]\n\n';
		res.end(out);
		return;
	}
	jsonBody(res, 200, {
		id,
		object: chat ? 'chat.completion' : 'text_completion',
		created,
		model: m.spec.name,
		system_fingerprint: 'fp_ollama',
		choices: [chat ? {index: 0, message: {role: 'assistant', content: r.text}, finish_reason: r.doneReason} : {text: r.text, index: 0, finish_reason: r.doneReason}],
		usage,
	});
}
