/**
 * The probe history: one CSV row per finished probe, appended with a single O_APPEND write so two
 * infertop instances never interleave rows. The header is stable (documented below) and written
 * only when the file is new. Unknown figures are empty cells, never 0.
 */
import {constants} from 'node:fs';
import {access, link, mkdir, open, stat, unlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {historyFile} from '../config/paths.js';
import type {ProbeResult} from '../types/probe.js';

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

export function csvField(v: string | number | undefined | null): string {
	if (v === undefined || v === null) return '';
	if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
	const s = v.replace(/[\r\n]+/g, ' ');
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
		await writeFile(tmp, HISTORY_HEADER + '\n', {flag: 'wx'});
		try {
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
