/**
 * A log that is a command's output (`journalctl -u ollama -f -o cat`, `docker logs -f …`): stream
 * stdout+stderr line by line through execa (an argument array, never a shell), buffer partial
 * lines, and restart the command with back-off (1 s doubling to 30 s) whenever it exits.
 *
 * The command runs in its own process group (POSIX): `sh -c 'sleep 1003 | cat'` leaves a grandchild
 * that holds the pipe open after its parent is gone. stop() sends SIGTERM to the whole group,
 * SIGKILL after a grace period, then stops reading the pipes — it never waits forever on one.
 */
import path from 'node:path';
import type {ResultPromise} from 'execa';
import {loadExeca} from './lazy-execa.js';
import type {Collector} from '../types/state.js';
import {LineSplitter} from './log-tail.js';

export interface CommandLogOptions {
	/** argv: the program and its arguments. */
	readonly command: readonly string[];
	readonly onLine: (line: string, t: number) => void;
	readonly onState: (text: string) => void;
	/** First restart delay (ms), doubled on each exit up to maxBackoffMs. */
	readonly minBackoffMs?: number;
	readonly maxBackoffMs?: number;
	/** A run at least this long (ms) resets the back-off to its first delay. Default 30 s. */
	readonly resetAfterMs?: number;
	/** SIGTERM → SIGKILL grace period on stop (ms). Default STOP_GRACE_MS. */
	readonly stopGraceMs?: number;
}

export const MIN_BACKOFF_MS = 1000;
/** How long stop() waits after SIGTERM before it sends SIGKILL to the group. */
export const STOP_GRACE_MS = 1500;
/** How long stop() waits after SIGKILL (and closing the pipes) before it returns anyway. */
const KILL_WAIT_MS = 500;

const GROUPS = process.platform !== 'win32';
/** Process groups still running, so an exit of infertop (any path) takes them down too. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(GROUPS ? -pid : pid, signal);
		return true;
	} catch {
		return false;
	}
}

function installExitHook(): void {
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// 'exit' handlers run synchronously: a signal is all that can be sent from here.
	process.on('exit', () => {
		for (const pid of liveGroups) signalGroup(pid, 'SIGTERM');
		liveGroups.clear();
	});
}

const delay = (ms: number): Promise<'timeout'> =>
	new Promise(resolve => {
		const t = setTimeout(() => resolve('timeout'), ms);
		t.unref?.();
	});
export const MAX_BACKOFF_MS = 30_000;

const fmtDelay = (ms: number): string => (ms < 1000 ? `${ms} ms` : ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`);

export function createCommandLog(options: CommandLogOptions): Collector {
	const argv = [...options.command];
	const minBackoff = options.minBackoffMs ?? MIN_BACKOFF_MS;
	const maxBackoff = options.maxBackoffMs ?? MAX_BACKOFF_MS;
	const resetAfter = options.resetAfterMs ?? MAX_BACKOFF_MS;
	const grace = options.stopGraceMs ?? STOP_GRACE_MS;
	const name = argv[0] === undefined ? '(no command)' : path.basename(argv[0]);
	let backoff = minBackoff;
	let stopped = true;
	let child: ResultPromise | undefined;
	let running: Promise<void> | undefined;
	let timer: NodeJS.Timeout | undefined;
	let execa: Awaited<ReturnType<typeof loadExeca>> | undefined;

	const schedule = (why: string): void => {
		if (stopped) return;
		const delay = backoff;
		backoff = Math.min(maxBackoff, backoff * 2);
		options.onState(`${why}; restarting in ${fmtDelay(delay)}`);
		timer = setTimeout(() => {
			timer = undefined;
			launch();
		}, delay);
		timer.unref?.();
	};

	const launch = (): void => {
		if (stopped) return;
		if (!execa) {
			// loaded on first use (lazy-execa.ts), then launched
			loadExeca().then(
				fn => {
					execa = fn;
					launch();
				},
				(error: unknown) => schedule(`${name} failed to start (${(error as Error).message})`),
			);
			return;
		}
		if (argv.length === 0 || argv[0] === '') {
			options.onState('no command to run');
			return;
		}
		const startedAt = Date.now();
		const splitter = new LineSplitter(line => options.onLine(line, Date.now()));
		let sub: ResultPromise;
		try {
			// detached: its own process group (POSIX), so stop() can signal every process in it.
			sub = execa(argv[0]!, argv.slice(1), {all: true, buffer: false, stdin: 'ignore', reject: false, stripFinalNewline: false, detached: GROUPS, cleanup: !GROUPS});
		} catch (error) {
			schedule(`${name} failed to start (${(error as Error).message})`);
			return;
		}
		child = sub;
		const pid = sub.pid;
		if (GROUPS && pid !== undefined) {
			installExitHook();
			liveGroups.add(pid);
		}
		options.onState(`running ${argv.join(' ')}`);
		sub.all?.on('data', (chunk: Buffer) => splitter.write(chunk));
		running = (async () => {
			const result = await sub;
			// The leader is gone; whatever it left in its group goes too (a grandchild holding the pipe).
			if (pid !== undefined && liveGroups.delete(pid)) signalGroup(pid, 'SIGTERM');
			splitter.flush();
			if (child === sub) child = undefined;
			if (stopped) return;
			// A command that ran a good while before exiting starts again from the shortest delay.
			if (Date.now() - startedAt >= resetAfter) backoff = minBackoff;
			const r = result as {exitCode?: number; signal?: string; failed?: boolean; code?: string; originalMessage?: string};
			let why: string;
			if (r.code === 'ENOENT') why = `${name} not found`;
			else if (r.exitCode !== undefined) why = `${name} exited (code ${r.exitCode})`;
			else if (r.signal !== undefined) why = `${name} was killed (${r.signal})`;
			else why = `${name} failed (${r.originalMessage ?? 'unknown error'})`;
			schedule(why);
		})();
	};

	return {
		start() {
			if (!stopped) return;
			stopped = false;
			backoff = minBackoff;
			launch();
		},
		async stop() {
			stopped = true;
			if (timer) clearTimeout(timer);
			timer = undefined;
			const sub = child;
			child = undefined;
			const done = running?.catch(() => undefined);
			if (!sub || !done) return;
			const pid = sub.pid;
			const signal = (sig: NodeJS.Signals): void => {
				if (pid === undefined || !signalGroup(pid, sig)) sub.kill(sig);
			};
			signal('SIGTERM');
			if ((await Promise.race([done, delay(grace)])) !== 'timeout') return;
			signal('SIGKILL');
			// A process that left the group (setsid) may still hold the pipe: stop reading it.
			sub.all?.destroy();
			sub.stdout?.destroy();
			sub.stderr?.destroy();
			await Promise.race([done, delay(KILL_WAIT_MS)]);
			if (pid !== undefined) liveGroups.delete(pid);
		},
	};
}

/**
 * Split a command line into argv the way a POSIX shell would for plain words, single and double
 * quotes and backslash escapes — without running a shell (no globs, variables or pipes).
 */
export function splitArgs(command: string): string[] {
	const out: string[] = [];
	let cur = '';
	let has = false;
	let quote: '"' | "'" | undefined;
	for (let i = 0; i < command.length; i++) {
		const ch = command[i]!;
		if (quote === "'") {
			if (ch === "'") quote = undefined;
			else cur += ch;
		} else if (quote === '"') {
			if (ch === '"') quote = undefined;
			else if (ch === '\\' && i + 1 < command.length && '"\\$`'.includes(command[i + 1]!)) cur += command[++i];
			else cur += ch;
		} else if (ch === "'" || ch === '"') {
			quote = ch;
			has = true;
		} else if (ch === '\\' && i + 1 < command.length) {
			cur += command[++i];
			has = true;
		} else if (ch === ' ' || ch === '\t' || ch === '\n') {
			if (has || cur.length > 0) out.push(cur);
			cur = '';
			has = false;
		} else {
			cur += ch;
		}
	}
	if (has || cur.length > 0) out.push(cur);
	return out;
}
