import {appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {createLogSource, lineWallTime} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import {waitUntil} from '../helpers/wait.js';
import {logLines} from '../../source/model/log-ring.js';
import {visibleLog} from '../../source/ui/panes/log.js';
import {detailLines} from '../../source/ui/panes/requests.js';
import {linesGone} from '../../source/ui/view-model/log.js';
import {requestEntries} from '../../source/ui/view-model/requests.js';

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

const pad = (n: number) => String(n).padStart(2, '0');
const gin = (d: Date) => `[GIN] ${d.getFullYear()}/${pad(d.getMonth() + 1)}/${pad(d.getDate())} - ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} | 200 |  2.5s |       127.0.0.1 | POST     "/api/chat"`;

describe('lineWallTime', () => {
	it('reads slog (with offset), gin (local) and Python (local) times; ignores relative and implausible ones', () => {
		const now = Date.parse('2026-11-30T12:00:00Z');
		expect(lineWallTime('time=2026-11-30T11:50:00.250Z level=INFO source=x.go:1 msg="cache hit"', now)).toBe(Date.parse('2026-11-30T11:50:00.250Z'));
		const local = new Date(now - 600_000);
		expect(lineWallTime(gin(local), now)).toBe(Math.floor(local.getTime() / 1000) * 1000);
		expect(lineWallTime('0.04.868.422 I slot print_timing: id  0 | task 31 | prompt eval time = 1 ms', now)).toBeUndefined();
		// An old log keeps its own time (an old log is not "now"); only the implausible is dropped.
		expect(lineWallTime('time=2020-01-01T00:00:00Z level=INFO source=x.go:1 msg=old', now)).toBe(Date.parse('2020-01-01T00:00:00Z'));
		expect(lineWallTime('time=2001-01-01T00:00:00Z level=INFO source=x.go:1 msg=old', now)).toBeUndefined();
		expect(lineWallTime('time=2026-12-30T00:00:00Z level=INFO source=x.go:1 msg=future', now)).toBeUndefined();
	});
});

describe('createLogSource', () => {
	it('start-up backlog keeps the log’s own times; lines after start get the time they were read', async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'infertop-src-'));
		dirs.push(dir);
		const file = path.join(dir, 'server.log');
		const then = new Date(Date.now() - 10 * 60_000);
		writeFileSync(file, [
			`time=${then.toISOString()} level=INFO source=prefix_cache.go:125 msg="cache hit" total=100 matched=90 cached=90 left=10`,
			`time=${then.toISOString()} level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=225 drafted=458 accepted=287 acceptance=0.63 avg_draft=2.04 max_draft=4 avg_accepted=1.28`,
			gin(then),
			'',
		].join('\n'));
		let state: MonitorState = initialState();
		const dispatch = (a: Action) => {
			state = reduce(state, a);
		};
		const source = createLogSource({serverId: 'x', engine: 'ollama', input: {kind: 'file', path: file}, dispatch});
		await source.start();
		try {
			const old = state.servers.x!.requests[0]!;
			expect(old.passes).toBe(225);
			expect(Math.abs(old.lastSeen - then.getTime())).toBeLessThan(1000);
			const before = Date.now();
			appendFileSync(file, `time=${then.toISOString()} level=INFO source=prefix_cache.go:125 msg="cache miss" total=50 matched=0 cached=0 left=50\ntime=${then.toISOString()} level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=10 drafted=20 accepted=5 acceptance=0.25 avg_draft=2 max_draft=4 avg_accepted=0.5\n`);
			await waitUntil(() => state.servers.x!.requests.length === 2, {what: 'live request'});
			expect(state.servers.x!.requests[1]!.lastSeen).toBeGreaterThanOrEqual(before);
		} finally {
			await source.stop();
		}
	});

	it('a log given without ENGINE= names its server by the engine detected from its content, and stays log-only', async () => {
		const file = sampleCopy();
		let state: MonitorState = initialState();
		const dispatch = (a: Action) => {
			state = reduce(state, a);
		};
		dispatch({type: 'server-seen', t: 1, server: {id: 'log:x', engine: 'openai', source: 'log'}});
		const source = createLogSource({serverId: 'log:x', input: {kind: 'file', path: file}, dispatch});
		await source.start();
		try {
			expect(state.servers['log:x']!.engine).toBe('llamacpp');
			expect(state.servers['log:x']!.state).toBe('log-only');
			expect(state.servers['log:x']!.requests.some(r => r.done)).toBe(true);
		} finally {
			await source.stop();
		}
	});
});

describe('time from every era of stamp (issue 11 item 4)', () => {
	it('vLLM `INFO mm-dd hh:mm:ss` (vllm/logger.py datefmt) takes the latest such date not after now', () => {
		const now = new Date(2026, 10, 30, 12, 0, 0).getTime();
		const line = (mmdd: string) => `(APIServer pid=1) INFO ${mmdd} 04:56:30 [loggers.py:271] Engine 000: Avg prompt throughput: 0.0 tokens/s`;
		expect(lineWallTime(line('11-30'), now, ['mmdd'])).toBe(new Date(2026, 10, 30, 4, 56, 30).getTime());
		expect(lineWallTime(line('12-24'), now, ['mmdd'])).toBe(new Date(2025, 11, 24, 4, 56, 30).getTime());
	});

	it('llama.cpp `m.ss.mmm.uuu` since process start: wall time only with the process start, else unknown', () => {
		const line = '1.04.868.422 I slot print_timing: id  0 | task 31 | prompt eval time = 1 ms';
		const start = Date.parse('2026-11-30T11:00:00Z');
		expect(lineWallTime(line, start + 3_600_000, ['process'])).toBeUndefined();
		expect(lineWallTime(line, start + 3_600_000, ['process'], start)).toBe(start + 64_868.422);
	});

	it('a llama-server log whose process start is known carries wall-clock times in its backlog', async () => {
		const file = sampleCopy();
		const run = async (processStartMs?: () => Promise<number | undefined>) => (await readWhole({serverId: 'x', engine: 'llamacpp', input: {kind: 'file', path: file}, ...(processStartMs ? {processStartMs} : {})})).servers.x!.requests.filter(r => r.done);
		const start = Date.now() - 3_600_000;
		const anchored = await run(async () => start);
		// samples/llama-server.log: task 1 releases at 0.03.717.374 after the process started.
		expect(anchored.map(r => [r.key, r.earlier, Math.round((r.lastSeen - start) * 1000) / 1000])).toContainEqual(['s1/t1', undefined, 3717.374]);
		const unknown = await run();
		expect(unknown.every(r => r.earlier === true && r.lastSeen === 0)).toBe(true);
	});

	it('named with --log alone (no process to anchor its stamps): the backlog lines show `--:--:--` in the LOG pane, never the time they were read; a line written later shows its time', async () => {
		const file = sampleCopy();
		let state: MonitorState = initialState();
		const source = createLogSource({serverId: 'x', engine: 'llamacpp', input: {kind: 'file', path: file}, dispatch: a => (state = reduce(state, a))});
		await source.start();
		const backlog = logLines(state.servers.x!.log).length;
		expect(backlog).toBeGreaterThan(20);
		appendFileSync(file, '1.00.000.000 I srv  update_slots: all slots are idle\n');
		await waitUntil(() => logLines(state.servers.x!.log).length > backlog, {timeoutMs: 5000, what: 'the line written after start'});
		await source.stop();
		const lines = logLines(state.servers.x!.log);
		expect(lines.slice(0, backlog).every(l => l.earlier === true)).toBe(true);
		expect(lines.at(-1)!.earlier).toBeUndefined();
		const shown = visibleLog(state.servers.x!.log, '', {}, lines.length, 120).lines.map(l => l.text);
		expect(shown.slice(0, backlog).every(t => t.startsWith('--:--:-- '))).toBe(true);
		expect(shown.at(-1)).toMatch(/^\d{2}:\d{2}:\d{2} • 1\.00\.000\.000 I srv {2}update_slots/);
	});

	it('an old log after the fact: a request whose time cannot be known still has its lines in its detail (by their place in the log, not by time)', async () => {
		const file = sampleCopy();
		const state = await readWhole({serverId: 'x', engine: 'llamacpp', input: {kind: 'file', path: file}});
		const entry = requestEntries(state.servers, state.order).find(e => e.record.key === 's1/t1')!;
		expect(entry.record.earlier).toBe(true);
		const lines = detailLines(entry, state.servers.x!.log).log;
		// samples/llama-server.log lines 326-338: task 1 from launch_slot_ to its release
		expect(lines).toHaveLength(13);
		expect(lines[0]).toMatch(/^--:--:-- • 0\.00\.778\.254 I slot launch_slot_: id {2}1 \| task 1 \|/);
		expect(lines.at(-1)).toMatch(/^--:--:-- • 0\.03\.717\.374 I slot {6}release: id {2}1 \| task 1 \|/);
		expect(linesGone(entry.record, state.servers.x!.log)).toBe(0);
	});

	it('found by its process (--log-file), its engine not yet known from the lines: every line of the backlog at its own time, the first ones too', async () => {
		const file = sampleCopy();
		const start = Date.now() - 3_600_000;
		// as runtime.ts onLogFound attaches it: no engine named, the process's start known
		const state = await readWhole({serverId: 'x', input: {kind: 'file', path: file}, processStartMs: async () => start}, reduce(initialState(), {type: 'server-seen', t: start, server: {id: 'x', engine: 'llamacpp', source: 'process'}}));
		const lines = logLines(state.servers.x!.log);
		const stamped = lines.filter(l => /^\d+\.\d{2}\.\d{3}\.\d{3} /.test(l.text));
		expect(stamped.length).toBeGreaterThan(20);
		// samples/llama-server.log's first line: 0.00.004.176 after the process started (it was the time it was read)
		expect(stamped[0]!.text.startsWith('0.00.004.176 ')).toBe(true);
		for (const l of stamped) {
			const [m, sec, ms, us] = l.text.split(' ')[0]!.split('.').map(Number);
			expect(l.t).toBeCloseTo(start + m! * 60_000 + sec! * 1000 + ms! + us! / 1000, 3);
		}
	});
});

/** A copy of samples/llama-server.log in a folder of the test's own. */
function sampleCopy(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-src-'));
	dirs.push(dir);
	const file = path.join(dir, 'llama.log');
	writeFileSync(file, readFileSync(fileURLToPath(new URL('../../samples/llama-server.log', import.meta.url))));
	return file;
}

/** A log source started and stopped (its backlog read whole) into `state`. */
async function readWhole(options: Omit<Parameters<typeof createLogSource>[0], 'dispatch'>, state: MonitorState = initialState()): Promise<MonitorState> {
	const source = createLogSource({...options, dispatch: a => (state = reduce(state, a))});
	await source.start();
	await source.stop();
	return state;
}

describe('a log written in another zone', () => {
	it('[GIN] stamps are read in the zone the slog lines say (-07:00), not this machine\'s', async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'infertop-src-'));
		dirs.push(dir);
		const file = path.join(dir, 'server.log');
		writeFileSync(file, [
			'time=2026-08-21T18:40:04.496-07:00 level=INFO source=routes.go:1680 msg="Listening on 127.0.0.1:11434 (version 0.33.0)"',
			'time=2026-08-21T18:40:05.000-07:00 level=INFO source=prefix_cache.go:131 msg="cache miss" total=100 left=100',
			'[GIN] 2026/08/21 - 18:40:19 | 200 | 11.553211597s |       127.0.0.1 | POST     "/api/chat"',
			'time=2026-08-21T18:40:19.500-07:00 level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=10 drafted=20 accepted=5',
			'[GIN] 2026/08/21 - 18:40:30 | 200 | 1.5s |       127.0.0.1 | POST     "/api/chat"',
			'',
		].join('\n'));
		let state: MonitorState = initialState();
		const lines: number[] = [];
		const source = createLogSource({serverId: 'x', engine: 'ollama', input: {kind: 'file', path: file}, dispatch: a => {
			// one action per read: its lines, in order
			if (a.type === 'log-batch') lines.push(...a.lines.map(l => l.t));
			state = reduce(state, a);
		}});
		await source.start();
		await source.stop();
		expect(lines.map(t => new Date(t).toISOString())).toEqual([
			'2026-08-22T01:40:04.496Z', '2026-08-22T01:40:05.000Z', '2026-08-22T01:40:19.000Z', '2026-08-22T01:40:19.500Z', '2026-08-22T01:40:30.000Z',
		]);
	});
});
