import {describe, expect, it} from 'vitest';
import {lookupBandwidth, unknownChipHint} from '../../source/model/chips.js';

const apple = (cpuBrand: string, gpuCores?: number, pCores?: number): number | undefined => lookupBandwidth({cpuBrand, gpuCores, pCores})?.gbs;

describe('Apple silicon table (anchors.md §3.1)', () => {
	it('single-bin chips', () => {
		const table: [string, number][] = [
			['Apple M1', 68], ['Apple M1 Pro', 200], ['Apple M1 Max', 400], ['Apple M1 Ultra', 800],
			['Apple M2', 100], ['Apple M2 Pro', 200], ['Apple M2 Max', 400], ['Apple M2 Ultra', 800],
			['Apple M3', 100], ['Apple M3 Pro', 150], ['Apple M3 Ultra', 819],
			['Apple M4', 120], ['Apple M4 Pro', 273], ['Apple M5', 153], ['Apple M5 Pro', 307],
		];
		for (const [brand, gbs] of table) expect(apple(brand), brand).toBe(gbs);
		expect(apple('Apple M2 Max', 30)).toBe(400);
		expect(apple('Apple M2 Max', 38)).toBe(400);
	});

	it('binned chips by GPU core count', () => {
		expect(apple('Apple M3 Max', 30)).toBe(300);
		expect(apple('Apple M3 Max', 40)).toBe(400);
		expect(apple('Apple M4 Max', 32)).toBe(410);
		expect(apple('Apple M4 Max', 40)).toBe(546);
		expect(apple('Apple M5 Max', 40)).toBe(614);
		expect(lookupBandwidth({cpuBrand: 'Apple M5 Max', gpuCores: 32})).toEqual({gbs: 460, chip: 'Apple M5 Max 32-core GPU', source: 'table: Apple M5 Max 32-core GPU (unverified)'});
		expect(lookupBandwidth({cpuBrand: 'Apple M4 Max', gpuCores: 40})).toEqual({gbs: 546, chip: 'Apple M4 Max 40-core GPU', source: 'table: Apple M4 Max 40-core GPU'});
	});

	it('binned chips by P-core count when GPU cores are unknown (not M5 Max)', () => {
		expect(apple('Apple M3 Max', undefined, 10)).toBe(300);
		expect(apple('Apple M4 Max', undefined, 12)).toBe(546);
		expect(apple('Apple M5 Max', undefined, 12)).toBeUndefined();
	});

	it('an undecidable bin is unknown, with a hint naming both', () => {
		expect(lookupBandwidth({cpuBrand: 'Apple M4 Max'})).toBeUndefined();
		expect(unknownChipHint({cpuBrand: 'Apple M4 Max'})).toBe('Apple M4 Max is 410 GB/s (32-core GPU) or 546 GB/s (40-core GPU): GPU core count unknown, pass --bandwidth GB/s');
		expect(lookupBandwidth({cpuBrand: 'Apple M4 Max', gpuCores: 36})).toBeUndefined();
	});

	it('the chip from system_profiler GPU name when the brand string is missing', () => {
		expect(lookupBandwidth({gpuName: 'Apple M3 Max', gpuCores: 40})?.gbs).toBe(400);
	});
});

describe('discrete GPUs (anchors.md §3.2)', () => {
	const gpu = (gpuName: string): number | undefined => lookupBandwidth({gpuName})?.gbs;
	it('nvidia-smi names', () => {
		expect(gpu('NVIDIA GeForce RTX 3090')).toBe(936);
		expect(gpu('NVIDIA GeForce RTX 3090 Ti')).toBe(1008);
		expect(gpu('NVIDIA GeForce RTX 4090')).toBe(1008);
		expect(gpu('NVIDIA GeForce RTX 5090')).toBe(1792);
		expect(gpu('NVIDIA A100-SXM4-40GB')).toBe(1555);
		expect(gpu('NVIDIA A100-PCIE-40GB')).toBe(1555);
		expect(gpu('NVIDIA A100-SXM4-80GB')).toBe(2039);
		expect(gpu('NVIDIA A100 80GB PCIe')).toBe(1935);
		expect(gpu('NVIDIA H100 80GB HBM3')).toBe(3350);
		expect(gpu('NVIDIA H100 PCIe')).toBe(2000);
		expect(gpu('NVIDIA H100 NVL')).toBe(3938);
		expect(gpu('NVIDIA H200')).toBe(4800);
		expect(gpu('NVIDIA L40S')).toBe(864);
		expect(gpu('NVIDIA B200')).toBe(8000);
		expect(gpu('AMD Instinct MI300X')).toBe(5300);
		expect(gpu('AMD Radeon RX 7900 XTX')).toBe(960);
	});

	it('laptop GPUs are not their desktop namesakes', () => {
		expect(gpu('NVIDIA GeForce RTX 4090 Laptop GPU')).toBeUndefined();
		expect(gpu('NVIDIA GeForce RTX 3090 Max-Q')).toBeUndefined();
		expect(unknownChipHint({gpuName: 'NVIDIA GeForce RTX 4090 Laptop GPU'})).toMatch(/laptop GPU .* not its desktop namesake: pass --bandwidth/);
	});

	it('unknown chips', () => {
		expect(gpu('NVIDIA GeForce GTX 1080')).toBeUndefined();
		expect(lookupBandwidth({cpuBrand: 'Intel(R) Xeon(R) CPU'})).toBeUndefined();
		expect(unknownChipHint({cpuBrand: 'Intel(R) Xeon(R) CPU'})).toBe('unknown chip "Intel(R) Xeon(R) CPU": pass --bandwidth GB/s');
		expect(lookupBandwidth({})).toBeUndefined();
	});
});
