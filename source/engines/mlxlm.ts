/**
 * mlx_lm.server log parser (engines.md §3): `asctime - LEVEL - message` lines (prompt processing
 * progress, prompt cache size), stdlib access lines, `Starting httpd at …`.
 * mlx-lm logs no acceptance statistics and no per-request timings.
 */
import type {EngineEvent, LineParser} from '../types/monitor.js';
import {numberCheck} from '../util/numbers.js';
import {OPENAI_MODEL_LIST, OPENAI_POLL, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';
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

export const mlxlm: EngineDescriptor = {
	kind: 'mlxlm',
	label: 'mlx-lm',
	logParser: createMlxLmParser,
	logSignature: {
		rules: [
			{weight: 4, test: l => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} - [A-Z]+ - /.test(l)},
			{weight: 2, test: l => l.startsWith('Starting httpd at ') || /^\S+ - - \[\d+\/\w+\/\d{4} [\d:]+\] "/.test(l)},
		],
	},
	logTimes: ['iso'],
	poll: OPENAI_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: true,
	defaultPorts: [8080],
	process: {names: ['mlx_lm.server']},
	modelBytes: {localDirs: true},
	// Python's BaseHTTP server and model items without owned_by; only once every path answered
	// (it rests on other markers being absent).
	fingerprint: {
		rank: 100,
		paths: ['/v1/models'],
		identify: (e) => {
			if (e.models === undefined) return undefined;
			if (!e.all) return 'wait';
			const server = e.answer('/v1/models')?.headers.server ?? '';
			return /^BaseHTTP\/[\d.]+ Python\/[\d.]+/.test(server) && e.models.every((m) => !('owned_by' in m)) ? {models: e.modelIds} : undefined;
		},
	},
};
