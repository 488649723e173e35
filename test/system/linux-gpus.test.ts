/**
 * GPUs, the CPU's name and listening ports on Linux without systeminformation (system/pci.ts,
 * system/proc.ts, sources/linux-hw.ts): sysfs' PCI devices named from pci.ids, amdgpu's memory and
 * load, /proc/cpuinfo, /proc/net/tcp matched to /proc/PID/fd. The pci.ids lines
 * are the database's own (pciutils' pci.ids, version 2023.04.10, as Debian ships it), its syntax
 * from its header; amdgpu's files as linux drivers/gpu/drm/amd/amdgpu names them.
 */
import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cpuBrandFromCpuinfo, gpusFromPci, isDisplayController, pciNames} from '../../source/system/pci.js';
import {readLinuxCpuBrand, readLinuxCwd, readLinuxGpus, readLinuxListenerPid, readLinuxListening} from '../../source/sources/linux-hw.js';
import {parseProcNetTcpListen} from '../../source/system/proc.js';

const PCI_IDS = [
	'#',
	'#\tList of PCI ID\'s',
	'#',
	'# Syntax:',
	'# vendor  vendor_name',
	'#\tdevice  device_name\t\t\t\t<-- single tab',
	'#\t\tsubvendor subdevice  subsystem_name\t<-- two tabs',
	'',
	'1002  Advanced Micro Devices, Inc. [AMD/ATI]',
	'\t73bf  Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]',
	'\t\t1002 0e3a  Radeon RX 6900 XT',
	'\t744c  Navi 31 [Radeon RX 7900 XT/7900 XTX]',
	'10b5  PLX Technology, Inc.',
	'\t73bf  PCI-8517 FlexRay',
	'10de  NVIDIA Corporation',
	'\t2330  GH100[H100 SXM5 80GB]',
	'\t2684  AD102 [GeForce RTX 4090]',
	'8086  Intel Corporation',
	'\t3e92  CoffeeLake-S GT2 [UHD Graphics 630]',
	'',
	'# List of known device classes, subclasses and programming interfaces',
	'C 03  Display controller',
	'\t00  VGA compatible controller',
].join('\n');

describe('pci.ids and sysfs (pure)', () => {
	it('names a device by vendor and device id; the same device id under another vendor is not it; unknown ids keep only the vendor', () => {
		const n = pciNames(PCI_IDS, ['1002:73bf', '10de:2684', '10de:9999', 'abcd:0001']);
		expect(n.get('1002:73bf')).toEqual({vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]', device: 'Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]'});
		expect(n.get('10de:2684')).toEqual({vendor: 'NVIDIA Corporation', device: 'AD102 [GeForce RTX 4090]'});
		expect(n.get('10de:9999')).toEqual({vendor: 'NVIDIA Corporation'});
		expect(n.has('abcd:0001')).toBe(false);
		// the class list at the end is not read as vendors
		expect(pciNames(PCI_IDS, ['c 03:0000']).size).toBe(0);
	});

	it('display controllers only (base class 0x03), in slot order; amdgpu memory and load checked where they enter', () => {
		expect([isDisplayController('0x030000'), isDisplayController('0x030200'), isDisplayController('0x038000'), isDisplayController('0x020000'), isDisplayController(undefined)]).toEqual([true, true, true, false, false]);
		const names = pciNames(PCI_IDS, ['1002:744c', '10de:2330', '8086:3e92']);
		const gpus = gpusFromPci([
			{slot: '0000:03:00.0', cls: '0x030000', vendor: '0x1002', device: '0x744c', vramTotal: '25753026560', vramUsed: '1073741824', busyPercent: '37'},
			{slot: '0000:00:02.0', cls: '0x030000', vendor: '0x8086', device: '0x3e92'},
			{slot: '0000:00:1f.3', cls: '0x040300', vendor: '0x8086', device: '0xa348'},
			{slot: '0000:41:00.0', cls: '0x030200', vendor: '0x10de', device: '0x2330'},
			// used above total, a load over 100 %, a negative or fractional count: not figures
			{slot: '0000:05:00.0', cls: '0x030000', vendor: '0x1002', device: '0x744c', vramTotal: '1048576', vramUsed: '2097152', busyPercent: '250'},
			{slot: '0000:06:00.0', cls: '0x030000', vendor: '0x1002', device: '0x744c', vramTotal: '-5', vramUsed: '1.5', busyPercent: 'NaN'},
			{slot: '0000:07:00.0', cls: '0x030000', vendor: '0x1234', device: '0x1111'},
		], names);
		expect(gpus).toEqual([
			{index: 0, name: 'CoffeeLake-S GT2 [UHD Graphics 630]', vendor: 'Intel Corporation'},
			{index: 1, name: 'Navi 31 [Radeon RX 7900 XT/7900 XTX]', vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]', memoryTotalMiB: 24560, memoryUsedMiB: 1024, utilizationPct: 37},
			{index: 2, name: 'Navi 31 [Radeon RX 7900 XT/7900 XTX]', vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]', memoryTotalMiB: 1},
			{index: 3, name: 'Navi 31 [Radeon RX 7900 XT/7900 XTX]', vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]'},
			{index: 4, name: 'PCI device 1234:1111'},
			{index: 5, name: 'GH100[H100 SXM5 80GB]', vendor: 'NVIDIA Corporation'},
		]);
	});

	it("the CPU's name from /proc/cpuinfo, trademarks and runs of spaces dropped; an ARM board's device-tree model; control characters never", () => {
		expect(cpuBrandFromCpuinfo('processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\nflags\t\t: fpu\n')).toBe('Intel Xeon Platinum 8480+');
		expect(cpuBrandFromCpuinfo('model name\t: AMD RYZEN AI MAX+ 395 w/ Radeon 8060S\n')).toBe('AMD RYZEN AI MAX+ 395 w/ Radeon 8060S');
		expect(cpuBrandFromCpuinfo('processor\t: 0\nBogoMIPS\t: 62.50\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n', 'NVIDIA Jetson AGX Orin Developer Kit\0')).toBe('NVIDIA Jetson AGX Orin Developer Kit');
		expect(cpuBrandFromCpuinfo('model name\t: evil\u001b[2J\u0007 cpu\n')).toBe('evil cpu');
		expect(cpuBrandFromCpuinfo(undefined)).toBeUndefined();
		expect(cpuBrandFromCpuinfo('model name\t:   \n')).toBeUndefined();
	});
});

describe('read from a sysfs tree and a pci.ids file', () => {
	let dir = '';
	beforeAll(async () => {
		dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-pci-'));
		const dev = async (slot: string, files: Record<string, string>): Promise<void> => {
			await mkdir(path.join(dir, 'devices', slot), {recursive: true});
			for (const [f, v] of Object.entries(files)) await writeFile(path.join(dir, 'devices', slot, f), `${v}\n`);
		};
		await dev('0000:00:00.0', {class: '0x060000', vendor: '0x8086', device: '0x0d57'});
		await dev('0000:03:00.0', {class: '0x030000', vendor: '0x1002', device: '0x744c', mem_info_vram_total: '25753026560', mem_info_vram_used: '4294967296', gpu_busy_percent: '0'});
		await dev('0000:41:00.0', {class: '0x030200', vendor: '0x10de', device: '0x2684'});
		await writeFile(path.join(dir, 'pci.ids'), PCI_IDS);
	});
	afterAll(async () => {
		await rm(dir, {recursive: true, force: true});
	});

	it('lists the display controllers with their names, and amdgpu memory live', async () => {
		const gpus = await readLinuxGpus({pciRoot: path.join(dir, 'devices'), pciIds: [path.join(dir, 'missing.ids'), path.join(dir, 'pci.ids')]});
		expect(gpus).toEqual([
			{index: 0, name: 'Navi 31 [Radeon RX 7900 XT/7900 XTX]', vendor: 'Advanced Micro Devices, Inc. [AMD/ATI]', memoryTotalMiB: 24560, memoryUsedMiB: 4096, utilizationPct: 0},
			{index: 1, name: 'AD102 [GeForce RTX 4090]', vendor: 'NVIDIA Corporation'},
		]);
		await writeFile(path.join(dir, 'devices', '0000:03:00.0', 'mem_info_vram_used'), '8589934592\n');
		const later = await readLinuxGpus({pciRoot: path.join(dir, 'devices'), pciIds: [path.join(dir, 'pci.ids')]});
		expect(later[0]?.memoryUsedMiB).toBe(8192);
	});

	it('no database: named by id; no sysfs: no GPUs; never throws', async () => {
		expect((await readLinuxGpus({pciRoot: path.join(dir, 'devices'), pciIds: [path.join(dir, 'none.ids')]})).map((g) => g.name)).toEqual(['PCI device 1002:744c', 'PCI device 10de:2684']);
		expect(await readLinuxGpus({pciRoot: path.join(dir, 'no-such-dir')})).toEqual([]);
	});

	it("the CPU's name from a cpuinfo file, the device tree's model where it has none", async () => {
		await writeFile(path.join(dir, 'cpuinfo'), 'processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\n');
		await writeFile(path.join(dir, 'cpuinfo-arm'), 'processor\t: 0\nBogoMIPS\t: 50.00\n');
		await writeFile(path.join(dir, 'model'), 'Raspberry Pi 5 Model B Rev 1.0\0');
		expect(await readLinuxCpuBrand({cpuinfo: path.join(dir, 'cpuinfo')})).toBe('AMD EPYC 9654 96-Core Processor');
		expect(await readLinuxCpuBrand({cpuinfo: path.join(dir, 'cpuinfo-arm'), deviceTreeModel: path.join(dir, 'model')})).toBe('Raspberry Pi 5 Model B Rev 1.0');
		expect(await readLinuxCpuBrand({cpuinfo: path.join(dir, 'none'), deviceTreeModel: path.join(dir, 'none')})).toBeUndefined();
	});
});

describe('the ports a process listens on, from /proc (no systeminformation)', () => {
	it('parses /proc/net/tcp and tcp6: LISTEN rows only, port from the hex address, the socket inode', () => {
		const tcp = [
			'  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
			'   0: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1607 1 000000005409206c 100 0 0 10 0',
			'   1: 0100007F:2CFB 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2064443 1 00000000706356ac 100 0 0 10 0',
			'   2: 0100007F:2CFB 0100007F:D3A0 01 00000000:00000000 00:00000000 00000000  1000        0 2064999 1 00000000706356ad 20 4 30 10 -1',
			'   3: 0100007F:0000 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 17 1 0 100 0 0 10 0',
			'   4: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 0 1 0 100 0 0 10 0',
			'garbage',
		].join('\n');
		expect(parseProcNetTcpListen(tcp)).toEqual([{port: 2024, inode: '1607'}, {port: 11515, inode: '2064443'}]);
		const tcp6 = [
			'  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
			'   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 98765 1 0000000000000000 100 0 0 10 0',
		].join('\n');
		expect(parseProcNetTcpListen(tcp6)).toEqual([{port: 8080, inode: '98765'}]);
	});

	it.runIf(process.platform === 'linux')('finds the port this very process listens on, and none for a pid that is not there', async () => {
		const server = http.createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const {port} = server.address() as AddressInfo;
			const rows = await readLinuxListening([process.pid, 2 ** 22 + 1]);
			expect(rows).toContainEqual({protocol: 'tcp', localPort: port, state: 'LISTEN', pid: process.pid});
			expect(rows.every((r) => r.pid === process.pid)).toBe(true);
			expect(await readLinuxListening([])).toEqual([]);
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});

	it('the process listening on a port, by socket inode in any /proc/PID/fd (a named server\'s process)', async () => {
		const root = await mkdtemp(path.join(os.tmpdir(), 'infertop-proc-'));
		try {
			await mkdir(path.join(root, 'net'));
			await writeFile(path.join(root, 'net', 'tcp'), [
				'  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
				'   0: 0100007F:4738 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 2064443 1 00000000706356ac 100 0 0 10 0',
				'   1: 0100007F:4738 0100007F:D3A0 01 00000000:00000000 00:00000000 00000000  1000        0 2064999 1 00000000706356ad 20 4 30 10 -1',
			].join('\n'));
			for (const [pid, links] of [[300, {'0': '/dev/null', '7': 'socket:[2064999]'}], [301, {'0': '/dev/null', '3': 'pipe:[77]', '9': 'socket:[2064443]'}]] as const) {
				await mkdir(path.join(root, String(pid), 'fd'), {recursive: true});
				for (const [fd, target] of Object.entries(links)) await symlink(target, path.join(root, String(pid), 'fd', fd));
			}
			await symlink('/srv/llama', path.join(root, '301', 'cwd'));
			// 0x4738 = 18232; the established connection on the same port (pid 300, a client) is not the listener
			expect(await readLinuxListenerPid(18232, {procRoot: root})).toBe(301);
			expect(await readLinuxListenerPid(18233, {procRoot: root})).toBeUndefined();
			expect(await readLinuxCwd(301, {procRoot: root})).toBe('/srv/llama');
			expect(await readLinuxCwd(300, {procRoot: root})).toBeUndefined();
		} finally {
			await rm(root, {recursive: true, force: true});
		}
	});

	it.runIf(process.platform === 'linux')('finds this very process as the listener of its own port', async () => {
		const server = http.createServer();
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const {port} = server.address() as AddressInfo;
			expect(await readLinuxListenerPid(port)).toBe(process.pid);
			expect(await readLinuxCwd(process.pid)).toBe(process.cwd());
		} finally {
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	});
});
