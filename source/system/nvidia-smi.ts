/**
 * nvidia-smi CSV (pure). Queries:
 *   --query-gpu=index,name,memory.used,memory.total,utilization.gpu,temperature.gpu,power.draw[,uuid]
 *   --query-compute-apps=pid,process_name,used_memory,gpu_uuid
 * with `--format=csv,noheader,nounits` (what infertop runs) or `--format=csv` (header line, units
 * such as `1234 MiB`, `3 %`, `30.12 W`). `[N/A]`, `[Not Supported]`, `N/A` → undefined.
 * Header-driven when a header is present; otherwise the default column order of the query.
 */
import type {GpuInfo, GpuProcess} from '../types/system.js';
import {sanitize} from '../util/sanitize.js';

export const GPU_QUERY_FIELDS = ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu', 'temperature.gpu', 'power.draw', 'uuid'] as const;
export const APPS_QUERY_FIELDS = ['pid', 'process_name', 'used_memory', 'gpu_uuid'] as const;

/** A GPU as nvidia-smi reports it; `uuid` lets compute apps be mapped to an index. */
export interface NvidiaGpu extends GpuInfo {
	readonly uuid?: string;
}

export interface NvidiaApp extends GpuProcess {
	readonly gpuUuid?: string;
}

/** `[N/A]`, `[Not Supported]`, `N/A`, `Unknown Error`… → undefined; else the number without units. */
export function smiNumber(cell: string | undefined): number | undefined {
	if (cell === undefined) return undefined;
	const s = cell.trim();
	if (s === '' || s.startsWith('[') || /^n\/?a$/i.test(s)) return undefined;
	const m = /^(-?\d+(?:\.\d+)?)\s*(?:MiB|GiB|KiB|%|W|C|MHz)?$/i.exec(s);
	if (!m) return undefined;
	let v = Number(m[1]);
	if (/GiB$/i.test(s)) v *= 1024;
	else if (/KiB$/i.test(s)) v /= 1024;
	return Number.isFinite(v) ? v : undefined;
}

function smiText(cell: string | undefined): string | undefined {
	if (cell === undefined) return undefined;
	const s = sanitize(cell).trim();
	if (s === '' || s.startsWith('[') || /^n\/?a$/i.test(s)) return undefined;
	return s;
}

/** Header `memory.used [MiB]` → `memory.used`. */
function fieldName(h: string): string {
	return h.trim().replace(/\s*\[[^\]]*\]$/, '').toLowerCase();
}

interface Csv {
	readonly fields: string[];
	readonly rows: string[][];
}

/**
 * Split nvidia-smi CSV. Cells are separated by `, `. A name that itself contains commas is
 * rejoined: the extra cells belong to the column named `textField`.
 */
function readCsv(text: string, defaults: readonly string[], textField: string): Csv {
	const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
	let fields = [...defaults];
	let start = 0;
	const first = lines[0];
	if (first !== undefined) {
		const heads = first.split(',').map(fieldName);
		if (heads.includes(defaults[0]!) && heads.some((h) => h === textField || h === defaults[1])) {
			fields = heads;
			start = 1;
		}
	}
	const rows: string[][] = [];
	for (const line of lines.slice(start)) {
		if (/^no running (processes|compute)/i.test(line)) continue;
		let cells = line.split(',').map((c) => c.trim());
		const extra = cells.length - fields.length;
		const ti = fields.indexOf(textField);
		if (extra > 0 && ti >= 0) {
			cells = [...cells.slice(0, ti), cells.slice(ti, ti + extra + 1).join(', '), ...cells.slice(ti + extra + 1)];
		}
		if (cells.length < 2) continue;
		rows.push(cells);
	}
	return {fields, rows};
}

/** Output of the --query-gpu command. Rows without a name are skipped. */
export function parseNvidiaGpus(text: string, fields: readonly string[] = GPU_QUERY_FIELDS): NvidiaGpu[] {
	const csv = readCsv(text, fields, 'name');
	const at = (row: string[], f: string): string | undefined => {
		const i = csv.fields.indexOf(f);
		return i >= 0 ? row[i] : undefined;
	};
	const gpus: NvidiaGpu[] = [];
	for (const row of csv.rows) {
		const name = smiText(at(row, 'name'));
		if (name === undefined) continue;
		const gpu: {-readonly [K in keyof NvidiaGpu]: NvidiaGpu[K]} = {name, vendor: 'NVIDIA'};
		const index = smiNumber(at(row, 'index'));
		if (index !== undefined && Number.isInteger(index)) gpu.index = index;
		const used = smiNumber(at(row, 'memory.used'));
		if (used !== undefined) gpu.memoryUsedMiB = used;
		const total = smiNumber(at(row, 'memory.total'));
		if (total !== undefined) gpu.memoryTotalMiB = total;
		const util = smiNumber(at(row, 'utilization.gpu'));
		if (util !== undefined) gpu.utilizationPct = util;
		const temp = smiNumber(at(row, 'temperature.gpu'));
		if (temp !== undefined) gpu.temperatureC = temp;
		const power = smiNumber(at(row, 'power.draw'));
		if (power !== undefined) gpu.powerW = power;
		const uuid = smiText(at(row, 'uuid'));
		if (uuid !== undefined) gpu.uuid = uuid;
		gpus.push(gpu);
	}
	return gpus;
}

/** Output of the --query-compute-apps command; empty output = no processes. */
export function parseNvidiaApps(text: string, gpus: readonly NvidiaGpu[] = [], fields: readonly string[] = APPS_QUERY_FIELDS): NvidiaApp[] {
	const csv = readCsv(text, fields, 'process_name');
	const at = (row: string[], f: string): string | undefined => {
		const i = csv.fields.indexOf(f);
		return i >= 0 ? row[i] : undefined;
	};
	const apps: NvidiaApp[] = [];
	for (const row of csv.rows) {
		const pid = smiNumber(at(row, 'pid'));
		if (pid === undefined || !Number.isInteger(pid) || pid <= 0) continue;
		const app: {-readonly [K in keyof NvidiaApp]: NvidiaApp[K]} = {pid, name: smiText(at(row, 'process_name')) ?? '--'};
		const used = smiNumber(at(row, 'used_memory') ?? at(row, 'used_gpu_memory'));
		if (used !== undefined) app.usedMiB = used;
		const uuid = smiText(at(row, 'gpu_uuid'));
		if (uuid !== undefined) {
			app.gpuUuid = uuid;
			const gpu = gpus.find((g) => g.uuid === uuid);
			if (gpu?.index !== undefined) app.gpuIndex = gpu.index;
		}
		apps.push(app);
	}
	return apps;
}
