/**
 * GPUs on Linux from sysfs (/sys/bus/pci/devices) and the PCI ID database (pci.ids, what `lspci`
 * names devices with), without systeminformation: loading it costs ~7 MB of RSS for the whole run
 * (its index loads every module it has), and on Linux it was loaded only to name the GPU and the
 * CPU. Pure: the files are read by sources/linux-hw.ts.
 *
 * pci.ids syntax (its own header): `vendor  vendor_name`, then `\tdevice  device_name` (one tab),
 * `\t\tsubvendor subdevice  subsystem_name` (two tabs), `#` comments; device classes (`C xx`)
 * follow the vendors. amdgpu's sysfs (linux drivers/gpu/drm/amd/amdgpu/amdgpu_device.c and
 * amdgpu_vram_mgr.c): `mem_info_vram_total` and `mem_info_vram_used` in bytes, `gpu_busy_percent`.
 */
import type {GpuInfo} from '../types/system.js';
import {sanitize} from '../util/sanitize.js';
import {codeUnitOrder} from '../util/format.js';

/** One PCI function as sysfs lists it (the files' text, as read). */
export interface PciDeviceFiles {
	readonly slot: string;
	/** `class`, e.g. `0x030000`. */
	readonly cls?: string;
	/** `vendor`, `device`, e.g. `0x10de`, `0x2684`. */
	readonly vendor?: string;
	readonly device?: string;
	/** amdgpu only: bytes, and percent. */
	readonly vramTotal?: string;
	readonly vramUsed?: string;
	readonly busyPercent?: string;
}

/** A display controller (PCI base class 0x03): VGA, XGA, 3D (compute cards), other. */
export function isDisplayController(cls: string | undefined): boolean {
	return cls !== undefined && /^0x03[0-9a-f]{4}$/i.test(cls.trim());
}

const hex4 = (v: string | undefined): string | undefined => {
	const m = v === undefined ? null : /^0x([0-9a-f]{4})$/i.exec(v.trim());
	return m?.[1]?.toLowerCase();
};

/** Vendor and device names for these `vendor:device` ids (lower-case hex) from pci.ids' text. */
export function pciNames(text: string, ids: readonly string[]): Map<string, {vendor?: string; device?: string}> {
	const want = new Set(ids);
	const vendors = new Set(ids.map((id) => id.slice(0, 4)));
	const out = new Map<string, {vendor?: string; device?: string}>();
	let vendor: string | undefined;
	let vendorName: string | undefined;
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#')) continue;
		if (line.startsWith('C ')) break; // the device classes: no more vendors
		if (line.startsWith('\t\t')) continue;
		if (line.startsWith('\t')) {
			if (vendor === undefined) continue;
			const m = /^\t([0-9a-f]{4})\s+(.+)$/.exec(line);
			const id = m ? `${vendor}:${m[1]}` : undefined;
			if (id && want.has(id)) out.set(id, {...(vendorName ? {vendor: vendorName} : {}), device: sanitize(m![2]!.trim(), 120)});
			continue;
		}
		const m = /^([0-9a-f]{4})\s+(.+)$/.exec(line);
		vendor = m && vendors.has(m[1]!) ? m[1] : undefined;
		vendorName = m?.[2] ? sanitize(m[2].trim(), 120) : undefined;
		if (vendor) for (const id of want) if (id.startsWith(`${vendor}:`) && !out.has(id)) out.set(id, vendorName ? {vendor: vendorName} : {});
	}
	return out;
}

/** A count from sysfs: a whole, non-negative, finite number, or undefined. */
const count = (v: string | undefined): number | undefined => {
	if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
	const n = Number(v.trim());
	return Number.isSafeInteger(n) ? n : undefined;
};

/** The display controllers among `devices` as GPUs, in slot order, named from pci.ids (or by id). */
export function gpusFromPci(devices: readonly PciDeviceFiles[], names: ReadonlyMap<string, {vendor?: string; device?: string}>): GpuInfo[] {
	const out: GpuInfo[] = [];
	const gpus = devices.filter((d) => isDisplayController(d.cls)).sort((a, b) => codeUnitOrder(a.slot, b.slot));
	for (const d of gpus) {
		const v = hex4(d.vendor);
		const dev = hex4(d.device);
		if (!v || !dev) continue;
		const named = names.get(`${v}:${dev}`);
		const info: {-readonly [K in keyof GpuInfo]: GpuInfo[K]} = {index: out.length, name: named?.device ?? `PCI device ${v}:${dev}`};
		if (named?.vendor) info.vendor = named.vendor;
		const total = count(d.vramTotal);
		const used = count(d.vramUsed);
		// amdgpu's own counters; used above total is not a figure (counted nowhere, shown as --)
		if (total !== undefined && total > 0) {
			info.memoryTotalMiB = Math.round(total / 1048576);
			if (used !== undefined && used <= total) info.memoryUsedMiB = Math.round(used / 1048576);
		}
		const busy = count(d.busyPercent);
		if (busy !== undefined && busy <= 100) info.utilizationPct = busy;
		out.push(info);
	}
	return out;
}

/** The CPU's name from /proc/cpuinfo (`model name`; on ARM boards the device tree's model instead). */
export function cpuBrandFromCpuinfo(cpuinfo: string | undefined, deviceTreeModel?: string): string | undefined {
	const m = cpuinfo ? /^model name\s*:\s*(.+)$/m.exec(cpuinfo) : null;
	const raw = m?.[1] ?? deviceTreeModel?.replace(/\0/g, '');
	const brand = raw === undefined ? undefined : sanitize(raw.replace(/\((?:R|TM|tm)\)/g, '').replace(/\s+/g, ' ').trim(), 120);
	return brand ? brand : undefined;
}
