/**
 * How big a `log-batch` gets (issue 32): a batch's line objects, events and texts stay alive until
 * the store has applied it, and the app's young generation is 1 MB a semi-space; a batch that
 * outlives two scavenges is promoted whole. So a busy read goes to the store a read step
 * (READ_CHUNK bytes) at a time, and never more than MAX_BATCH_LINES lines at once, however short
 * its lines. Counted here, not timed; the state a batch makes is the same as line by line
 * (test/sources/busy-log.test.ts).
 */
import {execFileSync} from 'node:child_process';
import {appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {createStore} from '../../source/model/store.js';
import {createLogSource, MAX_BATCH_LINES} from '../../source/sources/log-source.js';
import {READ_CHUNK} from '../../source/sources/log-tail.js';
import type {Action, LogBatchLine} from '../../source/types/state.js';
import {waitUntil} from '../helpers/wait.js';

const WRITER = new URL('../../bench/traffic-writer.mjs', import.meta.url);
const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

/** Tail an empty log, append `write(file)` to it at once; every batch the store got, and the state. */
async function batchesOf(write: (file: string) => number, engine: 'llamacpp' | 'vllm' | undefined) {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-batch-'));
	dirs.push(dir);
	const file = path.join(dir, 'server.log');
	writeFileSync(file, '');
	const store = createStore({now: T0});
	const batches: Array<readonly LogBatchLine[]> = [];
	const dispatch = (a: Action) => {
		if (a.type === 'log-batch') batches.push(a.lines);
		store.dispatch(a);
	};
	const source = createLogSource({serverId: 's', engine, input: {kind: 'file', path: file}, dispatch});
	await source.start();
	try {
		const lines = write(file);
		await waitUntil(() => batches.reduce((n, b) => n + b.length, 0) === lines, {what: `${lines} lines read`, timeoutMs: 60_000});
		return {lines, bytes: statSync(file).size, batches, state: store.getSnapshot()};
	} finally {
		await source.stop();
	}
}

const burst = (format: 'llama.cpp' | 'vllm', n: number) => (file: string): number => {
	execFileSync(process.execPath, [WRITER.pathname, file, format, '--burst', String(n)]);
	return readFileSync(file, 'utf8').split('\n').length - 1;
};

/** The characters of a batch's lines (a line cut by a step boundary counts whole in the step that ends it). */
const textOf = (b: readonly LogBatchLine[]) => b.reduce((n, l) => n + l.text.length, 0);

describe('a busy read goes to the store in batches that die young', () => {
	it('2,000 llama.cpp requests in one append (~16,000 lines, ~1.8 MB): a batch per 64 KiB step', async () => {
		const r = await batchesOf(burst('llama.cpp', 2000), 'llamacpp');
		expect(r.state.servers.s!.requestsSeen).toBe(2000);
		expect(r.state.servers.s!.linesUnparsed).toBe(0);
		const longest = Math.max(...r.batches.flatMap(b => b.map(l => l.text.length)));
		for (const b of r.batches) {
			expect(b.length).toBeLessThanOrEqual(MAX_BATCH_LINES);
			// a step's bytes, and the line the step before it cut
			expect(textOf(b)).toBeLessThanOrEqual(READ_CHUNK + longest);
		}
		// one batch a step: no more batches than steps (and the line count cut none of them here)
		expect(r.batches.length).toBeLessThanOrEqual(Math.ceil(r.bytes / READ_CHUNK) + 1);
		expect(r.batches.length).toBeGreaterThanOrEqual(Math.ceil(r.bytes / READ_CHUNK));
		// a batch of the app's 1 MB semi-space, not 2,000 lines: at most ~600 request lines here
		expect(Math.max(...r.batches.map(b => b.length))).toBeLessThan(700);
	}, 90_000);

	it('vLLM --enable-log-requests lines (long ones) are cut by the same bytes', async () => {
		const r = await batchesOf(burst('vllm', 1000), 'vllm');
		expect(r.state.servers.s!.linesUnparsed).toBe(0);
		const longest = Math.max(...r.batches.flatMap(b => b.map(l => l.text.length)));
		for (const b of r.batches) expect(textOf(b)).toBeLessThanOrEqual(READ_CHUNK + longest);
		expect(r.batches.length).toBeLessThanOrEqual(Math.ceil(r.bytes / READ_CHUNK) + 1);
	}, 90_000);

	it('a step of very short lines (30,000 in 64 KiB) is cut into batches of MAX_BATCH_LINES', async () => {
		const r = await batchesOf(file => {
			appendFileSync(file, 'x\n'.repeat(100_000));
			return 100_000;
		}, undefined);
		expect(r.state.servers.s!.linesParsed + r.state.servers.s!.linesUnparsed).toBe(100_000);
		for (const b of r.batches) expect(b.length).toBeLessThanOrEqual(MAX_BATCH_LINES);
		expect(r.batches.length).toBeGreaterThanOrEqual(Math.ceil(100_000 / MAX_BATCH_LINES));
		// full batches, not a line or a few at a time
		expect(r.batches.length).toBeLessThanOrEqual(Math.ceil(100_000 / MAX_BATCH_LINES) + 2 * Math.ceil(r.bytes / READ_CHUNK));
	}, 90_000);
});
