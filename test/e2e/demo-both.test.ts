/**
 * The demo with both models busy at once (one agent per model, issue 11): every request infertop
 * records is attributed on evidence, and each model's figures are made of its own requests only —
 * recomputed here from the snapshot's own request list, never one blend of the two.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {waitUntil} from '../helpers/wait.js';

let runtime: Runtime;

beforeAll(async () => {
	const config = mergeConfig(DEFAULTS, {}, {demo: true, history: '/dev/null'});
	runtime = await startRuntime({config, scan: false, system: false, demoSpeed: 20, demoAgent: 'both', pollMs: 200});
	await runtime.ready;
	if (!runtime.demo()) throw new Error('demo engine did not start');
});

afterAll(async () => {
	await runtime?.stop();
});

const snapshot = () => toSnapshot(runtime.store.getSnapshot(), 'test');

describe('demo: both models busy at once', () => {
	it('each model\'s tokens per pass is its own requests\' Σdecoded ÷ Σpasses; every request names its evidence', async () => {
		const models = ['qwen3.8:latest', 'qwen3.8:27b-mlx'];
		// Requests the demo finished before the tail's first read are the log's backlog ("from the log,
		// HH:MM"); on a loaded machine that can be all of them at first, so wait for live ones too.
		await waitUntil(() => {
			const s = snapshot();
			return models.every(m => s.requests.filter(r => r.model === m).length >= 2 && s.models.find(r => r.model === m)?.set?.startsWith('last ') === true);
		}, {what: 'two requests of each model, the newest read live', timeoutMs: 40_000});
		const snap = snapshot();
		// The demo's models are told apart by evidence (one MLX runner and one GGUF runner in the log).
		for (const r of snap.requests) expect([r.model, r.attributedBy !== null]).toEqual([r.model !== null && models.includes(r.model) ? r.model : 'attributed', true]);
		for (const name of models) {
			const row = snap.models.find(m => m.model === name)!;
			expect(row.set).toMatch(new RegExp(`^last (\\d+ requests|request) of ${name.replace(/[.:]/g, '\\$&')}, \\d+ s$`));
			// The row's set is the newest `requests` of this model: recompute its figure from them alone.
			const own = snap.requests.filter(r => r.model === name).slice(-row.requests);
			expect(own).toHaveLength(row.requests);
			const decoded = own.reduce((n, r) => n + r.tokensPerPass! * r.passes!, 0);
			const passes = own.reduce((n, r) => n + r.passes!, 0);
			expect(row.tokensPerPass).toBeCloseTo(decoded / passes, 3);
		}
		const server = snap.servers[0]!;
		expect(server.requestsSeen).toBe(Object.values(server.requestsByModel).reduce((a, b) => a + b, 0));
		expect(server.requestsByModel.unknown).toBeUndefined();
	});
});
