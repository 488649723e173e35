/**
 * `infertop snapshot [--json]` and plain `infertop` on a non-TTY stdout: run the same collectors
 * for N seconds, print one snapshot, exit 0.
 */
import {startRuntime, type Runtime, type RuntimeOptions} from '../runtime.js';
import {toSnapshot} from '../model/snapshot.js';
import {renderSnapshotText} from '../ui/app.js';
import {VERSION} from '../version.js';
import {sanitizeDeep} from '../util/sanitize.js';
import {onStopSignals, type StopSignal} from './lifecycle.js';

export interface SnapshotOptions extends RuntimeOptions {
	readonly json: boolean;
	readonly seconds: number;
	readonly stdout?: NodeJS.WritableStream;
	readonly stderr?: NodeJS.WritableStream;
	/** Stop on SIGTERM, SIGINT and SIGHUP (default true; tests that run it in their own process say false). */
	readonly signals?: boolean;
}

/** Rows the text snapshot is laid out for (the panes share them as on a 160×40 terminal). */
const SNAPSHOT_ROWS = 40;

/**
 * The screen as text for a pipe or a file: the panes' blank padding (rows a terminal would keep
 * free) is dropped, so only lines with something on them remain. Pure.
 */
export function plainSnapshot(text: string): string {
	return text
		.split('\n')
		.filter((l) => l.trim() !== '')
		.join('\n');
}

/** The longest a demo snapshot waits for the demo's first finished request (its figures come from it). */
export const DEMO_WAIT_MS = 30_000;

/**
 * Whether the demo engine has finished a request that gives a decode rate (one of its models' logs
 * has no decode time), waiting at most `ms` for one.
 */
async function demoFinishedOne(runtime: Runtime, ms: number, stopped: () => boolean = () => false): Promise<boolean> {
	const deadline = Date.now() + ms;
	const done = (): boolean => {
		const state = runtime.store.getSnapshot();
		return Object.values(state.servers).some(s => s.demo === true && s.requests.some(r => r.done && !r.backlog && !r.earlier && r.decodeMs !== undefined));
	};
	while (!done()) {
		if (Date.now() >= deadline || stopped()) return false;
		await new Promise(resolve => setTimeout(resolve, 100));
	}
	return true;
}

/** Longest wait for the first discovery round before the snapshot's seconds start (it counts against one deadline). */
export const SNAPSHOT_READY_CAP_MS = 5000;
/** Longest wait for the collectors to stop after a signal (a `cmd:` log's child is killed first thing). */
const STOP_CAP_MS = 3000;
const SIGNAL_NUMBER: Record<StopSignal, number> = {SIGHUP: 1, SIGINT: 2, SIGTERM: 15};

/** A timer that does not hold the process open, and its cancel. */
function sleep(ms: number): {done: Promise<void>; cancel: () => void} {
	let timer: NodeJS.Timeout | undefined;
	const done = new Promise<void>(resolve => {
		timer = setTimeout(resolve, ms);
		timer.unref();
	});
	return {done, cancel: () => clearTimeout(timer)};
}

export async function runSnapshot(options: SnapshotOptions): Promise<number> {
	const out = options.stdout ?? process.stdout;
	const seconds = Number.isFinite(options.seconds) && options.seconds >= 0 ? options.seconds : 3;
	// SIGTERM, SIGINT and SIGHUP stop the snapshot at any point, from the start (a `cmd:` log's child
	// is started before the runtime returns): what was started is stopped, nothing is printed on
	// stdout, and the exit status is 128 + the signal's number.
	let stoppedBy: StopSignal | undefined;
	let interrupt: () => void = () => undefined;
	const interrupted = new Promise<void>(resolve => (interrupt = resolve));
	const release = options.signals === false ? () => undefined : onStopSignals(signal => {
		stoppedBy ??= signal;
		interrupt();
	});
	let runtime: Awaited<ReturnType<typeof startRuntime>> | undefined;
	try {
		runtime = await startRuntime(options);
		if (!stoppedBy) {
			const readyCap = sleep(SNAPSHOT_READY_CAP_MS);
			await Promise.race([runtime.ready.catch(() => undefined), readyCap.done, interrupted]);
			readyCap.cancel();
		}
		if (!stoppedBy) {
			const wait = sleep(seconds * 1000);
			await Promise.race([wait.done, interrupted]);
			wait.cancel();
		}
		if (!stoppedBy && runtime.demo() !== undefined) {
			const found = await Promise.race([demoFinishedOne(runtime, DEMO_WAIT_MS, () => stoppedBy !== undefined), interrupted.then(() => true)]);
			if (!found && !stoppedBy) (options.stderr ?? process.stderr).write(`infertop: the demo finished no request in ${DEMO_WAIT_MS / 1000} s: its figures are --\n`);
		}
		if (stoppedBy) {
			(options.stderr ?? process.stderr).write(`infertop: snapshot stopped by ${stoppedBy}\n`);
			return 128 + SIGNAL_NUMBER[stoppedBy];
		}
		runtime.dispatch({type: 'tick', t: Date.now()});
		const state = runtime.store.getSnapshot();
		if (options.json) out.write(`${JSON.stringify(sanitizeDeep(toSnapshot(state, VERSION, {sessionGapMs: options.config.sessionGap * 1000})), null, 2)}\n`);
		else {
			const columns = (out as NodeJS.WriteStream).columns || 120;
			out.write(`${plainSnapshot(renderSnapshotText(state, {columns: Math.max(columns, 80), rows: SNAPSHOT_ROWS}, VERSION))}\n`);
		}
		return 0;
	} finally {
		if (runtime) {
			const cap = sleep(STOP_CAP_MS);
			await Promise.race([runtime.stop(), cap.done]);
			cap.cancel();
		}
		release();
	}
}
