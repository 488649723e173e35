/**
 * `m` in the what-if table, below the screen: the runtime's controller measures the demo's models
 * without a profile through the real probe path (one at a time), keeps them in the profiles file,
 * and the demo agent's session is then projected onto them (issue 29: `w` in --demo-agent shows a
 * real table).
 */
import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import {deriveSessions} from '../../source/model/sessions.js';
import {whatIfOf} from '../../source/model/whatif.js';
import {waitUntil} from '../helpers/wait.js';

let runtime: Runtime;
let dir: string;

beforeAll(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-whatif-tui-'));
	const config = mergeConfig(DEFAULTS, {}, {demo: true, history: path.join(dir, 'probes.csv')});
	runtime = await startRuntime({config, scan: false, system: false, demoSpeed: 20, demoAgent: 'session', pollMs: 200, profilesPath: path.join(dir, 'profiles.json')});
	await runtime.ready;
	await waitUntil(() => deriveSessions(runtime.store.getSnapshot()).sessions.some((s) => s.turns.length >= 3), {timeoutMs: 60_000, what: 'an agent session of 3 turns'});
});

afterAll(async () => {
	await runtime?.stop();
	await rm(dir, {recursive: true, force: true});
});

describe('m in the what-if table, on the demo', () => {
	it('measures what has no profile, keeps it, and the session is projected onto it', async () => {
		const steps: string[] = [];
		const first = await runtime.controller.measureProfiles((l) => steps.push(l));
		expect(first.problems).toEqual([]);
		expect(first.measured).toBeGreaterThanOrEqual(1);
		expect(steps.some((l) => /depth 0: \d+ prompt tokens/.test(l))).toBe(true);
		// Measured once: asked again, nothing is left to measure.
		expect((await runtime.controller.measureProfiles(() => undefined)).measured).toBe(0);
		const {profiles} = await runtime.controller.loadProfiles();
		expect(profiles).toHaveLength(first.measured);
		const state = runtime.store.getSnapshot();
		const view = whatIfOf(deriveSessions(state).sessions, state.servers, profiles, 'last', [], Date.now());
		expect(view.problem).toBeUndefined();
		expect(view.rows.length).toBeGreaterThanOrEqual(1);
		const own = view.rows.find((r) => r.actual);
		expect(own?.projectedMs ?? null).not.toBeNull();
	}, 240_000);
});
