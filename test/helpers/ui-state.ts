/**
 * Hand-built monitor states for the screen tests, made through the real reducer so they have the
 * shape collectors produce. Numbers come from DESIGN §1's worked examples.
 */
import {createStore, type MonitorStore} from '../../source/model/store.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import {emptySystem, type SystemState} from '../../source/types/system.js';

export const T0 = Date.parse('2026-03-01T12:00:00Z');
export const OLLAMA = 'ollama@127.0.0.1:11434';
export const LLAMA = 'llamacpp@127.0.0.1:8080';

export const busySystem: SystemState = {
	...emptySystem(),
	cpuLoadPct: 63,
	gpus: [{index: 0, name: 'Apple M4 Pro', unified: true, utilizationPct: 87}],
	contention: {
		hot: [{pid: 4242, name: 'blender', cpuPct: 110, hotForMs: 180_000, memRssBytes: 1.2e9}],
		engines: [{pid: 977, name: 'llama-server', engine: 'llamacpp', cpuPct: 4}],
		gpuUsers: [],
		swapUsedBytes: 2.1e9,
		swapTotalBytes: 8e9,
		power: {source: 'ac'},
		verdict: 'blender 110 % CPU for 3 min',
		active: true,
	},
	self: {cpuPct: 1.2, rssBytes: 85e6},
	updatedAt: T0,
};

function actions(): Action[] {
	const a: Action[] = [
		{type: 'bandwidth', bandwidth: {gbs: 273, source: 'table: Apple M4 Pro', chip: 'Apple M4 Pro'}},
		{type: 'server-seen', t: T0, server: {id: OLLAMA, engine: 'ollama', url: 'http://127.0.0.1:11434', source: 'port-scan', logLabel: '~/.ollama/logs/server.log'}},
		{
			type: 'server-models',
			t: T0,
			serverId: OLLAMA,
			models: [
				{name: 'qwen3:8b', sizeBytes: 6e9, sizeVramBytes: 6e9, contextLength: 8192, expiresAt: new Date(T0 + 4 * 60_000 + 30_000).toISOString()},
				{name: 'gemma3:27b', sizeBytes: 20e9, sizeVramBytes: 10.4e9, contextLength: 4096, expiresAt: '2318-01-01T00:00:00Z'},
			],
		},
		{type: 'model-bytes', serverId: OLLAMA, model: 'qwen3:8b', bytesPerToken: 4.9e9, source: 'gguf tensors'},
		{type: 'server-seen', t: T0, server: {id: LLAMA, engine: 'llamacpp', url: 'http://127.0.0.1:8080', source: 'port-scan'}},
		{type: 'engine-event', serverId: LLAMA, t: T0, event: {type: 'context', nCtx: 32768, nCtxPerSlot: 8192, slots: 4}},
	];
	// 60 finished requests on qwen3:8b with a rising rate; contention during some of them.
	for (let i = 0; i < 60; i++) {
		const t = T0 + i * 1000;
		const contended = i >= 40 && i < 46;
		a.push({type: 'system', system: contended ? busySystem : {...busySystem, contention: {...busySystem.contention, active: false, verdict: undefined}}});
		a.push({
			type: 'engine-event',
			serverId: OLLAMA,
			t,
			event: {type: 'request', key: `s0/t${i}`, model: 'qwen3:8b', started: true, promptTokens: 1200, cachedTokens: 1024, prefillMs: 220, decodedTokens: 127, accepted: 99, drafted: 158, decodeMs: contended ? 4200 : 2668, done: true},
		});
	}
	a.push({type: 'system', system: busySystem});
	// DESIGN §1: 47 decoded, 38 accepted → 5.22 tokens per pass while llama.cpp says mean len 5.75.
	a.push({
		type: 'engine-event',
		serverId: LLAMA,
		t: T0 + 61_000,
		event: {type: 'request', key: 's1/t7', model: 'Qwen3-8B-Q4_K_M.gguf', started: true, promptTokens: 300, cachedTokens: 0, prefillMs: 400, decodedTokens: 47, accepted: 38, drafted: 50, decodeMs: 900, engineMeanLen: 5.75, done: true},
	});
	a.push({type: 'engine-event', serverId: LLAMA, t: T0 + 62_000, event: {type: 'live-rate', key: 's2/t8', generated: 120, tps: 51.3}});
	for (let i = 0; i < 30; i++) {
		a.push({type: 'log-line', serverId: OLLAMA, t: T0 + i * 500, text: i % 3 === 0 ? `slot print_timing: id  0 | task ${i} | eval time = 2668.00 ms / 127 tokens` : `[GIN] 200 | POST "/api/chat" line ${i}`, parsed: i % 3 === 0});
	}
	a.push({
		type: 'probe-result',
		result: {t: T0 + 50_000, engine: 'ollama', url: 'http://127.0.0.1:11434', model: 'qwen3:8b', protocol: 'ollama', prompt: 'code', ttftMs: 312, decodeTps: 47.6, reportedTps: 52.4, tokensPerPass: 4.54, acceptance: 0.63, ceilingTps: 55.7, pctOfCeiling: 0.855, disagree: true},
	});
	a.push({type: 'tick', t: T0 + 63_000});
	return a;
}

/** A busy machine: two servers (three model rows), history, requests, a probe, contention. */
export function richState(): MonitorState {
	return actions().reduce(reduce, initialState({host: 'studio', now: T0}));
}

/** Nothing found. */
export function emptyState(): MonitorState {
	return reduce(initialState({host: 'studio', now: T0}), {type: 'looked-for', lookedFor: {ports: [11434, 8080, 1234], processes: ['ollama', 'llama-server'], logs: ['~/.ollama/logs/server.log']}});
}

/** A real store holding richState (published). */
export function richStore(): MonitorStore {
	const store = createStore({host: 'studio', now: T0});
	for (const a of actions()) store.dispatch(a);
	store.publish();
	return store;
}

export function emptyStore(): MonitorStore {
	const store = createStore({host: 'studio', now: T0});
	store.dispatch({type: 'looked-for', lookedFor: {ports: [11434, 8080, 1234], processes: ['ollama', 'llama-server'], logs: ['~/.ollama/logs/server.log']}});
	store.publish();
	return store;
}
