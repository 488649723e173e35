import type {ProbePromptKind} from '../probe/types.js';

/**
 * Everything the screen asks for that needs I/O goes through this (the UI never touches fs,
 * processes or the network). The CLI wires it to the probe controller, the demo and the collectors.
 */
export interface Controller {
	/** Probe a server; `prompt` defaults to the last one used, `runs` = 2 for the cache-reuse run. */
	probe(serverId: string, prompt?: ProbePromptKind, runs?: number): void;
	cancelProbe(): void;
	startDemo(): void;
	/** The single exit path: stop collectors, unmount, leave the alternate screen. */
	quit(): void;
	/** New refresh interval (ms) for the collectors; the header shows state.refreshMs. */
	setRefresh(ms: number): void;
	/** Optional: the CLI cycles (and persists) themes itself; otherwise the App cycles built-ins. */
	cycleTheme?(): void;
}

/** Refresh steps for `+`/`-` (htop 1.5 s, btop 2 s, mactop 1 s; bottom's floor is 250 ms). */
export const REFRESH_STEPS_MS = [250, 500, 1000, 1500, 2000, 3000, 5000, 10_000] as const;

/** The next refresh step faster (dir −1) or slower (+1) than `current`. */
export function stepRefresh(current: number, dir: 1 | -1): number {
	const steps = REFRESH_STEPS_MS;
	if (dir < 0) {
		const faster = [...steps].reverse().find(s => s < current);
		return faster ?? steps[0];
	}
	return steps.find(s => s > current) ?? steps[steps.length - 1]!;
}
