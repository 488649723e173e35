/**
 * What if, end to end on the demo (issue 29): the demo's simulated coding agent runs a session on
 * the demo engine (a real HTTP server writing a real Ollama log, its speeds falling with depth);
 * infertop reads the log into sessions, measures both demo models through the real probe path at
 * several depths (`compare --depths`), and projects the session onto each. Its own server projected
 * the same way must land near what the log recorded (the method's own error), and the other model
 * must get a full projection, its tokens counted alike (the demo's one tokenizer: ratio 1).
 */
import {mkdtempSync, rmSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startDemoEngine, type DemoEngine} from '../../source/demo/engine.js';
import {createLogSource} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {deriveSessions, type Session} from '../../source/model/sessions.js';
import {measureProfile} from '../../source/probe/depths.js';
import {projectSession, type WhatIfRow} from '../../source/model/whatif.js';
import type {MonitorState} from '../../source/types/state.js';
import {DEMO_SPECS} from '../../source/demo/models.js';
import type {Profile} from '../../source/types/whatif.js';

let dir: string;
let engine: DemoEngine;
let session: Session;
const profiles: Profile[] = [];
let rows: WhatIfRow[] = [];

beforeAll(async () => {
	dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-whatif-'));
	const logPath = path.join(dir, 'server.log');
	engine = await startDemoEngine({logPath, agent: 'session', agentTurns: 8, speed: 8, seed: 11});
	await engine.agentDone;
	let state: MonitorState = initialState();
	// As the poller would: the server, and (/api/ps) the one model loaded while the agent ran: the GGUF one.
	state = reduce(state, {type: 'server-seen', t: Date.now(), server: {id: 'demo', engine: 'ollama', source: 'flag', url: engine.url}});
	state = reduce(state, {type: 'server-models', t: Date.now(), serverId: 'demo', models: DEMO_SPECS.filter((s) => s.runner === 'gguf').map((s) => ({name: s.name, digest: s.digest}))});
	const source = createLogSource({serverId: 'demo', engine: 'ollama', input: {kind: 'file', path: logPath, startBytes: 64 * 1024 * 1024}, dispatch: (a) => (state = reduce(state, a))});
	await source.start();
	await source.stop();
	const sessions = deriveSessions(state).sessions;
	session = [...sessions].sort((a, b) => b.turns.length - a.turns.length)[0]!;
	const deepest = Math.max(...session.turns.map((t) => t.promptTokens ?? 0));
	// The session's own depth, and deeper ones where the demo's depth cost shows.
	const depths = [0, deepest + 200, 4096, 8192];
	const source2 = (await import('node:fs/promises')).readFile(new URL('../../samples/prompts/long-source.txt', import.meta.url), 'utf8');
	for (const m of engine.models) {
		profiles.push(await measureProfile({target: {url: engine.url, engine: 'ollama', model: m.name, contextWindow: m.contextLength}, depths, source: await source2, maxTokens: 32, version: 'test'}));
	}
	const own = profiles.find((p) => p.model === session.model);
	rows = projectSession(session, profiles, {url: engine.url, profile: own});
	await engine.stop();
}, 180_000);

afterAll(() => {
	rmSync(dir, {recursive: true, force: true});
});

describe('what if on the demo', () => {
	it('measures both demo models at depth: prefill slows with depth, one tokenizer', () => {
		expect(profiles).toHaveLength(2);
		for (const p of profiles) {
			expect(p.points).toHaveLength(4);
			// The demo's prefill costs more per token the deeper it is: the wall time per token from 4K to 8K
			// exceeds that from the session's depth to 4K (by 1.14× in the demo's own terms).
			const [, mid, at4, at8] = p.points as [Profile['points'][0], Profile['points'][0], Profile['points'][0], Profile['points'][0]];
			expect((at8.ttftMs - at4.ttftMs) / (at8.promptTokens - at4.promptTokens)).toBeGreaterThan(((at4.ttftMs - mid.ttftMs) / (at4.promptTokens - mid.promptTokens)) * 1.04);
		}
		expect(profiles[0]!.tokenizer!.tokens).toBe(profiles[1]!.tokenizer!.tokens);
	});

	it('the session on its own server, projected the same way, lands within 15 % of what the log recorded', () => {
		const own = rows.find((r) => r.actual)!;
		expect(own).toBeDefined();
		expect(own.projectedMs).not.toBeNull();
		expect(Math.abs(own.selfErrorPct!)).toBeLessThan(15);
	});

	it('the other demo model: a full projection, tokens counted alike', () => {
		const other = rows.find((r) => !r.actual)!;
		expect(other.model).not.toBe(session.model);
		expect(other.tokenRatio).toBe(1);
		expect(other.projectedMs).not.toBeNull();
		expect(other.unable).toBeNull();
	});
});
