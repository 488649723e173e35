/**
 * The command line as a user runs it (through tsx, from source): non-TTY stdout prints one text
 * snapshot and exits; --version, --print-config, a bad flag value.
 */
import {fileURLToPath} from 'node:url';
import {execa} from 'execa';
import {describe, expect, it} from 'vitest';

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

	it('bad input gets a clear message, not a crash', async () => {
		const a = await run(['--demo-split', '3', '--no-scan']);
		expect(a.exitCode).toBe(2);
		expect(a.stderr).toContain('--demo-split');
		const b = await run(['frobnicate']);
		expect(b.exitCode).toBe(2);
		expect(b.stderr).toContain('unknown command');
	});
});
