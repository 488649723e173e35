/**
 * Issue 14 items 1 and 8: every way out of infertop stops what it started.
 * - a `cmd:` log whose command leaves a grandchild (`sh -c 'sleep N | cat'`): `q` leaves the
 *   alternate screen and exits; `snapshot --json` prints JSON and exits; no `sleep` is left behind;
 * - the demo's temp folder is removed when the terminal closes (SIGHUP, as tmux kill-session does).
 * Run on a real pseudo-terminal (Python's pty module, test/helpers/pty-run.py).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {execa, execaSync} from 'execa';
import {afterEach, describe, expect, it} from 'vitest';
import {hasPty, infertopArgv, processesWith, root, runOnPty} from '../helpers/pty.js';

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true});
});
const tempDir = (): string => {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-faults-'));
	dirs.push(d);
	return d;
};

/** A sleep no other process on the machine runs, so the test finds exactly its own. */
const uniqueSleep = (): string => String(100_000 + Math.floor(Math.random() * 800_000));

async function gone(marker: string): Promise<string[]> {
	// The group gets SIGTERM before infertop returns; give the kernel a moment to reap.
	for (let i = 0; i < 40; i++) {
		const left = processesWith(`sleep ${marker}`);
		if (left.length === 0) return left;
		await new Promise(r => setTimeout(r, 50));
	}
	return processesWith(`sleep ${marker}`);
}

describe.skipIf(!hasPty)('exit paths (on a pseudo-terminal)', {timeout: 90_000}, () => {
	it("q quits although the cmd: log's grandchild holds the pipe; the alternate screen is left; nothing is orphaned", async () => {
		const n = uniqueSleep();
		const r = await runOnPty(infertopArgv(['--no-scan', '--no-demo', '--history', '/dev/null', '--log', `llamacpp=cmd:sh -c 'sleep ${n} | cat'`]), ['wait:ENGINES', 'sleep:1', 'send:q'], {timeoutS: 40});
		expect(r.stepFailed).toBeNull();
		expect(r.timedOut).toBe(false);
		expect(r.exit).toBe(0);
		const text = r.raw.toString('latin1');
		expect(text.indexOf('\u001b[?1049h')).toBeGreaterThanOrEqual(0);
		expect(text.lastIndexOf('\u001b[?1049l')).toBeGreaterThan(text.indexOf('\u001b[?1049h'));
		expect(await gone(n)).toEqual([]);
	});

	it('closing the terminal (SIGHUP) removes the demo temp folder', async () => {
		const tmp = tempDir();
		const r = await runOnPty(infertopArgv(['--no-scan', '--demo', '--history', '/dev/null']), ['wait:qwen3.8', 'sleep:1', 'hup'], {timeoutS: 40, env: {TMPDIR: tmp}});
		expect(r.stepFailed).toBeNull();
		expect(r.timedOut).toBe(false);
		// Ended as a hangup ends a program (SIGHUP), not by Node's abort restoring a terminal that is gone (SIGABRT).
		expect(r.signal).toBe(1);
		expect(fs.readdirSync(tmp).filter(f => f.startsWith('infertop-demo-'))).toEqual([]);
	});

	it('SIGTERM removes the demo temp folder too', async () => {
		const tmp = tempDir();
		const r = await runOnPty(infertopArgv(['--no-scan', '--demo', '--history', '/dev/null']), ['wait:qwen3.8', 'sleep:1', 'term'], {timeoutS: 40, env: {TMPDIR: tmp}});
		expect(r.timedOut).toBe(false);
		expect(r.exit).toBe(0);
		expect(fs.readdirSync(tmp).filter(f => f.startsWith('infertop-demo-'))).toEqual([]);
	});
});

describe('snapshot with a cmd: log that leaves a grandchild', {timeout: 90_000}, () => {
	it('prints its JSON and exits; the sleep is gone', async () => {
		const n = uniqueSleep();
		const r = await execa(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), 'snapshot', '--json', '--seconds', '1', '--no-scan', '--no-demo', '--history', '/dev/null', '--log', `llamacpp=cmd:sh -c 'sleep ${n} | cat'`], {
			cwd: root,
			reject: false,
			timeout: 40_000,
			env: {XDG_CONFIG_HOME: '/nonexistent-infertop-test'},
		});
		expect(r.timedOut).toBe(false);
		expect(r.exitCode).toBe(0);
		expect(() => JSON.parse(r.stdout) as unknown).not.toThrow();
		expect(await gone(n)).toEqual([]);
	});
});

const hasSetsid = execaSync('sh', ['-c', 'command -v setsid'], {reject: false}).exitCode === 0;

describe.skipIf(!hasSetsid)('createCommandLog.stop() never waits forever on a pipe', {timeout: 60_000}, () => {
	it('a grandchild that left the process group (setsid) and holds the pipe: stop() still returns', async () => {
		const {createCommandLog} = await import('../../source/sources/command-log.js');
		const n = uniqueSleep();
		const lines: string[] = [];
		const log = createCommandLog({command: ['sh', '-c', `echo started; setsid sleep ${n} & sleep ${Number(n) + 1}`], onLine: l => lines.push(l), onState: () => undefined, stopGraceMs: 200});
		log.start();
		for (let i = 0; i < 200 && !lines.includes('started'); i++) await new Promise(r => setTimeout(r, 25));
		expect(lines).toContain('started');
		// setsid leaves the group before it runs sleep: once a process whose whole command line is
		// `sleep N` exists, it has escaped (stopping before that, on a loaded machine, killed it with
		// the group and the test had nothing to check; the sh's own command line also holds `sleep N`)
		const escapedNow = () => processesWith(`sleep ${n}`).filter(l => l.trim().replace(/^\d+\s+/, '') === `sleep ${n}`);
		for (let i = 0; i < 400 && escapedNow().length === 0; i++) await new Promise(r => setTimeout(r, 25));
		await log.stop();
		// The group (sh and its sleep) is gone; the escaped one is still there, holding the pipe.
		expect(await gone(String(Number(n) + 1))).toEqual([]);
		const escaped = processesWith(`sleep ${n}`);
		expect(escaped).toHaveLength(1);
		process.kill(Number(escaped[0]!.trim().split(/\s+/)[0]), 'SIGKILL');
	});
});
