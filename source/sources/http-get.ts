/**
 * The one small GET that discovery, the pollers, the probe's model lookup and the bytes-per-token
 * lookup use (and its POST, for Ollama's `/api/show`): node:http / node:https with a hard deadline
 * (connect + headers + body), a byte cap, and for answers that are long lists (`/api/ps`,
 * `/api/tags`, `/v1/models`) a streaming JSON parser that keeps the first items and counts the
 * rest, so a 100 MB answer is never held whole and a 1.4 MB one is not lost.
 *
 * Why not fetch: undici refuses the ports on the Fetch standard's "bad port" list (1, 9, 6000,
 * 6665–6669, …) before connecting, so a server there would read "bad port" instead of being asked.
 * node:http reaches any port. Redirects are never followed (an API key stays with its host). And
 * fetch costs memory a monitor keeps for as long as it runs: the first call loads undici (with its
 * llhttp in WebAssembly, http2, zlib and web streams), ~19 MB of RSS in a bare node 20 against ~1 MB
 * for the same request through node:http (the lint forbids fetch but in the probe's fallback).
 *
 * Never throws: a dead, refusing or silent server gives `{error}` within `timeoutMs`.
 */
import {setMaxListeners} from 'node:events';
import http from 'node:http';
import {Tokenizer, TokenParser, type ParsedElementInfo} from '@streamparser/json';
import {isRecord, parseJsonText as parseJson} from '../engines/answers.js';

/** Parse a body as JSON (undefined when it is not JSON); is it a plain object: pure, one definition in engines/. */
export {isRecord, parseJson};

/** What one GET answered. */
export interface HttpAnswer {
	readonly status: number;
	/** Lower-cased names; repeated headers joined with `, `. */
	readonly headers: Readonly<Record<string, string>>;
	/** The body text, at most `maxBytes` (list reads: at most the first 64 KB). */
	readonly body: string;
	/** The body was longer than the cap: the rest was not read. */
	readonly truncated?: boolean;
	/** List reads: the document with the list cut to its first `maxItems` items (undefined: not a JSON object). */
	readonly json?: unknown;
	/** List reads: items seen in the list (all of them, or as many as came before the cap). */
	readonly listTotal?: number;
	/** List reads: `listTotal` is only a lower bound (the answer was cut at the cap or ended early). */
	readonly listTotalAtLeast?: boolean;
	/** List reads: why the body could not be read as the list (nested too deep, not a JSON object). */
	readonly listError?: string;
}

export interface HttpFailure {
	readonly error: string;
}

export type HttpResult = HttpAnswer | HttpFailure;

export interface ListRead {
	/** The top-level key holding the list: `models` (Ollama), `data` (OpenAI), `running` (llama-swap). */
	readonly key: string;
	/** Items kept; the rest are counted and dropped as they are parsed. */
	readonly maxItems: number;
}

export interface GetOptions {
	readonly timeoutMs?: number;
	/** Sent as `Authorization: Bearer …` to this URL only. */
	readonly apiKey?: string;
	/** Body bytes read; past them the connection is closed and the answer marked `truncated`. */
	readonly maxBytes?: number;
	/** Abort from outside (collector stopped). */
	readonly signal?: AbortSignal;
	/** Parse the body as a JSON object holding a long list (see ListRead). */
	readonly list?: ListRead;
}

export interface PostOptions extends Omit<GetOptions, 'list'> {
	/** Sent as the request's body, with `content-type: application/json`. */
	readonly json: unknown;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 800;
/** Plain reads keep at most this much text. */
export const DEFAULT_MAX_BYTES = 1 << 20;
/** List reads parse at most this much: beyond it, what fits is kept and the count is a lower bound. */
export const LIST_MAX_BYTES = 8 << 20;
/**
 * Deepest nesting a list read accepts. A model list is 4 levels deep; a body nested deeper (a
 * "depth bomb" of a million `[`) is refused at this depth, after reading that many bytes, with the
 * reason, instead of being parsed.
 */
export const MAX_JSON_DEPTH = 64;
/** Raw text kept beside a list read (enough for any small answer; never the whole of a big one). */
const LIST_TEXT_BYTES = 64 << 10;

export function isAnswer(r: HttpResult | undefined): r is HttpAnswer {
	return r !== undefined && 'status' in r;
}

/** A socket or TLS error as a short reason. */
export function networkReason(error: unknown): string {
	const e = error as {code?: string; message?: string; cause?: {code?: string; message?: string}};
	const code = e?.code ?? e?.cause?.code;
	if (code === 'ECONNREFUSED') return 'connection refused';
	if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'connection reset';
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'host not found';
	if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
	if (code === 'ABORT_ERR') return 'aborted';
	if (code) return code;
	return String(e?.message ?? error).slice(0, 120);
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

/**
 * Streams a JSON object, keeping its top-level members except one long list, of which it keeps the
 * first `maxItems` items and counts the rest. Memory stays at what is kept (keepStack: false drops
 * each emitted item from the parser's own structures).
 */
class ListCollector {
	private readonly tokenizer = new Tokenizer();
	private readonly parser: TokenParser;
	private readonly members: Record<string, unknown> = {};
	private readonly items: unknown[] = [];
	private sawList = false;
	private failed = false;
	private firstByte = true;
	// The byte-level depth scan (strings skipped), run before the tokenizer sees a chunk.
	private depth = 0;
	private inString = false;
	private escaped = false;
	count = 0;
	done = false;
	/** Why the body is not read as the list, where it is not. */
	why: string | undefined;

	constructor(private readonly list: ListRead) {
		this.parser = new TokenParser({paths: [`$.${list.key}.*`, '$.*'], keepStack: false});
		this.tokenizer.onToken = (t) => this.parser.write(t);
		this.parser.onValue = (info: ParsedElementInfo) => this.onValue(info);
		this.parser.onEnd = () => {
			this.done = true;
		};
		this.tokenizer.onError = () => {
			this.failed = true;
			this.why ??= 'answer is not valid JSON';
		};
		this.parser.onError = () => {
			this.failed = true;
		};
	}

	private onValue({key, stack, value}: ParsedElementInfo): void {
		if (stack.length === 2 && stack[1]?.key === this.list.key) {
			this.sawList = true;
			this.count++;
			if (this.items.length < this.list.maxItems) this.items.push(value);
		} else if (stack.length === 1 && typeof key === 'string') {
			if (key === this.list.key) {
				if (Array.isArray(value)) this.sawList = true;
				else this.members[key] = value; // not a list: the parsers will say so
			} else this.members[key] = value;
		}
	}

	write(chunk: Buffer): void {
		if (this.failed || this.done) return;
		if (this.firstByte) {
			const text = chunk.toString('utf8').trimStart();
			if (text === '') return;
			this.firstByte = false;
			if (!text.startsWith('{')) {
				this.failed = true;
				this.why = 'answer is not a JSON object';
				return;
			}
		}
		if (!this.withinDepth(chunk)) {
			this.failed = true;
			this.why = `answer nested deeper than ${MAX_JSON_DEPTH} levels (not read)`;
			return;
		}
		try {
			this.tokenizer.write(chunk);
		} catch {
			this.failed = true;
		}
	}

	/** Scan a chunk's brackets (outside strings): false once the nesting passes MAX_JSON_DEPTH. */
	private withinDepth(chunk: Buffer): boolean {
		for (let i = 0; i < chunk.length; i++) {
			const c = chunk[i]!;
			if (this.inString) {
				if (this.escaped) this.escaped = false;
				else if (c === 0x5c) this.escaped = true;
				else if (c === 0x22) this.inString = false;
			} else if (c === 0x22) this.inString = true;
			else if (c === 0x5b || c === 0x7b) {
				if (++this.depth > MAX_JSON_DEPTH) return false;
			} else if (c === 0x5d || c === 0x7d) this.depth--;
		}
		return true;
	}

	get failedNow(): boolean {
		return this.failed;
	}

	/** The document with its list cut, or undefined when the body was not a JSON object. */
	result(): unknown {
		if (this.failed || this.firstByte) return undefined;
		return this.sawList ? {...this.members, [this.list.key]: this.items} : {...this.members};
	}

	get ok(): boolean {
		return !this.failed && !this.firstByte;
	}
}

/** GET `url`; resolves within about `timeoutMs` whatever the server does. */
export function httpGet(url: string, options: GetOptions = {}): Promise<HttpResult> {
	return send(url, undefined, options);
}

/** POST `options.json` to `url` (Ollama's `/api/show`); the same deadline, cap and key rules as httpGet. */
export function httpPost(url: string, options: PostOptions): Promise<HttpResult> {
	let body: string;
	try {
		body = JSON.stringify(options.json) ?? 'null';
	} catch (error) {
		return Promise.resolve({error: `body is not JSON (${error instanceof Error ? error.message : String(error)})`});
	}
	return send(url, body, options);
}

function send(url: string, body: string | undefined, options: GetOptions): Promise<HttpResult> {
	const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
	const maxBytes = options.maxBytes ?? (options.list ? LIST_MAX_BYTES : DEFAULT_MAX_BYTES);
	return new Promise<HttpResult>((resolve) => {
		let target: URL;
		try {
			target = new URL(url);
		} catch {
			resolve({error: `bad URL ${JSON.stringify(url.slice(0, 120))}`});
			return;
		}
		// node:https (with tls and crypto, ~1.2 MB of RSS) only for a server that speaks it.
		const lib = target.protocol === 'https:' ? process.getBuiltinModule('node:https') : target.protocol === 'http:' ? http : undefined;
		if (!lib) {
			resolve({error: `only http:// and https:// (got ${target.protocol})`});
			return;
		}
		if (options.signal?.aborted) {
			resolve({error: 'aborted'});
			return;
		}
		let settled = false;
		let request: http.ClientRequest | undefined;
		const finish = (result: HttpResult): void => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			options.signal?.removeEventListener('abort', onAbort);
			request?.destroy();
			resolve(result);
		};
		// A list still arriving at the deadline (a huge or never-ending answer): what it kept, counted "at least".
		let partial: (() => HttpAnswer | undefined) | undefined;
		let responded = false;
		const timer = setTimeout(() => finish(partial?.() ?? {error: responded ? `answer not complete within ${timeoutMs} ms` : `no answer within ${timeoutMs} ms`}), timeoutMs);
		const onAbort = (): void => finish({error: 'aborted'});
		options.signal?.addEventListener('abort', onAbort, {once: true});

		const headers: Record<string, string> = {accept: 'application/json, text/plain;q=0.9, */*;q=0.1'};
		if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
		if (body !== undefined) {
			headers['content-type'] = 'application/json';
			headers['content-length'] = String(Buffer.byteLength(body));
		}
		try {
			// agent: false: one connection per request, closed after it (no pooled socket outlives a stop()).
			request = lib.request(target, {method: body === undefined ? 'GET' : 'POST', headers, agent: false});
		} catch (error) {
			finish({error: networkReason(error)});
			return;
		}
		request.on('error', (error) => finish({error: networkReason(error)}));
		request.on('response', (response) => {
			responded = true;
			const out: Record<string, string> = {};
			for (const [key, value] of Object.entries(response.headers)) {
				if (value !== undefined) out[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
			}
			const list = options.list ? new ListCollector(options.list) : undefined;
			const textCap = list ? Math.min(LIST_TEXT_BYTES, maxBytes) : maxBytes;
			const chunks: Buffer[] = [];
			let kept = 0;
			let bytes = 0;
			let truncated = false;
			const answer = (): HttpAnswer => {
				const body = Buffer.concat(chunks, kept).toString('utf8');
				if (!list) return {status: response.statusCode ?? 0, headers: out, body, ...(truncated ? {truncated} : {})};
				const json = list.result();
				const complete = list.done && !truncated;
				return {
					status: response.statusCode ?? 0,
					headers: out,
					body,
					...(truncated ? {truncated} : {}),
					json,
					...(list.ok ? {listTotal: list.count, listTotalAtLeast: !complete} : {}),
					...(list.why !== undefined ? {listError: list.why} : {}),
				};
			};
			if (list) {
				partial = () => {
					if (!list.ok || list.count === 0) return undefined;
					truncated = true;
					return answer();
				};
			}
			// A compressed answer (a proxy in front of the engine may gzip it though none was asked for):
			// decoded, the caps counting decoded bytes (a small bomb cannot grow past them).
			const encoding = (out['content-encoding'] ?? 'identity').trim().toLowerCase();
			let body: NodeJS.ReadableStream = response;
			if (encoding !== 'identity' && encoding !== '') {
				const zlib = process.getBuiltinModule('node:zlib');
				const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : encoding === 'br' ? zlib.createBrotliDecompress() : undefined;
				if (!decoder) {
					finish({error: `compressed answer not supported (content-encoding ${encoding.slice(0, 40)})`});
					return;
				}
				decoder.on('error', () => finish({error: `compressed answer could not be decoded (content-encoding ${encoding})`}));
				body = response.pipe(decoder);
			}
			body.on('data', (chunk: Buffer) => {
				if (settled) return;
				let piece = chunk;
				if (bytes + piece.length > maxBytes) {
					piece = piece.subarray(0, maxBytes - bytes);
					truncated = true;
				}
				bytes += piece.length;
				if (kept < textCap) {
					const part = piece.subarray(0, textCap - kept);
					chunks.push(part);
					kept += part.length;
				}
				list?.write(piece);
				// Refused (nested too deep, not JSON): the rest is not read.
				if (truncated || list?.failedNow === true) finish(answer());
			});
			body.on('end', () => finish(answer()));
			response.on('error', (error) => finish({error: networkReason(error)}));
			response.on('aborted', () => finish({error: 'connection reset'}));
		});
		request.end(body);
	});
}

/** The JSON of an answer: a list read's parsed document, else the body parsed. */
export function answerJson(r: HttpAnswer): unknown {
	return r.json !== undefined ? r.json : parseJson(r.body);
}

