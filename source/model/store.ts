/**
 * A plain TypeScript store (ink-practices §6.3): collectors dispatch as often as they like; the
 * snapshot reaches React only on publish(), which a single ticker calls at most 4 times a second.
 */
import type {Action, MonitorState, ServerState} from '../types/state.js';
import {reduce, initialState, type InitialOptions} from './reducer.js';
import {pinLogs} from './log-ring.js';

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
	 * latest refresh interval and pause at once, also while paused). Unlike publish() it is never
	 * skipped: no change check and no pause holds it back.
	 */
	notify(): void;
	/**
	 * What the screen shows of the clock: the store publishes a tick alone (only `now` moved) only
	 * when this key changes. Without one, every tick publishes.
	 */
	setClockKey(key: ((state: MonitorState) => string) | undefined): void;
	/**
	 * Whether the screen shows a log (the log pane, a request's log lines). While it does not, an
	 * action that changes only a server's log (a line, and what the line counted: an engine's echo of
	 * infertop's own poll) publishes nothing; the state still advances, and the next publish, or the
	 * log coming into view, carries it. Default: shown (every log line publishes).
	 */
	setLogShown(shown: boolean): void;
	/** Published snapshots so far (for tests and benches). */
	publishes(): number;
	/** Start the publish ticker (default: the state's refresh interval, at least 250 ms); returns a stop function. */
	startTicker(intervalMs?: number): () => void;
}

/** Actions that, polled every few seconds, mostly repeat what the server already said. */
const REPEATING = new Set<Action['type']>(['server-seen', 'server-models', 'server-lost', 'log-state']);

/** Fields of a server that no pane reads (a poll that moves only these changes nothing on screen). */
const UNSHOWN: ReadonlySet<string> = new Set(['lastSeen', 'modelsAt']);

/** Actions that may change only a server's log (a line, an event that only counts: `http`). */
const LOG_ACTIONS = new Set<Action['type']>(['log-line', 'engine-event', 'log-batch']);

/** Fields of a server only a log view reads (the lines, their counts, the HTTP lines counted). */
const LOG_FIELDS: ReadonlySet<string> = new Set(['log', 'linesParsed', 'linesUnparsed', 'httpCount']);

/**
 * The server fields where `prev` and `next` differ beyond `ignored`; undefined when the change is not one server's.
 * Runs for each log batch of each server while no log is on screen: for-in loops, no key arrays,
 * sets or iterators (a Set of the two records' keys and its iterator were ~10 % of what eight busy
 * logs allocated, issue 32).
 */
function serverChange(prev: MonitorState, next: MonitorState, action: Action, ignored: (k: string) => boolean): boolean | undefined {
	if (prev.order !== next.order) return undefined;
	const id = 'serverId' in action ? action.serverId : 'server' in action ? action.server.id : undefined;
	if (id === undefined) return undefined;
	const a = prev.servers[id];
	const b = next.servers[id];
	if (!a || !b) return undefined;
	for (const k in prev) if (k !== 'servers' && prev[k as keyof MonitorState] !== next[k as keyof MonitorState]) return undefined;
	for (const k in next.servers) if (k !== id && prev.servers[k] !== next.servers[k]) return undefined;
	for (const k in a) if (fieldDiffers(a, b, k, ignored)) return true;
	for (const k in b) if (!(k in a) && fieldDiffers(a, b, k, ignored)) return true;
	return false;
}

function fieldDiffers(a: ServerState, b: ServerState, k: string, ignored: (k: string) => boolean): boolean {
	if (ignored(k)) return false;
	const x = a[k as keyof ServerState];
	const y = b[k as keyof ServerState];
	if (x === y) return false;
	return !(k === 'models' && JSON.stringify(x) === JSON.stringify(y));
}

/**
 * True when `next` differs from `prev` only where nothing is shown: a poll that confirmed the same
 * server with the same models. The state still advances (getSnapshot sees it); no frame is made.
 */
export function invisible(prev: MonitorState, next: MonitorState, action: Action): boolean {
	if (!REPEATING.has(action.type)) return false;
	return serverChange(prev, next, action, isUnshown) === false;
}

/** True when `next` differs from `prev` only in one server's log (and what is never shown). */
export function logOnly(prev: MonitorState, next: MonitorState, action: Action): boolean {
	if (!LOG_ACTIONS.has(action.type)) return false;
	return serverChange(prev, next, action, isUnshownOrLog) === false;
}

// At module level, not made anew at each action: under a busy log V8 compiled each new closure
// again (issue 32).
const isUnshown = (k: string): boolean => UNSHOWN.has(k);
const isUnshownOrLog = (k: string): boolean => UNSHOWN.has(k) || LOG_FIELDS.has(k);

export function createStore(options: InitialOptions = {}): MonitorStore {
	let state = initialState(options);
	let published = state;
	let dirty = false;
	// only `now` moved since the last publish
	let clockDirty = false;
	let clockKey: ((state: MonitorState) => string) | undefined;
	let publishedKey: string | undefined;
	let count = 0;
	let paused = false;
	// a log changed since the last publish, while no log was on screen
	let logDirty = false;
	let logShown = true;
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
				const prev = state;
				state = next;
				if (action.type === 'tick') clockDirty = true;
				else if (invisible(prev, next, action)) return;
				else if (!logShown && logOnly(prev, next, action)) logDirty = true;
				else dirty = true;
			}
		},
		publish() {
			if (paused || (!dirty && !clockDirty)) return;
			if (!dirty && clockKey) {
				// Only the clock moved: publish only if a text that reads it changed ("4 minutes from now").
				clockDirty = false;
				publishedKey ??= clockKey(published);
				const key = clockKey(state);
				if (key === publishedKey) return;
				publishedKey = key;
			} else publishedKey = undefined;
			dirty = false;
			clockDirty = false;
			logDirty = false;
			published = state;
			// its logs stay readable while it is on screen (model/log-ring.ts)
			pinLogs(published);
			count++;
			for (const l of listeners) l();
		},
		setClockKey(key) {
			clockKey = key;
			publishedKey = undefined;
		},
		setLogShown(shown) {
			if (shown === logShown) return;
			logShown = shown;
			// the log comes into view: what it gathered meanwhile is shown at once
			if (shown && logDirty) {
				dirty = true;
				store.publish();
			}
		},
		publishes: () => count,
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
