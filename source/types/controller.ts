import type {ProbeHistoryEntry, ProbePromptKind} from './probe.js';
import type {Profile} from './whatif.js';

/**
 * What the screen asks of the runtime (source/runtime.ts): everything that needs I/O (the UI never
 * touches fs, processes or the network) goes through these.
 */
export interface RuntimeControls {
	/**
	 * Probe a server; `prompt` defaults to the last one used, `runs` = 2 for the cache-reuse run,
	 * `model` the model the screen shows (default: the server's first).
	 */
	probe(serverId: string, prompt?: ProbePromptKind, runs?: number, model?: string): void;
	cancelProbe(): void;
	/** Compare every loaded model on every server (key `c`): code, prose, long, 2 runs each. */
	compare?(): void;
	cancelCompare?(): void;
	startDemo(): void;
	/** New refresh interval (ms) for the collectors; the header shows state.refreshMs. */
	setRefresh(ms: number): void;
	/** `h`: read the probe history (the CSV) for the screen. Absent = no history here. */
	loadProbeHistory?(): Promise<{readonly entries: readonly ProbeHistoryEntry[]; readonly file?: string}>;
	/** `w` (what if): the measured profiles (profiles.json in the state dir). Absent = none here. */
	loadProfiles?(): Promise<{readonly profiles: readonly Profile[]; readonly file?: string}>;
	/**
	 * `m` in the what-if table: measure each server × model on screen that has no profile, one at a
	 * time (`compare --depths` 0,4k,16k,32k); `onStep` gets a line per finished request.
	 */
	measureProfiles?(onStep: (line: string) => void): Promise<{readonly measured: number; readonly problems: readonly string[]}>;
}

/** What the screen asks of the process that owns the terminal (commands/monitor.tsx). */
export interface ScreenControls {
	/** The single exit path: stop collectors, unmount, leave the alternate screen. */
	quit(): void;
	/**
	 * Ctrl+Z: give the terminal back (leave the alternate screen, cooked mode) and stop the process;
	 * `onResume` runs after `fg` once the screen is set up again. Absent = not supported here.
	 */
	suspend?(onResume: () => void): void;
}

/** Everything the screen asks for: the runtime's controls and the terminal owner's. */
export interface Controller extends RuntimeControls, ScreenControls {}
