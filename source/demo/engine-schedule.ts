/**
 * The demo engine's clock and its running work: sleeps that a stop wakes (rejecting with
 * `StoppedError`), and the set of tasks a stop waits for.
 */
export class StoppedError extends Error {}

export interface DemoScheduler {
	readonly stopped: boolean;
	/** Resolves after `ms`; rejects with `StoppedError` once stopped. */
	readonly sleep: (ms: number) => Promise<void>;
	/** Run `fn`, counted among the tasks `settle` waits for. */
	readonly runTask: <T>(fn: () => Promise<T>) => Promise<T>;
	/** From now on every sleep rejects. */
	readonly markStopped: () => void;
	/** Wake every pending sleep (it rejects with `StoppedError`). */
	readonly wakeSleepers: () => void;
	/** Resolves when every running task has ended. */
	readonly settle: () => Promise<void>;
}

export function nowNs(): bigint {
	return process.hrtime.bigint();
}

export function createScheduler(): DemoScheduler {
	let stopped = false;
	const sleepers = new Set<{timer: NodeJS.Timeout; resolve: () => void}>();
	const active = new Set<Promise<unknown>>();
	return {
		get stopped() {
			return stopped;
		},
		sleep: (ms) => {
			if (stopped) return Promise.reject(new StoppedError('stopped'));
			if (ms <= 0) return Promise.resolve();
			return new Promise<void>((resolve, reject) => {
				const entry = {
					timer: setTimeout(() => {
						sleepers.delete(entry);
						if (stopped) reject(new StoppedError('stopped'));
						else resolve();
					}, ms),
					resolve: () => reject(new StoppedError('stopped')),
				};
				sleepers.add(entry);
			});
		},
		runTask: <T>(fn: () => Promise<T>): Promise<T> => {
			const p = fn();
			active.add(p);
			const done = (): void => {
				active.delete(p);
			};
			p.then(done, done);
			return p;
		},
		markStopped: () => {
			stopped = true;
		},
		wakeSleepers: () => {
			for (const s of sleepers) {
				clearTimeout(s.timer);
				s.resolve();
			}
			sleepers.clear();
		},
		settle: async () => {
			await Promise.allSettled([...active]);
		},
	};
}
