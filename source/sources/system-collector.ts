/**
 * The machine around the engines: memory, swap, GPU, power, other processes, infertop's own cost.
 *
 * Cadence (nothing here runs on the render path; every scan is async and guarded):
 *  - the machine loop: infertop's own CPU % and RSS, machine CPU load, memory/swap and the process
 *    table (the lean sampler: /proc on Linux, one `ps` on macOS; systeminformation elsewhere), every
 *    2 s (or the refresh interval when slower). When the machine is quiet (no engine busy, no hot
 *    process, no GPU user, no log activity) the interval doubles per quiet scan up to 10 s; `wake()`
 *    (an engine got work) brings it back to the base at once. A slow scan (10 × its duration)
 *    also stretches it;
 *  - GPU (nvidia-smi): at the machine loop's pace; not asked again once it is known to be missing;
 *    on macOS (sources/mac-system.ts, loaded there only): ioreg, and mactop where ioreg says nothing,
 *    at the refresh interval while anything is busy, slowed with the machine loop when quiet;
 *  - memory pressure every 5 s (macOS: sysctl, memory_pressure -Q, the GPU's wired limit), power (battery: /sys/class/power_supply on Linux; pmset; governor)
 *    every 10 s (both slowed with the machine loop when quiet), static facts once.
 * Dispatches `{type: 'system'}` only when what it shows changed (figures compared at the resolution
 * they are shown). Missing tools and permission errors become `reasons`, never a crash.
 */
import os from 'node:os';
import {readFileSync} from 'node:fs';
import {readdir, readFile} from 'node:fs/promises';
import {loadExeca} from './lazy-execa.js';
import type {Collector, Dispatch} from '../types/state.js';
import type {ContentionState, GpuInfo, GpuProcess, SystemState} from '../types/system.js';
import {createContentionTracker, type ContentionOptions, type MemoryPressureLevel, type ProcSample} from '../system/contention.js';
import {parseGovernor, parseLinuxPowerSupplies, parsePmset, parsePsiMemory, type PowerSupplyEntry} from '../system/power.js';
import {parseMeminfo, parseProcStatCpu} from '../system/proc.js';
import {readLinuxGpus} from './linux-hw.js';
import {readNvidiaSmi, type NvidiaSmiOptions} from './nvidia-smi.js';
import type {MacReaders, MacToolsOptions} from './mac-system.js';
import {firstLine} from './ollama-ps-cli.js';
import {createProcessSampler, type ProcessSampler} from './process-sampler.js';

/** systeminformation is loaded only where it still earns its place (static facts, macOS memory, battery outside Linux, Windows). */
type SI = typeof import('systeminformation');
let siModule: Promise<SI> | undefined;
const loadSi = (): Promise<SI> => (siModule ??= import('systeminformation').then((m) => ((m as {default?: SI}).default ?? m) as SI));
/** The macOS readers, imported on macOS only: a Linux start loads none of them. */
let macModule: Promise<typeof import('./mac-system.js')> | undefined;
const loadMac = (): Promise<typeof import('./mac-system.js')> => (macModule ??= import('./mac-system.js'));

export interface SystemCollectorOptions {
	readonly dispatch: Dispatch;
	/** Pids of the engines infertop watches (never counted as contention). Read on every scan. */
	readonly enginePids?: () => ReadonlySet<number>;
	/** The refresh interval, ms: the machine loop never runs faster than this. Default 1000. */
	readonly intervalMs?: number;
	readonly now?: () => number;
	/** Fastest machine-loop cadence (self cost, CPU load, memory, process table), ms. Default 2000. */
	readonly processEveryMs?: number;
	/** Slowest cadence when the machine is quiet, ms. Default 10 000. */
	readonly quietEveryMs?: number;
	/** GPU cadence when busy, ms. Default: the machine loop's. */
	readonly gpuEveryMs?: number;
	readonly nvidiaSmi?: NvidiaSmiOptions;
	/** For tests: the Linux GPU reader used where there is no nvidia-smi (default sysfs + pci.ids). */
	readonly linuxGpus?: () => Promise<GpuInfo[]>;
	readonly contention?: ContentionOptions;
	/** For tests: the platform whose tools to use. */
	readonly platform?: NodeJS.Platform;
	/** macOS tools (ioreg, sysctl, mactop, memory_pressure, vm_stat): environment and timeout, for tests. */
	readonly macTools?: MacToolsOptions;
}

/** The collector, plus a read of the last state it computed (for benches and one-shot modes). */
export interface SystemCollector extends Collector {
	current(): SystemState | undefined;
	/** An engine got work (a request, a log line): scan at the base pace again, now. */
	wake(): void;
}

const PRESSURE_EVERY_MS = 5000;
const POWER_EVERY_MS = 10_000;
const MAX_SLOW_SCAN_EVERY_MS = 10_000;
/** CPU % (100 = one core) from which an engine counts as busy for the back-off. */
const ENGINE_BUSY_PCT = 5;

type Mutable<T> = {-readonly [K in keyof T]: T[K]};

function cpuTimesFromOs(): {idle: number; total: number} {
	let idle = 0;
	let total = 0;
	for (const c of os.cpus()) {
		const t = c.times;
		idle += t.idle;
		total += t.user + t.nice + t.sys + t.idle + t.irq;
	}
	return {idle, total};
}

function errWords(error: unknown): string {
	const e = error as {code?: string; message?: string};
	if (e?.code === 'EACCES' || e?.code === 'EPERM') return 'permission denied';
	if (e?.code === 'ENOENT') return 'not available';
	return firstLine(e?.message) ?? 'failed';
}

/**
 * The key a state is compared by: figures at the resolution they are shown (CPU % to 0.1, bytes
 * to three significant digits), so a figure that moves in its last byte does not make a frame.
 */
export function systemKey(state: SystemState): string {
	return JSON.stringify(state, (k, v: unknown) => {
		if (k === 'updatedAt') return undefined;
		if (typeof v !== 'number') return v;
		if (/Bytes$/.test(k) && Math.abs(v) >= 1000) return Number(v.toPrecision(3));
		return Number.isInteger(v) ? v : Math.round(v * 10) / 10;
	});
}

export function createSystemCollector(opts: SystemCollectorOptions): SystemCollector {
	const now = opts.now ?? Date.now;
	const platform = opts.platform ?? process.platform;
	const intervalMs = opts.intervalMs ?? 1000;
	const baseEvery = Math.max(opts.processEveryMs ?? 2000, intervalMs);
	const quietEvery = Math.max(baseEvery, opts.quietEveryMs ?? 10_000);
	const darwin = platform === 'darwin';
	const linux = platform === 'linux';
	const nativeProc = linux && platform === process.platform;
	// systeminformation normalises process CPU to all cores on Linux and Windows; ps on macOS is per core.
	const cpus = os.cpus();
	const cores = cpus.length || 1;
	const cpuModel = cpus[0]?.model?.trim() || undefined;
	const siCpuScale = linux || platform === 'win32' ? cores : 1;
	const tracker = createContentionTracker(opts.contention);
	const sampler: ProcessSampler | undefined = platform === process.platform ? createProcessSampler({platform}) : undefined;

	const timers = new Set<NodeJS.Timeout>();
	let running = false;
	const inflight = new Set<Promise<unknown>>();

	const cpuTimes = (): {idle: number; total: number} => {
		if (nativeProc) {
			try {
				const t = parseProcStatCpu(readFileSync('/proc/stat', 'latin1'));
				if (t) return t;
			} catch {}
		}
		return cpuTimesFromOs();
	};

	// Latest inputs.
	let lastCpuUsage = process.cpuUsage();
	let lastCpuWall = performance.now();
	let lastTimes = cpuTimes();
	const self: Mutable<SystemState['self']> = {};
	let cpuLoadPct: number | undefined;
	const memory: Mutable<SystemState['memory']> = {};
	let swapUsed: number | undefined;
	let swapTotal: number | undefined;
	let table: ProcSample[] | undefined;
	let tableFresh = false;
	let primed = false;
	let every = baseEvery;
	let slowFloor = baseEvery;
	let scanMsAvg: number | undefined;
	let computeTimer: NodeJS.Timeout | undefined;
	let gpus: GpuInfo[] = [];
	let gpuApps: GpuProcess[] = [];
	let nvidiaMissing = darwin; // no NVIDIA GPUs on macOS: don't spawn nvidia-smi there
	let graphicsTried = false;
	let pressure: {words?: string; level?: MemoryPressureLevel} = {};
	let macReaders: MacReaders | undefined;
	let macState: SystemState['mac'];
	let macUsersSource: NonNullable<SystemState['mac']>['gpuUsersSource'];
	let macSwap: {total?: number; used?: number} = {};
	let power: Mutable<NonNullable<ContentionState['power']>> | undefined;
	const reasons = new Map<string, string>();
	let contention: ContentionState = {hot: [], engines: [], gpuUsers: [], active: false};
	let gpuProcesses: readonly GpuProcess[] = [];
	let lastKey = '';
	let state: SystemState | undefined;
	let woken = false;
	let machineWake: (() => void) | undefined;

	const setReason = (key: string, text: string | undefined): void => {
		if (text === undefined) reasons.delete(key);
		else reasons.set(key, text);
	};

	function track(p: Promise<unknown>): void {
		inflight.add(p);
		void p.finally(() => inflight.delete(p));
	}

	/** Own cost and machine CPU load over the window since the last machine scan. */
	function cheap(): void {
		const wall = performance.now();
		const usage = process.cpuUsage(lastCpuUsage);
		const dt = (wall - lastCpuWall) * 1000;
		// a window under 200 ms says more about timer jitter than about cost
		if (dt >= 200_000) {
			self.cpuPct = ((usage.user + usage.system) / dt) * 100;
			lastCpuUsage = process.cpuUsage();
			lastCpuWall = wall;
		}
		self.rssBytes = process.memoryUsage.rss();
		const times = cpuTimes();
		const dTotal = times.total - lastTimes.total;
		if (dTotal > 0) cpuLoadPct = Math.max(0, Math.min(100, (1 - (times.idle - lastTimes.idle) / dTotal) * 100));
		lastTimes = times;
	}

	async function scanMemory(): Promise<void> {
		try {
			if (nativeProc) {
				// /proc/meminfo directly (what systeminformation reads, without its extra work)
				const m = parseMeminfo(readFileSync('/proc/meminfo', 'latin1'));
				if (m.totalBytes !== undefined) memory.totalBytes = m.totalBytes;
				if (m.usedBytes !== undefined) memory.usedBytes = m.usedBytes;
				swapTotal = m.swapTotalBytes;
				swapUsed = m.swapUsedBytes;
			} else {
				const m = await (await loadSi()).mem();
				if (m.total > 0) {
					memory.totalBytes = m.total;
					const avail = m.available > 0 ? m.available : undefined;
					memory.usedBytes = avail !== undefined ? m.total - avail : m.used;
				}
				// swaptotal 0 = no swap configured: used 0 of 0 is true, not unknown.
				swapTotal = Number.isFinite(m.swaptotal) ? m.swaptotal : undefined;
				swapUsed = Number.isFinite(m.swapused) ? m.swapused : undefined;
			}
			setReason('memory', undefined);
		} catch (error) {
			setReason('memory', `memory: ${errWords(error)}`);
		}
	}

	function noteScan(ms: number): void {
		if (primed) {
			// smoothed; the priming scan (no CPU baseline) does not count
			scanMsAvg = scanMsAvg === undefined ? ms : scanMsAvg * 0.7 + ms * 0.3;
			self.processScanMs = Math.round(scanMsAvg);
			slowFloor = Math.min(MAX_SLOW_SCAN_EVERY_MS, Math.max(baseEvery, Math.round(scanMsAvg * 10)));
		}
	}

	async function scanProcesses(): Promise<void> {
		const t0 = performance.now();
		try {
			if (sampler) {
				const keep = new Set(opts.enginePids?.() ?? []);
				keep.add(process.pid);
				// GPU users are named from the table, busy or not
				for (const a of gpuApps) keep.add(a.pid);
				const r = await sampler.sample(keep);
				noteScan(r.scanMs);
				table = r.processes;
				setReason('processes', r.total === 0 ? 'processes: none listed' : undefined);
			} else {
				const r = await (await loadSi()).processes();
				noteScan(performance.now() - t0);
				const list: ProcSample[] = [];
				for (const p of r.list ?? []) {
					if (!Number.isInteger(p.pid) || p.pid <= 0) continue;
					const command = [p.command, p.params].filter((s) => s && s !== '').join(' ');
					list.push({
						pid: p.pid,
						...(Number.isInteger(p.parentPid) ? {ppid: p.parentPid} : {}),
						name: p.name || (p.command ?? '').split(/\s+/)[0] || '?',
						...(command !== '' ? {command} : {}),
						// the first scan has no baseline (lifetime averages on Linux): names only
						...(primed && Number.isFinite(p.cpu) ? {cpuPct: p.cpu * siCpuScale} : {}),
						...(Number.isFinite(p.memRss) && p.memRss > 0 ? {memRssBytes: p.memRss * 1024} : {}),
					});
				}
				table = list;
				setReason('processes', list.length === 0 ? 'processes: none listed' : undefined);
			}
			tableFresh = true;
			primed = true;
		} catch (error) {
			setReason('processes', `processes: ${errWords(error)}`);
		}
	}

	/** Quiet: nothing competes, no engine works, no log said anything since the last scan. */
	function quiet(): boolean {
		const c = contention;
		const engineBusy = c.engines.some((e) => (e.cpuPct ?? 0) >= ENGINE_BUSY_PCT);
		return !woken && !engineBusy && c.hot.length === 0 && c.gpuUsers.length === 0 && !c.active;
	}

	async function machine(): Promise<void> {
		cheap();
		await scanMemory();
		await scanProcesses();
		// the next interval: doubled while quiet (up to quietEvery), the base the moment work shows
		every = primed && quiet() ? Math.min(quietEvery, Math.max(every * 2, baseEvery)) : baseEvery;
		every = Math.max(every, slowFloor);
		woken = false;
		self.processEveryMs = every;
	}

	async function mac(): Promise<MacReaders> {
		macReaders ??= (await loadMac()).createMacReaders(opts.macTools);
		return macReaders;
	}

	async function scanGpu(): Promise<void> {
		if (darwin) {
			// Apple silicon, without sudo: ioreg (mactop where ioreg says nothing), and who uses the GPU.
			const r = await (await mac()).readGpu(cpuModel);
			for (const [k, v] of Object.entries(r.reasons)) setReason(`mac-${k}`, v);
			gpuApps = r.apps;
			macUsersSource = r.usersSource;
			if (r.gpus.length > 0) {
				graphicsTried = true;
				gpus = r.gpus;
			} else if (gpus.some((g) => g.source === 'ioreg' || g.source === 'mactop')) {
				// this read failed: the last figures are not figures of now
				gpus = gpus.map(({utilizationPct: _u, memoryInUseBytes: _m, memoryAllocBytes: _a, ...rest}) => rest);
			}
		}
		if (!nvidiaMissing) {
			const r = await readNvidiaSmi(opts.nvidiaSmi);
			if (r.missing) nvidiaMissing = true;
			else {
				gpus = r.gpus.map((g) => ({...g, source: 'nvidia-smi'}));
				gpuApps = r.apps;
				setReason('gpu', r.reason);
				return;
			}
			setReason('gpu', linux || platform === 'win32' ? r.reason : undefined);
		}
		// No nvidia-smi. On Linux: sysfs and pci.ids, every scan (amdgpu's VRAM and load are live);
		// elsewhere what systeminformation knows (name, vendor, VRAM), asked once.
		if (nativeProc) {
			gpus = (await (opts.linuxGpus ?? readLinuxGpus)()).map((g) => ({...g, source: 'sysfs'}));
		} else if (!graphicsTried) {
			// (on macOS only where ioreg and mactop gave no GPU)
			graphicsTried = true;
			try {
				const g = await (await loadSi()).graphics();
				gpus = (g.controllers ?? []).filter((c) => c.model).map((c, index) => {
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
			} catch (error) {
				setReason('graphics', `graphics: ${errWords(error)}`);
			}
		}
		// Unified memory (Apple silicon): the GPU's memory is the system's.
		gpus = gpus.map((g) => (g.unified
			? {...g, ...(memory.usedBytes !== undefined ? {memoryUsedMiB: Math.round(memory.usedBytes / 1048576)} : {}), ...(memory.totalBytes !== undefined ? {memoryTotalMiB: Math.round(memory.totalBytes / 1048576)} : {})}
			: g));
	}

	async function scanPressure(): Promise<void> {
		try {
			if (linux) {
				const p = parsePsiMemory(await readFile('/proc/pressure/memory', 'utf8'));
				pressure = p ? {words: p.words, level: p.level} : {};
			} else if (darwin) {
				// sysctl (pressure level, swap, hw.memsize, iogpu.wired_limit_mb) and memory_pressure -Q.
				const r = await (await mac()).readMemory();
				for (const [k, v] of Object.entries(r.reasons)) setReason(`mac-${k}`, v);
				pressure = r.pressure ? {words: r.pressure.words, ...(r.pressure.level !== undefined ? {level: r.pressure.level} : {})} : {};
				macState = r.mac;
				macSwap = {...(r.swapTotalBytes !== undefined ? {total: r.swapTotalBytes} : {}), ...(r.swapUsedBytes !== undefined ? {used: r.swapUsedBytes} : {})};
			}
			setReason('pressure', undefined);
		} catch (error) {
			pressure = {};
			// PSI is absent on older kernels and some containers: say so once, quietly.
			setReason('pressure', `memory pressure: ${errWords(error)}`);
		}
	}

	/** /sys/class/power_supply read directly (systeminformation's battery() read the same files, and said "AC" where none is listed). */
	async function linuxPower(): Promise<{source?: 'ac' | 'battery'; percent?: number}> {
		const root = '/sys/class/power_supply';
		const read = (f: string): Promise<string | undefined> => readFile(f, 'utf8').catch(() => undefined);
		const names = await readdir(root).catch(() => [] as string[]);
		const entries: PowerSupplyEntry[] = await Promise.all(
			names.map(async (n) => {
				const [type, online, status, capacity] = await Promise.all(['type', 'online', 'status', 'capacity'].map((f) => read(`${root}/${n}/${f}`)));
				return {...(type !== undefined ? {type} : {}), ...(online !== undefined ? {online} : {}), ...(status !== undefined ? {status} : {}), ...(capacity !== undefined ? {capacity} : {})};
			}),
		);
		return parseLinuxPowerSupplies(entries);
	}

	async function scanPower(): Promise<void> {
		const next: Mutable<NonNullable<ContentionState['power']>> = {};
		if (nativeProc) {
			const p = await linuxPower();
			if (p.source) next.source = p.source;
			if (p.percent !== undefined) next.percent = p.percent;
		} else {
			try {
				const b = await (await loadSi()).battery();
				if (b.hasBattery) {
					next.source = b.acConnected ? 'ac' : 'battery';
					if (Number.isFinite(b.percent)) next.percent = b.percent;
				} else if (b.acConnected) next.source = 'ac';
			} catch {}
		}
		if (darwin) {
			try {
				const r = await (await loadExeca())('pmset', ['-g'], {timeout: 2000, reject: false, stdin: 'ignore'});
				const mode = r.failed ? undefined : parsePmset(String(r.stdout));
				if (mode) next.mode = mode;
				setReason('power', r.failed ? 'pmset: failed' : undefined);
			} catch (error) {
				setReason('power', `pmset: ${errWords(error)}`);
			}
		}
		if (linux) {
			try {
				const g = parseGovernor(await readFile('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor', 'utf8'));
				if (g) next.governor = g;
			} catch {
				// Not exposed in VMs and containers: nothing to say, the field stays `--`.
			}
		}
		power = Object.keys(next).length > 0 ? next : undefined;
	}

	function compute(): void {
		const t = now();
		const enginePids = opts.enginePids?.() ?? new Set<number>();
		const r = tracker.update({
			t,
			...(tableFresh && table ? {processes: table} : {}),
			selfPid: process.pid,
			enginePids,
			gpuApps,
			...((macSwap.used ?? swapUsed) !== undefined ? {swapUsedBytes: macSwap.used ?? swapUsed} : {}),
			...((macSwap.total ?? swapTotal) !== undefined ? {swapTotalBytes: macSwap.total ?? swapTotal} : {}),
			...(pressure.words !== undefined ? {memoryPressure: pressure.words} : {}),
			...(pressure.level !== undefined ? {memoryPressureLevel: pressure.level} : {}),
			...(power !== undefined ? {power} : {}),
			cores,
			...(cpuLoadPct !== undefined ? {machineCpuPct: cpuLoadPct} : {}),
		});
		tableFresh = false;
		contention = r.state;
		gpuProcesses = r.gpuProcesses;
		const next: SystemState = {
			...(cpuModel ? {cpuModel} : {}),
			cores,
			...(cpuLoadPct !== undefined ? {cpuLoadPct} : {}),
			memory: {...memory},
			gpus,
			gpuProcesses,
			contention,
			self: {...self},
			reasons: [...reasons.values()],
			...(darwin && (macState !== undefined || macUsersSource !== undefined) ? {mac: {...macState, ...(macUsersSource !== undefined ? {gpuUsersSource: macUsersSource} : {})}} : {}),
		};
		const key = systemKey(next);
		state = {...next, updatedAt: t};
		if (key !== lastKey) {
			lastKey = key;
			opts.dispatch({type: 'system', system: state});
		}
	}

	function requestCompute(): void {
		if (!running || computeTimer) return;
		computeTimer = setTimeout(() => {
			computeTimer = undefined;
			if (running) compute();
		}, 25);
		computeTimer.unref?.();
	}

	/**
	 * One self-scheduling loop per scan: the next run is timed from the end of the last one, so a
	 * slow scan never overlaps itself and never delays the others. Results landing together are
	 * folded into one recompute.
	 */
	function loop(job: () => Promise<void>, nextDelay: () => number): {poke(): void} {
		let pending: NodeJS.Timeout | undefined;
		let busy = false;
		const run = (): void => {
			if (!running) return;
			busy = true;
			const p = job().catch(() => undefined).then(() => {
				busy = false;
				requestCompute();
				if (!running) return;
				const t = setTimeout(() => {
					timers.delete(t);
					pending = undefined;
					run();
				}, nextDelay());
				t.unref?.();
				timers.add(t);
				pending = t;
			});
			track(p);
		};
		run();
		return {
			poke() {
				// run now instead of at the end of a long quiet wait (never twice at once)
				if (!running || busy || !pending) return;
				clearTimeout(pending);
				timers.delete(pending);
				pending = undefined;
				run();
			},
		};
	}

	return {
		start(): void {
			if (running) return;
			running = true;
			lastCpuUsage = process.cpuUsage();
			lastCpuWall = performance.now();
			lastTimes = cpuTimes();
			// the second machine scan comes soon after the priming one (CPU % needs a baseline ≥ 0.5 s old)
			const m = loop(machine, () => (scanMsAvg === undefined ? 600 : every));
			machineWake = () => m.poke();
			// GPU at the machine loop's pace (nvidia-smi is the costliest thing here), slowed with it when quiet
			// (macOS: at the refresh interval while anything is busy: ioreg costs a few ms, no driver context)
			loop(scanGpu, () => (darwin && every <= baseEvery ? (opts.gpuEveryMs ?? intervalMs) : Math.max(opts.gpuEveryMs ?? baseEvery, every)));
			loop(scanPressure, () => Math.max(PRESSURE_EVERY_MS, every));
			loop(scanPower, () => Math.max(POWER_EVERY_MS, every));
		},
		wake(): void {
			woken = true;
			// only worth an early scan when the loop has slowed down
			if (every > baseEvery) {
				every = baseEvery;
				machineWake?.();
			}
		},
		async stop(): Promise<void> {
			running = false;
			for (const t of timers) clearTimeout(t);
			timers.clear();
			if (computeTimer) clearTimeout(computeTimer);
			computeTimer = undefined;
			await Promise.allSettled([...inflight]);
		},
		current: () => state,
	};
}
