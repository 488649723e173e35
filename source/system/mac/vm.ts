/**
 * macOS memory tools (pure): `sysctl NAME…`, `memory_pressure -Q`, `vm_stat`. Formats from Apple's
 * sources, apple-oss-distributions/system_cmds @ 95e4892 (system_cmds-1026.100.5):
 *  - sysctl/sysctl.c: each name prints as `NAME: VALUE` (without -n); `vm.swapusage` is printed by
 *    S_xswusage as `total = %.2fM  used = %.2fM  free = %.2fM  %s` (MiB; `(encrypted)` or empty). An
 *    unknown name (`iogpu.wired_limit_mb` before macOS 14, or on an Intel Mac) is a warning on stderr:
 *    the other names still print. `hw.memsize` is bytes; `iogpu.wired_limit_mb` is MiB, 0 = the macOS
 *    default; `kern.memorystatus_vm_pressure_level` is 1 normal, 2 warn, 4 critical.
 *  - memory_pressure/memory_pressure.c: `The system has %lld (%d pages with a page size of %lu).`
 *    then, with -Q, no page statistics, then `System-wide memory free percentage: %d%%`.
 *  - vm_stat/vm_stat.c: `Mach Virtual Memory Statistics: (page size of %llu bytes)` then one
 *    `%-30s %16llu.` line per counter (`Pages occupied by compressor:`, `Swapouts:`…).
 * The tools are run with LC_ALL=C; a decimal comma is read all the same. Hostile values are unknown.
 */
import {macPressureLevel} from '../power.js';
import type {MemoryPressureLevel} from '../contention.js';

export interface MacSysctl {
	readonly memsizeBytes?: number;
	/** `iogpu.wired_limit_mb`: 0 = the macOS default; undefined = the name is unknown here. */
	readonly wiredLimitMb?: number;
	readonly swapTotalBytes?: number;
	readonly swapUsedBytes?: number;
	readonly pressureLevel?: MemoryPressureLevel;
}

const MIB = 1024 * 1024;

function whole(raw: string | undefined, max: number): number | undefined {
	if (raw === undefined || !/^\d{1,16}$/.test(raw.trim())) return undefined;
	const n = Number(raw.trim());
	return Number.isSafeInteger(n) && n <= max ? n : undefined;
}

function mebibytes(raw: string): number | undefined {
	const s = raw.replace(',', '.');
	if (!/^\d{1,12}(?:\.\d{1,6})?$/.test(s)) return undefined;
	const n = Math.round(Number(s) * MIB);
	return Number.isSafeInteger(n) ? n : undefined;
}

/** `sysctl hw.memsize iogpu.wired_limit_mb vm.swapusage kern.memorystatus_vm_pressure_level` (any subset, any order). */
export function parseMacSysctl(text: string): MacSysctl {
	const values = new Map<string, string>();
	for (const line of text.split('\n')) {
		const m = /^([a-z0-9_.]{1,96}): (.*)$/i.exec(line.replace(/\r$/, ''));
		if (m && !values.has(m[1]!)) values.set(m[1]!, m[2]!);
	}
	const out: {-readonly [K in keyof MacSysctl]: MacSysctl[K]} = {};
	const memsize = whole(values.get('hw.memsize'), 2 ** 50);
	if (memsize !== undefined && memsize > 0) out.memsizeBytes = memsize;
	const wired = whole(values.get('iogpu.wired_limit_mb'), 2 ** 32);
	if (wired !== undefined) out.wiredLimitMb = wired;
	const swap = /^total = ([\d.,]+)M {2}used = ([\d.,]+)M {2}free = ([\d.,]+)M(?: {2}(?:\(encrypted\))?)?\s*$/.exec(values.get('vm.swapusage') ?? '');
	if (swap) {
		const total = mebibytes(swap[1]!);
		const used = mebibytes(swap[2]!);
		if (total !== undefined && used !== undefined && used <= total) {
			out.swapTotalBytes = total;
			out.swapUsedBytes = used;
		}
	}
	const level = values.get('kern.memorystatus_vm_pressure_level');
	const l = level === undefined ? undefined : macPressureLevel(level);
	if (l !== undefined) out.pressureLevel = l;
	return out;
}

export interface MacMemoryPressure {
	readonly memsizeBytes?: number;
	/** System-wide memory free percentage, 0..100 (what macOS's pressure level is judged from). */
	readonly freePct?: number;
}

/** `memory_pressure -Q`. */
export function parseMemoryPressure(text: string): MacMemoryPressure {
	const out: {-readonly [K in keyof MacMemoryPressure]: MacMemoryPressure[K]} = {};
	const sys = /^The system has (\d{1,16}) \(\d{1,16} pages with a page size of \d{1,8}\)\.\s*$/m.exec(text);
	const memsize = whole(sys?.[1], 2 ** 50);
	if (memsize !== undefined && memsize > 0) out.memsizeBytes = memsize;
	const free = /^System-wide memory free percentage: (\d{1,3})%\s*$/m.exec(text);
	const pct = whole(free?.[1], 100);
	if (pct !== undefined) out.freePct = pct;
	return out;
}

export interface MacVmStat {
	readonly pageSize?: number;
	/** Pages occupied by compressor × page size. */
	readonly compressorBytes?: number;
	readonly wiredBytes?: number;
	/** Counters since boot (compressed pages written to / read from swap). */
	readonly swapouts?: number;
	readonly swapins?: number;
}

/** `vm_stat` (no interval). */
export function parseVmStat(text: string): MacVmStat {
	const out: {-readonly [K in keyof MacVmStat]: MacVmStat[K]} = {};
	const ps = /^Mach Virtual Memory Statistics: \(page size of (\d{1,8}) bytes\)/m.exec(text);
	const pageSize = whole(ps?.[1], 1 << 24);
	const counters = new Map<string, number>();
	for (const line of text.split('\n')) {
		const m = /^([A-Za-z"][A-Za-z "-]{1,40}):\s+(\d{1,19})\.\s*$/.exec(line);
		if (!m) continue;
		const v = whole(m[2], Number.MAX_SAFE_INTEGER);
		if (v !== undefined) counters.set(m[1]!, v);
	}
	if (pageSize !== undefined && pageSize > 0) {
		out.pageSize = pageSize;
		const pages = (k: string): number | undefined => {
			const n = counters.get(k);
			return n === undefined || !Number.isSafeInteger(n * pageSize) ? undefined : n * pageSize;
		};
		const comp = pages('Pages occupied by compressor');
		if (comp !== undefined) out.compressorBytes = comp;
		const wired = pages('Pages wired down');
		if (wired !== undefined) out.wiredBytes = wired;
	}
	const swapouts = counters.get('Swapouts');
	if (swapouts !== undefined) out.swapouts = swapouts;
	const swapins = counters.get('Swapins');
	if (swapins !== undefined) out.swapins = swapins;
	return out;
}
