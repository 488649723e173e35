import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import type {EngineEvent, LineParser, RequestPatch} from '../../source/types/events.js';
import {sanitize} from '../../source/util/sanitize.js';

export const fixture = (rel: string): string => fileURLToPath(new URL(`../fixtures/engines/${rel}`, import.meta.url));
export const readLines = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(l => l.length > 0);

/** Feed sanitized lines through a parser; collect events and the lines it did not understand. */
export function run(parser: LineParser, lines: readonly string[]): {events: EngineEvent[]; unparsed: string[]} {
	const events: EngineEvent[] = [];
	const unparsed: string[] = [];
	for (const raw of lines) {
		const ev = parser.push(sanitize(raw));
		if (ev === null) unparsed.push(raw);
		else events.push(...ev);
	}
	return {events, unparsed};
}

/** Merge request patches by key, as the reducer does. */
export function requests(events: readonly EngineEvent[]): Map<string, RequestPatch & {done?: boolean; started?: boolean}> {
	const out = new Map<string, Record<string, unknown>>();
	for (const e of events) {
		if (e.type !== 'request') continue;
		const {type: _t, ...patch} = e;
		out.set(e.key, {...out.get(e.key), ...patch});
	}
	return out as unknown as Map<string, RequestPatch>;
}

/** One line, one parser call, sanitized. */
export const one = (parser: LineParser, line: string): EngineEvent[] | null => parser.push(sanitize(line));
