/**
 * `ioreg` text (pure): the Apple GPU's busy share and memory, and the GPU time of each process,
 * as the I/O Registry shows them to any user (no sudo).
 *
 * GPU: `ioreg -r -c IOGPU -d 1 -w 0` prints the accelerator node (`+-o AGXAcceleratorG13X  <class
 * AGXAcceleratorG13X, …>`) and its properties, one per line: `"model" = "Apple M1 Pro"`,
 * `"gpu-core-count" = 16` and the driver's `"PerformanceStatistics" = {"Device Utilization %"=34,
 * "Renderer Utilization %"=34,"In use system memory"=7688503296,"Alloc system memory"=14511046656,…}`
 * (top-level properties use ` = `, entries inside a dictionary `=` without spaces). Formats as read by
 * mostlygeek/llama-swap internal/perf/gpu_parse.go (ParseIoregOutput) @ 29d3d9ba, and as published
 * in exelban/stats#1094 (M1 Pro, macOS 12.6). `Device Utilization %` is the busy share; the renderer
 * and tiler shares are not substitutes for it (a compute-only load such as LLM decode shows Device
 * 98–100 % while Renderer stays near 0). Keys are matched whole, quotes included, so `"In use system
 * memory (driver)"` never feeds `In use system memory`.
 *
 * GPU users: `ioreg -r -c AGXDeviceUserClient -d 1 -w 0` prints one node per Metal client of the
 * GPU, with `"IOUserClientCreator" = "pid 682, WindowServer"` and `"AppUsage" = ({"API"="Metal",
 * "accumulatedGPUTime"=38738170958},…)`: nanoseconds of GPU time, only ever growing. The keys and the
 * `pid %d,` form are those metaspartan/mactop internal/app/native_stats.go
 * (get_gpu_process_stats, extract_pid_from_creator, sum_gpu_time) @ 6135d06 reads through IOKit;
 * mactop calls the per-process GPU figure built on them experimental. Two reads a few seconds apart
 * give each process's share of GPU time in between (`gpuShares`).
 *
 * Hostile or missing values (not a whole number, a percentage over 100, bytes past 2^53) are left
 * unknown: never 0.
 */
import {sanitize} from '../../util/sanitize.js';

export interface IoregGpu {
	/** The node's class, e.g. `AGXAcceleratorG13X`. */
	readonly className?: string;
	/** `"model"`, e.g. `Apple M1 Pro`. */
	readonly model?: string;
	readonly cores?: number;
	/** `Device Utilization %` (0..100): the share of time the GPU was busy. */
	readonly deviceUtilPct?: number;
	readonly rendererUtilPct?: number;
	readonly tilerUtilPct?: number;
	/** `In use system memory`: bytes of unified memory the GPU driver has in use. */
	readonly inUseBytes?: number;
	/** `Alloc system memory`: bytes the driver has allocated (in use or not). */
	readonly allocBytes?: number;
}

/** A node header: `+-o NAME  <class CLASS, id 0x…, …>`, behind ioreg's tree drawing (`| |`). */
const NODE = /^[\s|]*\+-o (\S+)\s+<class ([^,>]+)/;

/** The text split at node headers: [header class, body] pairs (text before the first header is dropped). */
function nodes(text: string): {className: string; body: string}[] {
	const out: {className: string; body: string}[] = [];
	let current: {className: string; lines: string[]} | undefined;
	for (const line of text.split('\n')) {
		const m = NODE.exec(line);
		if (m) {
			if (current) out.push({className: current.className, body: current.lines.join('\n')});
			current = {className: m[2]!, lines: []};
		} else if (current) current.lines.push(line);
	}
	if (current) out.push({className: current.className, body: current.lines.join('\n')});
	return out;
}

/** A whole number within [0, max]; anything else (a fraction, a sign, a word, too many digits) is unknown. */
function whole(raw: string | undefined, max: number): number | undefined {
	if (raw === undefined || !/^\d{1,16}$/.test(raw)) return undefined;
	const n = Number(raw);
	return Number.isSafeInteger(n) && n <= max ? n : undefined;
}

/** The entries of a one-line dictionary body `"k"=v,"k2"=v2` (values without nesting). */
function dictEntries(body: string): Map<string, string> {
	const out = new Map<string, string>();
	for (const m of body.matchAll(/"([^"]{1,64})"=([^,{}()]*)/g)) {
		if (!out.has(m[1]!)) out.set(m[1]!, m[2]!.trim());
	}
	return out;
}

/** A top-level property line `"key" = value` of a node body. */
function property(body: string, key: string): string | undefined {
	const m = new RegExp(`^[\\s|]*"${key}" = (.*)$`, 'm').exec(body);
	return m ? m[1]!.trim() : undefined;
}

/**
 * The accelerators with a `PerformanceStatistics` dictionary, in the order printed. A node without
 * one is not a GPU reading (an empty answer, another class) and is left out.
 */
export function parseIoregGpus(text: string): IoregGpu[] {
	const out: IoregGpu[] = [];
	for (const {className, body} of nodes(text)) {
		const stats = /^[\s|]*"PerformanceStatistics" = \{([^{}\n]*)\}\s*$/m.exec(body);
		if (!stats) continue;
		const e = dictEntries(stats[1]!);
		const gpu: {-readonly [K in keyof IoregGpu]: IoregGpu[K]} = {};
		const cls = sanitize(className, 64);
		if (/^[A-Za-z0-9_]+$/.test(cls)) gpu.className = cls;
		// `"model" = "Apple M1 Pro"`; some registries print it as data, `<"Apple M1 Pro">`.
		const model = /^<?"([^"]{1,80})">?$/.exec(property(body, 'model') ?? '');
		if (model) {
			const name = sanitize(model[1]!, 64).trim();
			if (name !== '') gpu.model = name;
		}
		const cores = whole(property(body, 'gpu-core-count'), 1024);
		if (cores !== undefined && cores > 0) gpu.cores = cores;
		const pct = (k: string): number | undefined => whole(e.get(k), 100);
		const bytes = (k: string): number | undefined => whole(e.get(k), Number.MAX_SAFE_INTEGER);
		const device = pct('Device Utilization %');
		if (device !== undefined) gpu.deviceUtilPct = device;
		const renderer = pct('Renderer Utilization %');
		if (renderer !== undefined) gpu.rendererUtilPct = renderer;
		const tiler = pct('Tiler Utilization %');
		if (tiler !== undefined) gpu.tilerUtilPct = tiler;
		const inUse = bytes('In use system memory');
		if (inUse !== undefined) gpu.inUseBytes = inUse;
		const alloc = bytes('Alloc system memory');
		if (alloc !== undefined) gpu.allocBytes = alloc;
		out.push(gpu);
	}
	return out;
}

/** One process's GPU clients added up: nanoseconds of GPU time since each client opened. */
export interface GpuClientTotal {
	readonly pid: number;
	readonly name: string;
	readonly gpuNs: number;
	/** A client whose counter could not be read (too large, malformed): the total is a lower bound. */
	readonly partial?: boolean;
}

const CREATOR = /^[\s|]*"IOUserClientCreator" = "pid (\d{1,10}), ([^"\n]{0,256})"\s*$/m;

/** `ioreg -r -c AGXDeviceUserClient` → GPU time per process (all its clients summed). */
export function parseIoregClients(text: string): Map<number, GpuClientTotal> {
	const out = new Map<number, GpuClientTotal>();
	for (const {body} of nodes(text)) {
		const c = CREATOR.exec(body);
		if (!c) continue;
		const pid = whole(c[1], 2 ** 31 - 1);
		if (pid === undefined || pid <= 0) continue;
		const name = sanitize(c[2]!, 64).trim() || '--';
		let ns = 0;
		let partial = false;
		const usage = /^[\s|]*"AppUsage" = \((.*)\)\s*$/m.exec(body);
		for (const m of (usage?.[1] ?? '').matchAll(/"accumulatedGPUTime"=([^,}]*)/g)) {
			const v = whole(m[1]!.trim(), Number.MAX_SAFE_INTEGER);
			if (v === undefined) partial = true;
			else ns += v;
		}
		const prev = out.get(pid);
		const total = (prev?.gpuNs ?? 0) + ns;
		if (!Number.isSafeInteger(total)) continue;
		out.set(pid, {pid, name: prev?.name ?? name, gpuNs: total, ...(partial || prev?.partial ? {partial: true} : {})});
	}
	return out;
}

export interface GpuShare {
	readonly pid: number;
	readonly name: string;
	/** Share of the GPU's time this process used between the two reads, 0..100. */
	readonly gpuPct: number;
}

/**
 * Each process's share of GPU time between two reads `dtMs` apart, busiest first. A process whose
 * total went down (a client closed) or that is new has no share this time (unknown, not 0); one
 * whose counter could not be read whole is left out. Several command queues can overlap, so a sum
 * over the window can pass the wall time: a share is capped at 100.
 */
export function gpuShares(prev: ReadonlyMap<number, GpuClientTotal>, next: ReadonlyMap<number, GpuClientTotal>, dtMs: number): GpuShare[] {
	if (!(dtMs > 0) || !Number.isFinite(dtMs)) return [];
	const out: GpuShare[] = [];
	for (const [pid, n] of next) {
		const p = prev.get(pid);
		if (!p || p.partial || n.partial || n.gpuNs < p.gpuNs) continue;
		const pct = Math.min(100, ((n.gpuNs - p.gpuNs) / (dtMs * 1e6)) * 100);
		out.push({pid, name: n.name, gpuPct: pct});
	}
	return out.sort((a, b) => b.gpuPct - a.gpuPct || a.pid - b.pid);
}
