import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {parseNvidiaApps, parseNvidiaGpus, smiNumber} from '../../source/system/nvidia-smi.js';
import {readNvidiaSmi} from '../../source/sources/nvidia-smi.js';

const fixtures = fileURLToPath(new URL('../fixtures/system/nvidia-smi/', import.meta.url));
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');
const SEVEN = ['index', 'name', 'memory.used', 'memory.total', 'utilization.gpu', 'temperature.gpu', 'power.draw'];
const UUID0 = 'GPU-5a1b0c3e-7d6f-4b2a-9c8e-1f2d3e4a5b6c';
const UUID1 = 'GPU-9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b';

describe('nvidia-smi CSV (reconstructed fixtures, see README)', () => {
	it('reads the 7-field query without header or units; [N/A] is unknown, not 0', () => {
		expect(parseNvidiaGpus(fixture('gpu-noheader.csv'), SEVEN)).toEqual([
			{index: 0, name: 'NVIDIA GeForce RTX 4090', vendor: 'NVIDIA', memoryUsedMiB: 18423, memoryTotalMiB: 24564, utilizationPct: 97, temperatureC: 71, powerW: 402.51},
			{index: 1, name: 'NVIDIA GeForce RTX 3090', vendor: 'NVIDIA', memoryUsedMiB: 2, memoryTotalMiB: 24576, utilizationPct: 0, temperatureC: 34},
		]);
		// the default field list (with uuid) reads the same 7-field output
		expect(parseNvidiaGpus(fixture('gpu-noheader.csv'))[1]!.powerW).toBeUndefined();
	});

	it('reads the header/units variant by header names; [Not Supported] is unknown', () => {
		const gpus = parseNvidiaGpus(fixture('gpu-header-units.csv'));
		expect(gpus[0]).toEqual({index: 0, name: 'NVIDIA H100 80GB HBM3', vendor: 'NVIDIA', memoryUsedMiB: 71234, memoryTotalMiB: 81559, utilizationPct: 88, temperatureC: 63, powerW: 512.33});
		expect(gpus[1]!.utilizationPct).toBeUndefined();
		expect(gpus[1]!.powerW).toBeUndefined();
		expect(gpus[1]!.memoryUsedMiB).toBe(0);
	});

	it('maps compute apps to GPUs by uuid; [N/A] memory is unknown', () => {
		const gpus = parseNvidiaGpus(fixture('gpu-uuid-noheader.csv'));
		expect(gpus.map((g) => [g.index, g.uuid])).toEqual([[0, UUID0], [1, UUID1]]);
		expect(parseNvidiaApps(fixture('apps-noheader.csv'), gpus)).toEqual([
			{pid: 41231, name: '/usr/local/bin/ollama', usedMiB: 17012, gpuUuid: UUID0, gpuIndex: 0},
			{pid: 52210, name: '/opt/blender/blender', usedMiB: 1200, gpuUuid: UUID0, gpuIndex: 0},
			{pid: 60111, name: '/usr/bin/python3', gpuUuid: UUID1, gpuIndex: 1},
		]);
		expect(parseNvidiaApps(fixture('apps-header-units.csv'), gpus)).toEqual([
			{pid: 41231, name: '/usr/local/bin/ollama', usedMiB: 17012, gpuUuid: UUID0, gpuIndex: 0},
		]);
	});

	it('empty output and "No running processes found" are no processes', () => {
		expect(parseNvidiaApps(fixture('apps-empty.csv'))).toEqual([]);
		expect(parseNvidiaApps('No running processes found\n')).toEqual([]);
		expect(parseNvidiaGpus('')).toEqual([]);
	});

	it('keeps a process name that contains commas, drops junk rows', () => {
		const apps = parseNvidiaApps('123, /opt/My App, Inc/bin/app, 50, GPU-x\nnot a row\n, , ,\n');
		expect(apps).toEqual([{pid: 123, name: '/opt/My App, Inc/bin/app', usedMiB: 50, gpuUuid: 'GPU-x'}]);
	});

	it('smiNumber', () => {
		expect(smiNumber('[N/A]')).toBeUndefined();
		expect(smiNumber('[Not Supported]')).toBeUndefined();
		expect(smiNumber('N/A')).toBeUndefined();
		expect(smiNumber('12 %')).toBe(12);
		expect(smiNumber('2 GiB')).toBe(2048);
		expect(smiNumber('abc')).toBeUndefined();
	});
});

describe('nvidia-smi CSV (CAPTURED on an H200, nvidia-smi 580.159.04)', () => {
	const H200 = 'GPU-b73f0639-631c-8121-8ed7-6474f1edc8a1';
	it('reads the idle GPU in all three formats alike', () => {
		const idle = {index: 0, name: 'NVIDIA H200', vendor: 'NVIDIA', memoryUsedMiB: 0, memoryTotalMiB: 143771, utilizationPct: 0, temperatureC: 38};
		expect(parseNvidiaGpus(fixture('h200/gpu-noheader.csv'), SEVEN)).toEqual([{...idle, powerW: 119.07}]);
		expect(parseNvidiaGpus(fixture('h200/gpu-uuid-noheader.csv'))).toEqual([{...idle, powerW: 117.23, uuid: H200}]);
		expect(parseNvidiaGpus(fixture('h200/gpu-header-units.csv'))).toEqual([{...idle, powerW: 116.29}]);
	});

	it('reads the busy GPU and its compute app, mapped by uuid', () => {
		const gpus = parseNvidiaGpus(fixture('h200/gpu-busy-noheader.csv'));
		expect(gpus).toEqual([{index: 0, name: 'NVIDIA H200', vendor: 'NVIDIA', memoryUsedMiB: 3279, memoryTotalMiB: 143771, utilizationPct: 100, temperatureC: 61, powerW: 667.93, uuid: H200}]);
		const app = {pid: 424, name: 'python3', usedMiB: 3270, gpuUuid: H200, gpuIndex: 0};
		expect(parseNvidiaApps(fixture('h200/apps-noheader.csv'), gpus)).toEqual([app]);
		expect(parseNvidiaApps(fixture('h200/apps-header-units.csv'), gpus)).toEqual([app]);
		expect(parseNvidiaApps(fixture('h200/apps-empty.csv'), gpus)).toEqual([]);
	});
});

describe('readNvidiaSmi (fake executables through execa)', () => {
	let dir: string;
	const env = (): Record<string, string> => ({PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`});
	const fake = (body: string): void => {
		const file = path.join(dir, 'nvidia-smi');
		writeFileSync(file, `#!/bin/sh\n${body}\n`);
		chmodSync(file, 0o755);
	};
	beforeAll(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'infertop-smi-'));
		writeFileSync(path.join(dir, 'gpu.csv'), fixture('gpu-uuid-noheader.csv'));
		writeFileSync(path.join(dir, 'apps.csv'), fixture('apps-noheader.csv'));
	});
	afterAll(() => {
		rmSync(dir, {recursive: true, force: true});
	});

	it('runs both queries with the expected arguments', async () => {
		fake([
			'case "$1" in',
			`  --query-gpu=index,name,memory.used,memory.total,utilization.gpu,temperature.gpu,power.draw,uuid) [ "$2" = "--format=csv,noheader,nounits" ] && cat "${dir}/gpu.csv" ;;`,
			`  --query-compute-apps=pid,process_name,used_memory,gpu_uuid) [ "$2" = "--format=csv,noheader,nounits" ] && cat "${dir}/apps.csv" ;;`,
			'  *) echo "bad args: $*" >&2; exit 2 ;;',
			'esac',
		].join('\n'));
		const r = await readNvidiaSmi({env: env()});
		expect(r.reason).toBeUndefined();
		expect(r.gpus.map((g) => g.name)).toEqual(['NVIDIA GeForce RTX 4090', 'NVIDIA RTX A6000']);
		expect(r.apps.map((a) => [a.pid, a.gpuIndex])).toEqual([[41231, 0], [52210, 0], [60111, 1]]);
	});

	it('a hanging nvidia-smi is killed after the timeout and gives a reason', async () => {
		fake('exec sleep 30');
		const t0 = Date.now();
		const r = await readNvidiaSmi({env: env(), timeoutMs: 300});
		expect(r).toEqual({gpus: [], apps: [], reason: 'nvidia-smi: timed out after 0.3 s'});
		expect(Date.now() - t0).toBeLessThan(5000);
	});

	it('a driver failure gives its first line as the reason', async () => {
		fake('echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."\nexit 9');
		const r = await readNvidiaSmi({env: env()});
		expect(r.gpus).toEqual([]);
		expect(r.reason).toMatch(/^nvidia-smi: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver/);
	});

	it('a missing nvidia-smi is a reason, never a throw', async () => {
		const r = await readNvidiaSmi({bin: path.join(dir, 'nope')});
		expect(r).toEqual({gpus: [], apps: [], reason: 'nvidia-smi: not installed', missing: true});
	});
});
