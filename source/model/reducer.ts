/**
 * The pure reducer: (state, action) → state. Immutable; only the slice that changed is replaced,
 * so selectors keep their references. Nothing grows without bound (capped rings).
 */
import {emptySystem} from '../types/system.js';
import {emptyProbe, MAX_PROBE_RESULTS} from '../types/probe.js';
import {endFigures, type EndFigures} from './figures.js';
import {observeRequest} from './request-histograms.js';
import {appendLog, appendTo, emptyLog, logFlags, LOG_NOTE, LOG_PARSED, type DraftRing} from './log-ring.js';
import {inconsistency} from './consistency.js';
import {attribute, attributeByKeepAlive, keepAliveMoved, UNKNOWN_MODEL} from './attribution.js';
import {isGenerationCall} from './derive.js';
import type {Action, LogBatchLine, LogRing, MonitorState, RequestRecord, RequestTotals, ServerSignal, ServerState, ServerInfo, PassSample} from '../types/state.js';
import type {EngineEvent} from '../types/events.js';
import {UNKNOWN_ENGINE} from '../engines/index.js';

export const MAX_REQUESTS = 200;
export const MAX_HISTORY = 240;
export const MAX_LOG_LINES = 1000;
export const MAX_NOTICES = 20;
export const MAX_REFUSALS = 64;
export const MAX_SIGNALS = 256;
/** The time given to a request whose time cannot be known ("earlier"): before every real time. */
export const EARLIER_T = 0;

export interface InitialOptions {
	readonly host?: string;
	readonly demo?: boolean;
	readonly refreshMs?: number;
	readonly now?: number;
}

export function initialState(options: InitialOptions = {}): MonitorState {
	const now = options.now ?? Date.now();
	return {
		startedAt: now,
		now,
		host: options.host ?? '',
		demo: options.demo ?? false,
		servers: {},
		order: [],
		bandwidth: {},
		system: emptySystem(),
		probe: emptyProbe(),
		refreshMs: options.refreshMs ?? 1000,
		notices: [],
	};
}

/**
 * Arrays made while one `log-batch` is applied (a ring copied once): nothing outside the batch has
 * seen them yet, so the rest of the batch writes into them in place instead of copying the ring
 * again for every line. Undefined outside a batch: every change copies, as always.
 */
let owned: WeakSet<object> | undefined;

/** A copy of `ring` that may be written (the ring itself where this batch made it). */
function writable<T>(ring: readonly T[]): T[] {
	if (owned?.has(ring)) return ring as T[];
	const copy = ring.slice();
	owned?.add(copy);
	return copy;
}

type Draft = {-readonly [K in keyof ServerState]: ServerState[K]};
type DraftRecord = {-readonly [K in keyof RequestRecord]: RequestRecord[K]};

/**
 * The times of a new record, given after it is made: a field a literal first holds a fraction in is
 * kept as a boxed double (a new number object at each read, a box at each write); one first undefined
 * holds the number given (V8's field representations, checked with --trace-generalization).
 */
const UNSET = undefined as unknown as number;

/**
 * A new request record, made whole: the fields the engines of a busy log give a request (llama.cpp,
 * vLLM, SGLang, speculative decoding's counts, live progress) and infertop's own, in one fixed order, unknown ones
 * undefined. The rest (an Ollama runner and access time, an error, a context window…) are added when
 * an event gives them, as every field was before.
 * Measured (llama.cpp at 1,000 requests a second, V8 without its optimizing compiler as the app runs):
 * a record made with five fields and given the rest one by one as its events came (15 more for a
 * llama.cpp request) grew its out-of-object property store every few fields, a new copy each time
 * (~700 B allocated a request), and a field first given a fraction was kept boxed, a new number object
 * at each read (the consistency check, the figures, the table's sort). Made whole it is one object of
 * one shape, 31 fields held in the object (264 B in Node's V8, about what the grown record held), written
 * in place. A field left undefined reads as absent everywhere (a spread copies it as undefined; JSON
 * leaves it out; toEqual ignores it).
 */
function newRecord(serverId: string, key: string, t: number, at: 'backlog' | 'earlier' | undefined): DraftRecord {
	const record: DraftRecord = {
		serverId,
		key,
		model: undefined,
		slot: undefined,
		task: undefined,
		promptTokens: undefined,
		cachedTokens: undefined,
		prefillTokens: undefined,
		prefillMs: undefined,
		generatedTokens: undefined,
		decodedTokens: undefined,
		decodeMs: undefined,
		passes: undefined,
		drafted: undefined,
		accepted: undefined,
		engineMeanLen: undefined,
		engineTps: undefined,
		promptEstimated: undefined,
		client: undefined,
		outcome: undefined,
		contextWindow: undefined,
		attribution: undefined,
		backlog: at === undefined ? undefined : true,
		earlier: at === 'earlier' ? true : undefined,
		startedAt: undefined,
		firstLine: undefined,
		lastLine: undefined,
		firstSeen: UNSET,
		lastSeen: UNSET,
		done: false,
		liveTps: undefined,
		liveGenerated: undefined,
		prefillProgress: undefined,
	};
	record.firstSeen = t;
	record.lastSeen = t;
	return record;
}

/** The fields a new record is made with, in their order (newRecord; for the tests). */
export const RECORD_FIELDS: readonly string[] = Object.keys(newRecord('', '', 0, undefined));

/** `server` itself where this batch made it, else a copy (made this batch's). */
function writableServer(server: ServerState): Draft {
	if (owned?.has(server)) return server as Draft;
	const copy = {...server} as Draft;
	owned?.add(copy);
	return copy;
}

/** `r` itself where this batch made it, else a copy (the same fields in the same order). */
function writableRecord(r: RequestRecord): DraftRecord {
	if (owned?.has(r)) return r as DraftRecord;
	const copy = {...r} as DraftRecord;
	owned?.add(copy);
	return copy;
}

/** The log ring to append to in place: the batch's own (its window moved in place), else a copy of it made the batch's. */
function writableRing(ring: LogRing): DraftRing {
	if (owned?.has(ring)) return ring as DraftRing;
	const copy = {...ring};
	owned?.add(copy);
	return copy;
}

/** A writable copy of a counter map (the map itself where this batch made it). */
function writableMap<V>(map: Readonly<Record<string, V>>): Record<string, V> {
	if (owned?.has(map)) return map as Record<string, V>;
	const copy = {...map};
	owned?.add(copy);
	return copy;
}

const push = <T>(ring: readonly T[], item: T, cap: number): readonly T[] => {
	if (owned?.has(ring)) {
		const mine = ring as T[];
		// shift, not splice, for the one item a full ring drops: splice makes an array of what it removes
		// (~100 B a finished request on a busy log's request ring)
		if (mine.length > cap) mine.splice(0, mine.length - cap + 1);
		else if (mine.length === cap) mine.shift();
		mine.push(item);
		return mine;
	}
	const next = ring.length >= cap ? ring.slice(ring.length - cap + 1) : ring.slice();
	next.push(item);
	owned?.add(next);
	return next;
};

export function newServer(info: ServerInfo, t?: number): ServerState {
	return {
		...info,
		state: info.source === 'log' ? 'log-only' : 'up',
		lastSeen: t,
		models: [],
		requests: [],
		history: [],
		buffers: {},
		httpCount: 0,
		linesParsed: 0,
		linesUnparsed: 0,
		linesInconsistent: 0,
		answersInconsistent: 0,
		requestsSeen: 0,
		requestsByModel: {},
		totals: {},
		dropped: [],
		offloads: {},
		log: emptyLog(),
		modelBytes: {},
	};
}

function withServer(state: MonitorState, id: string, update: (s: ServerState) => ServerState): MonitorState {
	const current = state.servers[id] ?? newServer({id, engine: UNKNOWN_ENGINE, source: 'log'});
	const next = update(current);
	if (next === current && state.servers[id]) return state;
	return {
		...state,
		servers: {...state.servers, [id]: next},
		order: state.order.includes(id) ? state.order : [...state.order, id],
	};
}

/** The pass sample of a request that just finished (`f`: its figures, worked out once per request end). */
function sampleOf(r: RequestRecord, f: EndFigures, t: number, contention: boolean): PassSample | undefined {
	if (f.decodeTps === undefined && f.tokensPerPass === undefined) return undefined;
	return {t, decodeTps: f.decodeTps, tokensPerPass: f.tokensPerPass, contention: contention || undefined, model: r.attribution?.model ?? r.model, runner: r.runner};
}

const MAX_DROPPED = 32;

/** Move one finished request's count from one model label to another (no zero entries kept). */
function moveCount(counts: Readonly<Record<string, number>>, from: string, to: string): Record<string, number> {
	const next = {...counts, [to]: (counts[to] ?? 0) + 1};
	const left = (next[from] ?? 0) - 1;
	if (left > 0) next[from] = left;
	else delete next[from];
	return next;
}

const plus = (prev: number | undefined, v: number | undefined): number | undefined => (v === undefined ? prev : (prev ?? 0) + v);

/** Count a finished request under its model's label (a counter since start), into the draft `s`. */
function counted(s: Draft, r: RequestRecord, f: EndFigures): void {
	const label = r.attribution?.model ?? UNKNOWN_MODEL;
	const t = s.totals[label] ?? {requests: 0};
	s.requestsSeen++;
	const byModel = writableMap(s.requestsByModel);
	byModel[label] = (byModel[label] ?? 0) + 1;
	s.requestsByModel = byModel;
	const totals = writableMap(s.totals);
	const generated = plus(t.generated, r.generatedTokens ?? r.decodedTokens);
	const prompt = plus(t.prompt, f.promptTokens);
	const drafted = plus(t.drafted, r.drafted);
	const accepted = plus(t.accepted, r.accepted);
	const histograms = observeRequest(t.histograms, r, f, owned);
	if (owned?.has(t)) {
		// this batch's own entry (made by the literal below: the same fields in the same order)
		const own = t as {-readonly [K in keyof RequestTotals]: RequestTotals[K]};
		own.requests++;
		own.generated = generated;
		own.prompt = prompt;
		own.drafted = drafted;
		own.accepted = accepted;
		own.histograms = histograms;
	} else {
		const entry: RequestTotals = {requests: t.requests + 1, generated, prompt, drafted, accepted, histograms};
		owned?.add(entry);
		totals[label] = entry;
	}
	s.totals = totals;
}

/**
 * One `request` event. Measured (llama.cpp, 4 events a request, V8 without its optimizing compiler
 * as the app runs): each event used to rebuild the record with spreads (the event's rest, its
 * defined fields, the record, the server): 12 % of the reducer's time itself and much of its
 * garbage. Now the record is copied once per batch (a record this batch made is written in place,
 * as the server and its rings are) and the fields are copied in one loop.
 */
function applyRequest(server: ServerState, serverId: string, t: number, ev: Extract<EngineEvent, {type: 'request'}>, contention: boolean, at?: 'backlog' | 'earlier'): ServerState {
	const key = ev.key;
	const started = ev.started === true;
	const done = ev.done === true;
	// Later lines of a request dropped as inconsistent are ignored until its key opens anew.
	if (server.dropped.length > 0 && server.dropped.includes(key)) {
		if (!started) return server;
		const s = writableServer(server);
		s.dropped = server.dropped.filter(k => k !== key);
		server = s;
	}
	const requests = server.requests;
	let index = -1;
	for (let i = requests.length - 1; i >= 0 && i >= requests.length - 32; i--) {
		if (requests[i]!.key === key) {
			index = i;
			break;
		}
	}
	const existing = index >= 0 ? requests[index] : undefined;
	// A reused key that opens anew (slot ids repeat across restarts) starts a fresh record.
	const fresh = existing === undefined || (started && existing.done);
	const readAt = t;
	// A request whose time cannot be known sorts before every known time and is in no live window.
	if (at === 'earlier') t = EARLIER_T;
	let record: DraftRecord;
	if (fresh) {
		record = newRecord(serverId, key, t, at);
		owned?.add(record);
	} else record = writableRecord(existing);
	const wasDone = record.done;
	// The event's defined fields, in its order (as a spread of them would add them).
	const fields = record as Record<string, unknown>;
	for (const k in ev) {
		if (k === 'type' || k === 'done' || k === 'started') continue;
		const v = ev[k as keyof typeof ev];
		if (v !== undefined) fields[k] = v;
	}
	// Math.max(lastSeen, t) without a new number object for every event (the interpreter boxes its
	// result): t itself where it is later; Math.max where a NaN or a -0 makes the comparison not say.
	const last = record.lastSeen;
	if (t > last) record.lastSeen = t;
	else if (!(t <= last) || Object.is(last, -0)) record.lastSeen = Math.max(last, t);
	record.done = wasDone || done;
	atLine(record, server.log);
	// A live line of a backlog request makes its time known.
	if (at === undefined && record.earlier) {
		record.earlier = undefined;
		record.firstSeen = t;
	}
	// The engine said it began processing (a start line of its own): the agent view's launch time.
	if (started && !done && at !== 'earlier' && (fresh || record.startedAt === undefined)) record.startedAt = t;
	const reason = inconsistency(record);
	if (reason !== undefined) {
		// Numbers that contradict each other are never figures: counted, said in the log pane, dropped.
		const kept = index >= 0 ? requests.filter((_, i) => i !== index) : requests;
		const text = `infertop: request ${key} not shown: inconsistent (${reason})`;
		const s = writableServer(server);
		s.requests = kept;
		s.dropped = push(s.dropped, key, MAX_DROPPED);
		s.linesInconsistent++;
		s.lastInconsistent = reason;
		s.log = appendTo(writableRing(s.log), readAt, text, LOG_PARSED, MAX_LOG_LINES);
		return s;
	}
	const s = writableServer(server);
	if (record.done && !wasDone) {
		const attribution = attribute(record, server.models);
		if (attribution) record.attribution = attribution;
		// The figures of a request are worked out once, when it ends (its count and its sample): the
		// three these read (endFigures), not the eleven of the requests table.
		const f = endFigures(record);
		counted(s, record, f);
		if (!record.backlog) {
			const sample = sampleOf(record, f, t, contention);
			if (sample) s.history = push(s.history, sample, MAX_HISTORY);
		}
	}
	if (fresh) s.requests = push(s.requests, record, MAX_REQUESTS);
	else {
		const copy = writable(s.requests);
		copy[index] = record;
		s.requests = copy;
	}
	return s;
}

/**
 * A new models list: the unattributed finished requests since the last list are attributed, first
 * by the keep-alive evidence (the model whose `expires_at` moved), then by what the list shows
 * (the only model loaded, the only one of their runner). Counters move from `unknown` to the model.
 */
function applyModels(server: ServerState, models: ServerState['models'], t: number): ServerState {
	// A model the last list had loaded and this one does not: it left memory (the agent view's reload cause).
	const gone = server.models.filter(m => m.loaded !== false && !models.some(n => n.name === m.name && n.loaded !== false));
	if (gone.length > 0) server = gone.reduce((s, m) => withSignal(s, {kind: 'unloaded', model: m.name, reason: 'gone', evidence: `${m.name} absent from the loaded models list`, t}), server);
	const since = server.modelsAt ?? -Infinity;
	const byKeepAlive = attributeByKeepAlive(server.requests, keepAliveMoved(server.models, models), since, t);
	let byModel = server.requestsByModel;
	let changed = false;
	const requests = server.requests.map((r, i) => {
		if (r.attribution || !r.done) return r;
		const next = byKeepAlive.get(i) ?? (r.lastSeen > since || r.earlier ? (() => {
			const a = attribute(r, models);
			return a ? {...r, attribution: a} : undefined;
		})() : undefined);
		if (!next) return r;
		changed = true;
		const label = next.attribution!.model;
		byModel = moveCount(byModel, UNKNOWN_MODEL, label);
		return next;
	});
	return {...server, models, modelsAt: t, ...(changed ? {requests, requestsByModel: byModel} : {})};
}

function withSignal(server: ServerState, signal: ServerSignal): ServerState {
	const s = writableServer(server);
	s.signals = push(s.signals ?? [], signal, MAX_SIGNALS);
	return s;
}

/**
 * A live figure of a request in flight: `rate` sets its live speed and tokens (`a`, `b`), else its
 * prefill progress (`a`), as `{...r, ...patch, lastSeen}` would, without a patch object a line.
 */
function updateLive(server: ServerState, key: string | undefined, t: number, rate: boolean, a: number | undefined, b: number | undefined): ServerState {
	const requests = server.requests;
	for (let i = requests.length - 1; i >= 0 && i >= requests.length - 32; i--) {
		const r = requests[i]!;
		if (key ? r.key === key : !r.done) {
			// written in place where this batch made the record
			const record = writableRecord(r);
			setLive(record, rate, a, b);
			record.lastSeen = t;
			atLine(record, server.log);
			const s = writableServer(server);
			const copy = writable(s.requests);
			copy[i] = record;
			s.requests = copy;
			return s;
		}
	}
	if (!key) return server;
	const record = newRecord(server.id, key, t, undefined);
	setLive(record, rate, a, b);
	atLine(record, server.log);
	owned?.add(record);
	const s = writableServer(server);
	s.requests = push(s.requests, record, MAX_REQUESTS);
	return s;
}

/**
 * The log line that told of the request (its event comes after its line is appended, in a batch and
 * one action at a time alike): its first and last line, for the request's detail, which picks its
 * lines by these where their times cannot be known (a backlog before any stamp).
 */
function atLine(record: DraftRecord, log: LogRing): void {
	const line = log.end - 1;
	if (line < 0) return;
	if (record.firstLine === undefined) record.firstLine = line;
	record.lastLine = line;
}

function setLive(record: DraftRecord, rate: boolean, a: number | undefined, b: number | undefined): void {
	if (rate) {
		record.liveTps = a;
		record.liveGenerated = b;
	} else record.prefillProgress = a;
}

export function applyEvent(server: ServerState, t: number, event: EngineEvent, contention = false, at?: 'backlog' | 'earlier'): ServerState {
	switch (event.type) {
		case 'request':
			return applyRequest(server, server.id, t, event, contention, at);
		case 'live-rate':
			return updateLive(server, event.key, t, true, event.tps, event.generated);
		case 'prefill-progress':
			return updateLive(server, event.key, t, false, event.progress ?? (event.total ? event.processed / event.total : undefined), undefined);
		case 'offload': {
			const offload = {layersOnGpu: event.layersOnGpu, layersTotal: event.layersTotal};
			return {...server, offload, offloads: event.model === undefined ? server.offloads : {...server.offloads, [event.model]: offload}};
		}
		case 'buffer':
			return {...server, buffers: {...server.buffers, [`${event.device}:${event.kind}`]: {device: event.device, kind: event.kind, mib: event.mib, onGpu: event.onGpu}}};
		case 'context':
			return {...server, context: {...server.context, ...Object.fromEntries(Object.entries(event).filter(([k, v]) => k !== 'type' && v !== undefined))}};
		case 'server-start':
			return event.version && event.version !== server.version ? {...server, version: event.version} : server;
		case 'http': {
			// A busy vLLM or Ollama logs one access line a request: the batch's server is counted in place
			// (a copy of the whole server each was most of what such a line cost the store).
			const s = writableServer(server);
			s.httpCount++;
			// what says requests were served where the log has no figures of them (model/derive.ts)
			if (isGenerationCall(event.method, event.path)) s.generationCalls = (s.generationCalls ?? 0) + 1;
			return s;
		}
		case 'busy': {
			// Refused tries (429, Ollama's 503 max queue) are the agent view's retries (model/sessions.ts).
			const refusal = {t: at === 'earlier' ? EARLIER_T : t, ...(event.client !== undefined ? {client: event.client} : {}), ...(event.status !== undefined ? {status: event.status} : {}), ...(at === 'earlier' ? {earlier: true} : {})};
			const s = writableServer(server);
			s.busy = {t, reason: event.reason, status: event.status};
			s.refusals = push(s.refusals ?? [], refusal, MAX_REFUSALS);
			return s;
		}
		case 'interval-stats': {
			// Interval figures belong to their interval: a throughput line opens a new one (no tokens per
			// pass until its own speculation line says so); a speculation line adds to the open one.
			const opens = event.genTps !== undefined || event.promptTps !== undefined || event.running !== undefined;
			// What the last prefill batch said and the cumulative preemption count are not figures of one window:
			// they stay until a line says them again (SGLang logs them on Prefill batch and retract lines only).
			const prev = server.interval;
			const carried = prev ? {cachedTokens: prev.cachedTokens, newTokens: prev.newTokens, preemptedTotal: prev.preemptedTotal} : {};
			const kept = Object.fromEntries(Object.entries(carried).filter(([, v]) => v !== undefined));
			const interval = opens || !prev ? {...kept, ...event, t} : {...prev, ...event, t: prev.t};
			// A per-sequence sample only where one request runs (a sum over N is not one request's speed).
			const single = interval.running === 1;
			const sample: PassSample | undefined = single && (event.genTps !== undefined || event.meanAcceptLen !== undefined)
				? {t, decodeTps: interval.genTps, tokensPerPass: interval.meanAcceptLen, contention: contention || undefined}
				: undefined;
			const s = writableServer(server);
			s.interval = interval;
			if (sample && at === undefined) s.history = push(s.history, sample, MAX_HISTORY);
			return s;
		}
		case 'spec-init':
			return {...server, spec: {kind: event.kind, detail: event.detail}};
		case 'gpu-limit':
			return {...server, gpuLimit: {limitBytes: event.limitBytes, ...(event.requiredBytes !== undefined ? {requiredBytes: event.requiredBytes} : {}), t}};
		case 'inconsistent': {
			const s = writableServer(server);
			s.linesInconsistent++;
			s.log = appendTo(writableRing(s.log), t, `inconsistent, not used: ${event.reason}`, LOG_PARSED | LOG_NOTE, MAX_LOG_LINES);
			return s;
		}
		case 'agent-signal':
			return withSignal(server, {...event.signal, t: at === 'earlier' ? EARLIER_T : t, ...(at === 'earlier' ? {earlier: true} : {})});
		case 'model-loaded':
			// Kept as a signal only (the agent view's reloads): what is loaded comes from the server's API.
			return withSignal(server, {kind: 'loaded', model: event.model, seconds: event.seconds, evidence: event.evidence ?? (event.seconds !== undefined ? `model loaded in ${event.seconds} s` : 'model loaded'), t: at === 'earlier' ? EARLIER_T : t, ...(at === 'earlier' ? {earlier: true} : {})});
		case 'model-unloaded':
			// What is loaded comes from the server's own status API (oMLX `/v1/models/status`): a log line
			// may be old (the backlog) or already undone by a reload, and the poller only dispatches changes.
			// It is kept as a signal (why a model was loaded again: evicted, its idle TTL ran out).
			return withSignal(server, {kind: 'unloaded', model: event.model, reason: event.reason, evidence: `${event.model ?? 'model'} ${event.reason === 'ttl' ? 'unloaded: idle TTL ran out' : event.reason === 'evicted' ? `evicted${event.by ? ` by ${event.by}` : ''}` : 'unloaded'}`, t: at === 'earlier' ? EARLIER_T : t, ...(at === 'earlier' ? {earlier: true} : {})});
	}
}

/** How many log lines were applied in batches, and in how many (for the structure tests and benches). */
export const batchCounts = {batches: 0, lines: 0};

/**
 * One read's lines, in order, as if each were a `log-line` followed by its `engine-event`s: the
 * same state, made with one copy of the server (and of its rings) instead of one per line.
 */
export function applyBatch(server: ServerState, lines: readonly LogBatchLine[], contention: boolean): ServerState {
	if (lines.length === 0) return server;
	batchCounts.batches++;
	batchCounts.lines += lines.length;
	owned = new WeakSet();
	try {
		// One copy of the server; applyEvent returns it or a new object (never one seen outside the
		// batch), so the log and line counts are written into whichever is current.
		let s = {...server} as Draft;
		owned.add(s);
		// Index loops: a for-of makes an iterator and a result object a step where V8 does not optimize.
		for (let i = 0; i < lines.length; i++) {
			const line = lines[i]!;
			// read once: each read of a time (a fraction-holding field) makes a new number object here
			const t = line.t;
			s.log = appendTo(writableRing(s.log), t, line.text, logFlags(line.parsed, false, line.at === 'earlier'), MAX_LOG_LINES);
			if (line.parsed) s.linesParsed++;
			else s.linesUnparsed++;
			const events = line.events;
			if (events) for (let k = 0; k < events.length; k++) s = applyEvent(s, t, events[k]!, contention, line.at) as Draft;
		}
		return s;
	} finally {
		owned = undefined;
	}
}

export function reduce(state: MonitorState, action: Action): MonitorState {
	switch (action.type) {
		case 'log-batch':
			return withServer(state, action.serverId, s => applyBatch(s, action.lines, state.system.contention.active));
		case 'log-lag':
			if (!state.servers[action.serverId]) return state;
			return withServer(state, action.serverId, s => {
				const a = s.logLag;
				const b = action.lag;
				return a && a.bytesBehind === b.bytesBehind && a.linesSkipped === b.linesSkipped && a.skips === b.skips ? s : {...s, logLag: b};
			});
		case 'engine-event':
			return withServer(state, action.serverId, s => applyEvent(s, action.t, action.event, state.system.contention.active, action.at));
		case 'request-attributed':
			return withServer(state, action.serverId, s => {
				const i = s.requests.findLastIndex(r => r.key === action.key);
				const r = i >= 0 ? s.requests[i] : undefined;
				// The same model on new evidence (a probe's request the only loaded model was credited with) is recorded too: an agent's turns leave infertop's probes out.
				if (!r || (r.attribution?.model === action.model && r.attribution.by === action.by)) return s;
				const copy = s.requests.slice();
				copy[i] = {...r, attribution: {model: action.model, by: action.by}};
				const from = r.attribution?.model ?? UNKNOWN_MODEL;
				const byModel = r.done ? moveCount(s.requestsByModel, from, action.model) : s.requestsByModel;
				return {...s, requests: copy, requestsByModel: byModel};
			});
		case 'log-line':
			return withServer(state, action.serverId, s => ({
				...s,
				log: appendLog(s.log, {t: action.t, text: action.text, parsed: action.parsed, ...(action.at === 'earlier' ? {earlier: true} : {})}, MAX_LOG_LINES),
				linesParsed: s.linesParsed + (action.parsed ? 1 : 0),
				linesUnparsed: s.linesUnparsed + (action.parsed ? 0 : 1),
			}));
		case 'log-state':
			return withServer(state, action.serverId, s => (s.logState === action.text ? s : {...s, logState: action.text}));
		case 'server-seen': {
			// One engine name per engine: the demo is an `ollama` with `demo: true`, and the whole
			// state says demo once a demo server is seen (snapshot's top-level `demo` agrees with its servers).
			if (action.server.demo === true && !state.demo) state = {...state, demo: true};
			const existing = state.servers[action.server.id];
			if (!existing) return withServer(state, action.server.id, () => newServer(action.server, action.t));
			return withServer(state, action.server.id, s => {
				const merged = {...s, ...Object.fromEntries(Object.entries(action.server).filter(([, v]) => v !== undefined))} as ServerState;
				// A log-only entry keeps its source when a poller later confirms the server.
				// A log's own news (engine detected, log attached) does not make a log-only entry a live server.
				// Nor does it bring back a named server that is down (its poller or discovery does that).
				const fromLog = action.server.source === 'log' && (s.state === 'log-only' || s.state === 'down');
				const lifecycle = fromLog ? s.state : s.state === 'restarted' ? 'restarted' : 'up';
				// The demo engine answers like an Ollama; discovery must not relabel it (always DEMO on screen).
				const demo = s.demo ? {engine: s.engine, demo: true, source: s.source} : {};
				// A log attached first (engine detected from content) keeps its engine until a server confirms another.
				const engine = action.server.engine === UNKNOWN_ENGINE && s.engine !== UNKNOWN_ENGINE ? {engine: s.engine} : {};
				return {...merged, ...engine, source: s.source === 'log' ? action.server.source : s.source, ...demo, state: lifecycle, lastSeen: action.t, lastError: lifecycle === 'down' ? s.lastError : undefined};
			});
		}
		case 'server-down': {
			const existing = state.servers[action.server.id];
			if (existing && existing.state !== 'down' && existing.state !== 'log-only' && existing.state !== 'up') return state;
			return withServer(state, action.server.id, s =>
				existing ? {...s, url: s.url ?? action.server.url, state: 'down', lastError: action.error} : {...newServer(action.server, undefined), state: 'down', lastError: action.error},
			);
		}
		case 'server-lost':
			return state.servers[action.serverId]
				? withServer(state, action.serverId, s => (s.state === 'stale' && s.lastError === action.error ? s : {...s, state: 'stale', lastError: action.error}))
				: state;
		case 'server-removed': {
			if (!state.servers[action.serverId]) return state;
			const {[action.serverId]: _gone, ...servers} = state.servers;
			return {...state, servers, order: state.order.filter(id => id !== action.serverId)};
		}
		case 'server-restarted':
			return withServer(state, action.serverId, s => ({...s, state: 'restarted', lastSeen: action.t, lastError: undefined}));
		case 'server-load':
			return state.servers[action.serverId] ? withServer(state, action.serverId, s => ({...s, load: {...action.load, t: action.t}})) : state;
		case 'server-models':
			return withServer(state, action.serverId, s => ({
				...applyModels(s, action.models, action.t),
				lastSeen: action.t,
				state: s.state === 'stale' || s.state === 'log-only' || s.state === 'starting' ? 'up' : s.state,
				lastError: undefined,
				modelsListed: action.listed,
			}));
		case 'answer-inconsistent':
			return state.servers[action.serverId]
				? withServer(state, action.serverId, s => ({...s, answersInconsistent: s.answersInconsistent + 1, lastInconsistent: action.reason}))
				: state;
		case 'model-bytes':
			return withServer(state, action.serverId, s => ({...s, modelBytes: {...s.modelBytes, [action.model]: {bytesPerToken: action.bytesPerToken, source: action.source}}}));
		case 'bandwidth':
			return {...state, bandwidth: action.bandwidth};
		case 'system':
			return {...state, system: action.system};
		case 'probe-started': {
			const {lastError: _dropped, ...rest} = state.probe;
			return {...state, probe: {...rest, running: action.running, prompt: action.prompt}};
		}
		case 'probe-progress':
			return {...state, probe: {...state.probe, running: action.running}};
		case 'probe-result':
			return {...state, probe: {...state.probe, results: [...state.probe.results, action.result].slice(-MAX_PROBE_RESULTS), running: action.next}};
		case 'probe-failed':
			return {...state, probe: {...state.probe, running: undefined, lastError: action.error}};
		case 'compare-started':
			return {...state, compare: {runId: action.runId, startedAt: action.startedAt, total: action.total, rows: [], running: [], finished: false}};
		case 'compare-progress': {
			const c = state.compare;
			if (!c || c.finished) return state;
			const p = action.progress;
			const running = [...c.running.filter((r) => r.index !== p.index && r.url !== p.url), p].sort((a, b) => a.index - b.index);
			return {...state, compare: {...c, running}};
		}
		case 'compare-row': {
			const c = state.compare;
			if (!c || c.runId !== action.row.runId) return state;
			const rows = [...c.rows, action.row].sort((a, b) => a.index - b.index);
			return {...state, compare: {...c, rows, running: c.running.filter((r) => r.index !== action.row.index)}};
		}
		case 'compare-finished': {
			const c = state.compare;
			if (!c || c.runId !== action.runId) return state;
			return {...state, compare: {...c, running: [], finished: true, cancelled: action.cancelled || undefined, error: action.error}};
		}
		case 'looked-for':
			return {...state, lookedFor: action.lookedFor};
		case 'refresh':
			return state.refreshMs === action.refreshMs ? state : {...state, refreshMs: action.refreshMs};
		case 'notice':
			return {...state, notices: push(state.notices, {t: action.t, text: action.text, level: action.level}, MAX_NOTICES)};
		case 'tick':
			return {...state, now: action.t};
	}
}
