/**
 * A busy log (issue 32): what a read of many lines costs is counted here, not timed (the speed is in
 * `npm run bench -- traffic`). A read's lines go to the store as one `log-batch`: the same state as
 * line by line, one state change per read (not per line and event), publishes bounded by the
 * ticker whatever the traffic, request rows not rebuilt per publish, a backlog read in steps that
 * let the event loop run, and a tail too far behind skips ahead and counts every line it skipped.
 *
 * Lines: the real llama-server b10587 captures (copied unchanged from shared/fixtures/llama.cpp,
 * test/fixtures/engines/README.md) and the benches' writer (bench/traffic-writer.mjs, the same
 * blocks with advancing slots, tasks and stamps; vLLM `--enable-log-requests` lines).
 */
import {execFileSync} from 'node:child_process';
import {appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {applyBatch, batchCounts, initialState, reduce, MAX_REQUESTS} from '../../source/model/reducer.js';
import {createStore} from '../../source/model/store.js';
import {createLogSource, feedLine, MAX_BATCH_LINES, readLine} from '../../source/sources/log-source.js';
import {createLogTail, READ_CHUNK} from '../../source/sources/log-tail.js';
import {logLines, pinLogs} from '../../source/model/log-ring.js';
import type {Action, LogBatchLine, MonitorState, ServerState} from '../../source/types/state.js';
import {requestEntries, requestsSeen} from '../../source/ui/view-model/requests.js';
import {seenText} from '../../source/ui/panes/requests.js';
import {waitUntil} from '../helpers/wait.js';

const FIXTURES = new URL('../fixtures/engines/llama.cpp/', import.meta.url);
const WRITER = new URL('../../bench/traffic-writer.mjs', import.meta.url);
const fixtureLines = (name: string): string[] => readFileSync(new URL(name, FIXTURES), 'utf8').split('\n').filter(l => l.length > 0);
const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});
const tempDir = () => {
	const d = mkdtempSync(path.join(tmpdir(), 'infertop-busy-'));
	dirs.push(d);
	return d;
};
/** `n` requests of the benches' writer, appended to `file` at once; the lines it wrote. */
const writeBurst = (file: string, format: 'llama.cpp' | 'vllm', n: number): number => {
	const before = statSync(file).size;
	execFileSync(process.execPath, [WRITER.pathname, file, format, '--burst', String(n)]);
	return readFileSync(file, 'utf8').slice(before).split('\n').length - 1;
};

/**
 * A server as its readers see it: the log ring as its lines (appending writes past the end of a
 * shared backing array, outside every earlier state's window: model/log-ring.ts).
 */
const seen = (s: ServerState | undefined) => (s ? {...s, log: logLines(s.log)} : s);
/** Every server as its readers see it: each log ring as the lines of its window, not its backing arrays. */
const seenAll = (state: MonitorState) => Object.fromEntries(Object.entries(state.servers).map(([id, s]) => [id, seen(s)]));

/** Line by line, as before batches: a log-line and an engine-event per event. */
function lineByLine(lines: readonly string[], engine: 'llamacpp' | 'vllm'): MonitorState {
	const parser = createParser(engine);
	let state = initialState({now: T0});
	lines.forEach((l, i) => feedLine(parser, 's', l, T0 + i, a => (state = reduce(state, a))));
	return state;
}

/** The same lines in batches of `size`, as the log source sends them. */
function batched(lines: readonly string[], engine: 'llamacpp' | 'vllm', size: number): {state: MonitorState; seenBefore: MonitorState[]; copies: unknown[]} {
	const parser = createParser(engine);
	let state = initialState({now: T0});
	const seenBefore: MonitorState[] = [];
	const copies: unknown[] = [];
	for (let start = 0; start < lines.length; start += size) {
		const batch: LogBatchLine[] = lines.slice(start, start + size).map((l, j) => readLine(parser, l, T0 + start + j));
		// the states batches start from are left as they were (published states never change): a sample
		// of them, each pinned as the store pins the state it publishes (model/log-ring.ts)
		if (state.servers.s && (start / size) % 37 === 1) {
			pinLogs(state);
			seenBefore.push(state);
			copies.push(structuredClone(seen(state.servers.s)));
		}
		state = reduce(state, {type: 'log-batch', serverId: 's', lines: batch});
	}
	return {state, seenBefore, copies};
}

describe('a read of a busy log is one batch', () => {
	// Real captures: plain requests, a long one with live lines, two slots at once, failures, speculation.
	const real = ['chat.log', 'completion-long.log', 'overload.log', 'errors.log', 'spec-chat.log', 'v2-cancel-after.log', 'chat-stream-repeat.log'].flatMap(fixtureLines);
	// Repeated past the ring's size: the requests ring wraps (MAX_REQUESTS) inside a batch.
	const llama = Array.from({length: Math.ceil((MAX_REQUESTS * 3) / 8)}, () => real).flat();

	it.each([1, 7, 500, 100_000])('llama.cpp lines in batches of %i make the same state as line by line', size => {
		const one = lineByLine(llama, 'llamacpp');
		const {state, seenBefore, copies} = batched(llama, 'llamacpp', size);
		expect(one.servers.s!.requests.length).toBe(MAX_REQUESTS);
		expect(one.servers.s!.requestsSeen).toBeGreaterThan(MAX_REQUESTS);
		expect(seenAll(state)).toEqual(seenAll(one));
		if (size * 38 < llama.length) expect(seenBefore.length).toBeGreaterThan(0);
		// all of each but its log, which reads as it did (the last, still pinned, certainly) or, reused since, throws
		seenBefore.forEach((s, i) => {
			const was = copies[i] as ReturnType<typeof seen>;
			expect({...s.servers.s, log: undefined}).toEqual({...was, log: undefined});
			let lines: unknown;
			try {
				lines = logLines(s.servers.s!.log);
			} catch (error) {
				expect(error).toBeInstanceOf(RangeError);
				expect(i).toBeLessThan(seenBefore.length - 1);
				return;
			}
			expect(lines).toEqual(was!.log);
		});
	});

	it('vLLM --enable-log-requests lines too (the writer of the benches)', () => {
		const file = path.join(tempDir(), 'vllm.log');
		writeFileSync(file, '');
		writeBurst(file, 'vllm', 300);
		const lines = readFileSync(file, 'utf8').split('\n').filter(l => l.length > 0);
		const one = lineByLine(lines, 'vllm');
		expect(one.servers.s!.httpCount).toBe(300);
		expect(one.servers.s!.linesUnparsed).toBe(0);
		expect(seenAll(batched(lines, 'vllm', 64).state)).toEqual(seenAll(one));
	});
});

describe('what N appended requests cost, whatever N is', () => {
	async function appendAndRead(n: number): Promise<{lines: number; bytes: number; batches: number; dispatches: number; state: MonitorState; turnsBetween: number}> {
		const file = path.join(tempDir(), 'server.log');
		writeFileSync(file, '');
		const store = createStore({now: T0});
		let batches = 0;
		let dispatches = 0;
		// an event-loop turn (a key, a frame) queued during a batch runs before the next batch
		let turnsBetween = 0;
		let turnPending = false;
		const dispatch = (a: Action) => {
			dispatches++;
			if (a.type === 'log-batch') {
				batches++;
				if (turnPending === false) {
					turnPending = true;
					setImmediate(() => {
						turnPending = false;
						turnsBetween++;
					});
				}
			}
			store.dispatch(a);
		};
		const source = createLogSource({serverId: 's', engine: 'llamacpp', input: {kind: 'file', path: file}, dispatch});
		await source.start();
		try {
			const lines = writeBurst(file, 'llama.cpp', n);
			const bytes = statSync(file).size;
			const done = () => {
				const s = store.getSnapshot().servers.s;
				return s !== undefined && s.linesParsed + s.linesUnparsed === lines;
			};
			// the poll finds it (no file events needed), then the read goes to the end in steps
			await waitUntil(done, {what: `${lines} lines read`, timeoutMs: 60_000});
			return {lines, bytes, batches, dispatches, state: store.getSnapshot(), turnsBetween};
		} finally {
			await source.stop();
		}
	}

	it('one store update per read step: 10 requests or 6,000 (48,000 lines) in one append', async () => {
		const small = await appendAndRead(10);
		const big = await appendAndRead(6000);
		expect(small.state.servers.s!.requestsSeen).toBe(10);
		expect(big.state.servers.s!.requestsSeen).toBe(6000);
		// a step of READ_CHUNK bytes is at most two batches (MAX_BATCH_LINES each), never a line each
		expect(big.batches).toBeLessThanOrEqual(2 * Math.ceil(big.bytes / READ_CHUNK) + 2);
		expect(big.batches).toBeGreaterThanOrEqual(Math.ceil(big.lines / MAX_BATCH_LINES));
		expect(big.dispatches).toBeLessThan(big.lines / 100);
		expect(small.batches).toBeLessThanOrEqual(2);
		// the backlog was read in steps, the event loop turning between them (a key is answered)
		expect(big.turnsBetween).toBeGreaterThanOrEqual(Math.ceil(big.bytes / READ_CHUNK) - 1);
	}, 90_000);

	it('publishes are the ticker’s, not the traffic’s; unchanged request rows are not rebuilt per publish', () => {
		const store = createStore({now: T0});
		const parser = createParser('llamacpp');
		const block = fixtureLines('chat.log');
		let published = 0;
		store.subscribe(() => published++);
		let t = T0;
		// 5,000 requests (35,000 lines) dispatched as 50 reads, one publish a tick (the store's ticker calls publish)
		for (let read = 0; read < 50; read++) {
			const lines: LogBatchLine[] = [];
			for (let r = 0; r < 100; r++) for (const l of block) lines.push(readLine(parser, l, t++));
			store.dispatch({type: 'log-batch', serverId: 's', lines});
			if (read % 10 === 9) store.publish();
		}
		expect(published).toBe(5);
		expect(store.getSnapshot().servers.s!.requestsSeen).toBe(5000);
		// the rows of the requests pane: made once per record; a publish with no new record remakes none
		const s = store.getPublished();
		const a = requestEntries(s.servers, s.order);
		const b = requestEntries({...s.servers}, [...s.order]);
		expect(b.length).toBe(MAX_REQUESTS);
		b.forEach((e, i) => expect(e).toBe(a[i]));
		// a read that finishes one more request remakes one row (the others are the same objects)
		store.dispatch({type: 'log-batch', serverId: 's', lines: block.map(l => readLine(parser, l, t++))});
		store.publish();
		const p = store.getPublished();
		const c = requestEntries(p.servers, p.order);
		expect(c.filter(e => !a.includes(e)).length).toBe(1);
	});

	it('the REQUESTS header counts what was seen and what is kept', () => {
		expect(seenText(200, 61_204)).toBe('61,204 seen · last 200 kept');
		expect(seenText(62, 62)).toBe('62 seen');
		expect(seenText(62, undefined)).toBe('62 seen');
		expect(seenText(200, 1_204_330, {bytesBehind: 12e6, linesSkipped: 950_000})).toBe('1,204,330 seen · last 200 kept · log 12 MB behind · 950,000 lines skipped (too far behind)');
		// seen = every server's finished-request counter + those in flight (JSON's requestsSeen + live)
		const lines = [...fixtureLines('chat.log'), ...fixtureLines('completion-long.log').slice(0, 3)];
		const parser = createParser('llamacpp');
		const state = reduce(initialState({now: T0}), {type: 'log-batch', serverId: 's', lines: lines.map((l, i) => readLine(parser, l, T0 + i))});
		expect(state.servers.s!.requestsSeen).toBe(1);
		expect(requestsSeen(state.servers, state.order).requests).toBe(2);
	});

	it('applyBatch leaves the server it starts from as it was, and counts its batches', () => {
		const parser = createParser('llamacpp');
		const start = lineByLine(fixtureLines('chat.log'), 'llamacpp').servers.s!;
		const copy = structuredClone(seen(start));
		const before = {...batchCounts};
		const lines = fixtureLines('overload.log').map((l, i) => readLine(parser, l, T0 + i));
		const next = applyBatch(start, lines, false);
		expect(seen(start)).toEqual(copy);
		expect(next.requests.length).toBeGreaterThan(start.requests.length);
		expect(batchCounts.batches - before.batches).toBe(1);
		expect(batchCounts.lines - before.lines).toBe(lines.length);
	});
});

describe('a tail too far behind', () => {
	it('skips ahead to the file’s end and counts every line it skipped: none lost silently', async () => {
		const file = path.join(tempDir(), 'server.log');
		writeFileSync(file, 'first\n');
		const read: string[] = [];
		const lags: {bytesBehind: number; linesSkipped: number; skips: number}[] = [];
		// behind by more than 256 KiB: skip (the default is 16 MiB; SKIP_KEEP_BYTES, 2 MiB, is kept)
		const tail = createLogTail({path: file, onLine: l => read.push(l), onLag: l => lags.push(l), pollMs: 50, skipBehindBytes: 256 * 1024});
		await tail.start();
		try {
			await waitUntil(() => read.length === 1, {what: 'first line'});
			// 8 MB in one append: 80,000 numbered lines
			const lines = Array.from({length: 80_000}, (_, i) => `line ${String(i).padStart(6, '0')} ${'x'.repeat(87)}`);
			appendFileSync(file, `${lines.join('\n')}\n`);
			await waitUntil(() => read.at(-1) === lines.at(-1), {what: 'the last line', timeoutMs: 30_000});
			const last = lags.at(-1)!;
			expect(last.skips).toBe(1);
			// read + skipped = written: the lines read are the newest, in order, with none missing after the skip
			expect(read.length - 1 + last.linesSkipped).toBe(80_000);
			expect(read.slice(1)).toEqual(lines.slice(last.linesSkipped));
			expect(last.linesSkipped).toBeGreaterThan(50_000);
			// it said how far behind it was while it was
			expect(lags.some(l => l.bytesBehind >= 1024 * 1024)).toBe(true);
			expect(last.bytesBehind).toBe(0);
		} finally {
			await tail.stop();
		}
	}, 40_000);

	it('lets the event loop turn while it counts the lines it skips: a key pressed meanwhile is answered', async () => {
		const file = path.join(tempDir(), 'server.log');
		writeFileSync(file, 'first\n');
		const states: string[] = [];
		const tail = createLogTail({path: file, onLine: () => undefined, onState: t => states.push(t), watch: false, pollMs: 3_600_000});
		await tail.start();
		try {
			// 24 MB at once (the default threshold, 16 MiB, passed): ~22 MB of it counted and skipped
			const line = `${'x'.repeat(110)}\n`;
			appendFileSync(file, line.repeat(24 * 1024 * 1024 / line.length));
			let turns = 0;
			let skipped = false;
			const tick = (): void => {
				if (skipped) return;
				if (states.some(t => t.includes('skipped ahead'))) skipped = true;
				else {
					turns++;
					setImmediate(tick);
				}
			};
			setImmediate(tick);
			await tail.readNow();
			expect(states.some(t => t.includes('skipped ahead'))).toBe(true);
			// one turn a MiB counted at least (it was none: 110 MB counted in one go held a key 100-180 ms)
			expect(turns).toBeGreaterThanOrEqual(15);
		} finally {
			await tail.stop();
		}
	}, 40_000);
});
