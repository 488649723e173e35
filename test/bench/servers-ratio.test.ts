import {describe, expect, it} from 'vitest';
import {ratioLine, sameLinesLine} from '../../bench/servers.bench.js';

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
