/**
 * `mactop --headless --format json --count 1` (pure). mactop reads the GPU through Apple's IOReport
 * without sudo; its headless sample (metaspartan/mactop internal/app/headless.go HeadlessOutput @
 * 6135d06; context-labs/mactop internal/app/headless.go @ 7c6aa36, v0.2.7) carries:
 *   gpu_usage                       GPU active residency, % (m.GPUActive)
 *   system_info.name, .gpu_core_count
 *   memory.total, .used, .swap_total, .swap_used   bytes (whole-system memory, not the GPU's)
 *   processes[].pid, .command, .gpu_ms_per_sec     newer mactop only: per-process GPU time from the
 *       same per-client counters ioreg shows, scaled so they add up to gpu_usage — mactop's README
 *       calls this "Proportional per process GPU usage (experimental)"; only the 20 busiest processes
 *       by CPU are listed, so a GPU user with little CPU can be missing.
 * With `--count N` the samples come as one JSON array (`[{…}\n]`), without it one object per line:
 * both are read, the last sample wins. Missing or hostile fields are unknown.
 */
import {sanitize} from '../../util/sanitize.js';

export interface MactopProcess {
	readonly pid: number;
	readonly command: string;
	/** `gpu_ms_per_sec` ÷ 10: share of the GPU, % (experimental in mactop). */
	readonly gpuPct: number;
}

export interface MactopSample {
	/** `gpu_usage`, 0..100. */
	readonly busyPct?: number;
	readonly name?: string;
	readonly cores?: number;
	readonly memoryTotalBytes?: number;
	readonly memoryUsedBytes?: number;
	readonly swapTotalBytes?: number;
	readonly swapUsedBytes?: number;
	/** Present only when mactop printed a process list (newer mactop). */
	readonly processes?: readonly MactopProcess[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function finite(v: unknown, max: number): number | undefined {
	return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= max ? v : undefined;
}

function bytes(v: unknown): number | undefined {
	const n = finite(v, Number.MAX_SAFE_INTEGER);
	return n !== undefined && Number.isInteger(n) ? n : undefined;
}

/** The last sample object in mactop's output (a JSON array, one object, or one object per line). */
function lastSample(text: string): Obj | undefined {
	const t = text.trim();
	if (t === '' || t.length > 4 * 1024 * 1024) return undefined;
	try {
		const v: unknown = JSON.parse(t);
		if (Array.isArray(v)) {
			const last = v.at(-1);
			return isObj(last) ? last : undefined;
		}
		return isObj(v) ? v : undefined;
	} catch {}
	const lines = t.split('\n');
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i]!.trim().replace(/^[[,]+|[\],]+$/g, '');
		if (!line.startsWith('{')) continue;
		try {
			const v: unknown = JSON.parse(line);
			if (isObj(v)) return v;
		} catch {}
	}
	return undefined;
}

export function parseMactop(text: string): MactopSample | undefined {
	const s = lastSample(text);
	if (!s) return undefined;
	const out: {-readonly [K in keyof MactopSample]: MactopSample[K]} = {};
	const busy = finite(s.gpu_usage, 100);
	if (busy !== undefined) out.busyPct = busy;
	const info = isObj(s.system_info) ? s.system_info : {};
	if (typeof info.name === 'string') {
		const name = sanitize(info.name, 64).trim();
		if (name !== '') out.name = name;
	}
	const cores = finite(info.gpu_core_count, 1024);
	if (cores !== undefined && Number.isInteger(cores) && cores > 0) out.cores = cores;
	const mem = isObj(s.memory) ? s.memory : {};
	const total = bytes(mem.total);
	if (total !== undefined && total > 0) out.memoryTotalBytes = total;
	const used = bytes(mem.used);
	if (used !== undefined && (total === undefined || used <= total)) out.memoryUsedBytes = used;
	const swapTotal = bytes(mem.swap_total);
	if (swapTotal !== undefined) out.swapTotalBytes = swapTotal;
	const swapUsed = bytes(mem.swap_used);
	if (swapUsed !== undefined && (swapTotal === undefined || swapUsed <= swapTotal)) out.swapUsedBytes = swapUsed;
	if (Array.isArray(s.processes)) {
		const procs: MactopProcess[] = [];
		for (const p of s.processes.slice(0, 500)) {
			if (!isObj(p)) continue;
			const pid = finite(p.pid, 2 ** 31 - 1);
			const ms = finite(p.gpu_ms_per_sec, 1e6);
			if (pid === undefined || !Number.isInteger(pid) || pid <= 0 || ms === undefined) continue;
			const command = typeof p.command === 'string' ? sanitize(p.command, 64).trim() : '';
			procs.push({pid, command: command || '--', gpuPct: Math.min(100, ms / 10)});
		}
		out.processes = procs;
	}
	return out;
}
