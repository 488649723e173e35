import {describe, expect, it} from 'vitest';
import {byWindow, ratioLine, sameLinesLine} from '../../bench/servers.bench.js';
import {trafficOptions} from '../../bench/traffic-lib.js';

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
