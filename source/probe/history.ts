/**
 * The probe history: one CSV row per finished probe, appended with a single O_APPEND write so two
 * infertop instances never interleave rows. The header is stable (documented below) and written
 * only when the file is new. Unknown figures are empty cells, never 0.
 */
import {constants} from 'node:fs';
import {access, link, mkdir, open, stat, unlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {historyFile} from '../config/paths.js';
import type {ProbeHistoryEntry, ProbeResult} from '../types/probe.js';
import {redactUserinfo, sanitize} from '../util/sanitize.js';

/** Stable header. Never reorder or rename; new columns go at the end. */
export const HISTORY_COLUMNS = [
	'time',
	'server',
	'engine',
	'model',
	'prompt_kind',
	'prompt_tokens',
	'cached_tokens',
	'ttft_ms',
	'decode_tps_wall',
	'reported_tps',
	'tokens_per_pass',
	'acceptance',
	'ceiling_tps',
	'pct_of_ceiling',
	'infertop_version',
	// Added with `infertop compare`: the run number of the prompt and the comparison's id.
	'run',
	'run_id',
] as const;

export const HISTORY_HEADER = HISTORY_COLUMNS.join(',');

/** The history file when none is given: probes.csv in the XDG state dir (one definition: config/paths.ts). */
export function defaultHistoryPath(env: NodeJS.ProcessEnv = process.env): string {
	return historyFile({env});
}

/**
 * A cell a spreadsheet would read as a formula (OWASP "CSV injection"): one that starts, after any
 * white space, with `=`, `+`, `-` or `@`, or with a tab or CR. A model name from a server such as
 * `=HYPERLINK(…)` or `=cmd|' /C calc'!A0` would run when the file is opened.
 */
const FORMULA_START = /^[\t\r]|^\s*[=+\-@]/;

/**
 * One CSV cell: numbers as they are (finite, else empty); text sanitized (no control, bidi or
 * invisible character), on one line, quoted per RFC 4180 where needed, and a cell that would start
 * a formula neutralised with a leading `'`, as OWASP advises (parseHistory takes it off again).
 */
export function csvField(v: string | number | undefined | null): string {
	if (v === undefined || v === null) return '';
	if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
	let s = redactUserinfo(sanitize(v.replace(/[\r\n]+/g, ' ')));
	if (FORMULA_START.test(s)) s = `'${s}`;
	return /[",]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const round = (x: number | undefined, digits: number): number | undefined => (x === undefined || !Number.isFinite(x) ? undefined : Number(x.toFixed(digits)));

export function historyRow(r: ProbeResult, version: string): string {
	const cells: (string | number | undefined)[] = [
		new Date(r.t).toISOString(),
		r.url,
		r.engine,
		r.model,
		r.promptKind ?? r.prompt,
		r.promptTokens,
		r.cachedTokens,
		round(r.ttftMs, 1),
		round(r.decodeTps, 2),
		round(r.reportedTps, 2),
		round(r.tokensPerPass, 3),
		round(r.acceptance, 4),
		round(r.ceilingTps, 2),
		round(r.pctOfCeiling, 4),
		version,
		r.run,
		r.runId,
	];
	return cells.map(csvField).join(',') + '\n';
}

/**
 * Append one row. A new file is created atomically with its header (written to a temp file, then
 * hard-linked into place, which fails if another writer got there first), so the header is written
 * exactly once and always first; each row is then one write() on an O_APPEND descriptor.
 */
export async function appendHistory(file: string, r: ProbeResult, version: string): Promise<void> {
	const dir = path.dirname(file);
	await ensureDir(dir);
	if (!(await exists(file))) {
		const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
		try {
			// A full disk may fail the write after the file was created: it goes with the error.
			await writeFile(tmp, HISTORY_HEADER + '\n', {flag: 'wx'});
			await link(tmp, file);
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
		} finally {
			await unlink(tmp).catch(() => undefined);
		}
	}
	const fh = await open(file, 'a');
	try {
		await fh.write(historyRow(r, version));
	} finally {
		await fh.close();
	}
}

async function exists(file: string): Promise<boolean> {
	try {
		await stat(file);
		return true;
	} catch {
		return false;
	}
}

/** One CSV line into cells (RFC 4180 quoting, as csvField writes it). */
export function parseCsvLine(line: string): string[] {
	const cells: string[] = [];
	let cell = '';
	let quoted = false;
	for (let i = 0; i < line.length; i++) {
		const c = line[i]!;
		if (quoted) {
			if (c === '"' && line[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (c === '"') quoted = false;
			else cell += c;
		} else if (c === '"' && cell === '') quoted = true;
		else if (c === ',') {
			cells.push(cell);
			cell = '';
		} else cell += c;
	}
	cells.push(cell);
	return cells;
}

/** A figure cell: finite and not negative, else unknown (a hand-edited or foreign file never shows as 0). */
function figure(cell: string | undefined): number | undefined {
	if (cell === undefined || cell.trim() === '') return undefined;
	const v = Number(cell);
	return Number.isFinite(v) && v >= 0 ? v : undefined;
}

/**
 * Parse history CSV text: columns found by the header's names (so rows from older versions with
 * fewer columns read too); rows without a valid time or server are skipped and counted. Pure.
 */
export function parseHistory(text: string): {entries: ProbeHistoryEntry[]; skipped: number} {
	const lines = text.split(/\r?\n/).filter(l => l.trim() !== '');
	const header = lines.length > 0 ? parseCsvLine(lines[0]!) : [];
	if (header[0] !== 'time' || !header.includes('server')) return {entries: [], skipped: lines.length};
	const at = new Map(header.map((h, i) => [h, i]));
	const entries: ProbeHistoryEntry[] = [];
	let skipped = 0;
	for (const line of lines.slice(1)) {
		// A cell csvField neutralised (`'=…`) reads back as it was written.
		const c = parseCsvLine(line).map(cell => (cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell));
		const get = (name: (typeof HISTORY_COLUMNS)[number]) => {
			const i = at.get(name);
			return i === undefined ? undefined : c[i];
		};
		const t = Date.parse(get('time') ?? '');
		const server = sanitize(get('server') ?? '', 200);
		if (!Number.isFinite(t) || server === '') {
			skipped++;
			continue;
		}
		const text = (name: (typeof HISTORY_COLUMNS)[number]) => {
			const v = get(name);
			return v === undefined || v === '' ? undefined : sanitize(v, 200);
		};
		const acceptance = figure(get('acceptance'));
		entries.push({
			t,
			server,
			engine: text('engine') ?? '--',
			model: text('model'),
			promptKind: text('prompt_kind') ?? '--',
			promptTokens: figure(get('prompt_tokens')),
			cachedTokens: figure(get('cached_tokens')),
			ttftMs: figure(get('ttft_ms')),
			decodeTps: figure(get('decode_tps_wall')),
			reportedTps: figure(get('reported_tps')),
			tokensPerPass: figure(get('tokens_per_pass')),
			acceptance: acceptance !== undefined && acceptance <= 1 ? acceptance : undefined,
			ceilingTps: figure(get('ceiling_tps')),
			pctOfCeiling: figure(get('pct_of_ceiling')),
		});
	}
	return {entries, skipped};
}

/** The file is read from its end: at most this many bytes (some thousand rows). */
export const HISTORY_READ_BYTES = 512 * 1024;

/**
 * Read the history file for the screen's `h`: the newest rows (the last HISTORY_READ_BYTES of the
 * file, header re-read from the start). A missing file is no history, not an error.
 */
export async function readHistory(file: string): Promise<{entries: ProbeHistoryEntry[]; skipped: number; missing: boolean}> {
	let fh;
	try {
		fh = await open(file, 'r');
	} catch (e) {
		if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {entries: [], skipped: 0, missing: true};
		throw e;
	}
	try {
		const {size} = await fh.stat();
		const headBuf = Buffer.alloc(Math.min(size, 4096));
		await fh.read(headBuf, 0, headBuf.length, 0);
		const header = headBuf.toString('utf8').split(/\r?\n/)[0] ?? '';
		const from = Math.max(0, size - HISTORY_READ_BYTES);
		const buf = Buffer.alloc(size - from);
		await fh.read(buf, 0, buf.length, from);
		// Drop the header (from 0) or the partial first row (from the middle).
		const text = buf.toString('utf8');
		const nl = text.indexOf('\n');
		const body = nl < 0 ? '' : text.slice(nl + 1);
		return {...parseHistory(`${header}\n${body}`), missing: false};
	} finally {
		await fh.close();
	}
}

/** Folders created on the way to the history file, at most (a path deeper than this is refused). */
const MAX_NEW_DIRS = 32;

/**
 * mkdir -p without Node's `recursive: true`, which never returns under /proc (Node 20: `mkdir
 * /proc/nope/x -p` loops at full CPU). Walks up to the nearest existing folder, then creates each
 * level once; any error is thrown at once.
 */
export async function ensureDir(dir: string): Promise<void> {
	const missing: string[] = [];
	let d = path.resolve(dir);
	for (;;) {
		try {
			const s = await stat(d);
			if (!s.isDirectory()) throw new Error(`${d} is not a folder`);
			break;
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
		}
		missing.push(d);
		const up = path.dirname(d);
		if (up === d || missing.length > MAX_NEW_DIRS) throw new Error(`cannot create ${dir}: no existing parent folder`);
		d = up;
	}
	for (const m of missing.reverse()) {
		try {
			await mkdir(m);
		} catch (e) {
			if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
		}
	}
}

/**
 * Can a history row be written at `file`? Creates the folder (not the file: a new file gets its
 * header on the first row) and checks it is writable, or the file itself when it exists. Throws
 * with the reason, at once.
 */
export async function checkHistoryWritable(file: string): Promise<void> {
	const dir = path.dirname(file);
	await ensureDir(dir);
	if (await exists(file)) {
		const s = await stat(file);
		if (!s.isFile()) throw new Error(`${file} is not a file`);
		await access(file, constants.W_OK);
	} else {
		await access(dir, constants.W_OK);
	}
}
