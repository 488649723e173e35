import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {mkdirSync} from 'node:fs';
import {createReplay, lineTimestampMs, parseReplaySpec, replayDelays, resolveReplayArg, samplesDir} from '../../source/sources/replay.js';

const dir = mkdtempSync(path.join(tmpdir(), 'infertop-replay-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

describe('lineTimestampMs', () => {
	it('reads every engine\'s timestamp', () => {
		expect(lineTimestampMs('0.03.715.178 I slot print_timing: id  1 | task 1 | x')).toBeCloseTo(3715.178, 3);
		expect(lineTimestampMs('[64126] 1.46.429.747 I slot x')).toBeCloseTo(106_429.747, 3);
		expect(lineTimestampMs('time=2026-08-21T18:48:22.123-07:00 level=INFO source=a.go:1 msg=x')).toBe(Date.parse('2026-08-21T18:48:22.123-07:00'));
		expect(lineTimestampMs('[2026-04-08 14:05:21 TP0] Decode batch, x')).toBe(Date.UTC(2026, 3, 8, 14, 5, 21));
		expect(lineTimestampMs('2026-08-21 18:48:22,530 - INFO - x')).toBe(Date.UTC(2026, 7, 21, 18, 48, 22) + 530);
		expect(lineTimestampMs('(APIServer pid=1) INFO 05-07 04:56:17 [loggers.py:271] x')).toBe(Date.UTC(2000, 4, 7, 4, 56, 17));
		expect(lineTimestampMs('[GIN] 2023/10/11 - 15:42:01 | 200 | x')).toBe(Date.UTC(2023, 9, 11, 15, 42, 1));
		expect(lineTimestampMs('slot print_timing: no time')).toBeUndefined();
	});
});

describe('replayDelays', () => {
	it('original pacing divided by speed; untimed lines follow; long gaps capped', () => {
		const lines = ['0.00.000.000 I a', 'continuation', '0.00.500.000 I b', '0.59.000.000 I c'];
		expect(replayDelays(lines, 1)).toEqual([0, 0, 500, 5000]);
		expect(replayDelays(lines, 2)).toEqual([0, 0, 250, 2500]);
		expect(replayDelays(['a', 'b', 'c'], 1, 40)).toEqual([0, 40, 40]);
		expect(replayDelays(lines, 0)).toEqual([0, 0, 0, 0]);
	});
	it('FILE:speed', () => {
		expect(parseReplaySpec('samples/x.log:4')).toEqual({file: 'samples/x.log', speed: 4});
		expect(parseReplaySpec('samples/x.log')).toEqual({file: 'samples/x.log', speed: 1});
		expect(parseReplaySpec('C:\\logs\\x.log')).toEqual({file: 'C:\\logs\\x.log', speed: 1});
	});
});

describe('createReplay', () => {
	it('plays every line in order with pacing, then ends', async () => {
		const f = path.join(dir, 'a.log');
		writeFileSync(f, '0.00.000.000 I first\n0.00.200.000 I second\r\nno stamp\n0.00.400.000 I last');
		const got: Array<[string, number]> = [];
		let ended = false;
		const r = createReplay({file: f, speed: 2, onLine: (l, t) => got.push([l, t]), onEnd: () => (ended = true)});
		const t0 = Date.now();
		await r.start();
		const deadline = Date.now() + 5000;
		while (!ended && Date.now() < deadline) await new Promise(res => setTimeout(res, 10));
		expect(ended).toBe(true);
		expect(got.map(g => g[0])).toEqual(['0.00.000.000 I first', '0.00.200.000 I second', 'no stamp', '0.00.400.000 I last']);
		// 400 ms of log at ×2 → about 200 ms.
		expect(got[3]![1] - t0).toBeGreaterThanOrEqual(180);
		await r.stop();
	});
	it('a missing file reports and ends', async () => {
		const got: string[] = [];
		let ended = false;
		const r = createReplay({file: path.join(dir, 'nope.log'), onLine: l => got.push(l), onEnd: () => (ended = true)});
		await r.start();
		expect(ended).toBe(true);
		expect(got[0]).toMatch(/cannot read .*ENOENT/);
	});
});

describe('--replay NAME: a shipped sample of this installation', () => {
	it('finds samples/ upward from the code (dist/ when installed) and resolves a bare name, with or without .log and a speed', () => {
		const pkg = path.join(dir, 'pkg');
		mkdirSync(path.join(pkg, 'dist'), {recursive: true});
		mkdirSync(path.join(pkg, 'samples'));
		writeFileSync(path.join(pkg, 'samples', 'README.md'), '# samples\n');
		writeFileSync(path.join(pkg, 'samples', 'vllm.log'), 'x\n');
		writeFileSync(path.join(pkg, 'samples', 'mlxlm.log'), 'x\n');
		const samples = samplesDir(path.join(pkg, 'dist'));
		expect(samples).toBe(path.join(pkg, 'samples'));
		expect(resolveReplayArg('vllm', samples)).toEqual({spec: path.join(pkg, 'samples', 'vllm.log')});
		expect(resolveReplayArg('vllm.log:4', samples)).toEqual({spec: `${path.join(pkg, 'samples', 'vllm.log')}:4`});
		expect(resolveReplayArg('no-such-dir/samples/mlxlm.log', samples)).toEqual({spec: path.join(pkg, 'samples', 'mlxlm.log')});
		// A path that exists is used as given.
		const own = path.join(dir, 'own.log');
		writeFileSync(own, 'y\n');
		expect(resolveReplayArg(`${own}:2`, samples)).toEqual({spec: `${own}:2`});
		expect(resolveReplayArg('nope', samples)).toEqual({error: '--replay: nope: no such file (shipped samples: mlxlm, vllm)'});
		expect(resolveReplayArg('nope', path.join(dir, 'no-samples-here'))).toEqual({error: '--replay: nope: no such file'});
	});
});
