/**
 * The machine around the engines: GPU, residency helpers, contention, infertop's own cost.
 * Owned by the system collectors (source/sources/system*); stored wholesale by the reducer.
 * Unknown = undefined (shown `--`); `reason` says why where a figure is missing.
 */

export interface GpuInfo {
	readonly index?: number;
	readonly name: string;
	readonly vendor?: string;
	readonly memoryUsedMiB?: number;
	readonly memoryTotalMiB?: number;
	/** 0..100 */
	readonly utilizationPct?: number;
	readonly temperatureC?: number;
	readonly powerW?: number;
	/** nvidia-smi GPU UUID (maps compute apps to a GPU). */
	readonly uuid?: string;
	/** Unified memory (Apple silicon): memory figures are the system's. */
	readonly unified?: boolean;
	/** Where the figures come from: `nvidia-smi`, `sysfs`, `ioreg`, `mactop`, `systeminformation`. */
	readonly source?: string;
	/** Apple silicon: bytes of unified memory the GPU driver has in use (ioreg `In use system memory`). */
	readonly memoryInUseBytes?: number;
	/** Apple silicon: bytes the GPU driver has allocated (ioreg `Alloc system memory`). */
	readonly memoryAllocBytes?: number;
	/** GPU cores (Apple: ioreg `gpu-core-count`). */
	readonly cores?: number;
}

export interface GpuProcess {
	readonly pid: number;
	readonly name: string;
	readonly usedMiB?: number;
	readonly gpuIndex?: number;
	/** True when the process is one of the inference engines infertop watches. */
	readonly isEngine?: boolean;
	/** Share of the GPU's time it used over the last scan, % (macOS: per-client GPU time, see system/mac/ioreg.ts). */
	readonly gpuPct?: number;
}

export interface HotProcess {
	readonly pid: number;
	readonly name: string;
	readonly command?: string;
	/** CPU % as top shows it (100 = one core). */
	readonly cpuPct: number;
	/** How long it has been above the hot threshold, ms. */
	readonly hotForMs: number;
	readonly memRssBytes?: number;
	/** Processes of this name added up (a compiler's many jobs); `pid` is the busiest of them. */
	readonly count?: number;
	/** The pids added up, where more than one (at most 32). */
	readonly pids?: readonly number[];
}

export interface EngineProcess {
	readonly pid: number;
	readonly name: string;
	readonly engine: string;
	readonly cpuPct?: number;
	readonly ports?: readonly number[];
	/** One of the engines infertop watches (its pid was passed in as an engine pid). */
	readonly watched?: boolean;
	/** Child processes grouped under this server (Ollama runners, llama-swap's llama-servers…); their CPU is included. */
	readonly children?: number;
}

export interface ContentionState {
	/** Other processes taking CPU, hottest first. */
	readonly hot: readonly HotProcess[];
	/** Inference engines running at the same time (two servers on one GPU is the classic mistake). */
	readonly engines: readonly EngineProcess[];
	/** GPU users that are not engines. */
	readonly gpuUsers: readonly GpuProcess[];
	readonly swapUsedBytes?: number;
	readonly swapTotalBytes?: number;
	/** macOS memory pressure or Linux PSI, words. */
	readonly memoryPressure?: string;
	/** The same as a level, where known. */
	readonly memoryPressureLevel?: 'normal' | 'warn' | 'critical';
	readonly power?: {readonly source?: 'ac' | 'battery'; readonly percent?: number; readonly mode?: string; readonly governor?: string};
	/** One line in words, e.g. `contention: blender 110 % CPU for 3 min; swap 2.1 GB`; undefined when calm. */
	readonly verdict?: string;
	/** True when something competes right now (marked on the tok/s graph). */
	readonly active: boolean;
}

export interface SelfCost {
	/** infertop's own CPU % since the previous system scan (2–10 s; 100 = one core). */
	readonly cpuPct?: number;
	readonly rssBytes?: number;
	/** How long a process-table scan takes, ms (smoothed). */
	readonly processScanMs?: number;
	/** Current system-scan cadence, ms (2 s; up to 10 s while the machine is quiet or scans are slow). */
	readonly processEveryMs?: number;
}

export interface MemoryInfo {
	readonly totalBytes?: number;
	readonly usedBytes?: number;
}

/**
 * macOS (Apple silicon): what sudoless tools say about the GPU's memory limit and the memory around
 * it (sources/mac-system.ts). Unknown = undefined.
 */
export interface MacState {
	/** `sysctl hw.memsize`, bytes. */
	readonly memsizeBytes?: number;
	/** `sysctl iogpu.wired_limit_mb` as set: 0 = the macOS default; undefined = not readable here. */
	readonly wiredLimitMb?: number;
	/** `memory_pressure -Q`: System-wide memory free percentage (0..100). */
	readonly memoryFreePct?: number;
	/** `vm_stat` (read where memory_pressure is not): bytes held by the compressor. */
	readonly compressorBytes?: number;
	/** `vm_stat`: compressed pages written to swap per second since the previous read. */
	readonly swapoutsPerSec?: number;
	/**
	 * Where the GPU users come from: `ioreg` (per-client GPU time of the driver), `mactop`
	 * (its experimental per-process GPU); undefined = no sudoless source answered.
	 */
	readonly gpuUsersSource?: 'ioreg' | 'mactop';
}

export interface SystemState {
	readonly cpuModel?: string;
	readonly cores?: number;
	readonly cpuLoadPct?: number;
	readonly memory: MemoryInfo;
	readonly gpus: readonly GpuInfo[];
	readonly gpuProcesses: readonly GpuProcess[];
	readonly contention: ContentionState;
	readonly self: SelfCost;
	/** Why a figure is missing, e.g. `nvidia-smi: not installed`. */
	readonly reasons: readonly string[];
	readonly updatedAt?: number;
	/** macOS only: the GPU memory limit and memory figures (absent elsewhere). */
	readonly mac?: MacState;
}

export const emptySystem = (): SystemState => ({
	memory: {},
	gpus: [],
	gpuProcesses: [],
	contention: {hot: [], engines: [], gpuUsers: [], active: false},
	self: {},
	reasons: [],
});
