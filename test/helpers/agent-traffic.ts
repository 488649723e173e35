/**
 * A shared server's traffic as the engines' events, in time order, for the tests that compare the
 * agent view's derivation with itself done another way (issue 32): agents on two models at once,
 * each a session of growing turns (the prompt resent with the new tool output, the cache holding
 * the previous prompt), a batch of requests larger than the slots (queued, some with the wait the
 * engine logged), slots reused (a restart starts the task ids again, so keys repeat), a failed and
 * a cancelled request, signals the engine logs about turns, and, on an Ollama server, clients by
 * their access lines with refused tries. Deterministic (a seeded generator).
 */
import {initialState, reduce} from '../../source/model/reducer.js';
import type {MonitorState} from '../../source/types/state.js';
import type {EngineEvent} from '../../source/types/events.js';

export const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

export function rng(seed: number): () => number {
	return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

export interface Timed {
	readonly t: number;
	readonly serverId: string;
	readonly event: EngineEvent;
}

interface Options {
	/** Turns per agent session (each agent starts a new session when it has done these). */
	readonly turns?: number;
	/** Agent sessions run one after the other by each agent. */
	readonly sessions?: number;
	/** Requests of the batch (all at once, more than the slots). */
	readonly batch?: number;
	readonly seed?: number;
}

/**
 * llama-server with 4 slots serving two agents (qwen, gemma) and one batch; Ollama serving two
 * clients with refused tries. Events sorted by time.
 */
export function agentTraffic(options: Options = {}): Timed[] {
	const {turns = 20, sessions = 1, batch = 12, seed = 11} = options;
	const rand = rng(seed);
	const out: Timed[] = [];
	const slotFree = [T0, T0, T0, T0];
	let task = 0;
	let restartAt = Number.POSITIVE_INFINITY;
	let lastKey = '';
	/** One request on llama-server: the first free slot takes it; start and release lines. */
	const llama = (arrival: number, model: string, prompt: number, cached: number, extra: {queueLogged?: boolean; outcome?: 'error' | 'cancelled'; key?: string} = {}): number => {
		let slot = 0;
		for (let i = 1; i < slotFree.length; i++) if (slotFree[i]! < slotFree[slot]!) slot = i;
		const start = Math.max(arrival, slotFree[slot]!);
		if (start >= restartAt) {
			// the server restarted: task ids begin again, so keys repeat
			task = 0;
			restartAt = Number.POSITIVE_INFINITY;
		}
		const key = extra.key ?? `s${slot}/t${task++}`;
		lastKey = key;
		const uncached = prompt - cached;
		const prefillMs = Math.round((uncached / (1500 + rand() * 1000)) * 1000 * 100) / 100;
		const generated = 20 + Math.floor(rand() * 400);
		const decodeMs = Math.round((generated / (30 + rand() * 20)) * 1000 * 100) / 100;
		const end = start + Math.ceil(prefillMs + decodeMs) + 1;
		slotFree[slot] = end;
		out.push({t: start, serverId: 'llama', event: {type: 'request', key, started: true, slot, model}});
		const waited = start - arrival;
		const done: EngineEvent = extra.outcome === 'error'
			? {type: 'request', key, done: true, outcome: 'error', error: 'context overflow'}
			: {type: 'request', key, done: true, model, promptTokens: prompt, cachedTokens: cached, prefillTokens: uncached, prefillMs, decodeMs, generatedTokens: generated, ...(extra.outcome ? {outcome: extra.outcome} : {}), ...(extra.queueLogged && waited > 0 ? {queueMs: waited} : {})};
		out.push({t: end, serverId: 'llama', event: done});
		return end;
	};
	// Two agents at once, one per model, each a run of sessions of growing turns.
	for (const [a, model] of [[0, 'qwen'], [1, 'gemma']] as const) {
		let at = T0 + 500 + a * 1700;
		for (let s = 0; s < sessions; s++) {
			let prompt = 2000 + Math.floor(rand() * 3000);
			let prev = 0;
			for (let i = 0; i < turns; i++) {
				// now and then the cache missed (a nonce at the prompt's start)
				const cached = i === 0 ? 0 : rand() < 0.15 ? Math.floor(rand() * 40) : prev;
				const outcome = i === 7 && a === 0 ? 'cancelled' : i === 13 && a === 1 ? 'error' : undefined;
				const end = llama(at, model, prompt, cached, {queueLogged: rand() < 0.5, outcome});
				if (i === 5 && a === 1) out.push({t: end - 200, serverId: 'llama', event: {type: 'agent-signal', signal: {kind: 'context-shifted', evidence: 'context shift: n_discard = 512', discarded: 512}}});
				if (i === 11 && a === 0) out.push({t: end - 100, serverId: 'llama', event: {type: 'agent-signal', signal: {kind: 'truncated', key: lastKey, evidence: 'prompt truncated to the context', prompt, limit: 32_768}}});
				prev = prompt;
				prompt += 200 + Math.floor(rand() * 1500);
				at = end + 800 + Math.floor(rand() * 7000);
			}
			// the next session after a pause longer than the gap, a fresh prompt
			at += 65_000 + Math.floor(rand() * 20_000);
		}
	}
	// A batch larger than the slots, all at once, while the agents run; then a restart.
	const batchAt = T0 + 9000;
	for (let i = 0; i < batch; i++) llama(batchAt, 'qwen', 300 + Math.floor(rand() * 900), 0, {queueLogged: i % 2 === 0});
	restartAt = batchAt + 30_000;
	out.push({t: T0 + 2000, serverId: 'llama', event: {type: 'model-loaded', model: 'gemma', seconds: 1.4, evidence: 'llama_model_load: loaded in 1.40 s'}});
	// part of qwen on the CPU (as the server says)
	out.push({t: T0 + 100, serverId: 'llama', event: {type: 'offload', layersOnGpu: 30, layersTotal: 36, model: 'qwen'}});
	// Ollama: two clients, their access lines say who; refused tries before some turns.
	for (const [c, client] of [[0, '10.0.0.7'], [1, '10.0.0.9']] as const) {
		let at = T0 + 300 + c * 900;
		let prompt = 1500 + Math.floor(rand() * 2000);
		let prev = 0;
		for (let i = 0; i < turns; i++) {
			if (rand() < 0.2) out.push({t: at - 400, serverId: 'ollama', event: {type: 'busy', status: 503, reason: 'server busy, please try again.  maximum pending requests exceeded', client}});
			const prefillMs = Math.round(((prompt - prev) / 1800) * 1000);
			const decodeMs = 800 + Math.floor(rand() * 3000);
			const accessMs = prefillMs + decodeMs + Math.floor(rand() * 300);
			const end = at + accessMs;
			out.push({t: end, serverId: 'ollama', event: {type: 'request', key: `o${c}-${i}`, done: true, model: 'llama3.2', client, promptTokens: prompt, cachedTokens: prev, prefillMs, decodeMs, generatedTokens: 100 + Math.floor(rand() * 200), accessMs}});
			prev = prompt;
			prompt += 300 + Math.floor(rand() * 900);
			at = end + 500 + Math.floor(rand() * 5000);
		}
	}
	return out.sort((x, y) => x.t - y.t);
}

/** A state with the two servers, to which the events are applied. */
export function trafficState(): MonitorState {
	let st = initialState({now: T0});
	st = reduce(st, {type: 'server-seen', t: T0, server: {id: 'llama', engine: 'llamacpp', source: 'flag', url: 'http://127.0.0.1:8080'}});
	st = reduce(st, {type: 'server-seen', t: T0, server: {id: 'ollama', engine: 'ollama', source: 'flag', url: 'http://127.0.0.1:11434'}});
	return st;
}

/** Applies the events up to `until` (from `from`, an index into them); returns the next index. */
export function applyUntil(st: {state: MonitorState}, events: readonly Timed[], from: number, until: number): number {
	let i = from;
	while (i < events.length && events[i]!.t <= until) {
		const e = events[i]!;
		st.state = reduce(st.state, {type: 'engine-event', serverId: e.serverId, t: e.t, event: e.event});
		i++;
	}
	st.state = reduce(st.state, {type: 'tick', t: until});
	return i;
}
