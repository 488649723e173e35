/**
 * The command line as a user runs it (through tsx, from source): non-TTY stdout prints one text
 * snapshot and exits; --version, --print-config, a bad flag value.
 */
import {fileURLToPath} from 'node:url';
import {execa} from 'execa';
import {describe, expect, it} from 'vitest';
import {waitUntil} from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
	execa(tsx, ['source/cli.tsx', ...args], {cwd: root, reject: false, timeout: 60_000, env: {NO_COLOR: '1', XDG_CONFIG_HOME: '/nonexistent-infertop-test', ...env}});

describe('infertop on the command line', () => {
	it('with stdout not a terminal, prints one text snapshot of the demo and exits 0', async () => {
		const r = await run(['--demo', '--no-scan', '--seconds', '1', '--history', '/dev/null']);
		expect(r.exitCode).toBe(0);
		expect(r.stdout).toContain('DEMO');
		expect(r.stdout).toContain('ollama demo');
		expect(r.stdout).not.toContain('demo-ollama');
		expect(r.stdout).not.toMatch(/\u001b\[/); // no escape codes in a pipe
		expect(r.stdout.split('\n').length).toBeLessThan(60);
	});

	it('--version prints the package version; --print-config shows where values came from', async () => {
		const v = await run(['--version']);
		expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
		const c = await run(['--print-config', '--refresh', '2000']);
		expect(c.exitCode).toBe(0);
		expect(c.stdout).toMatch(/"refresh": 2000,?\s*\/\/ flag/);
		expect(c.stdout).toMatch(/"demo": "auto",?\s*\/\/ default/);
	});

	it('a bad flag value is an error: one line naming the flag and what it accepts, exit 2', async () => {
		const cases: [string[], string][] = [
			[['--refresh', 'abc'], 'infertop: --refresh: expected 250..10000 ms (a number, or "2s"), got "abc"'],
			[['--refresh', '5'], 'infertop: --refresh: expected 250..10000 ms (a number, or "2s"), got "5"'],
			[['--bandwidth', '-5'], 'infertop: --bandwidth: expected memory bandwidth in GB/s, a number in 0..100000 (e.g. 546), got "-5"'],
			[['--seconds', 'abc'], 'infertop: --seconds: expected a number in 0..3600 seconds, got "abc"'],
			[['--seconds', '-1'], 'infertop: --seconds: expected a number in 0..3600 seconds, got "-1"'],
			[['probe', '--max-tokens', 'x'], 'infertop: --max-tokens: expected an integer in 2..100000, got "x"'],
			// issue 30: a flag of another command is not ignored.
			[['compare', '--runs', '3'], 'infertop: --runs: not for the compare command (only probe)'],
			[['--prompt', 'code'], 'infertop: --prompt: not for the monitor (only probe)'],
			[['--theme', 'nope'], 'infertop: --theme: theme nope: no such theme (built-in: dark, light, high-contrast, no-color; or a path to a .json file)'],
			[['--serve-metrics', '127.0.0.1:99999'], 'infertop: --serve-metrics: "127.0.0.1:99999": bad port "99999" (0..65535)'],
			[['--headless'], 'infertop: --headless: only with --serve-metrics ADDR (it serves metrics without a screen)'],
		];
		// (Were a value let through, the command would go on to a 3 s snapshot and fail the checks below.)
		const results = await Promise.all(cases.map(([args]) => run([...args, '--no-scan', '--no-demo'])));
		results.forEach((r, i) => {
			expect(r.exitCode, cases[i]![0].join(' ')).toBe(2);
			expect(r.stderr.trim()).toBe(cases[i]![1]);
			expect(r.stdout).toBe('');
		});
	});

	it('-h and -v work; --help prints the description once, every line within 100 columns', async () => {
		const [h, help, v] = await Promise.all([run(['-h']), run(['--help']), run(['-v'])]);
		expect(h.exitCode).toBe(0);
		expect(h.stdout).toBe(help.stdout);
		expect(help.stdout.match(/top for local LLM inference engines/g)).toHaveLength(1);
		expect(help.stdout.split('\n').filter((l) => l.length > 100)).toEqual([]);
		expect(help.stdout).toContain('--headless');
		expect(v.exitCode).toBe(0);
		expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
	});

	it('a missing --log or --replay file exits 2 for a snapshot; a named server that is down is listed as down', async () => {
		const [log, replay, down] = await Promise.all([
			run(['snapshot', '--no-scan', '--no-demo', '--log', '/nonexistent-infertop/x.log']),
			run(['--no-scan', '--no-demo', '--replay', 'no-such-sample']),
			// Port 9 is on fetch's blocked list: the reason must be the server's, not "bad port".
			run(['snapshot', '--json', '--no-scan', '--server', 'http://127.0.0.1:9', '--seconds', '1', '--history', '/dev/null']),
		]);
		expect([log.exitCode, log.stderr.trim()]).toEqual([2, 'infertop: --log /nonexistent-infertop/x.log: no such file']);
		expect(replay.exitCode).toBe(2);
		expect(replay.stderr).toContain('infertop: --replay: no-such-sample: no such file (shipped samples: ');
		expect(down.exitCode).toBe(0);
		const snap = JSON.parse(down.stdout) as {demo: boolean; servers: {url: string; state: string; lastError: string | null}[]};
		expect(snap.servers.map((s) => [s.url, s.state])).toEqual([['http://127.0.0.1:9', 'down']]);
		expect(snap.servers[0]!.lastError).toMatch(/^(connection refused|not an inference server|no answer within \d+ ms)$/);
		expect(snap.demo).toBe(false);
	});

	it('snapshot to a pipe: the version in the header, no blank lines, no key hints', async () => {
		const r = await run(['snapshot', '--demo', '--no-scan', '--seconds', '1', '--history', '/dev/null']);
		expect(r.exitCode).toBe(0);
		const lines = r.stdout.split('\n');
		expect(lines[0]).toMatch(/^infertop \d+\.\d+\.\d+ +DEMO/);
		expect(lines.filter((l) => l.trim() === '')).toEqual([]);
		expect(r.stdout).not.toMatch(/\bp probes\b|press [a-z]\b|Esc cancels/);
	});

	it('--serve-metrics ADDR --headless runs without a terminal, serves /metrics, and stops cleanly on SIGTERM', async () => {
		// node itself runs the source (tsx as a loader, not tsx's CLI): the signal reaches our process directly,
		// as systemd's reaches the service's main process. tsx's CLI relays signals over IPC with a short
		// wait for the child's answer, and on a loaded machine it then kills itself with the signal (exit 143).
		const child = execa(process.execPath, ['--import', 'tsx', 'source/cli.tsx', '--demo', '--no-scan', '--serve-metrics', '127.0.0.1:0', '--headless', '--history', '/dev/null'], {
			cwd: root, reject: false, stdin: 'ignore', detached: true, env: {NO_COLOR: '1', XDG_CONFIG_HOME: '/nonexistent-infertop-test'},
		});
		try {
			let err = '';
			child.stderr!.on('data', (d: Buffer) => {
				err += d.toString();
			});
			await waitUntil(() => /serving metrics at (\S+)/.test(err), {timeoutMs: 60_000, everyMs: 50, what: 'listening line'});
			const url = /serving metrics at (\S+)/.exec(err)![1]!;
			expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
			let body = '';
			await waitUntil(async () => {
				body = await fetch(url).then((r) => r.text(), () => '');
				return /^infertop_server_up\{[^}]*engine="ollama"[^}]*demo="true"[^}]*\} 1$/m.test(body);
			}, {timeoutMs: 60_000, everyMs: 200, what: 'the demo server up in /metrics'});
			process.kill(child.pid!, 'SIGTERM');
			const done = await child;
			expect(done.exitCode).toBe(0);
			expect(done.stdout).toBe('');
		} finally {
			if (child.exitCode === null) {
				try {
					process.kill(-child.pid!, 'SIGKILL');
				} catch {
					// already gone
				}
			}
		}
	});

	it('bad input gets a clear message, not a crash', async () => {
		const a = await run(['--demo-split', '3', '--no-scan']);
		expect(a.exitCode).toBe(2);
		expect(a.stderr).toContain('--demo-split');
		const b = await run(['frobnicate']);
		expect(b.exitCode).toBe(2);
		expect(b.stderr).toContain('unknown command');
	});
});
