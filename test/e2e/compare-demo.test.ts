/**
 * Key `c` end to end, below the screen: the runtime's controller compares the demo engine through
 * the real probe path (HTTP, worker-stamped stream), rows reach the state in plan order, one model
 * throughout, every run in the history with the comparison's run id.
 */
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import {compareJson} from '../../source/model/compare.js';
import {waitUntil} from '../helpers/wait.js';

let runtime: Runtime;
let dir: string;

beforeAll(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-cmpdemo-'));
	const config = mergeConfig(DEFAULTS, {}, {demo: true, history: path.join(dir, 'probes.csv')});
	runtime = await startRuntime({config, scan: false, system: false, demoSpeed: 20, demoAgent: false, pollMs: 200});
	await runtime.ready;
	await waitUntil(() => runtime.store.getSnapshot().order.length > 0, {timeoutMs: 10_000, what: 'the demo server'});
});

afterAll(async () => {
	await runtime?.stop();
	await rm(dir, {recursive: true, force: true});
});

describe('compare on the demo engine (key c)', () => {
	it('six rows in order, one model, real figures, history rows with the run id', async () => {
		runtime.controller.compare?.();
		await waitUntil(() => runtime.store.getSnapshot().compare?.finished === true, {timeoutMs: 100_000, what: 'the comparison'});
		const c = runtime.store.getSnapshot().compare!;
		expect(c.cancelled).toBeUndefined();
		expect(c.rows.map((r) => `${r.prompt} ${r.run}`)).toEqual(['code 1', 'code 2', 'prose 1', 'prose 2', 'long 1', 'long 2']);
		expect(c.rows.every((r) => r.error === undefined)).toBe(true);
		expect(new Set(c.rows.map((r) => r.model)).size).toBe(1);
		const json = c.rows.map(compareJson);
		// The demo's Ollama API reports eval_count/eval_duration and prompt_eval_count: reported rate and prompt tokens are known.
		for (const j of json) {
			expect(j.engine).toBe('ollama');
			expect(j.reportedTps).not.toBeNull();
			expect(j.promptTokens).not.toBeNull();
		}
		// The same prompt twice is the same number of prompt tokens (temperature 0, same text).
		for (const i of [0, 2, 4]) expect(json[i + 1]!.promptTokens).toBe(json[i]!.promptTokens);
		// The long prompt is longer than the short ones by the corpus.
		expect(json[4]!.promptTokens!).toBeGreaterThan(json[0]!.promptTokens! * 10);
		const csv = (await readFile(path.join(dir, 'probes.csv'), 'utf8')).trim().split('\n');
		expect(csv.slice(1).map((l) => l.split(',').slice(-2).join(','))).toEqual(c.rows.map((r) => `${r.run},${c.runId}`));
		expect(csv.length).toBe(7);
	}, 120_000);
});
