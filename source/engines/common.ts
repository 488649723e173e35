/** Small pieces shared by the Python engines' parsers (uvicorn / stdlib access lines). */
import type {EngineEvent} from '../types/events.js';
import type {NumberCheck} from '../util/numbers.js';

const UVICORN = /^(?:\([^)]*\) )?INFO: +(\[?[\da-fA-F.:]+\]?):(\d+) - "([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/;
const STDLIB = /^(\S+) - - \[[^\]]+\] "([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/;

/** uvicorn access line: `INFO:     172.31.0.1:37016 - "POST /v1/chat/completions HTTP/1.1" 200 OK`. */
export function parseUvicorn(line: string): EngineEvent | undefined {
	if (!line.includes('INFO:') || !line.includes('" ')) return undefined;
	const m = UVICORN.exec(line);
	if (!m) return undefined;
	return {type: 'http', client: m[1]!, method: m[3]!, path: m[4]!, status: Number(m[5])};
}

/** Python http.server access line: `127.0.0.1 - - [21/Aug/2026 18:48:30] "POST /v1/chat/completions HTTP/1.1" 200 -`. */
export function parseStdlibAccess(line: string): EngineEvent | undefined {
	if (!line.includes(' - - [')) return undefined;
	const m = STDLIB.exec(line);
	if (!m) return undefined;
	return {type: 'http', client: m[1]!, method: m[2]!, path: m[3]!, status: Number(m[4])};
}

export const finite = (s: string | undefined): number | undefined => {
	if (s === undefined || s === '' || s === 'nan') return undefined;
	const n = Number(s);
	return Number.isFinite(n) ? n : undefined;
};

/** Drop undefined fields so events compare cleanly and JSON stays small. */
export function clean<T extends object>(o: T): T {
	const out: Record<string, unknown> = {};
	const src = o as Record<string, unknown>;
	for (const k in src) if (src[k] !== undefined) out[k] = src[k];
	return out as T;
}

/**
 * A line's events, plus one `inconsistent` event when a number on it could not be true (the
 * checker left that field unknown): the line is counted, its reason shown in the log pane.
 */
export function withCheck(events: EngineEvent[], check: NumberCheck): EngineEvent[] {
	const reason = check.reason();
	return reason === undefined ? events : [...events, {type: 'inconsistent', reason}];
}
