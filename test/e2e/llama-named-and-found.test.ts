/**
 * Naming what discovery also finds (issue 30): a llama-server started with `--log-file server.log`,
 * then `infertop snapshot --json` with its log named (`--log llamacpp=server.log`), its URL named
 * (`--server`), both, or neither. Each way, every request is counted once, tied to the one server,
 * and the log's backlog has the wall-clock times the process's start gives llama.cpp's
 * process-relative stamps (`sessionsWithoutTime: 0`).
 *
 * First against real captures, so it runs in CI: the log of a real llama-server (4 turns of an
 * agent, from ../shared/fixtures/llama.cpp), and the process table, sockets and boot time of a real
 * llama-server started as the capture's was (test/fixtures/discovery/llama.cpp/named-and-found/
 * README.md), laid out as a /proc tree that discovery reads instead of this machine's. The server's
 * HTTP answers are the real captures too (test/helpers/fake-engines.ts).
 *
 * Then against a live llama-server where the machine has one (docs/real-servers.md), started the
 * way users start it; skipped with one line where not.
 */
import {Writable} from 'node:stream';
import {copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runSnapshot} from '../../source/commands/snapshot.js';
import {startRuntime} from '../../source/runtime.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {VERSION} from '../../source/version.js';
import {waitUntil} from '../helpers/wait.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import type {Snapshot} from '../../source/model/snapshot.js';
import {startFake, type Fake} from '../helpers/fake-engines.js';
import {postFresh, realLlamaServer, sayWhySkipped, startLlamaServer, type StartedLlamaServer} from '../helpers/llama-server.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/discovery/llama.cpp/named-and-found/', import.meta.url));

interface Truth {
	requests: {request: string; timings: {prompt_n: number; cache_n: number; predicted_n: number; prompt_per_second: number; predicted_per_second: number}; usage: {prompt_tokens: number; completion_tokens: number; cached_tokens: number}}[];
}

interface Flags {
	readonly logs?: readonly string[];
	readonly servers?: readonly string[];
	readonly scan?: boolean;
	readonly procRoot?: string;
}

/** `infertop snapshot --json [--log …] [--server …] [--no-scan]`, as a user runs it (discovery scans no default port here: other sessions' engines live there). */
async function snapshot(flags: Flags, seconds = 2): Promise<Snapshot> {
	let out = '';
	const stdout = new Writable({
		write(chunk, _enc, done) {
			out += String(chunk);
			done();
		},
	});
	const config = mergeConfig(DEFAULTS, {}, {logs: [...(flags.logs ?? [])], servers: (flags.servers ?? []).map(url => ({url})), demo: false, history: '/dev/null'});
	const code = await runSnapshot({config, scan: flags.scan ?? true, system: false, json: true, seconds, stdout, scanPorts: [], ...(flags.procRoot !== undefined ? {procRoot: flags.procRoot} : {})});
	expect(code).toBe(0);
	return JSON.parse(out) as Snapshot;
}

const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');

/**
 * The captured /proc of the llama-server as a tree: its stat and command line, its listening socket
 * (the port moved to `port`, where the imitation answers) and its working folder `cwd` (where its
 * `--log-file server.log` is). Returns the root and the process's start (btime + starttime).
 */
async function procTree(root: string, port: number, cwd: string): Promise<{pid: number; startMs: number}> {
	const src = path.join(FIXTURE, 'proc');
	const pid = Number((await readdir(src)).find(n => /^\d+$/.test(n)));
	const listen = JSON.parse(await readFile(path.join(src, 'listen.json'), 'utf8')) as {port: number; inode: string; fd: string};
	await mkdir(path.join(root, 'net'), {recursive: true});
	await mkdir(path.join(root, String(pid), 'fd'), {recursive: true});
	await copyFile(path.join(src, 'stat'), path.join(root, 'stat'));
	await copyFile(path.join(src, 'net', 'tcp6'), path.join(root, 'net', 'tcp6'));
	const tcp = await readFile(path.join(src, 'net', 'tcp'), 'latin1');
	const moved = tcp.replace(new RegExp(`:${hex4(listen.port)}( 00000000:0000 0A .* ${listen.inode} )`), `:${hex4(port)}$1`);
	expect(moved).not.toBe(tcp);
	await writeFile(path.join(root, 'net', 'tcp'), moved);
	await copyFile(path.join(src, String(pid), 'stat'), path.join(root, String(pid), 'stat'));
	await copyFile(path.join(src, String(pid), 'cmdline'), path.join(root, String(pid), 'cmdline'));
	await symlink(`socket:[${listen.inode}]`, path.join(root, String(pid), 'fd', listen.fd));
	await symlink(cwd, path.join(root, String(pid), 'cwd'));
	const btime = Number(/^btime (\d+)$/m.exec(await readFile(path.join(src, 'stat'), 'latin1'))![1]);
	const starttime = Number((await readFile(path.join(src, String(pid), 'stat'), 'latin1')).split(') ')[1]!.split(' ')[19]);
	return {pid, startMs: btime * 1000 + starttime * 10};
}

/** ms since process start of a llama.cpp line prefix `M.SS.mmm.uuu`. */
const stampMs = (line: string) => {
	const m = /^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) /.exec(line)!;
	return (+m[1]! * 60 + +m[2]!) * 1000 + +m[3]! + +m[4]! / 1000;
};

describe('naming what discovery also finds: real captures, a /proc fixture (CI)', () => {
	let tmp: string;
	let fake: Fake;
	let root: string;
	let logPath: string;
	let start: {pid: number; startMs: number};
	let truth: Truth;
	/** Each request's time: the process's start + the stamp of the line that ends it (`release`). */
	let expectedTimes: string[];

	beforeAll(async () => {
		tmp = await mkdtemp(path.join(os.tmpdir(), 'infertop-named-found-'));
		fake = await startFake('llamacpp');
		const cwd = path.join(tmp, 'run');
		await mkdir(cwd);
		logPath = path.join(cwd, 'server.log');
		await copyFile(path.join(FIXTURE, 'server.log'), logPath);
		root = path.join(tmp, 'proc');
		start = await procTree(root, fake.port, cwd);
		truth = JSON.parse(await readFile(path.join(FIXTURE, 'truth.json'), 'utf8')) as Truth;
		const releases = (await readFile(logPath, 'utf8')).split('\n').filter(l => / release: /.test(l));
		expectedTimes = releases.map(l => new Date(start.startMs + stampMs(l)).toISOString());
	});

	afterAll(async () => {
		await fake?.close();
		if (tmp) await rm(tmp, {recursive: true, force: true});
	});

	/** One server (the process's address), its 4 requests once each, with the times and figures of the capture. */
	const expectOneServer = (snap: Snapshot, source: string) => {
		expect(snap.servers.map(s => [s.id, s.engine, s.source])).toEqual([[fake.url, 'llamacpp', source]]);
		expect(snap.servers[0]!.log?.path).toBeDefined();
		const requests = snap.requests;
		expect(requests.map(r => r.server)).toEqual([fake.url, fake.url, fake.url, fake.url]);
		expect(requests.map(r => r.time)).toEqual(expectedTimes);
		expect(requests.map(r => [r.promptTokens, r.cachedTokens, r.generatedTokens])).toEqual(truth.requests.map(t => [t.usage.prompt_tokens, t.usage.cached_tokens, t.usage.completion_tokens]));
		requests.forEach((r, i) => {
			const t = truth.requests[i]!.timings;
			expect(Math.abs(r.prefillTps! / t.prompt_per_second - 1)).toBeLessThan(0.03);
			expect(Math.abs(r.reportedTps! / t.predicted_per_second - 1)).toBeLessThan(0.03);
		});
		expect(snap.sessionsWithoutTime).toBe(0);
		expect(snap.sessions.map(s => [s.server, s.turns.length])).toEqual([[fake.url, 4]]);
	};

	it('the capture is what the test says: a process started at btime + 5060.00 s, 4 turns ending 6.3 s to 15.2 s later', () => {
		// btime 1796322426 s + starttime 506000 ticks / 100 = 19:51:26.000 UTC; the releases at 0.06.312.978 … 0.15.248.791
		expect(start).toEqual({pid: 15341, startMs: 1796327486000});
		expect(expectedTimes).toEqual(['2026-12-03T19:51:32.312Z', '2026-12-03T19:51:35.432Z', '2026-12-03T19:51:38.504Z', '2026-12-03T19:51:41.248Z']);
	});

	it('no flags: discovery finds the process, its port and its relative --log-file', async () => {
		expectOneServer(await snapshot({procRoot: root}), 'process');
	});

	it('--log llamacpp=server.log while discovery finds the process writing it: one source, that server\'s', async () => {
		const snap = await snapshot({procRoot: root, logs: [`llamacpp=${logPath}`]});
		expectOneServer(snap, 'process');
		expect(snap.notices.map(n => n.text)).toContain(`${logPath} is the log of ${fake.url} (its --log-file): read once, as that server's`);
	});

	it('--server URL --log llamacpp=server.log: the named server is tied to the process listening on its port', async () => {
		expectOneServer(await snapshot({procRoot: root, servers: [fake.url], logs: [`llamacpp=${logPath}`]}), 'flag');
	});

	it('--server URL --log … --no-scan: still tied to its process, by its port', async () => {
		expectOneServer(await snapshot({procRoot: root, servers: [fake.url], logs: [`llamacpp=${logPath}`], scan: false}), 'flag');
	});

	it('--server URL alone: its process\'s --log-file is found and read once', async () => {
		expectOneServer(await snapshot({procRoot: root, servers: [`http://localhost:${fake.port}/v1`]}), 'flag');
	});

	it('--log alone with --no-scan: a log with no process: its requests, once, and their times unknown (null), never made up', async () => {
		const snap = await snapshot({procRoot: root, logs: [`llamacpp=${logPath}`], scan: false});
		expect(snap.servers.map(s => s.id)).toEqual([`log:${logPath}`]);
		expect(snap.requests.map(r => r.time)).toEqual([null, null, null, null]);
		expect(snap.sessionsWithoutTime).toBe(4);
	});
});

// ---- the live llama-server ------------------------------------------------------------------------

if (!realLlamaServer.available) sayWhySkipped('live llama-server tests (named and found)', realLlamaServer.reason);

describe.skipIf(!realLlamaServer.available)('naming what discovery also finds: a live llama-server', () => {
	let server: StartedLlamaServer;
	let logPath: string;
	/** What the server said of each turn (its final chunk) and when the client saw it start and end. */
	const turns: {sent: number; ended: number; timings: Record<string, number>; usage: {prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: {cached_tokens?: number}}}[] = [];

	const turn = async (n: number) => {
		const body = await readFile(path.join(FIXTURE, `req${n}.request.json`), 'utf8');
		const sent = Date.now();
		const res = await postFresh(`${server.url}/v1/chat/completions`, body);
		const text = res.text;
		const ended = Date.now();
		expect(res.status).toBe(200);
		const chunks = text.split('\n').filter(l => l.startsWith('data: {')).map(l => JSON.parse(l.slice(6)) as {timings?: Record<string, number>; usage?: Turn['usage']});
		type Turn = (typeof turns)[number];
		const last = chunks.filter(c => c.timings !== undefined && c.usage !== undefined).at(-1)!;
		turns.push({sent, ended, timings: last.timings!, usage: last.usage!});
	};

	beforeAll(async () => {
		// As the capture's server was started (README), with the log relative to its working folder; one
		// thread, since two OpenMP threads crawl on a shared, oversubscribed 2-core box.
		server = await startLlamaServer({args: ['-c', '4096', '--parallel', '1', '-t', '1'], logFile: 'server.log'});
		logPath = server.logPath;
		for (let n = 1; n <= 4; n++) await turn(n);
	}, 120_000);

	afterAll(async () => {
		await server?.stop();
		if (server) await rm(server.cwd, {recursive: true, force: true});
	});

	/**
	 * The snapshot holds this server's `count` requests, once each, matching what the server said.
	 * `seenBy`: requests from index `live` on were read as they happened: their time is when
	 * infertop read the line (at most `seenBy`), not the log's.
	 */
	const check = (snap: Snapshot, count: number, live?: {from: number; seenBy: number}) => {
		const mine = snap.requests.filter(r => r.server === server.url);
		expect(snap.servers.filter(s => s.id === server.url || s.id.startsWith('log:')).map(s => s.id)).toEqual([server.url]);
		expect(mine).toHaveLength(count);
		mine.forEach((r, i) => {
			const t = turns[i]!;
			const what = `request ${i + 1}: ${JSON.stringify({r, t})}`;
			expect(r.time, what).not.toBeNull();
			// the process's start is known to the second (btime): a backlog time is within a second of the turn
			expect(Date.parse(r.time!), what).toBeGreaterThanOrEqual(t.sent - 1000);
			expect(Date.parse(r.time!), what).toBeLessThanOrEqual(live && i >= live.from ? live.seenBy : t.ended + 1000);
			expect(r.generatedTokens, what).toBe(t.usage.completion_tokens);
			expect(r.promptTokens, what).toBe(t.usage.prompt_tokens);
			expect(r.cachedTokens, what).toBe(t.usage.prompt_tokens_details?.cached_tokens ?? t.timings.cache_n);
			// the log prints times in ms to 0.01: a prompt evaluated in a fraction of a millisecond carries that rounding
			expect(Math.abs(r.prefillTps! / t.timings.prompt_per_second! - 1), what).toBeLessThan(0.03 + 0.005 / t.timings.prompt_ms!);
			expect(Math.abs(r.reportedTps! / t.timings.predicted_per_second! - 1), what).toBeLessThan(0.03 + 0.005 / t.timings.predicted_ms!);
		});
		expect(snap.sessions.filter(s => s.server === server.url).flatMap(s => s.turns)).toHaveLength(count);
		return mine.map(r => r.time);
	};

	it('after the fact (the backlog), every way of starting infertop gives the same 4 requests, once, at the same times', async () => {
		const found = check(await snapshot({}), 4);
		expect(check(await snapshot({logs: [`llamacpp=${logPath}`]}), 4)).toEqual(found);
		expect(check(await snapshot({servers: [server.url], logs: [`llamacpp=${logPath}`]}), 4)).toEqual(found);
		expect(check(await snapshot({servers: [server.url], logs: [`llamacpp=${logPath}`], scan: false}), 4)).toEqual(found);
		expect(check(await snapshot({servers: [server.url]}), 4)).toEqual(found);
	}, 120_000);

	it('live: --log named while the server serves more turns: each new request counted once, as that server\'s', async () => {
		const config = mergeConfig(DEFAULTS, {}, {logs: [`llamacpp=${logPath}`], demo: false, history: '/dev/null'});
		const rt = await startRuntime({config, scan: true, system: false, scanPorts: []});
		try {
			await rt.ready;
			const state = () => rt.store.getSnapshot();
			// the first discovery round has found the process and tied the named log to it
			await waitUntil(() => state().servers[server.url]?.logLabel !== undefined && state().servers[`log:${logPath}`] === undefined && state().servers[server.url]!.requestsSeen === 4, {timeoutMs: 20_000, what: 'the log tied to the server'});
			await turn(2);
			await turn(3);
			await waitUntil(() => state().servers[server.url]!.requestsSeen >= 6, {timeoutMs: 20_000, what: 'two more requests'});
			const seenBy = Date.now();
			rt.dispatch({type: 'tick', t: seenBy});
			check(toSnapshot(state(), VERSION, {sessionGapMs: config.sessionGap * 1000}), 6, {from: 4, seenBy});
		} finally {
			await rt.stop();
		}
	}, 120_000);
});
