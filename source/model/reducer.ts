/**
 * The pure reducer: (state, action) → state. Immutable; only the slice that changed is replaced,
 * so selectors keep their references. Nothing grows without bound (capped rings).
 */
import {emptySystem} from '../types/system.js';
import {emptyProbe, MAX_PROBE_RESULTS} from '../types/probe.js';
import {requestFigures} from './figures.js';
import {appendLog, emptyLog} from './log-ring.js';
import type {Action, EngineEvent, MonitorState, RequestRecord, ServerState, ServerInfo, PassSample} from '../types/monitor.js';

export const MAX_REQUESTS = 200;
export const MAX_HISTORY = 240;
export const MAX_LOG_LINES = 1000;
export const MAX_NOTICES = 20;

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

const push = <T>(ring: readonly T[], item: T, cap: number): readonly T[] => {
	const next = ring.length >= cap ? ring.slice(ring.length - cap + 1) : ring.slice();
	next.push(item);
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
		log: emptyLog(),
		modelBytes: {},
	};
}

function withServer(state: MonitorState, id: string, update: (s: ServerState) => ServerState): MonitorState {
	const current = state.servers[id] ?? newServer({id, engine: 'openai', source: 'log'});
	const next = update(current);
	if (next === current && state.servers[id]) return state;
	return {
		...state,
		servers: {...state.servers, [id]: next},
		order: state.order.includes(id) ? state.order : [...state.order, id],
	};
}

function sampleOf(r: RequestRecord, t: number, contention: boolean): PassSample | undefined {
	const f = requestFigures(r);
	if (f.decodeTps === undefined && f.tokensPerPass === undefined) return undefined;
	return {t, decodeTps: f.decodeTps, tokensPerPass: f.tokensPerPass, contention: contention || undefined, model: r.model, runner: r.runner};
}

function applyRequest(server: ServerState, serverId: string, t: number, ev: Extract<EngineEvent, {type: 'request'}>, contention: boolean): ServerState {
	const {type: _type, done, started, ...patch} = ev;
	let index = -1;
	for (let i = server.requests.length - 1; i >= 0 && i >= server.requests.length - 32; i--) {
		if (server.requests[i]!.key === patch.key) {
			index = i;
			break;
		}
	}
	const existing = index >= 0 ? server.requests[index] : undefined;
	// A reused key that opens anew (slot ids repeat across restarts) starts a fresh record.
	const fresh = !existing || (started === true && existing.done);
	const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as typeof patch;
	const base: RequestRecord = fresh ? {serverId, key: patch.key, firstSeen: t, lastSeen: t, done: false} : existing;
	const record: RequestRecord = {...base, ...defined, lastSeen: t, done: base.done || done === true};
	let requests: readonly RequestRecord[];
	if (fresh) requests = push(server.requests, record, MAX_REQUESTS);
	else {
		const copy = server.requests.slice();
		copy[index] = record;
		requests = copy;
	}
	let history = server.history;
	if (record.done && !base.done) {
		const sample = sampleOf(record, t, contention);
		if (sample) history = push(history, sample, MAX_HISTORY);
	}
	return {...server, requests, history};
}

function updateLive(server: ServerState, key: string | undefined, patch: Partial<RequestRecord>, t: number): ServerState {
	for (let i = server.requests.length - 1; i >= 0 && i >= server.requests.length - 32; i--) {
		const r = server.requests[i]!;
		if (key ? r.key === key : !r.done) {
			const copy = server.requests.slice();
			copy[i] = {...r, ...patch, lastSeen: t};
			return {...server, requests: copy};
		}
	}
	if (!key) return server;
	return {...server, requests: push(server.requests, {serverId: server.id, key, firstSeen: t, lastSeen: t, done: false, ...patch}, MAX_REQUESTS)};
}

export function applyEvent(server: ServerState, t: number, event: EngineEvent, contention = false): ServerState {
	switch (event.type) {
		case 'request':
			return applyRequest(server, server.id, t, event, contention);
		case 'live-rate':
			return updateLive(server, event.key, {liveTps: event.tps, liveGenerated: event.generated}, t);
		case 'prefill-progress':
			return updateLive(server, event.key, {prefillProgress: event.progress ?? (event.total ? event.processed / event.total : undefined)}, t);
		case 'offload':
			return {...server, offload: {layersOnGpu: event.layersOnGpu, layersTotal: event.layersTotal}};
		case 'buffer':
			return {...server, buffers: {...server.buffers, [`${event.device}:${event.kind}`]: {device: event.device, kind: event.kind, mib: event.mib, onGpu: event.onGpu}}};
		case 'context':
			return {...server, context: {...server.context, ...Object.fromEntries(Object.entries(event).filter(([k, v]) => k !== 'type' && v !== undefined))}};
		case 'server-start':
			return event.version && event.version !== server.version ? {...server, version: event.version} : server;
		case 'http':
			return {...server, httpCount: server.httpCount + 1};
		case 'busy':
			return {...server, busy: {t, reason: event.reason, status: event.status}};
		case 'interval-stats': {
			const sample: PassSample | undefined = event.genTps !== undefined || event.meanAcceptLen !== undefined
				? {t, decodeTps: event.genTps, tokensPerPass: event.meanAcceptLen, contention: contention || undefined}
				: undefined;
			return {...server, interval: {...server.interval, ...event, t}, history: sample ? push(server.history, sample, MAX_HISTORY) : server.history};
		}
		case 'spec-init':
			return {...server, spec: {kind: event.kind, detail: event.detail}};
		case 'inconsistent':
			return {
				...server,
				linesInconsistent: server.linesInconsistent + 1,
				log: appendLog(server.log, {t, text: `inconsistent, not used: ${event.reason}`, parsed: true, note: true}, MAX_LOG_LINES),
			};
		case 'model-loaded':
			return server;
		case 'model-unloaded':
			// What is loaded comes from the server's own status API (oMLX `/v1/models/status`): a log line
			// may be old (the backlog) or already undone by a reload, and the poller only dispatches changes.
			return server;
	}
}

export function reduce(state: MonitorState, action: Action): MonitorState {
	switch (action.type) {
		case 'engine-event':
			return withServer(state, action.serverId, s => applyEvent(s, action.t, action.event, state.system.contention.active));
		case 'log-line':
			return withServer(state, action.serverId, s => ({
				...s,
				log: appendLog(s.log, {t: action.t, text: action.text, parsed: action.parsed}, MAX_LOG_LINES),
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
				const engine = action.server.engine === 'openai' && s.engine !== 'openai' ? {engine: s.engine} : {};
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
		case 'server-restarted':
			return withServer(state, action.serverId, s => ({...s, state: 'restarted', lastSeen: action.t, lastError: undefined}));
		case 'server-load':
			return state.servers[action.serverId] ? withServer(state, action.serverId, s => ({...s, load: {...action.load, t: action.t}})) : state;
		case 'server-models':
			return withServer(state, action.serverId, s => ({
				...s,
				lastSeen: action.t,
				state: s.state === 'stale' || s.state === 'log-only' || s.state === 'starting' ? 'up' : s.state,
				lastError: undefined,
				models: action.models,
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
