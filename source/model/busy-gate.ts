/**
 * When infertop's own JavaScript is worth optimizing (issue 32): the log lines read per second, all
 * logs together, decide it. The bin runs V8 without its optimizing compiler (TurboFan), which at rest
 * and under light traffic costs more than it saves: its worker threads compile and re-compile the
 * hot functions (at 100 req/s of llama.cpp lines, 4.7 % of a core without it against 5.1 % with it,
 * and 8 MB more). Under a busy log it halves the cost of a line: at 1,000 req/s (8,000 lines/s)
 * 10.8 → 8.4 % of a core, at 5,000 req/s 40.1 → 18.8–23.0 % (bench/traffic.bench.ts, docs/measured.md).
 *
 * Near 3,000 lines/s it is a wash (vLLM at 1,000 req/s: 5.0 → 4.7 %, 7 MB more), hence 4,000.
 * So: on after `onSeconds` seconds in a row of at least `onLines` lines each, off after `offSeconds`
 * seconds in a row under `offLines`. Code already optimized stays so (it costs nothing at rest);
 * only new compiles stop. Pure: the caller counts lines and asks each second.
 */

export interface BusyGateOptions {
	/** Lines a second, each of `onSeconds` seconds in a row, that turn it on (default 4,000). */
	readonly onLines?: number;
	readonly onSeconds?: number;
	/** Lines a second under which, for `offSeconds` seconds in a row, it turns off (default 1,000). */
	readonly offLines?: number;
	readonly offSeconds?: number;
}

export interface BusyGate {
	/** Lines read at time `t` (ms). */
	add(lines: number, t: number): void;
	/** Whether it is on now, as of time `t` (the seconds before `t` are closed and counted). */
	check(t: number): boolean;
	isOn(): boolean;
}

export const BUSY_ON_LINES = 4000;
export const BUSY_ON_SECONDS = 2;
export const BUSY_OFF_LINES = 1000;
export const BUSY_OFF_SECONDS = 10;

export function createBusyGate(options: BusyGateOptions = {}): BusyGate {
	const onLines = options.onLines ?? BUSY_ON_LINES;
	const onSeconds = options.onSeconds ?? BUSY_ON_SECONDS;
	const offLines = options.offLines ?? BUSY_OFF_LINES;
	const offSeconds = options.offSeconds ?? BUSY_OFF_SECONDS;
	let on = false;
	/** The second being counted (Math.floor(t / 1000)) and its lines. */
	let second = Number.NaN;
	let lines = 0;
	/** Seconds in a row that were busy (≥ onLines) or quiet (< offLines). */
	let busyRun = 0;
	let quietRun = 0;

	/** Close the seconds up to (not including) `now`: the counted one, then any without a line. */
	const closeUpTo = (now: number): void => {
		if (Number.isNaN(second)) {
			second = now;
			return;
		}
		while (second < now) {
			if (lines >= onLines) busyRun++;
			else busyRun = 0;
			if (lines < offLines) quietRun++;
			else quietRun = 0;
			if (!on && busyRun >= onSeconds) on = true;
			else if (on && quietRun >= offSeconds) on = false;
			lines = 0;
			// a long silence: every second in it was quiet (no need to step through each)
			if (now - second > offSeconds + onSeconds) {
				busyRun = 0;
				quietRun = Math.max(quietRun, offSeconds);
				if (on) on = false;
				second = now;
				break;
			}
			second++;
		}
	};

	return {
		add(n, t) {
			if (!(n > 0) || !Number.isFinite(t)) return;
			closeUpTo(Math.floor(t / 1000));
			lines += n;
		},
		check(t) {
			if (Number.isFinite(t)) closeUpTo(Math.floor(t / 1000));
			return on;
		},
		isOn: () => on,
	};
}
