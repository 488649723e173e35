/**
 * macOS readers, without sudo (issue 33): the Apple GPU's busy share and memory in use, who uses the
 * GPU, the GPU's wired-memory limit, memory pressure and swap. Loaded by the system collector only
 * on macOS (a dynamic import): a Linux start never loads this file nor runs any of its tools.
 *
 * What runs, each through execa with an argument array, a timeout and LC_ALL=C; a tool that is
 * missing, fails or hangs becomes a reason, never a crash, and its figures stay unknown (`--`):
 *  - every GPU scan (the refresh interval while anything is busy, slower when the machine is quiet):
 *      `ioreg -r -c IOGPU -d 1 -w 0`               busy %, memory in use (system/mac/ioreg.ts)
 *      `ioreg -r -c AGXDeviceUserClient -d 1 -w 0` GPU time per process → who uses the GPU
 *      `mactop --headless --count 1 --interval 500` only where ioreg gives no GPU statistics and
 *          mactop is installed (JSON is its default format: v0.2.x rejects `--format`)
 *  - every memory-pressure scan (5 s; slower when quiet):
 *      `sysctl hw.memsize iogpu.wired_limit_mb vm.swapusage kern.memorystatus_vm_pressure_level`
 *      `memory_pressure -Q`                          free percentage; `vm_stat` where it fails
 */
import {loadExeca} from './lazy-execa.js';
import {onPath} from './nvidia-smi.js';
import {firstLine} from './ollama-ps-cli.js';
import type {GpuInfo, GpuProcess, MacState} from '../types/system.js';
import type {MemoryPressureLevel} from '../system/contention.js';
import {gpuShares, parseIoregClients, parseIoregGpus, type GpuClientTotal} from '../system/mac/ioreg.js';
import {parseMactop, type MactopSample} from '../system/mac/mactop.js';
import {parseMacSysctl, parseMemoryPressure, parseVmStat} from '../system/mac/vm.js';

export interface MacToolsOptions {
	/** Environment for the tools (tests put fake `ioreg`, `sysctl`, `mactop`… first on PATH). */
	readonly env?: Readonly<Record<string, string | undefined>>;
	/** Per-command timeout, ms. Default 3000 (mactop: 5000, it samples for half a second). */
	readonly timeoutMs?: number;
	readonly now?: () => number;
}

/** A process must use at least this share of the GPU to be named as competing with the engines. */
export const MAC_GPU_USER_PCT = 5;

export interface MacGpuReading {
	readonly gpus: GpuInfo[];
	/** Processes using the GPU now (≥ MAC_GPU_USER_PCT), engines included (the tracker tells them apart). */
	readonly apps: GpuProcess[];
	readonly usersSource?: 'ioreg' | 'mactop';
	/** Why a figure is missing, keyed for the collector's reasons (undefined clears the key). */
	readonly reasons: Readonly<Record<string, string | undefined>>;
}

export interface MacMemoryReading {
	readonly mac: MacState;
	readonly swapTotalBytes?: number;
	readonly swapUsedBytes?: number;
	readonly pressure?: {readonly words: string; readonly level?: MemoryPressureLevel};
	readonly reasons: Readonly<Record<string, string | undefined>>;
}

export interface MacReaders {
	readGpu(cpuModel?: string): Promise<MacGpuReading>;
	readMemory(): Promise<MacMemoryReading>;
}

interface RunResult {
	readonly stdout?: string;
	readonly reason?: string;
}

function errWords(tool: string, error: unknown): string {
	const e = error as {code?: string; message?: string};
	if (e?.code === 'ENOENT') return `${tool}: not available`;
	if (e?.code === 'EACCES' || e?.code === 'EPERM') return `${tool}: permission denied`;
	return `${tool}: ${firstLine(e?.message) ?? 'failed'}`;
}

export function createMacReaders(opts: MacToolsOptions = {}): MacReaders {
	const now = opts.now ?? Date.now;
	const timeout = opts.timeoutMs ?? 3000;
	const env: Record<string, string | undefined> = {...opts.env, LC_ALL: 'C'};
	let lastClients: {t: number; totals: Map<number, GpuClientTotal>} | undefined;
	let lastSwapouts: {t: number; n: number; pageSize: number} | undefined;

	async function run(bin: string, args: readonly string[], ms = timeout, keepOnFailure = false): Promise<RunResult> {
		try {
			const r = await (await loadExeca())(bin, [...args], {env, timeout: ms, forceKillAfterDelay: 300, reject: false, stdin: 'ignore', maxBuffer: 8 * 1024 * 1024});
			if (r.timedOut) return {reason: `${bin}: timed out after ${ms / 1000} s`};
			const code = (r as {code?: string}).code;
			if (code === 'ENOENT') return {reason: `${bin}: not available`};
			if (code === 'EACCES') return {reason: `${bin}: permission denied`};
			const stdout = String(r.stdout ?? '');
			// sysctl exits 1 when one name is unknown here, having printed the others.
			if (r.failed && !(keepOnFailure && stdout.trim() !== '')) {
				return {reason: `${bin}: ${firstLine(String(r.stderr ?? '')) ?? firstLine(stdout) ?? `exit ${r.exitCode ?? r.signal ?? '?'}`}`};
			}
			return {stdout};
		} catch (error) {
			return {reason: errWords(bin, error)};
		}
	}

	async function readMactop(): Promise<{sample?: MactopSample; reason?: string}> {
		if (!onPath('mactop', env.PATH ?? process.env.PATH, 'darwin')) return {reason: 'mactop: not installed'};
		const r = await run('mactop', ['--headless', '--count', '1', '--interval', '500'], Math.max(timeout, 5000));
		if (r.stdout === undefined) return {reason: r.reason};
		const sample = parseMactop(r.stdout);
		return sample ? {sample} : {reason: 'mactop: no sample in its output'};
	}

	return {
		async readGpu(cpuModel?: string): Promise<MacGpuReading> {
			const reasons: Record<string, string | undefined> = {};
			let gpus: GpuInfo[] = [];
			let mactop: MactopSample | undefined;
			const io = await run('ioreg', ['-r', '-c', 'IOGPU', '-d', '1', '-w', '0']);
			const parsed = io.stdout === undefined ? [] : parseIoregGpus(io.stdout);
			const fallbackName = cpuModel !== undefined && /^Apple /.test(cpuModel) ? cpuModel : 'Apple GPU';
			if (parsed.length > 0) {
				gpus = parsed.map((g, index) => ({
					index,
					name: g.model ?? fallbackName,
					vendor: 'Apple',
					unified: true,
					source: 'ioreg',
					...(g.cores !== undefined ? {cores: g.cores} : {}),
					...(g.deviceUtilPct !== undefined ? {utilizationPct: g.deviceUtilPct} : {}),
					...(g.inUseBytes !== undefined ? {memoryInUseBytes: g.inUseBytes} : {}),
					...(g.allocBytes !== undefined ? {memoryAllocBytes: g.allocBytes} : {}),
				}));
				reasons.gpu = undefined;
			} else {
				const m = await readMactop();
				mactop = m.sample;
				if (mactop && (mactop.busyPct !== undefined || mactop.name !== undefined)) {
					gpus = [{
						index: 0,
						name: mactop.name ?? fallbackName,
						vendor: 'Apple',
						unified: true,
						source: 'mactop',
						...(mactop.cores !== undefined ? {cores: mactop.cores} : {}),
						...(mactop.busyPct !== undefined ? {utilizationPct: mactop.busyPct} : {}),
					}];
					reasons.gpu = undefined;
				} else {
					reasons.gpu = `GPU busy: ${io.reason ?? 'ioreg gave no GPU statistics'}; ${m.reason ?? 'mactop gave no GPU figure'}`;
				}
			}
			// Who uses the GPU: the driver's per-client GPU time (what Activity Monitor's GPU column shows).
			const t = now();
			const cl = await run('ioreg', ['-r', '-c', 'AGXDeviceUserClient', '-d', '1', '-w', '0']);
			const totals = cl.stdout === undefined ? new Map<number, GpuClientTotal>() : parseIoregClients(cl.stdout);
			let apps: GpuProcess[] = [];
			let usersSource: MacGpuReading['usersSource'];
			if (totals.size > 0) {
				usersSource = 'ioreg';
				if (lastClients) apps = gpuShares(lastClients.totals, totals, t - lastClients.t).filter((s) => s.gpuPct >= MAC_GPU_USER_PCT).map((s) => ({pid: s.pid, name: s.name, gpuPct: s.gpuPct}));
				lastClients = {t, totals};
				reasons.gpuUsers = undefined;
			} else {
				lastClients = undefined;
				if (mactop?.processes !== undefined) {
					usersSource = 'mactop';
					apps = mactop.processes.filter((p) => p.gpuPct >= MAC_GPU_USER_PCT).map((p) => ({pid: p.pid, name: p.command, gpuPct: p.gpuPct}));
					reasons.gpuUsers = undefined;
				} else {
					reasons.gpuUsers = 'GPU users: macOS does not tell without sudo here (no GPU clients in ioreg, no mactop)';
				}
			}
			return {gpus, apps, ...(usersSource ? {usersSource} : {}), reasons};
		},

		async readMemory(): Promise<MacMemoryReading> {
			const reasons: Record<string, string | undefined> = {};
			const mac: {-readonly [K in keyof MacState]: MacState[K]} = {};
			const sc = await run('sysctl', ['hw.memsize', 'iogpu.wired_limit_mb', 'vm.swapusage', 'kern.memorystatus_vm_pressure_level'], timeout, true);
			const s = sc.stdout === undefined ? {} : parseMacSysctl(sc.stdout);
			reasons.sysctl = sc.stdout === undefined ? sc.reason : undefined;
			if (s.memsizeBytes !== undefined) mac.memsizeBytes = s.memsizeBytes;
			if (s.wiredLimitMb !== undefined) mac.wiredLimitMb = s.wiredLimitMb;
			reasons.wired = sc.stdout !== undefined && s.wiredLimitMb === undefined ? 'iogpu.wired_limit_mb: not readable here (an older macOS or an Intel Mac): the limit is estimated' : undefined;
			const mp = await run('memory_pressure', ['-Q']);
			const p = mp.stdout === undefined ? {} : parseMemoryPressure(mp.stdout);
			if (p.freePct !== undefined) mac.memoryFreePct = p.freePct;
			if (mac.memsizeBytes === undefined && p.memsizeBytes !== undefined) mac.memsizeBytes = p.memsizeBytes;
			let extra: string | undefined;
			if (p.freePct === undefined) {
				// memory_pressure missing or unreadable: the compressor and swap-outs from vm_stat instead.
				const vs = await run('vm_stat', []);
				const v = vs.stdout === undefined ? {} : parseVmStat(vs.stdout);
				const t = now();
				if (v.compressorBytes !== undefined) mac.compressorBytes = v.compressorBytes;
				if (v.swapouts !== undefined && v.pageSize !== undefined) {
					if (lastSwapouts && t > lastSwapouts.t && v.swapouts >= lastSwapouts.n) mac.swapoutsPerSec = ((v.swapouts - lastSwapouts.n) * 1000) / (t - lastSwapouts.t);
					lastSwapouts = {t, n: v.swapouts, pageSize: v.pageSize};
				}
				const parts: string[] = [];
				if (v.compressorBytes !== undefined) parts.push(`compressor ${(v.compressorBytes / 1e9).toFixed(1)} GB`);
				if (mac.swapoutsPerSec !== undefined && v.pageSize !== undefined) parts.push(`swap-out ${((mac.swapoutsPerSec * v.pageSize) / 1e6).toFixed(1)} MB/s`);
				extra = parts.length > 0 ? parts.join(', ') : undefined;
				reasons.pressure = vs.stdout === undefined ? `memory pressure: ${mp.reason ?? 'memory_pressure gave no figure'}; ${vs.reason ?? 'vm_stat failed'}` : undefined;
			} else reasons.pressure = undefined;
			const level = s.pressureLevel;
			const detail = p.freePct !== undefined ? `${p.freePct} % free` : extra;
			const words = level !== undefined ? `${level}${detail ? ` (${detail})` : ''}` : detail;
			return {
				mac,
				...(s.swapTotalBytes !== undefined ? {swapTotalBytes: s.swapTotalBytes} : {}),
				...(s.swapUsedBytes !== undefined ? {swapUsedBytes: s.swapUsedBytes} : {}),
				...(words !== undefined ? {pressure: {words, ...(level !== undefined ? {level} : {})}} : {}),
				reasons,
			};
		},
	};
}
