/**
 * `infertop whatif` and `compare --depths` on the command line (through tsx, from source): bad
 * input is one line and exit 2; no session is one line and exit 1; the demo agent's newest session
 * projected onto a profile kept in profiles.json (the state dir) prints the JSON rows.
 */
import {mkdtempSync, mkdirSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {execa} from 'execa';
import {afterAll, describe, expect, it} from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const state = mkdtempSync(path.join(os.tmpdir(), 'infertop-whatif-cli-'));
const run = (args: string[]) => execa(tsx, ['source/cli.tsx', ...args], {cwd: root, reject: false, timeout: 90_000, env: {NO_COLOR: '1', XDG_CONFIG_HOME: '/nonexistent-infertop-test', XDG_STATE_HOME: state}});

afterAll(() => rmSync(state, {recursive: true, force: true}));

describe('infertop whatif on the command line', () => {
	it('bad input: one line, exit 2', async () => {
		const [depths, measure] = await Promise.all([run(['compare', '--depths', '4q', '--no-scan']), run(['whatif', '--measure', '--no-scan', '--no-demo'])]);
		expect(depths.exitCode).toBe(2);
		expect(depths.stderr.trim()).toBe('infertop: --depths: "4q" is not a token count (e.g. 4k or 4096)');
		expect(measure.exitCode).toBe(2);
		expect(measure.stderr.trim()).toBe('infertop whatif: --measure: name the servers to measure (URLs)');
	});

	it('no agent session: one line, exit 1', async () => {
		const r = await run(['whatif', '--no-scan', '--no-demo', '--seconds', '0']);
		expect(r.exitCode).toBe(1);
		expect(r.stdout).toBe('');
		expect(r.stderr.trim()).toBe('infertop whatif: no agent session recorded yet (the agent view, key a, shows them)');
	});

	it('the demo agent\'s newest session onto a kept profile: the issue\'s JSON rows', async () => {
		mkdirSync(path.join(state, 'infertop'), {recursive: true});
		const t = Date.UTC(2026, 11, 1);
		const profile = {url: 'http://127.0.0.1:9', engine: 'llamacpp', model: 'qwen3.8:latest', measuredAt: t, version: '0.9.0', contextWindow: 32_768, points: [{nominal: 0, promptTokens: 63, ttftMs: 30, prefillTps: 2100, decodeTps: 60, t}, {nominal: 8192, promptTokens: 8000, ttftMs: 4000, prefillTps: 2000, decodeTps: 50, t}], cache: {reused: true, by: 'count'}, concurrency: 'parallel'};
		writeFileSync(path.join(state, 'infertop', 'profiles.json'), JSON.stringify({format: 1, profiles: [profile]}));
		const r = await run(['whatif', '--demo-agent', '--no-scan', '--seconds', '15', '--json', 'http://127.0.0.1:9']);
		expect(r.exitCode, r.stderr).toBe(0);
		const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
		// The named server; and the demo itself where its log already holds enough requests for a curve (its own row).
		expect(rows.filter((x) => x.actual === false).map((x) => x.server)).toEqual(['http://127.0.0.1:9']);
		for (const x of rows) for (const k of ['server', 'engine', 'model', 'turns', 'projectedMs', 'parts', 'actualMs', 'selfErrorPct', 'ratesMeasuredAt', 'unable']) expect(x, k).toHaveProperty(k);
		const row = rows.find((x) => x.server === 'http://127.0.0.1:9')!;
		expect(row.server).toBe('http://127.0.0.1:9');
		expect(row.model).toBe('qwen3.8:latest');
		expect(row.ratesMeasuredAt).toBe('2026-12-01T00:00:00.000Z');
		expect(row.tokenRatio).toBe(1);
		expect(row.unable).toBeNull();
		expect(Object.keys(row.parts as object)).toEqual(['queueMs', 'loadMs', 'prefillMs', 'decodeMs', 'idleMs']);
		expect(typeof row.projectedMs).toBe('number');
	}, 120_000);
});
