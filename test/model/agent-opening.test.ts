/**
 * Issue 30, "the first minute": the agent view opens on the session with the most known parts,
 * and never gives a share computed over nothing known. Two agents on one Ollama (the demo's set-up:
 * a GGUF model whose llama-server lines give prefill and decode, an MLX model whose lines do not),
 * lines built from ollama/ollama's format strings @ fb3076099 (x/mlxrunner `cache miss`,
 * `speculative decode stats`, `ServeHTTP`; gin's access line) and llama-server's print_timing.
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {feedLine} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {budgetWords, openingSession, serverSessions} from '../../source/model/sessions.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import {llamaTask} from '../helpers/agent-feed.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
const iso = (t: number) => new Date(t).toISOString();
const slog = (t: number, source: string, msg: string, attrs = '') => `time=${iso(t)} level=INFO source=${source} msg="${msg}"${attrs ? ` ${attrs}` : ''}`;
const gin = (latency: string, ip: string): string => `[GIN] 2026/12/01 - 10:00:00 | 200 | ${latency.padStart(13)} | ${ip.padStart(15)} | POST     "/api/chat"`;
const gguf = (task: number, prompt: number, cached: number, prefillMs: number, decodeMs: number, n: number): string[] =>
	llamaTask(task, {window: 8192, prompt, cached, prefillMs, decodeMs, generated: n});

function twoAgents(): MonitorState {
	let state = initialState({now: T0});
	const dispatch = (a: Action): void => {
		state = reduce(state, a);
	};
	dispatch({type: 'server-seen', t: T0, server: {id: 'ollama', engine: 'ollama', source: 'flag', url: 'http://127.0.0.1:11434'}});
	dispatch({type: 'server-models', t: T0, serverId: 'ollama', models: [{name: 'qwen3:8b', format: 'gguf', runner: 'gguf'}, {name: 'gemma4:12b-mlx', format: 'safetensors', runner: 'mlx'}]});
	const p = createParser('ollama');
	const line = (t: number, l: string): void => {
		feedLine(p, 'ollama', l, t, dispatch);
		dispatch({type: 'tick', t: Math.max(state.now, t)});
	};
	// Agent A (10.0.0.5) on the GGUF model: three turns, prefill and decode from print_timing.
	for (const [i, t] of [T0, T0 + 6000, T0 + 12_000].entries()) {
		line(t, gguf(i * 2, 1000 + i * 300, i === 0 ? 0 : 950 + (i - 1) * 300, 400, 1600, 40)[0]!);
		for (const l of gguf(i * 2, 1000 + i * 300, i === 0 ? 0 : 950 + (i - 1) * 300, 400, 1600, 40).slice(1)) line(t + 2000, l);
		line(t + 2000, gin('2.0s', '10.0.0.5'));
	}
	// Agent B (10.0.0.7) on the MLX model, later: its lines give counts and wall time, no prefill/decode split.
	for (const [i, t] of [T0 + 20_000, T0 + 26_000, T0 + 32_000].entries()) {
		line(t, slog(t, 'prefix_cache.go:125', 'cache miss', `total=${200 + i * 100} left=${200 + i * 100}`));
		line(t + 2000, slog(t + 2000, 'speculate_stats.go:62', 'speculative decode stats', 'iterations=50 drafted=100 accepted=60'));
		line(t + 2000, slog(t + 2000, 'server.go:225', 'ServeHTTP', 'method=POST path=/v1/completions took=2s status="200 OK"'));
		line(t + 2000, gin('2.0s', '10.0.0.7'));
	}
	return state;
}

describe('the agent view: which session opens, and shares over what is known', () => {
	const state = twoAgents();
	const view = serverSessions(state.servers.ollama!);
	const mlx = view.sessions.find(s => s.client === '10.0.0.7')!;
	const ggufSession = view.sessions.find(s => s.client === '10.0.0.5')!;

	it('two sessions, the MLX one newest; its prefill and decode are unknown', () => {
		expect(view.sessions.map(s => [s.model, s.client, s.turns.length])).toEqual([['qwen3:8b', '10.0.0.5', 3], ['gemma4:12b-mlx', '10.0.0.7', 3]]);
		expect(mlx.turns.map(t => [t.prefillMs, t.decodeMs])).toEqual([[undefined, undefined], [undefined, undefined], [undefined, undefined]]);
	});

	it('no share of wall time where the wait is unknown: never `idle 100 %` over idle alone', () => {
		expect(mlx.budget.shares).toEqual({});
		expect(mlx.budget.waitShares).toEqual({});
		expect(budgetWords(mlx)).not.toMatch(/%/);
		// The GGUF agent's parts are all known: its shares stand.
		expect(ggufSession.budget.waitShares).toEqual({queue: 0, prefill: 0.2, decode: 0.8});
	});

	it('the view opens on the session with the most known parts, not the newest', () => {
		expect(openingSession(view.sessions, 'ollama')).toBe(ggufSession);
		// Equal knowledge: the newest.
		expect(openingSession([ggufSession, {...ggufSession, id: 'later'}], 'ollama')!.id).toBe('later');
		expect(openingSession([], 'ollama')).toBeUndefined();
	});
});
