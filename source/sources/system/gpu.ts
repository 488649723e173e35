/**
 * The GPUs and who uses them, from the first reader that answers: on macOS ioreg or mactop
 * (mac.ts); nvidia-smi (sources/nvidia-smi.ts) where it is installed, not asked again once it is
 * known to be missing (never on macOS); else on Linux sysfs and pci.ids (sources/linux-hw.ts),
 * every scan (amdgpu's VRAM and load are live); elsewhere systeminformation (gpu-si.ts), asked
 * once. A unified-memory GPU's memory is the system's.
 */
import type {GpuInfo, GpuProcess} from '../../types/system.js';
import {readLinuxGpus} from '../linux-hw.js';
import {readNvidiaSmi, type NvidiaSmiOptions} from '../nvidia-smi.js';
import {readSiGpus} from './gpu-si.js';
import type {MacSystem} from './mac.js';
import type {MemoryReader} from './memory.js';
import {errWords, type PlatformFacts, type SetReason} from './shared.js';

export interface GpuReader {
	scan(): Promise<void>;
	readonly gpus: GpuInfo[];
	/** Processes using a GPU, as the GPU's own tool lists them. */
	readonly apps: GpuProcess[];
}

export interface GpuReaderOptions {
	readonly facts: PlatformFacts;
	readonly cpuModel: string | undefined;
	readonly setReason: SetReason;
	readonly memory: MemoryReader;
	/** macOS only. */
	readonly mac: MacSystem | undefined;
	readonly nvidiaSmi?: NvidiaSmiOptions;
	/** For tests: the Linux GPU reader used where there is no nvidia-smi (default sysfs + pci.ids). */
	readonly linuxGpus?: () => Promise<GpuInfo[]>;
}

export function createGpuReader(o: GpuReaderOptions): GpuReader {
	const {facts, setReason, memory, mac} = o;
	const {darwin, linux, nativeProc, platform} = facts;
	let gpus: GpuInfo[] = [];
	let apps: GpuProcess[] = [];
	let nvidiaMissing = darwin; // no NVIDIA GPUs on macOS: don't spawn nvidia-smi there
	let graphicsTried = false;
	return {
		async scan() {
			if (darwin && mac) {
				// Apple silicon, without sudo: ioreg (mactop where ioreg says nothing), and who uses the GPU.
				const r = await mac.readGpu(o.cpuModel);
				apps = r.apps;
				if (r.gpus.length > 0) {
					graphicsTried = true;
					gpus = r.gpus;
				} else if (gpus.some((g) => g.source === 'ioreg' || g.source === 'mactop')) {
					// this read failed: the last figures are not figures of now
					gpus = gpus.map(({utilizationPct: _u, memoryInUseBytes: _m, memoryAllocBytes: _a, ...rest}) => rest);
				}
			}
			if (!nvidiaMissing) {
				const r = await readNvidiaSmi(o.nvidiaSmi);
				if (r.missing) nvidiaMissing = true;
				else {
					gpus = r.gpus.map((g) => ({...g, source: 'nvidia-smi'}));
					apps = r.apps;
					setReason('gpu', r.reason);
					return;
				}
				setReason('gpu', linux || platform === 'win32' ? r.reason : undefined);
			}
			// No nvidia-smi. On Linux: sysfs and pci.ids, every scan (amdgpu's VRAM and load are live);
			// elsewhere what systeminformation knows (name, vendor, VRAM), asked once.
			if (nativeProc) {
				gpus = (await (o.linuxGpus ?? readLinuxGpus)()).map((g) => ({...g, source: 'sysfs'}));
			} else if (!graphicsTried) {
				// (on macOS only where ioreg and mactop gave no GPU)
				graphicsTried = true;
				try {
					gpus = await readSiGpus(darwin);
				} catch (error) {
					setReason('graphics', `graphics: ${errWords(error)}`);
				}
			}
			// Unified memory (Apple silicon): the GPU's memory is the system's.
			const m = memory.memory;
			gpus = gpus.map((g) => (g.unified
				? {...g, ...(m.usedBytes !== undefined ? {memoryUsedMiB: Math.round(m.usedBytes / 1048576)} : {}), ...(m.totalBytes !== undefined ? {memoryTotalMiB: Math.round(m.totalBytes / 1048576)} : {})}
				: g));
		},
		get gpus() {
			return gpus;
		},
		get apps() {
			return apps;
		},
	};
}
