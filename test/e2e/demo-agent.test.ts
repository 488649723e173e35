/**
 * The agent view end to end (issue 16 part 1): the demo's simulated coding agent (`--demo-agent`)
 * runs against the demo engine — a real HTTP server writing a real Ollama log — and infertop reads
 * that log through its real log source, parser and reducer. The budget infertop derives must equal
 * the simulation's own accounting (kept from the engine's clocks, not from the log): exactly where
 * the log gives milliseconds (prompt and eval times to 0.01 ms, `[GIN]` latency to the nanosecond),
 * and within the log's resolution where it does not: when a turn ended comes from the `[GIN]` stamp,
 * whole seconds, so idle is known to ±1 s, and a turn with refused tries to two such stamps.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startDemoEngine, type DemoEngine} from '../../source/demo/engine.js';
import type {AgentAccounting} from '../../source/demo/agent.js';
import {createLogSource} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {deriveSessions, type SessionsView} from '../../source/model/sessions.js';
import type {MonitorState} from '../../source/types/state.js';

let dir: string;
let engine: DemoEngine;
let sim: AgentAccounting;
let view: SessionsView;

beforeAll(async () => {
	dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-agent-'));
	const logPath = path.join(dir, 'server.log');
	engine = await startDemoEngine({logPath, agent: 'session', agentTurns: 8, speed: 4, seed: 7});
	await engine.agentDone;
	sim = engine.agentAccounting();
	await engine.stop();
	// The whole log, read as a user who opens infertop afterwards would: the log's own times.
	let state: MonitorState = initialState();
	const source = createLogSource({serverId: 'demo', engine: 'ollama', input: {kind: 'file', path: logPath, startBytes: 64 * 1024 * 1024}, dispatch: a => (state = reduce(state, a))});
	await source.start();
	await source.stop();
	view = deriveSessions(state);
}, 120_000);

afterAll(async () => {
	await engine?.stop();
	if (dir) rmSync(dir, {recursive: true, force: true});
});

const to = (x: number | undefined, digits = 2): number | undefined => (x === undefined ? undefined : Math.round(x * 10 ** digits) / 10 ** digits);

describe('demo agent: infertop\'s budget = the simulation\'s accounting', () => {
	it('the agent ran 8 main turns plus its side requests, some of them refused while the queue was full', () => {
		expect(sim.turns.length).toBe(8 + 2 * 2);
		expect(sim.turns.some(t => t.retries > 0)).toBe(true);
	});

	it('one session (one client, one model), every turn in it, with the client the access log gave', () => {
		expect(view.withoutTime).toBe(0);
		expect(view.sessions).toHaveLength(1);
		const s = view.sessions[0]!;
		expect(s.client).toBe('127.0.0.1');
		expect(s.turns).toHaveLength(sim.turns.length);
	});

	it('per turn, exact: prompt, cached and generated tokens, prefill and decode time (0.01 ms as logged); every refused try counted once', () => {
		const turns = view.sessions[0]!.turns;
		expect(turns.map(t => [t.promptTokens, t.cachedTokens, t.generatedTokens])).toEqual(sim.turns.map(t => [t.promptTokens, t.cachedTokens, t.generatedTokens]));
		// Which of two overlapping turns a refused try was is known only to the [GIN] stamp's second: the count is exact.
		expect(turns.reduce((a, t) => a + t.retries, 0)).toBe(sim.turns.reduce((a, t) => a + t.retries, 0));
		expect(turns.map(t => to(t.prefillMs))).toEqual(sim.turns.map(t => to(t.prefillMs)));
		expect(turns.map(t => to(t.decodeMs))).toEqual(sim.turns.map(t => to(t.decodeMs)));
	});

	// A refused try is stamped to its second: within a second of the arrival of a turn that overlapped it
	// (the agent's side requests go at once), it cannot be told from that turn's. So a turn with retries
	// (in either account) is known to two stamp resolutions: its first refused try's and its end's.
	const RETRY_BOUND_MS = 2000;

	it('queue, to the millisecond where no retry came before (latency − prefill − decode); within the stamps\' resolution where one did', () => {
		const turns = view.sessions[0]!.turns;
		sim.turns.forEach((t, i) => {
			const got = turns[i]!.queueMs!;
			if (t.retries === 0 && turns[i]!.retries === 0) expect(Math.abs(got - t.queueMs)).toBeLessThan(0.05);
			else expect(Math.abs(got - t.queueMs)).toBeLessThan(RETRY_BOUND_MS);
		});
	});

	it('idle before each turn, within the second the [GIN] stamps give; none before the first', () => {
		const turns = view.sessions[0]!.turns;
		expect(turns[0]!.idleBeforeMs).toBeUndefined();
		expect(sim.turns[0]!.idleBeforeMs).toBeUndefined();
		sim.turns.slice(1).forEach((t, i) => {
			const mine = turns[i + 1]!;
			expect(Math.abs(mine.idleBeforeMs! - t.idleBeforeMs!)).toBeLessThan(t.retries === 0 && mine.retries === 0 ? 1000 : RETRY_BOUND_MS);
		});
	});

	it('the budget: prefill and decode sums to the millisecond, the cache saving by the same measured rate, nothing unknown', () => {
		const b = view.sessions[0]!.budget;
		expect(b.unknown).toEqual({queue: 0, prefill: 0, decode: 0, idle: 0});
		expect(Math.abs(b.prefillMs! - sim.prefillMs)).toBeLessThan(1);
		expect(Math.abs(b.decodeMs! - sim.decodeMs)).toBeLessThan(1);
		const withRetries = sim.turns.filter((t, i) => t.retries > 0 || view.sessions[0]!.turns[i]!.retries > 0).length;
		expect(Math.abs(b.queueMs! - sim.queueMs)).toBeLessThan(1 + RETRY_BOUND_MS * withRetries);
		expect(sim.savedByCacheMs).toBeDefined();
		expect(Math.abs(b.savedByCacheMs! - sim.savedByCacheMs!)).toBeLessThan(1);
	});
});
