/**
 * SGLang log parser (engines.md §5): `Decode batch` (`.` and `,` separators, `accept len`),
 * `Prefill batch` (`#cached-token`) → interval-stats; uvicorn access lines.
 */
import type {EngineEvent, LineParser} from '../model/types.js';
import {clean, finite, parseUvicorn} from './common.js';
import {MAX_PARSE_CHARS} from './llamacpp.js';

const PREFIX = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?: ([^\]]+))?\] (.*)$/;
const BATCH = /^(Decode|Prefill) batch(?: \[\d+\])?[.,] (.*?)(?:, )?$/;
const SPLIT = /, (?=[#a-zA-Z][^,:]*: )/;

/** `#running-req: 5, #token: 20800, token usage: 0.29, …` → {key: value}. */
export function sglangFields(body: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const part of body.split(SPLIT)) {
		const i = part.lastIndexOf(': ');
		if (i > 0) out[part.slice(0, i)] = part.slice(i + 2).replace(/%$/, '');
	}
	return out;
}

export function parseSglangMessage(msg: string): EngineEvent[] | null {
	if (!msg.includes(' batch')) return [];
	const m = BATCH.exec(msg);
	if (!m) return [];
	const f = sglangFields(m[2]!);
	const usage = finite(f['token usage'] ?? f['full token usage']);
	if (m[1] === 'Decode') {
		return [clean({
			type: 'interval-stats',
			genTps: finite(f['gen throughput (token/s)']),
			running: finite(f['#running-req']),
			waiting: finite(f['#queue-req']),
			kvUsage: usage,
			meanAcceptLen: finite(f['accept len']),
			acceptRate: finite(f['accept rate']),
		}) as EngineEvent];
	}
	const cached = finite(f['#cached-token']);
	const fresh = finite(f['#new-token']);
	let hit: number | undefined;
	if (cached !== undefined && fresh !== undefined && cached + fresh > 0) hit = cached / (cached + fresh);
	else if (f['cache hit rate'] !== undefined) hit = (finite(f['cache hit rate']) ?? NaN) / 100;
	return [clean({
		type: 'interval-stats',
		promptTps: finite(f['input throughput (token/s)']),
		running: finite(f['#running-req']),
		waiting: finite(f['#queue-req']),
		kvUsage: usage,
		prefixHitRate: hit !== undefined && Number.isFinite(hit) ? hit : undefined,
	}) as EngineEvent];
}

export function createSglangParser(): LineParser {
	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || line.length > MAX_PARSE_CHARS) return null;
		if (line.charCodeAt(0) === 91 /* [ */) {
			const m = PREFIX.exec(line);
			if (m) return parseSglangMessage(m[3]!);
			return null;
		}
		const h = parseUvicorn(line);
		if (h) return [h];
		if (/^(?:INFO|WARNING|ERROR):/.test(line)) return [];
		return null;
	};
	return {engine: 'sglang', push};
}
