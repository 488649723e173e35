/**
 * Did a probe wait behind other requests? The requests of the server in flight when the run left
 * (seen in its log) are compared with what the log says after the first token: those that finished
 * before the first token arrived held the probe in the queue; those still running shared the
 * server with it (parallel slots, batching). Pure.
 */
import type {RequestRecord} from '../types/state.js';

/** Log times carry the tail's delay; a request that ended this close after the first token still counts as ahead. */
export const QUEUE_SLACK_MS = 250;

/** A request not heard of for this long is not counted as in flight (a record whose end was never logged). */
export const STALE_MS = 60_000;

export interface QueueFinding {
	/** Requests in flight when the run left. */
	readonly behind: number;
	/** Time from the run leaving to the last of them finishing, when they all finished before the first token (ms). */
	readonly queuedMs?: number;
}

/**
 * `before`: the server's requests when the run left at `leftAt` (ms epoch); `after`: the same
 * server's requests once the result is in; `ttftMs`: the run's TTFT. undefined when nothing was in flight.
 */
export function probeQueue(before: readonly RequestRecord[], after: readonly RequestRecord[], leftAt: number, ttftMs: number | undefined): QueueFinding | undefined {
	if (!Number.isFinite(leftAt)) return undefined;
	const inFlight = before.filter(r => !r.done && r.lastSeen <= leftAt + QUEUE_SLACK_MS && leftAt - r.lastSeen < STALE_MS);
	if (inFlight.length === 0) return undefined;
	const later = new Map(after.map(r => [r.key, r]));
	let last = -Infinity;
	for (const r of inFlight) {
		const now = later.get(r.key);
		if (!now?.done) return {behind: inFlight.length};
		last = Math.max(last, now.lastSeen);
	}
	if (ttftMs === undefined || !Number.isFinite(ttftMs) || ttftMs < 0) return {behind: inFlight.length};
	const waited = last - leftAt;
	if (waited > ttftMs + QUEUE_SLACK_MS) return {behind: inFlight.length};
	return {behind: inFlight.length, queuedMs: Math.max(0, Math.min(ttftMs, waited))};
}
