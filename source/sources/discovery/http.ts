/**
 * A small GET with a hard deadline (connect + headers + body) for discovery and pollers.
 * Never throws: a dead, refusing or silent server gives `{error}` within `timeoutMs`.
 */
import {setMaxListeners} from 'node:events';

/** What one GET answered (status, lower-cased headers, body text capped). */
export interface HttpAnswer {
	readonly status: number;
	readonly headers: Readonly<Record<string, string>>;
	readonly body: string;
}

export interface HttpFailure {
	readonly error: string;
}

export type HttpResult = HttpAnswer | HttpFailure;

export interface GetOptions {
	readonly timeoutMs?: number;
	/** Sent as `Authorization: Bearer …` to this URL only. */
	readonly apiKey?: string;
	/** Body bytes kept; the rest is dropped (and the request aborted). */
	readonly maxBytes?: number;
	/** Abort from outside (collector stopped). */
	readonly signal?: AbortSignal;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 800;
const DEFAULT_MAX_BYTES = 1 << 20;

export function isAnswer(r: HttpResult | undefined): r is HttpAnswer {
	return r !== undefined && 'status' in r;
}

function reason(error: unknown, timedOut: boolean, timeoutMs: number): string {
	if (timedOut) return `no answer within ${timeoutMs} ms`;
	const e = error as {cause?: {code?: string; message?: string}; message?: string; name?: string};
	const code = e?.cause?.code;
	if (code === 'ECONNREFUSED') return 'connection refused';
	if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
	if (code) return code;
	if (e?.name === 'AbortError') return 'aborted';
	return (e?.cause?.message ?? e?.message ?? String(error)).slice(0, 120);
}

/**
 * An AbortController whose signal many requests share (a discovery round, a poller): each request
 * listens on it while in flight, so Node's default limit of 10 listeners would print a warning on
 * stderr (over the screen) for a dozen parallel probes. Listeners are removed when requests end.
 */
export function sharedAbortController(): AbortController {
	const controller = new AbortController();
	setMaxListeners(1000, controller.signal);
	return controller;
}

/** GET `url`; resolves within about `timeoutMs` whatever the server does. */
export async function httpGet(url: string, options: GetOptions = {}): Promise<HttpResult> {
	const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const controller = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort();
	}, timeoutMs);
	const onOuterAbort = () => controller.abort();
	options.signal?.addEventListener('abort', onOuterAbort, {once: true});
	try {
		const headers: Record<string, string> = {accept: 'application/json, text/plain;q=0.9, */*;q=0.1'};
		if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
		const response = await fetch(url, {signal: controller.signal, headers, redirect: 'manual'});
		const out: Record<string, string> = {};
		response.headers.forEach((value, key) => {
			out[key.toLowerCase()] = value;
		});
		let body = '';
		if (response.body) {
			const reader = response.body.getReader();
			const decoder = new TextDecoder();
			let bytes = 0;
			for (;;) {
				const {done, value} = await reader.read();
				if (done) break;
				bytes += value.byteLength;
				body += decoder.decode(value, {stream: true});
				if (bytes >= maxBytes) {
					controller.abort();
					break;
				}
			}
			body += decoder.decode();
		}
		return {status: response.status, headers: out, body};
	} catch (error) {
		return {error: reason(error, timedOut, timeoutMs)};
	} finally {
		clearTimeout(timer);
		options.signal?.removeEventListener('abort', onOuterAbort);
	}
}

/** Parse a body as JSON (undefined when it is not JSON); is it a plain object: pure, shared with the engine descriptors. */
export {parseJsonText as parseJson} from '../../engines/fingerprint.js';
export {isRecord} from '../../engines/descriptor.js';
