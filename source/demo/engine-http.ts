/**
 * The demo engine's HTTP helpers: answers with a body, the request's body read to a cap, and the
 * unchecked JSON a client sends read as what it may be.
 */
import type http from 'node:http';

export type Json = Record<string, unknown>;

export function jsonBody(res: http.ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text)});
	res.end(text);
}

export function textBody(res: http.ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
	res.writeHead(status, {'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text)});
	res.end(text);
}

export async function readBody(req: http.IncomingMessage, limit = 4 * 1024 * 1024): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		const b = chunk as Buffer;
		size += b.length;
		if (size > limit) throw new Error('request body too large');
		chunks.push(b);
	}
	return Buffer.concat(chunks).toString('utf8');
}

export function asObject(v: unknown): Json | undefined {
	return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function asNumber(v: unknown): number | undefined {
	return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function messageText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return content
			.map((p) => {
				const o = asObject(p);
				return o && typeof o.text === 'string' ? o.text : '';
			})
			.join('');
	}
	return '';
}

/** A chat request's messages, each with a role (`user` when it has none) and its text. */
export function chatMessages(body: Json): Array<{role: string; content: string}> {
	const msgs = Array.isArray(body.messages) ? body.messages.map(asObject).filter((x): x is Json => x !== undefined) : [];
	return msgs.map((x) => ({role: typeof x.role === 'string' ? x.role : 'user', content: messageText(x.content)}));
}

/** Qwen's ChatML template, as the model's template renders it. */
export function renderChat(messages: ReadonlyArray<{role: string; content: string}>): string {
	return messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
}
