import {Worker} from 'node:worker_threads';
import {describe, expect, it} from 'vitest';
import {byWindow, mainThreadLine, ratioLine, sameLinesLine} from '../../bench/servers.bench.js';
import {cpuSeconds, mainThreadCpuSeconds} from '../../bench/lib.js';
import {tailRatio, threadsLine, trafficOptions} from '../../bench/traffic-lib.js';

// The servers bench's verdict line: the ratio, or `--` where a CPU figure could not be read.
describe('servers bench: the ratio line', () => {
	it('eight llama.cpp servers against one', () => {
		expect(ratioLine('llama.cpp', 8, 100, 5.6, 2.2)).toBe('  ratio (issue 32, goal ≤ 2×): 8 llama.cpp servers against one of them alone (the same window), 100 req/s each: 5.6 against 2.2 % of a core (2.55×)');
	});
	it('four vLLM replicas against one', () => {
		expect(ratioLine('vllm', 4, 1000, 1.9, 1.2)).toMatch(/4 vllm servers against one of them alone \(the same window\), 1,000 req\/s each: 1\.9 against 1\.2 % of a core \(1\.58×\)$/);
	});
	it('a figure that could not be read is --, never 0', () => {
		expect(ratioLine('vllm', 4, 100, undefined, 1.2)).toMatch(/: -- against 1\.2 % of a core \(--\)$/);
		expect(ratioLine('vllm', 4, 100, 1.9, Number.NaN)).toMatch(/: 1\.9 against -- % of a core \(--\)$/);
		expect(ratioLine('vllm', 4, 100, 1.9, 0)).toMatch(/\(--\)$/);
	});
});

// --same-lines: the box against one log carrying all its lines, in the same window.
describe('servers bench: the same-lines line', () => {
	it('eight llama.cpp servers against one log at eight times the rate', () => {
		expect(sameLinesLine('llama.cpp', 8, 100, 4.8, 3.5)).toBe('  same lines: 8 llama.cpp servers against one log carrying their lines (800 req/s), the same window: 4.8 against 3.5 % of a core (1.37×)');
	});
	it('a figure that could not be read is --, never 0', () => {
		expect(sameLinesLine('vllm', 4, 100, 1.9, undefined)).toMatch(/\(400 req\/s\), the same window: 1\.9 against -- % of a core \(--\)$/);
		expect(sameLinesLine('vllm', 4, 100, Number.NaN, 1.0)).toMatch(/: -- against 1\.0 % of a core \(--\)$/);
	});
});

// --windows=N: each window's ratio and their median, so that one run says how far a figure holds.
describe('servers bench: the ratio by window', () => {
	it("each window's ratio, then the median of those known", () => {
		const w = [{many: 5.8, alone: 2.4, same: 3.8}, {many: 5.0, alone: 2.5, same: 3.6}, {many: 6.2, alone: 2.4, same: 3.9}];
		expect(ratioLine('llama.cpp', 8, 100, 5.67, 2.43, w)).toMatch(/\(2\.33×\); by window 2\.42, 2\.00, 2\.58× \(median 2\.42×\)$/);
		expect(sameLinesLine('llama.cpp', 8, 100, 5.67, 3.77, w)).toMatch(/; by window 1\.53, 1\.39, 1\.59× \(median 1\.53×\)$/);
	});
	it('an even count: the mean of the middle two; a window with a figure unknown is -- and left out of the median', () => {
		expect(byWindow([{a: 4, b: 2}, {a: 6, b: 2}, {a: 5, b: undefined}, {a: 5, b: 2}, {a: 7, b: 2}])).toBe('; by window 2.00, 3.00, --, 2.50, 3.50× (median 2.75×)');
		expect(byWindow([{a: 4, b: 0}, {a: Number.NaN, b: 2}])).toBe('; by window --, --× (median --)');
	});
	it('one window: nothing added (the line stays as it was)', () => {
		expect(byWindow([{a: 5, b: 2}])).toBe('');
		expect(ratioLine('vllm', 4, 100, 1.9, 1.2, [{many: 1.9, alone: 1.2}])).toMatch(/\(1\.58×\)$/);
	});
	it('--windows=N is read, and a bad one is refused with the options named', () => {
		expect(trafficOptions(['--windows=5'], 8).windows).toBe(5);
		expect(trafficOptions([], 8).windows).toBe(1);
		for (const bad of ['--windows=0', '--windows=2.5', '--windows=x', '--windows=31']) expect(() => trafficOptions([bad], 8)).toThrow(/--windows=1\.\.30/);
	});
});

// Where the CPU runs: the main thread (the JavaScript) and the rest (V8's helper threads, libuv's).
describe('traffic benches: CPU by thread', () => {
	it('a line per infertop: the main thread and the other threads', () => {
		expect(threadsLine('infertop', 5.2, 3.9)).toBe('  infertop: main thread 3.9 %, other threads 1.3 % of a core');
	});
	it('a figure that could not be read is --, never 0; the other threads never below 0 (two reads a tick apart)', () => {
		expect(threadsLine('infertop, one log', undefined, 2.0)).toBe('  infertop, one log: main thread 2.0 %, other threads -- % of a core');
		expect(threadsLine('infertop', 5.2, Number.NaN)).toBe('  infertop: main thread -- %, other threads -- % of a core');
		expect(threadsLine('infertop', 2.0, 2.1)).toBe('  infertop: main thread 2.1 %, other threads 0.0 % of a core');
	});
	it('the servers bench: the main threads of the box and of the lone server, and their ratio', () => {
		expect(mainThreadLine(8, {many: 3.9, alone: 2.0})).toBe('  main threads alone (8 servers against one): 3.9 against 2.0 % of a core (1.95×)');
		expect(mainThreadLine(4, undefined)).toBe('  main threads alone (4 servers against one): -- against -- % of a core (--)');
	});
	it.runIf(process.platform === 'linux')('the main thread is read apart from the process: at most the whole, and it moves with the JavaScript', () => {
		const before = mainThreadCpuSeconds(process.pid)!;
		// 200 ms of this thread's CPU (not of the wall clock: the machine may be busy), within 10 s
		const cpu0 = process.cpuUsage();
		const end = performance.now() + 10_000;
		let x = 0;
		while (process.cpuUsage(cpu0).user < 200_000 && performance.now() < end) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + i);
		expect(x).toBeGreaterThan(0);
		const main = mainThreadCpuSeconds(process.pid)!;
		expect(main - before).toBeGreaterThanOrEqual(0.1);
		expect(main).toBeLessThanOrEqual(cpuSeconds(process.pid)!);
		expect(mainThreadCpuSeconds(2 ** 22 + 7)).toBeUndefined();
	});
	it.runIf(process.platform === 'linux')('another thread\'s CPU is the process\'s, not the main thread\'s', async () => {
		const main0 = mainThreadCpuSeconds(process.pid)!;
		const all0 = cpuSeconds(process.pid)!;
		// a worker busy for 300 ms of its own CPU while the main thread waits for it
		const w = new Worker('const t0 = process.hrtime.bigint(); const {threadId} = require("node:worker_threads"); let x = 0; const start = process.cpuUsage(); while (process.cpuUsage(start).user < 300000 && process.hrtime.bigint() - t0 < 10000000000n) for (let i = 0; i < 10000; i++) x += Math.sqrt(x + i + threadId);', {eval: true});
		await new Promise(resolve => w.once('exit', resolve));
		expect(cpuSeconds(process.pid)! - all0).toBeGreaterThanOrEqual(0.2);
		expect(mainThreadCpuSeconds(process.pid)! - main0).toBeLessThan(0.15);
	});
});

describe('traffic benches: infertop against tail -F', () => {
	it('gives a known ratio under 0.5 as itself, not 0×, and -- where either CPU is unknown', () => {
		expect(tailRatio(3.6, 15.0)).toBe('0.2×');
		expect(tailRatio(13.5, 15.0)).toBe('0.9×');
		expect(tailRatio(4.6, 3.4)).toBe('1.4×');
		expect(tailRatio(120, 9)).toBe('13×');
		expect(tailRatio(2.5, 0)).toBe('-- (tail -F used under a clock tick)');
		expect(tailRatio(undefined, 3)).toBe('-- (tail -F used under a clock tick)');
		expect(tailRatio(2, Number.NaN)).toBe('-- (tail -F used under a clock tick)');
	});
});
