/**
 * mlx_lm.server log parser (engines.md §3): `asctime - LEVEL - message` lines (prompt processing
 * progress, prompt cache size), stdlib access lines, `Starting httpd at …`.
 * mlx-lm logs no acceptance statistics and no per-request timings.
 */
import type {EngineEvent, LineParser} from '../model/types.js';
import {numberCheck} from '../util/numbers.js';
import {parseStdlibAccess, withCheck} from './common.js';
import {MAX_PARSE_CHARS} from './llamacpp.js';

const LINE = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3}) - ([A-Z]+) - (.*)$/;
const PROGRESS = /^Prompt processing progress: (-?\d+)\/(-?\d+)/;
const HTTPD = /^Starting httpd at (\S+) on port (\d+)/;

export function createMlxLmParser(): LineParser {
	let seq = 0;
	let key: string | undefined;
	const message = (msg: string): EngineEvent[] => {
		const c = msg.charCodeAt(0);
		if (c === 80 /* P */) {
			const m = PROGRESS.exec(msg);
			if (m) {
				const check = numberCheck();
				const processed = check.count('processed', m[1]);
				const total = check.count('total', m[2]);
				if (processed === undefined || total === undefined) return withCheck([], check);
				if (key === undefined || processed <= 0) key = `mlxlm#${++seq}`;
				return [{type: 'prefill-progress', key, processed, total, ...(total > 0 ? {progress: Math.min(1, processed / total)} : {})}];
			}
			return [];
		}
		const m = HTTPD.exec(msg);
		if (m) return [{type: 'server-start', listen: `${m[1]}:${m[2]}`}];
		return [];
	};
	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || line.length > MAX_PARSE_CHARS) return null;
		const c = line.charCodeAt(0);
		if (c >= 48 && c <= 57 && line.charCodeAt(4) === 45 /* - */) {
			const m = LINE.exec(line);
			if (m) return message(m[3]!);
		}
		if (c === 83 && line.startsWith('Starting httpd')) return message(line);
		const h = parseStdlibAccess(line);
		if (h) {
			key = undefined;
			return [h];
		}
		return null;
	};
	return {engine: 'mlxlm', push};
}
