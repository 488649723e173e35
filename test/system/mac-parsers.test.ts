/**
 * The macOS readers' parsers on published captures (test/fixtures/system/mac/README.md says where
 * each comes from): two ioreg captures (M1 Pro, macOS 12.6 and a 2026 one), two mactop samples (M1
 * Ultra, mactop 0.2.7 and 2.x), sysctl of an M4 Max on macOS 15 and an M5 on macOS 26, vm_stat, and
 * files reconstructed from Apple's format strings. Exact values; hostile and missing fields unknown.
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {gpuShares, parseIoregClients, parseIoregGpus} from '../../source/system/mac/ioreg.js';
import {parseMactop} from '../../source/system/mac/mactop.js';
import {parseMacSysctl, parseMemoryPressure, parseVmStat} from '../../source/system/mac/vm.js';

const dir = fileURLToPath(new URL('../fixtures/system/mac/', import.meta.url));
const fixture = (name: string): string => readFileSync(path.join(dir, name), 'utf8');

const node = (stats: string, extra = ''): string =>
	`+-o AGXAcceleratorG17X  <class AGXAcceleratorG17X, id 0x1, registered, matched, active, busy 0 (1 ms), retain 9>\n    {\n${extra}      "PerformanceStatistics" = {${stats}}\n    }\n`;

describe('ioreg PerformanceStatistics (CAPTURED)', () => {
	it('M1 Pro on macOS 12.6 (exelban/stats#1094): idle, no model line', () => {
		expect(parseIoregGpus(fixture('ioreg-m1pro-macos12.6.txt'))).toEqual([
			{className: 'AGXAcceleratorG13X', deviceUtilPct: 2, rendererUtilPct: 2, tilerUtilPct: 2, inUseBytes: 340983808, allocBytes: 1214005248},
		]);
	});

	it('M1 Pro 16-core at 34 % (llama-swap monitor_test.go): model and cores; "(driver)" is not "In use system memory"', () => {
		expect(parseIoregGpus(fixture('ioreg-m1pro-16core.txt'))).toEqual([
			{className: 'AGXAcceleratorG13X', model: 'Apple M1 Pro', cores: 16, deviceUtilPct: 34, rendererUtilPct: 34, tilerUtilPct: 34, inUseBytes: 7688503296, allocBytes: 14511046656},
		]);
	});
});

describe('ioreg: hostile and missing', () => {
	it('over 100 %, a fraction, a sign, past 2^53, words: unknown; never 0', () => {
		expect(parseIoregGpus(node('"Device Utilization %"=101,"Renderer Utilization %"=12.5,"Tiler Utilization %"=-3,"In use system memory"=18446744071562067968,"Alloc system memory"=lots'))).toEqual([{className: 'AGXAcceleratorG17X'}]);
	});

	it('the renderer share is not the busy share; "(driver)" never feeds a value', () => {
		expect(parseIoregGpus(node('"In use system memory (driver)"=5,"Renderer Utilization %"=40'))).toEqual([{className: 'AGXAcceleratorG17X', rendererUtilPct: 40}]);
	});

	it('no PerformanceStatistics, empty output, an error text: no GPU', () => {
		expect(parseIoregGpus('')).toEqual([]);
		expect(parseIoregGpus('ioreg: no such class\n')).toEqual([]);
		expect(parseIoregGpus('+-o AGXAcceleratorG16X  <class AGXAcceleratorG16X, id 0x1>\n    {\n      "gpu-core-count" = 40\n    }\n')).toEqual([]);
		// a dictionary line cut short (a clipped ioreg) is not read
		expect(parseIoregGpus(node('"Device Utilization %"=50').replace(/}\n {4}}/, '\n    }'))).toEqual([]);
	});

	it('two accelerators stay two; a model name is sanitized and a data-form model read', () => {
		const two = node('"Device Utilization %"=50', '      "model" = "Apple M4\u202e Max\u001b[31m"\n') + node('"Device Utilization %"=7', '      "model" = <"Apple M5">\n');
		const g = parseIoregGpus(two);
		expect(g.map((x) => [x.model, x.deviceUtilPct])).toEqual([['Apple M4 Max', 50], ['Apple M5', 7]]);
	});
});

describe('ioreg GPU clients (RECONSTRUCTED from mactop native_stats.go keys)', () => {
	it('sums every client and every AppUsage entry of a process; an empty AppUsage is 0 ns', () => {
		const m = parseIoregClients(fixture('ioreg-clients.txt'));
		expect([...m.values()]).toEqual([
			{pid: 444, name: 'runningboardd', gpuNs: 0},
			{pid: 440, name: 'WindowServer', gpuNs: 39814507416},
		]);
	});

	it('shares over a window: growth ÷ wall time; a drop or a new process has no share; capped at 100', () => {
		const a = parseIoregClients(fixture('ioreg-clients.txt'));
		const later = fixture('ioreg-clients.txt').replace('"accumulatedGPUTime"=1000000000', '"accumulatedGPUTime"=1500000000');
		const b = parseIoregClients(later + '+-o AGXDeviceUserClient  <class AGXDeviceUserClient, id 0x9>\n    {\n      "AppUsage" = ({"API"="Metal","accumulatedGPUTime"=7})\n      "IOUserClientCreator" = "pid 901, blender"\n    }\n');
		// 0.5 s of GPU time in 2 s → 25 %
		expect(gpuShares(a, b, 2000)).toEqual([{pid: 440, name: 'WindowServer', gpuPct: 25}, {pid: 444, name: 'runningboardd', gpuPct: 0}]);
		expect(gpuShares(b, a, 2000).find((s) => s.pid === 440)).toBeUndefined();
		expect(gpuShares(a, b, 100)[0]!.gpuPct).toBe(100);
		expect(gpuShares(a, b, 0)).toEqual([]);
	});

	it('a counter past 2^53 or malformed makes the process partial: no share; a bad pid is skipped', () => {
		const bad = '+-o AGXDeviceUserClient  <class AGXDeviceUserClient, id 0x1>\n    {\n      "AppUsage" = ({"API"="Metal","accumulatedGPUTime"=99999999999999999999})\n      "IOUserClientCreator" = "pid 12, hog"\n    }\n'
			+ '+-o AGXDeviceUserClient  <class AGXDeviceUserClient, id 0x2>\n    {\n      "IOUserClientCreator" = "pid 0, kernel"\n    }\n';
		const m = parseIoregClients(bad);
		expect([...m.values()]).toEqual([{pid: 12, name: 'hog', gpuNs: 0, partial: true}]);
		expect(gpuShares(m, m, 1000)).toEqual([]);
	});
});

describe('mactop --headless (CAPTURED)', () => {
	it('mactop 0.2.7 on an M1 Ultra (context-labs README)', () => {
		expect(parseMactop(fixture('mactop-m1ultra-v0.2.7.json'))).toEqual({
			busyPct: 13.709099344350134, name: 'Apple M1 Ultra', cores: 64,
			memoryTotalBytes: 137438953472, memoryUsedBytes: 95795822592, swapTotalBytes: 21474836480, swapUsedBytes: 20288831488,
		});
	});

	it('mactop 2.x on an M1 Ultra (metaspartan README): the same keys among many more', () => {
		expect(parseMactop(fixture('mactop-m1ultra-v2.json'))).toEqual({
			busyPct: 53.51970510465884, name: 'Apple M1 Ultra', cores: 64,
			memoryTotalBytes: 137438953472, memoryUsedBytes: 74062512128, swapTotalBytes: 5368709120, swapUsedBytes: 4094689280,
		});
	});

	it('one object per line (no --count): the last sample; processes with gpu_ms_per_sec as a share', () => {
		const lines = `${JSON.stringify({gpu_usage: 10})}\n${JSON.stringify({gpu_usage: 88.5, processes: [{pid: 901, command: 'blender', gpu_ms_per_sec: 412.5}, {pid: -1, command: 'x', gpu_ms_per_sec: 1}, {pid: 7, command: 'y'}]})}\n`;
		expect(parseMactop(lines)).toEqual({busyPct: 88.5, processes: [{pid: 901, command: 'blender', gpuPct: 41.25}]});
	});

	it('hostile: over 100 %, strings, used past total, garbage: unknown', () => {
		expect(parseMactop(JSON.stringify({gpu_usage: 140, system_info: {name: 7, gpu_core_count: 'many'}, memory: {total: 100, used: 200, swap_total: -1}}))).toEqual({memoryTotalBytes: 100});
		expect(parseMactop('Failed to initialize metrics: IOReport unavailable')).toBeUndefined();
		expect(parseMactop('')).toBeUndefined();
	});
});

describe('sysctl, memory_pressure, vm_stat', () => {
	it('hw.memsize of an M4 Max on macOS 15 and an M5 on macOS 26 (archspec captures); no iogpu line = unknown', () => {
		expect(parseMacSysctl(fixture('sysctl-m4max-sequoia.txt'))).toEqual({memsizeBytes: 68719476736});
		expect(parseMacSysctl(fixture('sysctl-m5-tahoe.txt'))).toEqual({memsizeBytes: 25769803776});
	});

	it('the four names infertop asks for (RECONSTRUCTED from sysctl.c and the M1 Ultra capture)', () => {
		expect(parseMacSysctl(fixture('sysctl-m1ultra-swap.txt'))).toEqual({
			memsizeBytes: 137438953472, wiredLimitMb: 0, swapTotalBytes: 21474836480, swapUsedBytes: 20288834109, pressureLevel: 'warn',
		});
	});

	it('a decimal comma, no (encrypted), a set limit; hostile values unknown', () => {
		expect(parseMacSysctl('iogpu.wired_limit_mb: 114688\nvm.swapusage: total = 1024,00M  used = 0,00M  free = 1024,00M  \n')).toEqual({wiredLimitMb: 114688, swapTotalBytes: 1073741824, swapUsedBytes: 0});
		expect(parseMacSysctl('hw.memsize: -5\niogpu.wired_limit_mb: 040x\nvm.swapusage: total = 10.00M  used = 20.00M  free = 0.00M\nkern.memorystatus_vm_pressure_level: 3\n')).toEqual({});
		expect(parseMacSysctl('sysctl: unknown oid \'iogpu.wired_limit_mb\'\n')).toEqual({});
	});

	it('memory_pressure -Q (RECONSTRUCTED: 24 GiB, 63 % free)', () => {
		expect(parseMemoryPressure(fixture('memory_pressure-24g.txt'))).toEqual({memsizeBytes: 25769803776, freePct: 63});
		expect(parseMemoryPressure('System-wide memory free percentage: 140%\n')).toEqual({});
	});

	it('vm_stat of a 4 KiB-page Mac (wazuh/wazuh#22113)', () => {
		expect(parseVmStat(fixture('vm_stat-4k.txt'))).toEqual({pageSize: 4096, compressorBytes: 0, wiredBytes: 715958 * 4096, swapouts: 0, swapins: 0});
		expect(parseVmStat('Pages occupied by compressor: 12.\n')).toEqual({});
	});
});
