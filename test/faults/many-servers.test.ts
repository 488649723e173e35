/**
 * Fault suite (issue 34 items 4 and 10): many servers named by flag, and signals to a snapshot.
 * - past the stated limit (64), refused with one line on stderr, exit 2, at once (100 and 10,000);
 * - 64 servers that accept and never answer (real sockets on 127.0.0.1): the snapshot keeps its one
 *   deadline (its seconds + the first round's cap + the stop's cap), prints every server as down with
 *   the reason, and Node prints no MaxListenersExceededWarning;
 * - SIGTERM to such a snapshot is honoured at once (exit 143);
 * - SIGTERM, SIGINT or SIGHUP to a snapshot reading a `cmd:` log kills the command: no process of it
 *   is left (the process table is checked), the exit status is 128 + the signal.
 */
import {spawn} from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import {Writable} from 'node:stream';
import {execa} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runSnapshot, SNAPSHOT_READY_CAP_MS} from '../../source/commands/snapshot.js';
import {DEFAULTS, MAX_WATCHED, mergeConfig} from '../../source/config/config.js';
import {processesWith, root} from '../helpers/pty.js';
import {waitUntil} from '../helpers/wait.js';

const cliArgs = (args: string[]) => ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), ...args];
const env = {XDG_CONFIG_HOME: '/nonexistent-infertop-test', NO_COLOR: '1'};

/** n ports on 127.0.0.1 that accept connections and never answer; counts the connections. */
async function silentServers(n: number): Promise<{urls: string[]; connections: () => number; close(): Promise<void>}> {
	const sockets = new Set<net.Socket>();
	let connections = 0;
	const servers: net.Server[] = [];
	for (let i = 0; i < n; i++) {
		const s = net.createServer(c => {
			connections++;
			sockets.add(c);
			c.on('error', () => undefined);
			c.on('close', () => sockets.delete(c));
		});
		await new Promise<void>(resolve => s.listen(0, '127.0.0.1', resolve));
		servers.push(s);
	}
	return {
		urls: servers.map(s => `http://127.0.0.1:${(s.address() as net.AddressInfo).port}`),
		connections: () => connections,
		close: async () => {
			for (const c of sockets) c.destroy();
			await Promise.all(servers.map(s => new Promise<void>(resolve => s.close(() => resolve()))));
		},
	};
}

let silent: Awaited<ReturnType<typeof silentServers>>;
beforeAll(async () => {
	silent = await silentServers(MAX_WATCHED);
});
afterAll(async () => {
	await silent?.close();
});

describe('past the limit: refused with one line', {timeout: 60_000}, () => {
	for (const n of [MAX_WATCHED + 1, 100, 10_000]) {
		it(`${n} servers by flag: exit 2, one line, nothing on stdout`, async () => {
			const servers = Array.from({length: n}, (_, i) => ['--server', `http://127.0.0.1:${20_000 + (i % 40_000)}`]).flat();
			const r = await execa(process.execPath, cliArgs(['snapshot', '--no-scan', '--no-demo', ...servers]), {cwd: root, reject: false, timeout: 30_000, env});
			expect(r.exitCode).toBe(2);
			expect(r.stdout).toBe('');
			expect(r.stderr).toBe(`infertop: --server: ${n} servers named: at most ${MAX_WATCHED} are watched (each is read all the time)`);
		});
	}
});

describe(`${MAX_WATCHED} servers that never answer`, {timeout: 90_000}, () => {
	it('the snapshot keeps one deadline, lists every server down with the reason, and warns of no listener leak', async () => {
		const warnings: string[] = [];
		const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
		process.on('warning', onWarning);
		let out = '';
		const stdout = new Writable({
			write(chunk, _e, done) {
				out += String(chunk);
				done();
			},
		});
		const config = mergeConfig(DEFAULTS, {}, {servers: silent.urls.map(url => ({url})), demo: false, history: '/dev/null'});
		const seconds = 1;
		const t0 = Date.now();
		const code = await runSnapshot({config, scan: false, system: false, json: true, seconds, stdout, signals: false});
		const ms = Date.now() - t0;
		process.off('warning', onWarning);
		expect(code).toBe(0);
		// The stated deadline: its seconds, the first round's cap, the stop's cap (3 s), and slack for a loaded machine.
		expect(ms).toBeLessThan(seconds * 1000 + SNAPSHOT_READY_CAP_MS + 3000 + 5000);
		const snap = JSON.parse(out) as {servers: {url: string | null; state: string}[]};
		expect(snap.servers).toHaveLength(MAX_WATCHED);
		expect(snap.servers.every(s => s.state === 'down')).toBe(true);
		expect(warnings.filter(w => w.includes('MaxListeners'))).toEqual([]);
		expect(silent.connections()).toBeGreaterThanOrEqual(MAX_WATCHED);
	});

	it('SIGTERM is honoured at once: exit 143, nothing on stdout', async () => {
		const before = silent.connections();
		const child = spawn(process.execPath, cliArgs(['snapshot', '--seconds', '60', '--no-scan', '--no-demo', '--history', '/dev/null', ...silent.urls.flatMap(u => ['--server', u])]), {cwd: root, env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c: Buffer) => (stdout += String(c)));
		child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
		const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
		await waitUntil(() => silent.connections() >= before + 8, {timeoutMs: 40_000, what: 'the snapshot asking the servers'});
		const t0 = Date.now();
		child.kill('SIGTERM');
		const code = await exited;
		expect(Date.now() - t0).toBeLessThan(5000);
		expect(code).toBe(143);
		expect(stdout).toBe('');
		expect(stderr).toBe('infertop: snapshot stopped by SIGTERM\n');
	});
});

describe('a signal to a snapshot reading a cmd: log leaves no process behind', {timeout: 120_000}, () => {
	for (const [signal, status] of [['SIGTERM', 143], ['SIGINT', 130], ['SIGHUP', 129]] as const) {
		it(`${signal}: the command and its child are gone, exit ${status}`, async () => {
			const marker = String(100_000 + Math.floor(Math.random() * 800_000));
			// The sleep itself (infertop's own command line holds the same words).
			const sleeps = () => processesWith(`sleep ${marker}`).filter(l => /^\s*\d+\s+sleep \d+$/.test(l));
			const child = spawn(process.execPath, cliArgs(['snapshot', '--seconds', '60', '--no-scan', '--no-demo', '--history', '/dev/null', '--log', `llamacpp=cmd:sh -c 'sleep ${marker} | cat'`]), {cwd: root, env: {...process.env, ...env}, stdio: 'ignore'});
			const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
			try {
				await waitUntil(() => sleeps().length > 0, {timeoutMs: 40_000, everyMs: 100, what: 'the cmd: log started'});
				child.kill(signal);
				expect(await exited).toBe(status);
				await waitUntil(() => sleeps().length === 0, {timeoutMs: 3000, everyMs: 50, what: 'the command gone'}).catch(() => undefined);
				expect(sleeps()).toEqual([]);
			} finally {
				if (child.exitCode === null) child.kill('SIGKILL');
				for (const l of sleeps()) process.kill(Number(l.trim().split(/\s+/)[0]), 'SIGKILL');
			}
		});
	}
});
