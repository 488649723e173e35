/**
 * The GPUs, the CPU's name and the ports engine processes listen on, on Linux, read from sysfs,
 * pci.ids and /proc (system/pci.ts and system/proc.ts parse them): what systeminformation's
 * graphics(), cpu() and networkConnections() gave here, without loading it (~7 MB of RSS for the
 * whole run). pci.ids is read once per process, and only for the ids of display controllers.
 * Never throws: what cannot be read is left out.
 */
import {readdir, readFile, readlink} from 'node:fs/promises';
import path from 'node:path';
import type {GpuInfo} from '../types/system.js';
import {cpuBrandFromCpuinfo, gpusFromPci, isDisplayController, pciNames, type PciDeviceFiles} from '../system/pci.js';
import {parseProcNetTcpListen} from '../system/proc.js';

/** Where distributions keep the PCI ID database (pciutils, hwdata). */
const PCI_IDS_FILES = ['/usr/share/misc/pci.ids', '/usr/share/hwdata/pci.ids', '/usr/share/pci.ids'];

export interface LinuxHwOptions {
	/** sysfs' PCI devices (tests). */
	readonly pciRoot?: string;
	readonly pciIds?: readonly string[];
	readonly cpuinfo?: string;
	readonly deviceTreeModel?: string;
}

const read = (f: string): Promise<string | undefined> => readFile(f, 'utf8').then((t) => t.trim(), () => undefined);

/** Names by `vendor:device`, kept for the process (per database file list). */
const names = new Map<string, Promise<Map<string, {vendor?: string; device?: string}>>>();

async function namesFor(ids: readonly string[], files: readonly string[]): Promise<Map<string, {vendor?: string; device?: string}>> {
	const key = `${files.join('|')}#${[...ids].sort().join(',')}`;
	let p = names.get(key);
	if (!p) {
		p = (async () => {
			for (const f of files) {
				const text = await readFile(f, 'utf8').catch(() => undefined);
				if (text !== undefined) return pciNames(text, ids);
			}
			return new Map();
		})();
		names.set(key, p);
	}
	return p;
}

/** The display controllers' slots and classes under a sysfs root, found once per process (the scan runs every few seconds). */
const displaySlots = new Map<string, Promise<{slot: string; cls: string}[]>>();

function displaySlotsOf(root: string): Promise<{slot: string; cls: string}[]> {
	let p = displaySlots.get(root);
	if (!p) {
		p = (async () => {
			const out: {slot: string; cls: string}[] = [];
			for (const slot of await readdir(root).catch(() => [] as string[])) {
				const cls = await read(path.join(root, slot, 'class'));
				if (cls !== undefined && isDisplayController(cls)) out.push({slot, cls});
			}
			return out;
		})();
		displaySlots.set(root, p);
	}
	return p;
}

/** The display controllers, with amdgpu's memory and load where the driver gives them (read each time). */
export async function readLinuxGpus(opts: LinuxHwOptions = {}): Promise<GpuInfo[]> {
	const root = opts.pciRoot ?? '/sys/bus/pci/devices';
	const devices: PciDeviceFiles[] = [];
	for (const {slot, cls} of await displaySlotsOf(root)) {
		const dir = path.join(root, slot);
		const [vendor, device, vramTotal, vramUsed, busyPercent] = await Promise.all(['vendor', 'device', 'mem_info_vram_total', 'mem_info_vram_used', 'gpu_busy_percent'].map((f) => read(path.join(dir, f))));
		devices.push({slot, cls, ...(vendor !== undefined ? {vendor} : {}), ...(device !== undefined ? {device} : {}), ...(vramTotal !== undefined ? {vramTotal} : {}), ...(vramUsed !== undefined ? {vramUsed} : {}), ...(busyPercent !== undefined ? {busyPercent} : {})});
	}
	if (devices.length === 0) return [];
	const ids = devices.map((d) => `${(d.vendor ?? '').replace(/^0x/i, '').toLowerCase()}:${(d.device ?? '').replace(/^0x/i, '').toLowerCase()}`);
	return gpusFromPci(devices, await namesFor(ids, opts.pciIds ?? PCI_IDS_FILES));
}

/** The CPU's name: /proc/cpuinfo's `model name`, else the device tree's model (ARM boards). */
export async function readLinuxCpuBrand(opts: LinuxHwOptions = {}): Promise<string | undefined> {
	const cpuinfo = await read(opts.cpuinfo ?? '/proc/cpuinfo');
	const model = cpuinfo !== undefined && /^model name/m.test(cpuinfo) ? undefined : await read(opts.deviceTreeModel ?? '/proc/device-tree/model');
	return cpuBrandFromCpuinfo(cpuinfo, model);
}

/** At most this many open files of one process are looked at for its sockets. */
const MAX_FDS = 4096;

/**
 * The TCP ports these processes listen on: /proc/net/tcp and tcp6 (LISTEN), matched by socket
 * inode to the links in /proc/PID/fd. A process of another user (a system service) cannot be read
 * without privileges: it has no row, and discovery falls back to its `--port` flag.
 */
export async function readLinuxListening(pids: readonly number[], opts: {procRoot?: string} = {}): Promise<{protocol: string; localPort: number; state: string; pid: number}[]> {
	const proc = opts.procRoot ?? '/proc';
	if (pids.length === 0) return [];
	const byInode = new Map<string, number>();
	for (const f of ['tcp', 'tcp6']) {
		const text = await readFile(path.join(proc, 'net', f), 'latin1').catch(() => '');
		for (const s of parseProcNetTcpListen(text)) byInode.set(s.inode, s.port);
	}
	if (byInode.size === 0) return [];
	const out: {protocol: string; localPort: number; state: string; pid: number}[] = [];
	for (const pid of pids) {
		if (!Number.isInteger(pid) || pid <= 0) continue;
		const dir = path.join(proc, String(pid), 'fd');
		const fds = (await readdir(dir).catch(() => [] as string[])).slice(0, MAX_FDS);
		const ports = new Set<number>();
		for (const fd of fds) {
			const link = await readlink(path.join(dir, fd)).catch(() => '');
			const m = /^socket:\[(\d+)\]$/.exec(link);
			const port = m ? byInode.get(m[1]!) : undefined;
			if (port !== undefined) ports.add(port);
		}
		for (const port of ports) out.push({protocol: 'tcp', localPort: port, state: 'LISTEN', pid});
	}
	return out;
}

/**
 * The process that listens on this TCP port (a server the user named by its URL): the LISTEN
 * sockets of /proc/net/tcp and tcp6 on that port, then the process whose /proc/PID/fd holds one.
 * Undefined when nothing listens there, or the listener is another user's process (its fds cannot
 * be read without privileges), or /proc cannot be read.
 */
export async function readLinuxListenerPid(port: number, opts: {procRoot?: string} = {}): Promise<number | undefined> {
	const proc = opts.procRoot ?? '/proc';
	if (!Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
	const inodes = new Set<string>();
	for (const f of ['tcp', 'tcp6']) {
		const text = await readFile(path.join(proc, 'net', f), 'latin1').catch(() => '');
		for (const s of parseProcNetTcpListen(text)) if (s.port === port) inodes.add(s.inode);
	}
	if (inodes.size === 0) return undefined;
	const pids = (await readdir(proc).catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
	for (const pid of pids) {
		const dir = path.join(proc, pid, 'fd');
		const fds = (await readdir(dir).catch(() => [] as string[])).slice(0, MAX_FDS);
		for (const fd of fds) {
			const m = /^socket:\[(\d+)\]$/.exec(await readlink(path.join(dir, fd)).catch(() => ''));
			if (m && inodes.has(m[1]!)) return Number(pid);
		}
	}
	return undefined;
}

/** The working folder of a process (a relative `--log-file` is relative to it); undefined where it cannot be read. */
export async function readLinuxCwd(pid: number, opts: {procRoot?: string} = {}): Promise<string | undefined> {
	if (!Number.isInteger(pid) || pid <= 0) return undefined;
	const link = await readlink(path.join(opts.procRoot ?? '/proc', String(pid), 'cwd')).catch(() => undefined);
	return link !== undefined && path.isAbsolute(link) ? link : undefined;
}
