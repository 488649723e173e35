/**
 * macOS without sudo (sources/mac-system.ts runs the tools; imported here on first use, so a Linux
 * start loads none of it): the GPU (ioreg, mactop where ioreg says nothing) and who uses it, and the
 * memory (sysctl's pressure level, swap, hw.memsize and the GPU's wired limit; memory_pressure -Q).
 */
import type {GpuInfo, GpuProcess, SystemState} from '../../types/system.js';
import type {MemoryPressureLevel} from '../../system/contention.js';
import type {MacReaders, MacToolsOptions} from '../mac-system.js';
import type {SetReason} from './shared.js';

let macModule: Promise<typeof import('../mac-system.js')> | undefined;
const loadMac = (): Promise<typeof import('../mac-system.js')> => (macModule ??= import('../mac-system.js'));

export interface MacSystem {
	/** The GPUs ioreg or mactop list (none when both said nothing) and the processes using the GPU. */
	readGpu(cpuModel: string | undefined): Promise<{gpus: GpuInfo[]; apps: GpuProcess[]}>;
	/** The memory pressure; the Mac's own state and swap are kept for `summary` and `swap`. */
	readPressure(): Promise<{words?: string; level?: MemoryPressureLevel}>;
	/** The state's `mac` field: undefined until a read said something. */
	summary(): SystemState['mac'];
	/** Swap as sysctl says it (preferred to systeminformation's). */
	readonly swap: {readonly total?: number; readonly used?: number};
}

export function createMacSystem(tools: MacToolsOptions | undefined, setReason: SetReason): MacSystem {
	let readers: MacReaders | undefined;
	let macState: SystemState['mac'];
	let usersSource: NonNullable<SystemState['mac']>['gpuUsersSource'];
	let swap: {total?: number; used?: number} = {};
	const mac = async (): Promise<MacReaders> => {
		readers ??= (await loadMac()).createMacReaders(tools);
		return readers;
	};
	return {
		async readGpu(cpuModel) {
			const r = await (await mac()).readGpu(cpuModel);
			for (const [k, v] of Object.entries(r.reasons)) setReason(`mac-${k}`, v);
			usersSource = r.usersSource;
			return {gpus: r.gpus, apps: r.apps};
		},
		async readPressure() {
			const r = await (await mac()).readMemory();
			for (const [k, v] of Object.entries(r.reasons)) setReason(`mac-${k}`, v);
			macState = r.mac;
			swap = {...(r.swapTotalBytes !== undefined ? {total: r.swapTotalBytes} : {}), ...(r.swapUsedBytes !== undefined ? {used: r.swapUsedBytes} : {})};
			return r.pressure ? {words: r.pressure.words, ...(r.pressure.level !== undefined ? {level: r.pressure.level} : {})} : {};
		},
		summary() {
			return macState !== undefined || usersSource !== undefined ? {...macState, ...(usersSource !== undefined ? {gpuUsersSource: usersSource} : {})} : undefined;
		},
		get swap() {
			return swap;
		},
	};
}
