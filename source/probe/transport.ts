/**
 * Where the probe's bytes are read and timestamped. The default transport runs node:http in a
 * worker thread that does nothing else: its own event loop reads each network chunk the moment it
 * arrives and stamps it there, in a listener placed before http's own (so before the HTTP parser
 * runs), and the request's clock starts in a connect listener placed before the one that writes the
 * request. A React/Ink render (or any other work) on the main thread cannot delay a timestamp. The
 * worker is a tiny byte pump (plain JS, no imports of ours); parsing stays on the main thread.
 * Before it says ready, the worker warms its own request path against a server of its own (a cold
 * isolate runs its first request and first body chunk through uncompiled code), so the first probe
 * of a fresh process is timed like the tenth. Before each request (before its clock starts) the
 * worker runs a minor GC, so no GC pause falls between the first token's arrival and its stamp.
 * probeDiagnostics (off by default) reports what the worker saw per request: every read's stamp and
 * size, its GC pauses and event-loop delay (the probe bench's attribution of its outliers).
 * Where a worker cannot start, the same interface runs global fetch (undici) in this thread.
 * The worker is a second isolate: ~10 MB of RSS (node 20, measured). It is started by the first
 * probe and stopped once no request has used it for PUMP_IDLE_MS (the next probe starts and warms
 * a new one before its clock starts), so a monitor left open all day does not keep it for one
 * probe made in the morning. It is kept while diagnostics are on.
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
const http = require('node:http');
const https = require('node:https');
const now = () => performance.timeOrigin + performance.now();
const live = new Map();
// Diagnostics (off unless asked, see probeDiagnostics): what happened on this thread around each
// probe: every socket read (time, size), GC pauses, and how late this loop ran its timers.
let diag;
function diagOn(file) {
	if (diag) return;
	const {PerformanceObserver, monitorEventLoopDelay} = require('node:perf_hooks');
	const gc = [];
	const add = (entries) => {
		for (const e of entries) {
			gc.push({t: performance.timeOrigin + e.startTime, ms: e.duration, kind: (e.detail && e.detail.kind) || 0});
			if (gc.length > 256) gc.shift();
		}
	};
	const obs = new PerformanceObserver((list) => add(list.getEntries()));
	obs.observe({entryTypes: ['gc']});
	const eld = monitorEventLoopDelay({resolution: 2});
	eld.enable();
	diag = {gc, eld, obs, file, take: () => add(obs.takeRecords())};
}
function diagOff() {
	if (!diag) return;
	diag.obs.disconnect();
	diag.eld.disable();
	diag = undefined;
}
const errInfo = (e) => ({name: e && e.name, message: String((e && e.message) || e), code: e && e.code, cause: e && e.cause ? {code: e.cause.code, message: e.cause.message} : undefined});

// A scavenge (minor GC) right before each probe leaves the young generation empty, so the reads
// of its first tokens do not allocate their way into a GC pause between the bytes' arrival and
// their stamp (a 0.3-0.8 ms scavenge is started by the very allocation that hands a read to JS).
// The gc function needs V8's --expose-gc, which a worker cannot take in execArgv: it is set at run
// time and read from a fresh context (it only adds a gc global to contexts created afterwards).
let minorGc;
try {
	require('node:v8').setFlagsFromString('--expose-gc');
	const gc = require('node:vm').runInNewContext('gc');
	if (typeof gc === 'function') minorGc = () => gc({type: 'minor'});
} catch {}

// One request on this thread. report(msg, transfer) gets response/chunk/end/error messages.
function request(m, ac, report) {
	// Before the clock starts (tSent below): the GC is never in the measured time.
	let scavenged = false;
	if (minorGc) {
		try {
			minorGc();
			scavenged = true;
		} catch {}
	}
	// Diagnostics only: [time, bytes] of every socket read of this request.
	const reads = diag && m.id >= 0 ? [] : undefined;
	if (reads) diag.eld.reset();
	let tSent = now();
	let finished = false;
	const finish = (msg) => {
		if (finished) return;
		finished = true;
		// File mode: the end is reported only once the diag line is written (below), so a CLI that
		// exits on the end never loses it; otherwise at once.
		const holdEnd = reads !== undefined && Boolean(diag.file);
		if (!holdEnd) report(msg);
		if (reads) {
			const d = diag;
			const tEnd = msg.t;
			const eldMaxMs = d.eld.max / 1e6;
			const eldMeanMs = d.eld.mean / 1e6;
			// One turn later, off the stream's path: a GC entry is queued just after its pause.
			setImmediate(() => {
				d.take();
				const gc = d.gc.filter((g) => g.t + g.ms >= tSent && g.t <= tEnd);
				// The tightest of 5 bracketed samples: one this thread was descheduled in would be off.
				let hrMinusAbs = 0;
				let best = Infinity;
				for (let i = 0; i < 5; i++) {
					const a = Number(process.hrtime.bigint()) / 1e6;
					const p = now();
					const b = Number(process.hrtime.bigint()) / 1e6;
					if (b - a < best) {
						best = b - a;
						hrMinusAbs = (a + b) / 2 - p;
					}
				}
				const out = {id: m.id, type: 'diag', t: tEnd, tSent, reads, gc, eldMaxMs, eldMeanMs, hrMinusAbs, scavenged};
				// File mode writes here, before the main thread (a CLI about to exit) sees the end.
				if (d.file) {
					try {
						require('node:fs').appendFileSync(d.file, JSON.stringify(out) + '\n');
					} catch {}
				} else parentPort.postMessage(out);
				if (holdEnd) report(msg);
			});
		}
	};
	let u;
	try {
		u = new URL(m.url);
	} catch (e) {
		finish({id: m.id, type: 'error', t: now(), error: errInfo(e)});
		return;
	}
	const mod = u.protocol === 'https:' ? https : http;
	const body = m.init.body === undefined ? undefined : Buffer.from(m.init.body);
	const headers = Object.assign({}, m.init.headers, body ? {'content-length': String(body.length)} : {});
	// One fresh connection per probe (agent: false). The clock starts when the request leaves, i.e.
	// once the connection (and TLS) is up: TTFT is the server's answer time, not the network setup.
	tSent = now();
	// The time the socket's latest bytes were read, stamped before the HTTP parser sees them: a body
	// chunk is emitted while its read is being parsed, so it carries the time its bytes came in.
	let tRead;
	const req = mod.request(u, {method: m.init.method, headers, agent: false, signal: ac.signal}, (res) => {
		const hs = [];
		for (const [k, v] of Object.entries(res.headers)) hs.push([k, Array.isArray(v) ? v.join(', ') : String(v)]);
		report({id: m.id, type: 'response', t: tRead === undefined ? now() : tRead, tSent, status: res.statusCode, headers: hs});
		res.on('data', (buf) => {
			const t = tRead === undefined ? now() : tRead;
			const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length);
			if (!finished) report({id: m.id, type: 'chunk', t, bytes: ab}, [ab]);
		});
		res.on('end', () => finish({id: m.id, type: 'end', t: now()}));
		res.on('error', (e) => finish({id: m.id, type: 'error', t: now(), error: errInfo(e)}));
		res.on('close', () => {
			if (!res.complete) finish({id: m.id, type: 'error', t: now(), error: {name: 'Error', message: 'other side closed', code: 'ECONNRESET'}});
		});
	});
	req.on('socket', (sock) => {
		sock.setNoDelay(true);
		// First in line: before http's own data listener hands the bytes to the parser.
		sock.prependListener('data', (d) => {
			tRead = now();
			if (reads) reads.push(tRead, d.length);
		});
		// Prepended: the stamp is taken before the queued request is written on connect, never after.
		if (sock.connecting) sock.prependOnceListener(u.protocol === 'https:' ? 'secureConnect' : 'connect', () => { tSent = now(); });
	});
	req.on('error', (e) => finish({id: m.id, type: 'error', t: now(), error: errInfo(e)}));
	req.end(body);
}

// Warm-up before the first real request: the send path, the response parser, chunked decoding,
// the data events and this file's handlers all run a few times against a server on this thread,
// so the first token of the first probe meets compiled code, not a cold isolate.
function warmUp(done) {
	const frames = ['data: {"choices":[{"delta":{"content":"a"}}]}\n\n', '{"response":"a","done":false}\n'];
	const server = http.createServer((q, s) => {
		q.resume();
		q.on('end', () => {
			s.writeHead(200, {'content-type': 'text/event-stream'});
			s.flushHeaders();
			let i = 0;
			const next = () => {
				if (i++ >= 8) return s.end(frames[1]);
				s.write(frames[i % 2]);
				setImmediate(next);
			};
			next();
		});
	});
	server.on('error', () => done());
	server.listen(0, '127.0.0.1', () => {
		const url = 'http://127.0.0.1:' + server.address().port + '/warm';
		let left = 6;
		const one = () => {
			if (left-- <= 0) {
				server.close();
				done();
				return;
			}
			request({id: -1, url, init: {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"warm":true}'}}, new AbortController(), (msg, transfer) => {
				// The same structured clone as a real chunk, sent nowhere that listens.
				if (msg.type === 'chunk') parentPort.postMessage({id: -1, type: 'warm', t: msg.t, bytes: msg.bytes}, transfer);
				if (msg.type === 'end' || msg.type === 'error') setImmediate(one);
			});
		};
		one();
	});
	// Never hold the start for long: a warm-up that cannot finish is skipped.
	setTimeout(done, 2000).unref();
}

let started = false;
warmUp(() => {
	if (started) return;
	started = true;
	parentPort.postMessage({id: 0, type: 'ready'});
});

parentPort.on('message', (m) => {
	if (m.type === 'diag') {
		if (m.on) diagOn(m.file);
		else diagOff();
		return;
	}
	if (m.type === 'abort') {
		const ac = live.get(m.id);
		if (ac) ac.abort();
		return;
	}
	if (m.type !== 'open') return;
	const ac = new AbortController();
	live.set(m.id, ac);
	request(m, ac, (msg, transfer) => {
		if (msg.type === 'end' || msg.type === 'error') live.delete(m.id);
		parentPort.postMessage(msg, transfer);
	});
});
`;

interface PumpMsg {
	id: number;
	type: 'response' | 'chunk' | 'end' | 'error' | 'ready' | 'warm' | 'diag';
	t: number;
	tSent?: number;
	status?: number;
	headers?: [string, string][];
	bytes?: ArrayBuffer;
	error?: {name?: string; message: string; code?: string; cause?: {code?: string; message?: string; cause?: {code?: string}}};
	reads?: number[];
	gc?: {t: number; ms: number; kind: number}[];
	eldMaxMs?: number;
	eldMeanMs?: number;
	hrMinusAbs?: number;
	scavenged?: boolean;
}

/**
 * What the reader thread saw during one request (the probe bench's attribution of its outliers).
 * Times are this thread's performance.now() ms, like OpenStream's.
 */
export interface ReadDiagnostics {
	/** The request's clock start (OpenStream.tSent). */
	readonly tSent: number;
	/** The stream's end on the reader's clock. */
	readonly tEnd: number;
	/** Every socket read: when (stamped before the HTTP parser) and how many bytes (framing included). */
	readonly reads: readonly {readonly t: number; readonly bytes: number}[];
	/** GC pauses on the reader thread during the request (kind: perf_hooks' NODE_PERFORMANCE_GC_*). */
	readonly gc: readonly {readonly t: number; readonly ms: number; readonly kind: number}[];
	/** monitorEventLoopDelay on the reader thread over the request (2 ms resolution): max, mean ms. */
	readonly eldMaxMs: number;
	readonly eldMeanMs: number;
	/** CLOCK_MONOTONIC ms (process.hrtime) minus this thread's performance.now(): the machine-wide clock. */
	readonly hrMinusLocal: number;
	/** The reader thread ran a scavenge just before the request (its young generation empty at tSent). */
	readonly scavenged: boolean;
}

let diagListener: ((d: ReadDiagnostics) => void) | undefined;

function toDiagnostics(m: PumpMsg): ReadDiagnostics {
	const r = m.reads ?? [];
	const reads: {t: number; bytes: number}[] = [];
	for (let i = 0; i + 1 < r.length; i += 2) reads.push({t: toLocal(r[i]!), bytes: r[i + 1]!});
	return {
		tSent: toLocal(m.tSent ?? m.t),
		tEnd: toLocal(m.t),
		reads,
		gc: (m.gc ?? []).map((g) => ({t: toLocal(g.t), ms: g.ms, kind: g.kind})),
		eldMaxMs: m.eldMaxMs ?? 0,
		eldMeanMs: m.eldMeanMs ?? 0,
		hrMinusLocal: (m.hrMinusAbs ?? 0) + performance.timeOrigin,
		scavenged: m.scavenged === true,
	};
}

/**
 * Report what the reader thread saw during each later request to `listener` (undefined: stop).
 * Off by default: a GC observer and a 2 ms event-loop-delay timer run on the reader thread while on.
 * INFERTOP_PROBE_DIAG=FILE turns it on at start: the reader thread appends one JSON line per
 * request to FILE, raw (times as performance.timeOrigin + now() ms, plus hrMinusAbs), for the
 * bench's fresh `infertop probe` processes.
 */
export function probeDiagnostics(listener: ((d: ReadDiagnostics) => void) | undefined): void {
	diagListener = listener;
	if (listener === undefined && !shared) return;
	const p = pump();
	p.worker.postMessage({type: 'diag', on: listener !== undefined});
	if (listener === undefined) armIdle(p);
	else clearTimeout(p.idle);
}

function rebuildError(e: NonNullable<PumpMsg['error']>): Error {
	const err = new Error(e.message, e.cause ? {cause: e.cause} : undefined) as Error & {code?: string};
	if (e.name) err.name = e.name;
	if (e.code) err.code = e.code;
	return err;
}

interface Pump {
	worker: Worker;
	handlers: Map<number, (m: PumpMsg) => void>;
	ready: Promise<void>;
	/** The worker died (or never started): requests go through fetch in this thread. */
	failed?: string;
	/** Stops the worker once it has been idle PUMP_IDLE_MS. */
	idle?: ReturnType<typeof setTimeout>;
}

/** A worker no request has used for this long is stopped (see the top of this file). */
const PUMP_IDLE_MS = 60_000;
let idleMs = PUMP_IDLE_MS;
let shared: Pump | undefined;
let nextId = 1;

/** Tests: the idle time after which the worker stops (undefined: PUMP_IDLE_MS). */
export function setPumpIdleMs(ms: number | undefined): void {
	idleMs = ms ?? PUMP_IDLE_MS;
}

/** Is a reader worker running now (tests, and what a probe costs while it runs)? */
export function pumpRunning(): boolean {
	return shared !== undefined && shared.failed === undefined;
}

/** No request in flight: stop the worker after idleMs, unless one comes (or diagnostics are on). */
function armIdle(p: Pump): void {
	clearTimeout(p.idle);
	if (p.handlers.size > 0 || diagListener !== undefined || process.env.INFERTOP_PROBE_DIAG) return;
	p.idle = setTimeout(() => {
		if (shared !== p || p.handlers.size > 0 || diagListener !== undefined) return;
		shared = undefined;
		void p.worker.terminate().catch(() => undefined);
	}, idleMs);
	p.idle.unref();
}

function pump(): Pump {
	if (shared) return shared;
	// execArgv: [] — the pump is plain CommonJS; loader flags of the parent (tsx, --input-type) must not apply.
	const worker = new Worker(PUMP, {eval: true, execArgv: []});
	const handlers = new Map<number, (m: PumpMsg) => void>();
	let onReady: () => void = () => undefined;
	const ready = new Promise<void>((r) => (onReady = r));
	worker.on('message', (m: PumpMsg) => {
		if (m.type === 'warm') return;
		if (m.type === 'diag') {
			diagListener?.(toDiagnostics(m));
			return;
		}
		if (m.type !== 'ready') {
			handlers.get(m.id)?.(m);
			return;
		}
		// Held (ref'd) until ready so a caller awaiting ready() keeps the process alive; then idle = unref'd.
		if (handlers.size === 0) {
			worker.unref();
			armIdle(me);
		}
		onReady();
	});
	const me: Pump = {worker, handlers, ready};
	worker.on('error', (e: Error) => {
		me.failed = `probe worker failed: ${e.message}`;
		onReady();
		for (const h of handlers.values()) h({id: 0, type: 'error', t: performance.timeOrigin + performance.now(), error: {message: me.failed}});
		handlers.clear();
	});
	shared = me;
	// The raw record (worker clock: performance.timeOrigin-based ms), written by the reader thread.
	const file = process.env.INFERTOP_PROBE_DIAG;
	if (file) worker.postMessage({type: 'diag', on: true, file});
	return me;
}

const toLocal = (abs: number): number => abs - performance.timeOrigin;

/** node:http in a worker thread (lighter than fetch between call and bytes on the wire); chunks stamped there. */
export const workerTransport: Transport = {
	ready: () => pump().ready,
	async open(url, init, signal) {
		const p = pump();
		await p.ready;
		if (p.failed) return inThreadTransport.open(url, init, signal);
		return openOnWorker(p, url, init, signal);
	},
};

function openOnWorker(p: Pump, url: string, init: RequestInit2, signal: AbortSignal): Promise<OpenStream> {
	const {worker, handlers} = p;
	const id = nextId++;
	clearTimeout(p.idle);
	if (handlers.size === 0) worker.ref();
	const queue: PumpMsg[] = [];
	let wake: (() => void) | undefined;
	let finished = false;
	const done = (): void => {
		if (finished) return;
		finished = true;
		handlers.delete(id);
		signal.removeEventListener('abort', onAbort);
		if (handlers.size === 0) {
			worker.unref();
			armIdle(p);
		}
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
		if (signal.aborted) {
			done();
			const e = new Error('This operation was aborted');
			e.name = 'AbortError';
			reject(e);
			return;
		}
		worker.postMessage({type: 'open', id, url, init});
	});
}

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
