/**
 * The demo's simulated clients (its agent and its background traffic) POST through node:http, not
 * fetch: with `--demo` they run inside infertop, and fetch's first call loads undici (~19 MB of RSS
 * for the whole run, sources/http-get.ts), which would make `--demo` report a cost a real monitor
 * does not have. The answer is an IncomingMessage: its status, and its body as an async iterable.
 */
import http from 'node:http';

/** POST `body` (JSON) to `url`; resolves with the answer's head, rejects on a network error or an abort. */
export function postJson(url: string, body: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<http.IncomingMessage> {
	return new Promise((resolve, reject) => {
		const req = http.request(url, {method: 'POST', signal, headers: {'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers}});
		req.once('response', resolve);
		req.once('error', reject);
		req.end(body);
	});
}

/** Read an answer to its end, discarding it. */
export async function drain(res: http.IncomingMessage): Promise<void> {
	for await (const _ of res) void _;
}
