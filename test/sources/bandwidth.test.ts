import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {detectBandwidth, parseSystemProfilerCores, type BandwidthDeps} from '../../source/sources/bandwidth.js';

const SP_JSON = JSON.stringify({SPDisplaysDataType: [{_name: 'Apple M4 Max', sppci_cores: '40', sppci_model: 'Apple M4 Max', sppci_bus: 'spdisplays_builtin'}]});

function mac(outputs: Record<string, string | undefined>): BandwidthDeps {
	return {
		platform: 'darwin',
		run: async (file, args) => outputs[`${file} ${args.join(' ')}`],
		cpuBrand: async () => undefined,
		gpuControllers: async () => [],
	};
}

describe('detectBandwidth', () => {
	it('macOS: brand string + GPU cores from system_profiler', async () => {
		const deps = mac({'sysctl -n machdep.cpu.brand_string': 'Apple M4 Max\n', 'system_profiler -json SPDisplaysDataType': SP_JSON, 'sysctl -n hw.perflevel0.physicalcpu': '12\n'});
		expect(await detectBandwidth({deps})).toEqual({gbs: 546, source: 'table: Apple M4 Max 40-core GPU', chip: 'Apple M4 Max 40-core GPU'});
	});

	it('--bandwidth wins over the table', async () => {
		const deps = mac({'sysctl -n machdep.cpu.brand_string': 'Apple M4 Pro', 'system_profiler -json SPDisplaysDataType': undefined});
		expect(await detectBandwidth({override: 250, deps})).toEqual({gbs: 250, source: '--bandwidth', chip: 'Apple M4 Pro'});
	});

	it('Linux: nvidia-smi name, laptop part left unknown with a hint', async () => {
		const deps: BandwidthDeps = {platform: 'linux', run: async (f) => (f === 'nvidia-smi' ? 'NVIDIA GeForce RTX 4090 Laptop GPU\n' : undefined), cpuBrand: async () => 'AMD Ryzen 9 7945HX', gpuControllers: async () => []};
		const r = await detectBandwidth({deps});
		expect(r.gbs).toBeUndefined();
		expect(r.chip).toBe('NVIDIA GeForce RTX 4090 Laptop GPU');
		expect(r.hint).toMatch(/pass --bandwidth GB\/s/);
	});

	it('Linux: first of several GPUs; systeminformation controllers when nvidia-smi is missing', async () => {
		const smi: BandwidthDeps = {platform: 'linux', run: async () => 'NVIDIA H100 80GB HBM3\nNVIDIA H100 80GB HBM3\n', cpuBrand: async () => undefined, gpuControllers: async () => []};
		expect(await detectBandwidth({deps: smi})).toMatchObject({gbs: 3350, source: 'table: NVIDIA H100 SXM5'});
		const si: BandwidthDeps = {platform: 'linux', run: async () => undefined, cpuBrand: async () => 'AMD Ryzen 9', gpuControllers: async () => [{model: 'Raphael'}, {model: 'Radeon RX 7900 XTX'}]};
		expect(await detectBandwidth({deps: si})).toMatchObject({gbs: 960});
	});

	it('a real nvidia-smi capture (H200)', async () => {
		const captured = readFileSync(new URL('../fixtures/bytes/nvidia-smi-name-h200.txt', import.meta.url), 'utf8');
		const deps: BandwidthDeps = {platform: 'linux', run: async (f, args) => (f === 'nvidia-smi' && args.join(' ') === '--query-gpu=name --format=csv,noheader' ? captured : undefined), cpuBrand: async () => undefined, gpuControllers: async () => []};
		expect(await detectBandwidth({deps})).toEqual({gbs: 4800, source: 'table: NVIDIA H200', chip: 'NVIDIA H200'});
	});

	it('never throws: failing tools give an unknown chip and a hint', async () => {
		const deps: BandwidthDeps = {platform: 'linux', run: async () => { throw new Error('boom'); }, cpuBrand: async () => 'Some CPU', gpuControllers: async () => []};
		const r = await detectBandwidth({deps});
		expect(r.gbs).toBeUndefined();
		expect(r.hint).toMatch(/pass --bandwidth/);
	});

	it('really runs on this machine without throwing', async () => {
		const r = await detectBandwidth({});
		expect(r.gbs === undefined ? typeof r.hint : typeof r.source).toBe('string');
	});

	it('parses system_profiler json and text', () => {
		expect(parseSystemProfilerCores(SP_JSON)).toEqual({cores: 40, model: 'Apple M4 Max'});
		expect(parseSystemProfilerCores('Chipset Model: Apple M3 Max\n      Total Number of Cores: 30\n')).toEqual({cores: 30});
		expect(parseSystemProfilerCores(undefined)).toEqual({});
	});
});
