/**
 * Issue 28 end to end: the demo's agent (`--demo-agent`) causes faults on purpose (demo/agent.ts
 * AGENT_FAULTS) — a changing nonce first in its system prompt for three turns, a short keep_alive
 * and a pause longer than it (the model leaves memory and is loaded again), and a tool output that
 * pushes its prompt past the model's window (the demo engine cuts it as Ollama ≥ 0.30.11 does, with
 * its WARN line) — and keeps its own accounting from the engine's own clocks and counts. infertop
 * reads the demo's log (and `/api/ps` as polled during the run) and must find exactly those turns.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startDemoEngine, type DemoEngine} from '../../source/demo/engine.js';
import {AGENT_FAULTS, type AgentAccounting} from '../../source/demo/agent.js';
import {ollamaPsModels} from '../../source/engines/ollama.js';
import {createLogSource} from '../../source/sources/log-source.js';
import {httpGet, isAnswer} from '../../source/sources/http-get.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {deriveSessions, type Session} from '../../source/model/sessions.js';
import type {ModelInfo, MonitorState} from '../../source/types/state.js';

let dir: string;
let engine: DemoEngine;
let sim: AgentAccounting;
let session: Session;

beforeAll(async () => {
	dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-faults-'));
	const logPath = path.join(dir, 'server.log');
	engine = await startDemoEngine({logPath, agent: 'session', agentTurns: AGENT_FAULTS.pastWindow + 1, speed: 8, seed: 7});
	// What a poller sees of /api/ps while the agent runs (the keep-alive evidence).
	const polls: {t: number; models: ModelInfo[]}[] = [];
	let polling = true;
	const poll = (async () => {
		while (polling) {
			const r = await httpGet(`${engine.url}/api/ps`, {timeoutMs: 2000});
			if (isAnswer(r) && r.status === 200) polls.push({t: Date.now(), models: ollamaPsModels(JSON.parse(r.body)) ?? []});
			await new Promise(resolve => setTimeout(resolve, 200));
		}
	})();
	await engine.agentDone;
	polling = false;
	await poll;
	sim = engine.agentAccounting();
	await engine.stop();
	let state: MonitorState = initialState();
	const dispatch = (a: Parameters<typeof reduce>[1]) => (state = reduce(state, a));
	dispatch({type: 'server-seen', t: polls[0]?.t ?? Date.now(), server: {id: 'demo', engine: 'ollama', source: 'demo', url: engine.url}});
	const source = createLogSource({serverId: 'demo', engine: 'ollama', input: {kind: 'file', path: logPath, startBytes: 64 * 1024 * 1024}, dispatch});
	await source.start();
	await source.stop();
	for (const p of polls) dispatch({type: 'server-models', t: p.t, serverId: 'demo', models: p.models});
	const view = deriveSessions(state);
	expect(view.sessions).toHaveLength(1);
	session = view.sessions[0]!;
}, 240_000);

afterAll(async () => {
	await engine?.stop();
	if (dir) rmSync(dir, {recursive: true, force: true});
});

const on = (kind: string): number[] => session.turns.flatMap((t, i) => (t.findings.some(f => f.kind === kind) ? [i + 1] : []));

describe('the demo agent\'s faults, found on exactly their turns', () => {
	it('the same turns as the agent\'s accounting, in the same order', () => {
		expect(session.turns.map(t => [t.promptTokens, t.cachedTokens])).toEqual(sim.turns.map(t => [t.promptTokens, t.cachedTokens]));
	});

	it('truncated: the turn whose prompt the engine cut (the WARN line, 0.30.11+ form), and no other', () => {
		const cut = sim.turns.flatMap((t, i) => (t.truncated ? [i + 1] : []));
		expect(cut).toHaveLength(1);
		expect(sim.turns[cut[0]! - 1]!.id).toBe(`t${AGENT_FAULTS.pastWindow}`);
		expect(on('truncated')).toEqual(cut);
		const f = session.turns[cut[0]! - 1]!.findings.find(x => x.kind === 'truncated')!;
		// 32768 − ⌊(32768 − 5) / 2⌋ = 16387 tokens survive.
		expect(f.evidence).toMatch(/level=WARN source=llama_server\.go:317 msg="truncating input prompt" limit=16387 prompt=\d+ keep=5 new=16387$/);
		expect(f.fix).toBe('OLLAMA_CONTEXT_LENGTH=65536');
	});

	it('reloaded: the load after the idle longer than keep-alive, with the cause from /api/ps; the first load is the cold start', () => {
		const loaded = sim.turns.flatMap((t, i) => (t.loaded ? [i + 1] : []));
		expect(loaded.map(i => sim.turns[i - 1]!.id)).toEqual(['t0', `t${AGENT_FAULTS.reloadAfterIdle}`]);
		// The first is the session's cold start (its loadMs), not a reload.
		expect(on('reloaded')).toEqual(loaded.slice(1));
		expect(session.turns[0]!.loadMs).toBeGreaterThan(0);
		const r = session.turns[loaded[1]! - 1]!.findings.find(x => x.kind === 'reloaded')!;
		expect([r.cause, r.fix]).toEqual(['keep-alive expired: the model left memory while the agent was idle', 'OLLAMA_KEEP_ALIVE=-1']);
		expect(session.turns[loaded[1]! - 1]!.loadMs).toBeGreaterThan(0);
	});

	it('cache-miss: the turns that resent the last prompt and reused under half of it, by the engine\'s own counts; the nonce turns among them, said as a nonce', () => {
		const miss = sim.turns.flatMap((t, i) => {
			const prev = sim.turns[i - 1];
			return prev && !t.truncated && t.promptTokens >= prev.promptTokens && t.cachedTokens / prev.promptTokens < 0.5 ? [i + 1] : [];
		});
		expect(on('cache-miss')).toEqual(miss);
		const nonceTurns = sim.turns.flatMap((t, i) => (t.nonce ? [i + 1] : []));
		expect(nonceTurns).toHaveLength(3);
		// Every nonce turn after the first diverged where the one before it did (the nonce's place).
		const flagged = session.turns.flatMap((t, i) => (t.findings.some(f => f.kind === 'cache-miss' && f.nonce === true) ? [i + 1] : []));
		for (const i of nonceTurns.slice(1)) expect(flagged).toContain(i);
		for (const i of flagged) expect(nonceTurns).toContain(i);
	});

	it('nothing else: no kind the agent did not cause (queueing behind its own side requests aside)', () => {
		const kinds = new Set(session.turns.flatMap(t => t.findings.map(f => f.kind)));
		for (const k of kinds) expect(['truncated', 'reloaded', 'cache-miss', 'queued']).toContain(k);
	});
});
