/**
 * Where the probe's bytes are read and timestamped. The default transport runs fetch in a worker
 * thread: its own event loop reads each network chunk the moment it arrives and stamps it there,
 * so a React/Ink render (or any other work) on the main thread cannot delay a timestamp. The
 * worker is a tiny byte pump (plain JS, no imports of ours); parsing stays on the main thread.
 * Where a worker cannot start, the same interface runs fetch in this thread.
 *
 * All times are this thread's performance.now() ms (worker times are converted through
 * performance.timeOrigin, which both threads share to the microsecond).
 */
import {performance} from 'node:perf_hooks';
import {Worker} from 'node:worker_threads';

export interface RequestInit2 {
	readonly method: 'POST' | 'GET';
	readonly headers: Record<string, string>;
	readonly body?: string;
}

export interface HeadersLike {
	get(name: string): string | null;
}

export type ReadResult = {readonly done: false; readonly t: number; readonly value: Uint8Array} | {readonly done: true; readonly t: number};

export interface OpenStream {
	/** When the request left (just before fetch was called). */
	readonly tSent: number;
	readonly status: number;
	readonly headers: HeadersLike;
	/** Next network chunk with the time it was read. Rejects like fetch's reader (cause.code). */
	read(): Promise<ReadResult>;
	/** The whole remaining body as text (error answers). */
	text(max?: number): Promise<string>;
	cancel(): void;
}

export interface Transport {
	/** Resolves when the transport can time a request (worker started, fetch loaded). */
	ready?(): Promise<void>;
	/** Rejects with an Error carrying `cause.code` on network failures, or an AbortError. */
	open(url: string, init: RequestInit2, signal: AbortSignal): Promise<OpenStream>;
}

/** fetch in this thread. */
export const inThreadTransport: Transport = {
	async open(url, init, signal) {
		const tSent = performance.now();
		const res = await fetch(url, {method: init.method, headers: init.headers, body: init.body, signal, redirect: 'manual'});
		const reader = res.body?.getReader();
		return {
			tSent,
			status: res.status,
			headers: res.headers,
			async read() {
				if (!reader) return {done: true, t: performance.now()};
				const r = await reader.read();
				const t = performance.now();
				return r.done ? {done: true, t} : {done: false, t, value: r.value};
			},
			async text(max = 2000) {
				if (!reader) return '';
				const dec = new TextDecoder();
				let s = '';
				try {
					for (;;) {
						const r = await reader.read();
						if (r.done) break;
						s += dec.decode(r.value, {stream: true});
						if (s.length >= max) break;
					}
				} catch {}
				void reader.cancel().catch(() => undefined);
				return s.slice(0, max);
			},
			cancel() {
				void reader?.cancel().catch(() => undefined);
			},
		};
	},
};

const PUMP = String.raw`
const {parentPort} = require('node:worker_threads');
const {performance} = require('node:perf_hooks');
const now = () => performance.timeOrigin + performance.now();
const live = new Map();
const errInfo = (e) => ({name: e && e.name, message: String((e && e.message) || e), code: e && e.code, cause: e && e.cause ? {code: e.cause.code, message: e.cause.message, cause: e.cause.cause ? {code: e.cause.cause.code} : undefined} : undefined});
// Load fetch (undici is compiled lazily on first use) before any probe is timed.
fetch('data:,warm').then((r) => r.text()).catch(() => undefined).finally(() => parentPort.postMessage({id: 0, type: 'ready'}));
parentPort.on('message', async (m) => {
	if (m.type === 'abort') {
		const ac = live.get(m.id);
		if (ac) ac.abort();
		return;
	}
	if (m.type !== 'open') return;
	const ac = new AbortController();
	live.set(m.id, ac);
	try {
		const tSent = now();
		const res = await fetch(m.url, {method: m.init.method, headers: m.init.headers, body: m.init.body, signal: ac.signal, redirect: 'manual'});
		parentPort.postMessage({id: m.id, type: 'response', tSent, status: res.status, headers: [...res.headers]});
		if (res.body) {
			const reader = res.body.getReader();
			for (;;) {
				const r = await reader.read();
				const t = now();
				if (r.done) break;
				const buf = r.value.buffer.byteLength === r.value.byteLength ? r.value.buffer : r.value.slice().buffer;
				parentPort.postMessage({id: m.id, type: 'chunk', t, bytes: buf}, [buf]);
			}
		}
		parentPort.postMessage({id: m.id, type: 'end', t: now()});
	} catch (e) {
		parentPort.postMessage({id: m.id, type: 'error', t: now(), error: errInfo(e)});
	} finally {
		live.delete(m.id);
	}
});
`;

interface PumpMsg {
	id: number;
	type: 'response' | 'chunk' | 'end' | 'error' | 'ready';
	t: number;
	tSent?: number;
	status?: number;
	headers?: [string, string][];
	bytes?: ArrayBuffer;
	error?: {name?: string; message: string; code?: string; cause?: {code?: string; message?: string; cause?: {code?: string}}};
}

function rebuildError(e: NonNullable<PumpMsg['error']>): Error {
	const err = new Error(e.message, e.cause ? {cause: e.cause} : undefined) as Error & {code?: string};
	if (e.name) err.name = e.name;
	if (e.code) err.code = e.code;
	return err;
}

let shared: {worker: Worker; handlers: Map<number, (m: PumpMsg) => void>; ready: Promise<void>} | undefined;
let nextId = 1;

function pump(): NonNullable<typeof shared> {
	if (shared) return shared;
	const worker = new Worker(PUMP, {eval: true});
	const handlers = new Map<number, (m: PumpMsg) => void>();
	let onReady: () => void = () => undefined;
	const ready = new Promise<void>((r) => (onReady = r));
	worker.on('message', (m: PumpMsg) => (m.type === 'ready' ? onReady() : handlers.get(m.id)?.(m)));
	worker.on('error', () => {
		onReady();
		for (const h of handlers.values()) h({id: 0, type: 'error', t: performance.timeOrigin + performance.now(), error: {message: 'probe worker failed'}});
		handlers.clear();
		shared = undefined;
	});
	worker.unref();
	shared = {worker, handlers, ready};
	return shared;
}

const toLocal = (abs: number): number => abs - performance.timeOrigin;

/** fetch in a worker thread; chunks stamped there. */
export const workerTransport: Transport = {
	ready: () => pump().ready,
	open(url, init, signal) {
		const {worker, handlers, ready} = pump();
		const id = nextId++;
		if (handlers.size === 0) worker.ref();
		const queue: PumpMsg[] = [];
		let wake: (() => void) | undefined;
		let finished = false;
		const done = (): void => {
			if (finished) return;
			finished = true;
			handlers.delete(id);
			signal.removeEventListener('abort', onAbort);
			if (handlers.size === 0) worker.unref();
		};
		const onAbort = (): void => worker.postMessage({type: 'abort', id});
		signal.addEventListener('abort', onAbort, {once: true});
		return new Promise<OpenStream>((resolve, reject) => {
			let opened = false;
			handlers.set(id, (m) => {
				if (!opened) {
					if (m.type === 'error') {
						done();
						reject(rebuildError(m.error ?? {message: 'probe worker failed'}));
						return;
					}
					if (m.type !== 'response') return;
					opened = true;
					const h = new Map((m.headers ?? []).map(([k, v]) => [k.toLowerCase(), v]));
					const stream: OpenStream = {
						tSent: toLocal(m.tSent ?? m.t),
						status: m.status ?? 0,
						headers: {get: (k) => h.get(k.toLowerCase()) ?? null},
						async read() {
							while (queue.length === 0) await new Promise<void>((r) => (wake = r));
							const q = queue.shift()!;
							if (q.type === 'chunk') return {done: false, t: toLocal(q.t), value: new Uint8Array(q.bytes!)};
							queue.unshift(q); // end and error stay at the head
							if (q.type === 'end') return {done: true, t: toLocal(q.t)};
							throw rebuildError(q.error ?? {message: 'probe worker failed'});
						},
						async text(max = 2000) {
							const dec = new TextDecoder();
							let s = '';
							try {
								for (;;) {
									const r = await stream.read();
									if (r.done) break;
									s += dec.decode(r.value, {stream: true});
									if (s.length >= max) break;
								}
							} catch {}
							stream.cancel();
							return s.slice(0, max);
						},
						cancel() {
							if (!finished) worker.postMessage({type: 'abort', id});
							done();
						},
					};
					resolve(stream);
					return;
				}
				queue.push(m);
				if (m.type === 'end' || m.type === 'error') done();
				const w = wake;
				wake = undefined;
				w?.();
			});
			void ready.then(() => {
				if (signal.aborted) {
					done();
					const e = new Error('This operation was aborted');
					e.name = 'AbortError';
					reject(e);
					return;
				}
				worker.postMessage({type: 'open', id, url, init});
			});
		});
	},
};

let preferred: Transport | undefined;

/** The worker transport where a worker starts, else fetch in this thread. */
export function defaultTransport(): Transport {
	if (preferred) return preferred;
	try {
		pump();
		preferred = workerTransport;
	} catch {
		preferred = inThreadTransport;
	}
	return preferred;
}
