/**
 * One streamed request, wall-clocked in the reader. Global fetch (undici) with an AbortController;
 * every failure becomes a ProbeError with a one-line reason, never a crash.
 */
import {performance} from 'node:perf_hooks';
import {sanitize} from '../util/sanitize.js';
import {OLLAMA_PROTOCOL, type ServerCounts} from '../types/probe.js';
import {passesFromHeaders} from '../engines/index.js';
import {createStreamParser, crossCheck, requestBody, type ProbeRequestSpec, type ProtocolPlan} from './protocols.js';
import {markToken, newClock, type StreamClock} from './timing.js';
import {defaultTransport, type OpenStream, type Transport} from './transport.js';

export type ProbeErrorKind = 'busy' | 'wrong-protocol' | 'cancelled' | 'failed';

export class ProbeError extends Error {
	constructor(
		readonly kind: ProbeErrorKind,
		message: string,
		readonly retryAfterMs?: number,
	) {
		super(message);
		this.name = 'ProbeError';
	}
}

export interface StreamTimeouts {
	/** Request sent → first content token (includes model load and prefill). */
	readonly firstTokenMs: number;
	/**
	 * Longest time between two tokens once they flow. Only a chunk that carries a token re-arms it:
	 * keep-alives (SSE `: comment` lines, Ollama's `{"response":"","done":false}`) do not.
	 */
	readonly interTokenMs: number;
}

export const DEFAULT_TIMEOUTS: StreamTimeouts = {firstTokenMs: 60_000, interTokenMs: 30_000};

let parsersWarm = false;

/**
 * Run both stream parsers (and the decoder and the clock) over a few sample events once per process,
 * before the first request is sent: the first real chunk then meets compiled code. The timestamps
 * are taken in the transport before any of this runs; the warm-up only keeps the first chunk's
 * parse from delaying the reader (and the live figures) on a cold start.
 */
export function warmParsers(): void {
	if (parsersWarm) return;
	parsersWarm = true;
	const enc = new TextEncoder();
	const samples: [ProtocolPlan['protocol'], string][] = [
		['openai-chat', 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n: keep-alive\n\ndata: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}\n\ndata: [DONE]\n\n'],
		[OLLAMA_PROTOCOL, '{"response":"a","done":false}\n{"response":"","done":false}\n{"response":"","done":true,"eval_count":1,"eval_duration":1000}\n'],
	];
	for (let i = 0; i < 20; i++) {
		for (const [protocol, text] of samples) {
			const parser = createStreamParser(protocol);
			const dec = new TextDecoder();
			const clock = newClock(0);
			for (const ev of parser.feed(dec.decode(enc.encode(text), {stream: true}))) if (ev.type === 'token') markToken(clock, 1);
			parser.end();
		}
	}
}

export interface StreamOutcome {
	readonly clock: StreamClock;
	readonly counts: ServerCounts;
	readonly decodeSteps?: number;
	/** The header `decodeSteps` came from (its engine's label for it). */
	readonly decodeStepsSource?: string;
	/** Wall-clock (Date.now) bounds of the request, for the log-figures window. */
	readonly wallStart: number;
	readonly wallEnd: number;
	readonly protocol: ProtocolPlan;
}

export interface StreamOptions {
	readonly baseUrl: string;
	readonly plan: ProtocolPlan;
	readonly spec: ProbeRequestSpec;
	readonly apiKey?: string;
	readonly signal?: AbortSignal;
	readonly timeouts?: StreamTimeouts;
	/** Called as each network chunk is parsed (tokens so far). */
	readonly onChunk?: (clock: StreamClock) => void;
	/** Engine-specific env var named in the 401 message. */
	readonly apiKeyEnv?: string;
	/** Where bytes are read and stamped (default: a worker thread, see transport.ts). */
	readonly transport?: Transport;
}

/** Join a base URL and a path, keeping a base path prefix (`http://h/proxy` + `/v1/x`). */
export function joinUrl(base: string, path: string): string {
	const u = new URL(base);
	const prefix = u.pathname.replace(/\/+$/, '');
	u.pathname = prefix + path;
	u.search = '';
	return u.toString();
}

/** `120 ms`, `30 s`. */
export function formatDuration(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)} ms`;
	if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
	return `${Math.round(ms / 1000)} s`;
}

/** Longest line of a streamed answer (characters without a newline): an NDJSON object or SSE field is far shorter. */
export const MAX_STREAM_LINE = 1 << 20;

const oneLine = (s: string, max = 160): string => sanitize(s.replace(/\s+/g, ' ').trim(), max);

/** A network failure (undici `fetch failed` with a cause code) as one line. */
export function describeNetworkError(e: unknown, url: string): string {
	const err = e as {message?: string; cause?: {code?: string; message?: string; cause?: {code?: string}}; code?: string};
	const code = err?.cause?.code ?? err?.code ?? err?.cause?.cause?.code;
	const host = (() => {
		try {
			return new URL(url).host;
		} catch {
			return url;
		}
	})();
	switch (code) {
		case 'ECONNREFUSED':
			return `connection refused by ${host} (is the server running?)`;
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
		case 'EAI_NONAME':
			return `cannot resolve host ${new URL(url).hostname} (DNS failure)`;
		case 'ECONNRESET':
		case 'UND_ERR_SOCKET':
			return `connection to ${host} was closed by the server`;
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return `host ${host} is unreachable`;
		case 'ETIMEDOUT':
		case 'UND_ERR_CONNECT_TIMEOUT':
			return `connection to ${host} timed out`;
		default:
			break;
	}
	if (typeof code === 'string' && (/CERT|TLS|SSL|SELF_SIGNED|ERR_SSL/.test(code) || code.startsWith('ERR_TLS'))) {
		return `TLS error talking to ${host}: ${code}`;
	}
	const msg = err?.cause?.message ?? err?.message ?? String(e);
	if (/certificate|ssl|tls|wrong version number/i.test(msg)) return `TLS error talking to ${host}: ${oneLine(msg, 80)}`;
	return `request to ${host} failed: ${oneLine(msg, 100)}${code ? ` (${code})` : ''}`;
}

function errorText(body: string): string {
	try {
		const d = JSON.parse(body) as {error?: unknown; message?: unknown; detail?: unknown};
		const e = d.error;
		if (typeof e === 'string') return e;
		if (e && typeof e === 'object') {
			const m = (e as {message?: unknown; code?: unknown}).message;
			if (typeof m === 'string') return m;
			const c = (e as {code?: unknown}).code;
			if (typeof c === 'string') return c;
		}
		if (typeof d.message === 'string') return d.message;
		if (typeof d.detail === 'string') return d.detail;
		if (d.detail && typeof d.detail === 'object') {
			const m = (d.detail as {message?: unknown; error?: unknown}).message ?? (d.detail as {error?: unknown}).error;
			if (typeof m === 'string') return m;
		}
	} catch {}
	return body;
}

/** Retry-After header (seconds or HTTP date) → ms. */
export function retryAfterMs(v: string | null): number | undefined {
	if (v === null) return undefined;
	if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v) * 1000;
	const t = Date.parse(v);
	return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

async function readSome(res: OpenStream, max = 2000): Promise<string> {
	try {
		return await res.text(max);
	} catch {
		return '';
	}
}

/**
 * POST one streamed probe and read it to the end. Resolves with the clock and the server's counts;
 * rejects with a ProbeError.
 */
export async function streamOnce(o: StreamOptions): Promise<StreamOutcome> {
	const timeouts = o.timeouts ?? DEFAULT_TIMEOUTS;
	const url = joinUrl(o.baseUrl, o.plan.path);
	const controller = new AbortController();
	let abortReason: 'first-token' | 'inter-token' | 'cancelled' | undefined;
	const onOuterAbort = (): void => {
		abortReason = 'cancelled';
		controller.abort();
	};
	if (o.signal?.aborted) throw new ProbeError('cancelled', 'probe cancelled');
	o.signal?.addEventListener('abort', onOuterAbort, {once: true});
	let timer: NodeJS.Timeout | undefined;
	const arm = (ms: number, reason: 'first-token' | 'inter-token'): void => {
		if (timer) clearTimeout(timer);
		timer = setTimeout(() => {
			abortReason ??= reason;
			controller.abort();
		}, ms);
	};
	const body = JSON.stringify(requestBody(o.plan.protocol, o.spec, o.plan.extraBody));
	const headers: Record<string, string> = {'content-type': 'application/json', accept: o.plan.protocol === OLLAMA_PROTOCOL ? 'application/x-ndjson' : 'text/event-stream'};
	// The key goes to this host only: redirects are not followed (see below).
	if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
	const transport = o.transport ?? defaultTransport();
	// Worker start-up (and its warm-up) is not the server's time: wait for it before the deadlines run.
	await transport.ready?.();
	warmParsers();
	const clock = newClock(performance.now());
	const wallStart = Date.now();
	arm(timeouts.firstTokenMs, 'first-token');
	const stallMessage = (): string =>
		abortReason === 'first-token'
			? `no token within ${formatDuration(timeouts.firstTokenMs)} (server stalled before the first token)`
			: `stream stalled: no token for ${formatDuration(timeouts.interTokenMs)} after ${clock.chunks} tokens`;
	try {
		let res: OpenStream;
		try {
			res = await transport.open(url, {method: 'POST', headers, body}, controller.signal);
			clock.tSent = res.tSent;
		} catch (e) {
			if (abortReason === 'cancelled') throw new ProbeError('cancelled', 'probe cancelled');
			if (abortReason) throw new ProbeError('failed', stallMessage());
			throw new ProbeError('failed', describeNetworkError(e, url));
		}
		if (res.status === 429) {
			const text = await readSome(res);
			throw new ProbeError('busy', `server busy (HTTP 429)${text ? `: ${oneLine(errorText(text), 60)}` : ''}`, retryAfterMs(res.headers.get('retry-after')));
		}
		if (res.status === 503) {
			const text = await readSome(res);
			// llama-server while loading the model; one-at-a-time servers may answer 503 too.
			throw new ProbeError('busy', `server busy (HTTP 503)${text ? `: ${oneLine(errorText(text), 60)}` : ''}`, retryAfterMs(res.headers.get('retry-after')));
		}
		if (res.status >= 300 && res.status < 400) {
			res.cancel();
			throw new ProbeError('failed', `HTTP ${res.status} redirect to ${oneLine(res.headers.get('location') ?? '?', 80)}: not followed (point the probe at the final URL)`);
		}
		if (res.status === 401 || res.status === 403) {
			const text = await readSome(res);
			const hint = o.apiKey
				? 'the API key was refused'
				: `API key missing: pass --api-key or set INFERTOP_API_KEY${o.apiKeyEnv ? ` or ${o.apiKeyEnv}` : ''}`;
			throw new ProbeError('failed', `HTTP ${res.status} ${res.status === 401 ? 'unauthorized' : 'forbidden'}: ${hint}${text ? ` (${oneLine(errorText(text), 60)})` : ''}`);
		}
		if (res.status === 404) {
			const text = await readSome(res);
			const msg = errorText(text);
			if (/model/i.test(msg) && /not (found|exist)|does not exist|unknown/i.test(msg)) {
				throw new ProbeError('failed', `HTTP 404: ${oneLine(msg, 100)}`);
			}
			throw new ProbeError('wrong-protocol', `HTTP 404 on ${o.plan.path}${msg ? `: ${oneLine(msg, 60)}` : ''}`);
		}
		if (res.status === 405 || res.status === 501) {
			const text = await readSome(res);
			throw new ProbeError('wrong-protocol', `HTTP ${res.status} on ${o.plan.path}${text ? `: ${oneLine(errorText(text), 60)}` : ''}`);
		}
		if (res.status !== 200) {
			const text = await readSome(res);
			throw new ProbeError('failed', `HTTP ${res.status}${text ? `: ${oneLine(errorText(text), 120)}` : ''}`);
		}
		// The stream is timed chunk by chunk as it arrives: a compressed one is refused with the reason
		// (never taken for "not SSE"); infertop asks for none, a proxy in between may still compress.
		const encoding = (res.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
		if (encoding !== 'identity' && encoding !== '') throw new ProbeError('failed', `compressed answer not supported (content-encoding ${oneLine(encoding, 40)}): the probe times the stream as it arrives`);
		const ctype = res.headers.get('content-type') ?? '';
		// An engine that counts its target passes in a header (lithos-metal's Decode-Steps), read by its descriptor.
		const passesHeader = passesFromHeaders(res.headers);
		const decodeSteps = passesHeader?.passes;
		const parser = createStreamParser(o.plan.protocol);
		const want = o.plan.protocol === OLLAMA_PROTOCOL ? 'NDJSON' : 'SSE';
		const reader = res;
		const decoder = new TextDecoder();
		let done = false;
		let sample = '';
		let streamError: string | undefined;
		// Characters since the last newline: a line (NDJSON object, SSE field) longer than the cap is refused.
		let lineLength = 0;
		let lineTooLong = false;
		let endT = performance.now();
		try {
			for (;;) {
				const r = await reader.read();
				// The clock: one timestamp per network chunk, taken where it was read (the transport).
				const now = r.t;
				endT = now;
				if (r.done) break;
				const text = decoder.decode(r.value, {stream: true});
				if (sample.length < 200) sample += text.slice(0, 200 - sample.length);
				const nl = text.lastIndexOf('\n');
				lineLength = nl < 0 ? lineLength + text.length : text.length - nl - 1;
				if (lineLength > MAX_STREAM_LINE) {
					lineTooLong = true;
					break;
				}
				let tokens = 0;
				for (const ev of parser.feed(text)) {
					if (ev.type === 'token') {
						markToken(clock, now);
						tokens++;
					} else if (ev.type === 'done') done = true;
					else streamError = ev.message;
				}
				// Re-armed by tokens only: before the first one the first-token deadline keeps running, and
				// a keep-alive (empty NDJSON response, SSE comment) never buys the stream more time.
				if (tokens > 0) arm(timeouts.interTokenMs, 'inter-token');
				if (streamError !== undefined) break;
				o.onChunk?.(clock);
				if (parser.understood === 0 && parser.garbage > 0) break;
			}
			if (streamError === undefined && !lineTooLong) {
				const now = endT;
				for (const ev of parser.end()) {
					if (ev.type === 'token') markToken(clock, now);
					else if (ev.type === 'done') done = true;
					else streamError = ev.message;
				}
			}
		} catch (e) {
			if (abortReason === 'cancelled') throw new ProbeError('cancelled', 'probe cancelled');
			if (abortReason) throw new ProbeError('failed', stallMessage());
			const where = clock.chunks > 0 ? `after ${clock.chunks} tokens` : 'before the first token';
			throw new ProbeError('failed', `server closed the stream ${where} (${describeNetworkError(e, url).replace(/^request to \S+ failed: /, '')})`);
		} finally {
			reader.cancel();
		}
		if (lineTooLong) throw new ProbeError('failed', `the answer has a line longer than ${MAX_STREAM_LINE / (1 << 20)} MiB without a newline (not read further)`);
		if (streamError !== undefined) throw new ProbeError('failed', `server error in stream: ${oneLine(streamError, 120)}`);
		if (parser.understood === 0) {
			throw new ProbeError(
				'failed',
				`reply is not ${want} (content-type ${oneLine(ctype || 'none', 40)}): ${JSON.stringify(oneLine(sample, 50))}`,
			);
		}
		if (clock.chunks === 0) throw new ProbeError('failed', `the server streamed no tokens${done ? '' : ' and ended the stream early'}`);
		if (!done) {
			throw new ProbeError('failed', `server closed the stream after ${clock.chunks} tokens without finishing (killed mid-stream?)`);
		}
		crossCheck(parser.counts);
		return {clock, counts: parser.counts, decodeSteps, ...(passesHeader ? {decodeStepsSource: passesHeader.label} : {}), wallStart, wallEnd: Date.now(), protocol: o.plan};
	} finally {
		if (timer) clearTimeout(timer);
		o.signal?.removeEventListener('abort', onOuterAbort);
	}
}
