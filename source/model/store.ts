/**
 * A plain TypeScript store (ink-practices §6.3): collectors dispatch as often as they like; the
 * snapshot reaches React only on publish(), which a single ticker calls at most 4 times a second.
 */
import type {Action, MonitorState} from '../types/monitor.js';
import {reduce, initialState, type InitialOptions} from './reducer.js';

/** ≤ 4 commits/s keeps idle CPU low (ink-practices §4.2). */
export const PUBLISH_INTERVAL_MS = 250;

export interface MonitorStore {
	getSnapshot(): MonitorState;
	/** The state as of the last publish (what the screen shows). */
	getPublished(): MonitorState;
	subscribe(listener: () => void): () => void;
	dispatch(action: Action): void;
	publish(): void;
	/** Hold the published snapshot (space: the screen holds, collection goes on). */
	setPaused(paused: boolean): void;
	isPaused(): boolean;
	/**
	 * Tell subscribers to read again without publishing a snapshot (the screen shows the store's
	 * latest refresh interval and pause at once, also while paused).
	 */
	notify(): void;
	/** Start the publish ticker (default: the state's refresh interval, at least 250 ms); returns a stop function. */
	startTicker(intervalMs?: number): () => void;
}

export function createStore(options: InitialOptions = {}): MonitorStore {
	let state = initialState(options);
	let published = state;
	let dirty = false;
	let paused = false;
	const listeners = new Set<() => void>();
	const store: MonitorStore = {
		getSnapshot: () => state,
		getPublished: () => published,
		subscribe(listener) {
			listeners.add(listener);
			return () => {
				listeners.delete(listener);
			};
		},
		dispatch(action) {
			const next = reduce(state, action);
			if (next !== state) {
				state = next;
				dirty = true;
			}
		},
		publish() {
			if (!dirty || paused) return;
			dirty = false;
			published = state;
			for (const l of listeners) l();
		},
		setPaused(p) {
			paused = p;
			if (!p) store.publish();
			else for (const l of listeners) l();
		},
		isPaused: () => paused,
		notify() {
			for (const l of listeners) l();
		},
		startTicker(intervalMs?: number) {
			// The screen refreshes at the user's interval (`+`/`-`, --refresh), never faster than 4 Hz.
			let timer: NodeJS.Timeout | undefined;
			let running = true;
			const next = () => {
				if (!running) return;
				timer = setTimeout(() => {
					store.dispatch({type: 'tick', t: Date.now()});
					store.publish();
					next();
				}, Math.max(intervalMs ?? state.refreshMs, PUBLISH_INTERVAL_MS));
				timer.unref?.();
			};
			next();
			return () => {
				running = false;
				if (timer) clearTimeout(timer);
			};
		},
	};
	return store;
}
