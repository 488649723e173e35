/**
 * The GPUs as systeminformation's graphics() knows them (name, vendor, VRAM; load, temperature and
 * power where its platform says): asked once, where neither nvidia-smi, sysfs nor (on macOS) ioreg
 * and mactop gave any. An Apple GPU is unified memory.
 */
import type {GpuInfo} from '../../types/system.js';
import {loadSi, type Mutable} from './shared.js';

export async function readSiGpus(darwin: boolean): Promise<GpuInfo[]> {
	const g = await (await loadSi()).graphics();
	return (g.controllers ?? []).filter((c) => c.model).map((c, index) => {
		const apple = darwin || /apple/i.test(c.vendor ?? '');
		const info: Mutable<GpuInfo> = {index, name: c.model, ...(c.vendor ? {vendor: c.vendor} : {}), source: 'systeminformation'};
		if (apple) info.unified = true;
		else {
			if (c.memoryTotal) info.memoryTotalMiB = c.memoryTotal;
			else if (c.vram && !c.vramDynamic) info.memoryTotalMiB = c.vram;
			if (c.memoryUsed !== null && c.memoryUsed !== undefined) info.memoryUsedMiB = c.memoryUsed;
			if (c.utilizationGpu !== null && c.utilizationGpu !== undefined) info.utilizationPct = c.utilizationGpu;
			if (c.temperatureGpu !== null && c.temperatureGpu !== undefined) info.temperatureC = c.temperatureGpu;
			if (c.powerDraw !== null && c.powerDraw !== undefined) info.powerW = c.powerDraw;
		}
		return info;
	});
}
