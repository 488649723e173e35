/**
 * bin/young-generation.js: under a busy log the bin lets V8's young generation grow once, from 1 MB
 * a semi-space to 4 MB (issue 32), and back to growing not at all when the logs quiet down. The
 * factor it sets, with a V8 of our own (fake timers), and with node's own V8 in a child process:
 * V8 reads the growth factor when it grows, so setting it at run time is what moves the size.
 */
import {execFile} from 'node:child_process';
import {createRequire} from 'node:module';
import path from 'node:path';
import {promisify} from 'node:util';
import {afterEach, describe, expect, it, vi} from 'vitest';

const run = promisify(execFile);
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '../..');
const modulePath = path.join(root, 'bin', 'young-generation.js');

interface Young {
	busy(on: boolean): void;
	factor(): number;
}
interface Module {
	BUSY_SEMI_SPACE_BYTES: number;
	growthFactor(semiBytes: number, targetBytes: number): number;
	semiSpaceBytes(v8: FakeV8): number;
	createYoungGeneration(v8: FakeV8, options?: {targetBytes?: number; checkMs?: number}): Young;
}
interface FakeV8 {
	getHeapSpaceStatistics(): {space_name: string; space_size: number; space_used_size: number; space_available_size: number}[];
	setFlagsFromString(flags: string): void;
}
const young = createRequire(import.meta.url)(modulePath) as Module;
const MB = 1024 * 1024;

/** A V8 whose new space is `semi` bytes a semi-space (what it holds and has left), recording the flags set. */
function fakeV8(semi: number) {
	const flags: string[] = [];
	const v8 = {
		semi,
		getHeapSpaceStatistics: () => [
			{space_name: 'old_space', space_size: 40 * MB, space_used_size: 30 * MB, space_available_size: 1 * MB},
			{space_name: 'new_space', space_size: 2 * v8.semi, space_used_size: v8.semi * 0.3, space_available_size: v8.semi * 0.7},
		],
		setFlagsFromString: (f: string) => flags.push(f),
	};
	return {v8, flags};
}

describe('the growth factor', () => {
	it('is the one step from the semi-space there is to the target, and 1 once there', () => {
		expect(young.BUSY_SEMI_SPACE_BYTES).toBe(4 * MB);
		expect(young.growthFactor(1 * MB, 4 * MB)).toBe(4);
		// V8's semi-spaces hold a little less than their nominal size (the pages' headers): 1,030,880 bytes measured
		expect(young.growthFactor(1_030_880, 4 * MB)).toBe(4);
		expect(young.growthFactor(2_061_760, 4 * MB)).toBe(2);
		// 3.9 MB (4,123,520 bytes measured after the step) is there
		expect(young.growthFactor(4_123_520, 4 * MB)).toBe(1);
		expect(young.growthFactor(3 * MB, 4 * MB)).toBe(1);
		expect(young.growthFactor(16 * MB, 4 * MB)).toBe(1);
		// never past the target: more than half way there, no step of 2 fits
		expect(young.growthFactor(2.9 * MB, 4 * MB)).toBe(1);
		expect(young.growthFactor(2.1 * MB, 4 * MB)).toBe(1);
		expect(young.growthFactor(1.5 * MB, 4 * MB)).toBe(2);
		// at most 16 (V8's own limit is 16 MB a semi-space on 64-bit)
		expect(young.growthFactor(64 * 1024, 4 * MB)).toBe(16);
	});

	it('is 1 for a size that cannot be trusted', () => {
		for (const bad of [Number.NaN, 0, -MB, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
			expect(young.growthFactor(bad, 4 * MB)).toBe(1);
			expect(young.growthFactor(MB, bad)).toBe(1);
		}
	});

	it('reads the semi-space from the new space (NaN when V8 names none)', () => {
		expect(young.semiSpaceBytes(fakeV8(MB).v8)).toBe(MB);
		expect(young.semiSpaceBytes({getHeapSpaceStatistics: () => [], setFlagsFromString: () => undefined})).toBeNaN();
	});
});

describe('while busy, with a V8 of our own', () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it('sets the factor at once, back to 1 at the first check that sees the target, and 1 when the logs quiet down', () => {
		vi.useFakeTimers();
		const {v8, flags} = fakeV8(1 * MB);
		const y = young.createYoungGeneration(v8);
		y.busy(true);
		expect(flags).toEqual(['--semi-space-growth-factor=4']);
		// nothing grew yet: no flag set again
		vi.advanceTimersByTime(1000);
		expect(flags).toHaveLength(1);
		// V8 grew it at a scavenge: the next check sets 1
		v8.semi = 4 * MB;
		vi.advanceTimersByTime(250);
		expect(flags).toEqual(['--semi-space-growth-factor=4', '--semi-space-growth-factor=1']);
		expect(y.factor()).toBe(1);
		// a second busy(true) while on starts nothing more
		y.busy(true);
		vi.advanceTimersByTime(5000);
		expect(flags).toHaveLength(2);
		// quiet: checks stop (a shrunk young generation is not grown again while quiet)
		y.busy(false);
		v8.semi = 1 * MB;
		vi.advanceTimersByTime(5000);
		expect(flags).toHaveLength(2);
		expect(vi.getTimerCount()).toBe(0);
		// busy again: it grows again
		y.busy(true);
		expect(flags.at(-1)).toBe('--semi-space-growth-factor=4');
		y.busy(false);
		expect(flags.at(-1)).toBe('--semi-space-growth-factor=1');
		expect(vi.getTimerCount()).toBe(0);
	});

	it('quiet before it reached the target: the factor goes back to 1 at once', () => {
		vi.useFakeTimers();
		const {v8, flags} = fakeV8(1 * MB);
		const y = young.createYoungGeneration(v8);
		y.busy(false);
		expect(flags).toEqual([]);
		y.busy(true);
		y.busy(false);
		expect(flags).toEqual(['--semi-space-growth-factor=4', '--semi-space-growth-factor=1']);
	});
});

/**
 * node's V8 in a child process: the young generation starts at 1 MB a semi-space and never grows
 * (what the bin sets at start), then busy(true) under objects that outlive scavenges (a ring of
 * them, replaced in small turns of the event loop, as a busy log's batches are): it grows to 4 MB, not
 * to V8's 16; busy(false), and the same churn grows it no further.
 */
const CHILD = `
const v8 = require('node:v8');
v8.setFlagsFromString('--semi-space-growth-factor=1');
const y = require(process.argv[1]).createYoungGeneration(v8);
const semi = () => require(process.argv[1]).semiSpaceBytes(v8);
let ring = new Array(8000);
let k = 0;
const churn = (ms) => new Promise(done => {
	const end = Date.now() + ms;
	const step = () => {
		for (let i = 0; i < 100; i++) ring[k++ % ring.length] = {k, text: 'line ' + k};
		if (Date.now() < end) setTimeout(step, 1); else done();
	};
	step();
});
(async () => {
	const seen = {};
	await churn(600);
	seen.before = semi();
	y.busy(true);
	await churn(1500);
	seen.busy = semi();
	seen.factor = y.factor();
	y.busy(false);
	await churn(1500);
	seen.after = semi();
	process.stdout.write(JSON.stringify(seen));
})();
`;

describe("with node's own V8", () => {
	it('grows the young generation to 4 MB a semi-space while busy, and no further', async () => {
		const {stdout} = await run(process.execPath, ['-e', CHILD, modulePath], {timeout: 30_000});
		const seen = JSON.parse(stdout) as {before: number; busy: number; factor: number; after: number};
		// 1 MB a semi-space before (V8's measured 1,030,880 bytes), never grown under factor 1
		expect(seen.before).toBeLessThan(1.1 * MB);
		// 4 MB while busy (4,123,520 bytes measured), the factor back at 1
		expect(seen.busy).toBeGreaterThan(3.5 * MB);
		expect(seen.busy).toBeLessThan(4.5 * MB);
		expect(seen.factor).toBe(1);
		// quiet again: not grown further (V8 shrinks it later, at a collection that sees little allocation)
		expect(seen.after).toBeLessThan(4.5 * MB);
	}, 40_000);
});
