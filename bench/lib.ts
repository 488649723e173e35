/** What the benches share: reading a process's memory, a pseudo-terminal, and running one bench file on its own. */
import {execFileSync, spawnSync, type SpawnSyncReturns} from 'node:child_process';
import {copyFileSync, cpSync, existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

/** Resident memory of a pid, bytes (/proc/PID/status VmRSS; Linux), or undefined. */
export function rssBytes(pid: number): number | undefined {
	try {
		const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
		return m ? Number(m[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

const CLK_TCK = 100;

/** utime + stime of a /proc stat file (a process's or one thread's), seconds, or undefined. */
function statCpu(file: string): number | undefined {
	try {
		const s = readFileSync(file, 'latin1');
		const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
		const t = (Number(f[11]) + Number(f[12])) / CLK_TCK;
		return Number.isFinite(t) ? t : undefined;
	} catch {
		return undefined;
	}
}

/** CPU a process has used, utime + stime of all its threads (/proc/PID/stat; Linux), seconds, or undefined. */
export function cpuSeconds(pid: number | undefined): number | undefined {
	return pid === undefined ? undefined : statCpu(`/proc/${pid}/stat`);
}

/**
 * CPU of a process's main thread alone (/proc/PID/task/PID/stat; Linux), seconds, or undefined: for
 * node, the JavaScript; the rest of cpuSeconds is V8's helper threads (its optimizing compiler, the
 * collector's parallel and concurrent tasks) and libuv's.
 */
export function mainThreadCpuSeconds(pid: number | undefined): number | undefined {
	return pid === undefined ? undefined : statCpu(`/proc/${pid}/task/${pid}/stat`);
}

/** The environment a bench starts infertop in (the shell words before its command): this node first on PATH, no CI mode, a colour terminal. */
export const BENCH_ENV = `PATH=${path.dirname(process.execPath)}:$PATH CI=false NODE_ENV=production TERM=xterm-256color`;

/** `command` in a new detached tmux session of cols × rows; the pid of its pane's process (what `exec` in the command became). */
export function tmuxStart(session: string, command: string, cols = 120, rows = 40): number {
	execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', String(cols), '-y', String(rows), command]);
	return Number(execFileSync('tmux', ['display-message', '-p', '-t', session, '#{pane_pid}'], {encoding: 'utf8'}).trim());
}

/**
 * `command` in a pseudo-terminal of cols × rows of its own, through script(1): what it writes comes
 * out of script's stdout as a terminal would get it, and what is written to script's stdin reaches
 * it as keys. `pty: false` where there is no script(1): a plain shell, no terminal.
 */
export function ptyCommand(command: string, cols = 120, rows = 40): {file: string; args: string[]; pty: boolean} {
	const inner = `stty cols ${cols} rows ${rows} 2>/dev/null; exec ${command}`;
	if (process.platform === 'linux' && spawnSync('script', ['--version']).status === 0) return {file: 'script', args: ['-qfec', inner, '/dev/null'], pty: true};
	if (process.platform === 'darwin') return {file: 'script', args: ['-q', '/dev/null', 'sh', '-c', inner], pty: true};
	return {file: 'sh', args: ['-c', command], pty: false};
}

/**
 * `tsx bench/NAME.bench.ts` runs that one bench (bench/run.ts runs them all): print its result and
 * exit (its servers and tmux sessions are stopped by then), 1 on failure.
 */
export function runWhenMain(moduleUrl: string, run: () => Promise<string>): void {
	if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
	run().then(
		text => {
			console.log(text);
			process.exit(0);
		},
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}

/**
 * `from`'s scripts/build.mjs bundling `entry` (its default, source/cli.tsx, where undefined) into
 * `dir`/dist/cli.cjs; the build's result, for the caller to judge.
 */
export function bundleInto(from: string, entry: string | undefined, dir: string): SpawnSyncReturns<string> {
	return spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: from, env: {...process.env, INFERTOP_OUTFILE: path.join(dir, 'dist', 'cli.cjs'), ...(entry ? {INFERTOP_ENTRY: entry} : {})}, encoding: 'utf8'});
}

/** The rest of a package as npm installs it, beside a bundle in `dir`: `from`'s bin/, package.json, themes/ and samples/. */
export function layOut(from: string, dir: string): void {
	cpSync(path.join(from, 'bin'), path.join(dir, 'bin'), {recursive: true});
	copyFileSync(path.join(from, 'package.json'), path.join(dir, 'package.json'));
	for (const d of ['themes', 'samples']) if (existsSync(path.join(from, d))) cpSync(path.join(from, d), path.join(dir, d), {recursive: true});
}
