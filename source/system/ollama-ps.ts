/**
 * `ollama ps` table → ModelInfo (pure). Formats: shared/reference/engines.md §1a.
 *
 * The table is what the CLI prints, so its figures are rounded: SIZE is Ollama's HumanBytes
 * (decimal units, truncated), UNTIL is a human duration. Parsed values carry `sizeApprox` /
 * `expiresApprox` so nobody mistakes them for the exact bytes and times of `GET /api/ps`.
 * Header-driven: columns are found by name, extra or missing columns are tolerated.
 */
import type {ModelInfo} from '../types/state.js';
import {sanitize} from '../util/sanitize.js';

/** A model as `ollama ps` shows it; extra fields say which figures are approximate. */
export interface PsModelInfo extends ModelInfo {
	/** sizeBytes comes from a rounded SIZE column (e.g. `9.6 GB`), not exact bytes. */
	readonly sizeApprox?: boolean;
	/** expiresAt comes from a human duration (`4 minutes from now`), not an exact time. */
	readonly expiresApprox?: boolean;
	/** Keep-alive in words where no time can be given: `Forever`, `Never`, `Stopping...`. */
	readonly keepAlive?: string;
	/** UNTIL exactly as printed. */
	readonly until?: string;
	/** SIZE exactly as printed. */
	readonly sizeText?: string;
}

export interface OllamaPsTable {
	readonly models: PsModelInfo[];
	/** Header names as printed (upper case), in order. */
	readonly columns: string[];
}

const UNIT: Readonly<Record<string, number>> = {B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, PB: 1e15};

/** `9.6 GB` → 9.6e9 (approximate; HumanBytes truncates). Undefined when not a size. */
export function parseHumanBytes(text: string): number | undefined {
	const m = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|PB)$/i.exec(text.trim());
	if (!m) return undefined;
	const scale = UNIT[m[2]!.toUpperCase()];
	if (scale === undefined) return undefined;
	return Math.round(Number(m[1]) * scale);
}

/** PROCESSOR → share of the model on the GPU (0..1); undefined for `Unknown` or anything else. */
export function residencyFromProcessor(text: string): number | undefined {
	const s = text.trim();
	const split = /^(\d+)%\s*\/\s*(\d+)%\s+CPU\s*\/\s*GPU$/i.exec(s);
	if (split) {
		const cpu = Number(split[1]);
		const gpu = Number(split[2]);
		if (cpu + gpu !== 100) return undefined;
		return gpu / 100;
	}
	const only = /^100%\s+(CPU|GPU)$/i.exec(s);
	if (only) return only[1]!.toUpperCase() === 'GPU' ? 1 : 0;
	return undefined;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A humanDuration string (Ollama format/time.go) → milliseconds, the middle of the interval the
 * words stand for (`4 minutes` is 4:00..4:59, so 4.5 min). Undefined when not understood.
 */
export function parseHumanDuration(text: string): number | undefined {
	const s = text.trim().toLowerCase();
	if (s === 'less than a second') return 500;
	if (s === 'about a minute') return 1.5 * MINUTE;
	if (s === 'about an hour') return HOUR;
	const m = /^(\d+)\s+(second|minute|hour|day|week|month|year)s?$/.exec(s);
	if (!m) return undefined;
	const n = Number(m[1]);
	switch (m[2]) {
		case 'second': return n * SECOND + 500;
		case 'minute': return n * MINUTE + 30 * SECOND;
		// hours are rounded by Ollama, the rest truncated
		case 'hour': return n * HOUR;
		case 'day': return n * DAY + 12 * HOUR;
		case 'week': return (n * 7 + 3.5) * DAY;
		case 'month': return (n * 30 + 15) * DAY;
		case 'year': return (n * 365 + 182) * DAY;
		default: return undefined;
	}
}

/** UNTIL → an approximate ISO time, or a keep-alive label. */
export function parseUntil(text: string, now: Date): {expiresAt?: string; keepAlive?: string} {
	const s = text.trim();
	if (/^forever$/i.test(s)) return {keepAlive: 'Forever'};
	if (/^never$/i.test(s)) return {keepAlive: 'Never'};
	if (/^stopping/i.test(s)) return {keepAlive: 'Stopping...'};
	const m = /^(.+?)\s+(from now|ago)$/i.exec(s);
	if (!m) return {};
	const ms = parseHumanDuration(m[1]!);
	if (ms === undefined) return {};
	const sign = m[2]!.toLowerCase() === 'ago' ? -1 : 1;
	return {expiresAt: new Date(now.getTime() + sign * ms).toISOString()};
}

function headerColumns(line: string): {names: string[]; starts: number[]} {
	const names: string[] = [];
	const starts: number[] = [];
	const re = /\S+(?: \S+)*/g;
	let m: RegExpExecArray | null;
	while ((m = re.exec(line)) !== null) {
		names.push(m[0].toUpperCase());
		starts.push(m.index);
	}
	return {names, starts};
}

function isHeader(line: string): boolean {
	const cols = line.trim().toUpperCase().split(/\s{2,}|\t+/);
	return cols.includes('NAME') && (cols.includes('SIZE') || cols.includes('PROCESSOR') || cols.includes('ID'));
}

/** Cells of one data row: split on 2+ spaces; when the count disagrees with the header, cut by header offsets. */
function rowCells(line: string, names: string[], starts: number[]): string[] {
	const split = line.trim().split(/\s{2,}|\t+/);
	if (split.length === names.length) return split;
	const cells: string[] = [];
	for (let i = 0; i < starts.length; i++) {
		const from = starts[i]!;
		const to = i + 1 < starts.length ? starts[i + 1]! : line.length;
		cells.push(line.slice(from, to).trim());
	}
	return cells;
}

/**
 * Parse the text `ollama ps` prints. Lines before the header (warnings) are skipped; rows without
 * a NAME are skipped; unknown columns are ignored. Never throws.
 */
export function parseOllamaPsTable(text: string, now: Date): OllamaPsTable {
	const lines = text.split(/\r?\n/).map((l) => sanitize(l)).filter((l) => l.trim() !== '');
	const h = lines.findIndex(isHeader);
	if (h < 0) return {models: [], columns: []};
	const {names, starts} = headerColumns(lines[h]!);
	const col = (name: string): number => names.indexOf(name);
	const iName = col('NAME');
	const iId = col('ID');
	const iSize = col('SIZE');
	const iProc = col('PROCESSOR');
	const iCtx = col('CONTEXT');
	const iUntil = col('UNTIL');
	const models: PsModelInfo[] = [];
	for (const line of lines.slice(h + 1)) {
		if (isHeader(line)) continue;
		const cells = rowCells(line, names, starts);
		const cell = (i: number): string | undefined => (i >= 0 && cells[i] !== undefined && cells[i] !== '' ? cells[i] : undefined);
		const name = cell(iName);
		if (name === undefined) continue;
		const model: {-readonly [K in keyof PsModelInfo]: PsModelInfo[K]} = {name};
		const id = cell(iId);
		if (id !== undefined && /^[0-9a-f]{6,64}$/i.test(id)) model.digest = id;
		const size = cell(iSize);
		if (size !== undefined) {
			model.sizeText = size;
			const bytes = parseHumanBytes(size);
			if (bytes !== undefined) {
				model.sizeBytes = bytes;
				model.sizeApprox = true;
			}
		}
		const proc = cell(iProc);
		if (proc !== undefined) {
			model.processor = proc;
			const r = residencyFromProcessor(proc);
			if (r !== undefined) model.gpuResidency = r;
		}
		const ctx = cell(iCtx);
		if (ctx !== undefined && /^\d+$/.test(ctx)) model.contextLength = Number(ctx);
		const until = cell(iUntil);
		if (until !== undefined) {
			model.until = until;
			const u = parseUntil(until, now);
			if (u.expiresAt !== undefined) {
				model.expiresAt = u.expiresAt;
				model.expiresApprox = true;
			}
			if (u.keepAlive !== undefined) model.keepAlive = u.keepAlive;
		}
		models.push(model);
	}
	return {models, columns: names};
}
