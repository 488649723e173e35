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
 *
 * This file is the schedule and the state; each subsystem is a module of sources/system/: cpu.ts
 * (own cost, machine load), memory.ts, processes.ts (the process table), gpu.ts (nvidia-smi, sysfs,
 * systeminformation; gpu-si.ts), mac.ts (ioreg, mactop, sysctl, memory_pressure; macOS only, its
 * tools' module imported there only), pressure.ts (PSI, macOS), power.ts (battery, pmset, governor).
 */
import os from 'node:os';
import type {Collector, Dispatch} from '../types/state.js';
import type {ContentionState, GpuInfo, GpuProcess, SystemState} from '../types/system.js';
import {createContentionTracker, type ContentionOptions} from '../system/contention.js';
import type {NvidiaSmiOptions} from './nvidia-smi.js';
import type {MacToolsOptions} from './mac-system.js';
import {createCpuReader} from './system/cpu.js';
import {createGpuReader} from './system/gpu.js';
import {createMacSystem} from './system/mac.js';
import {createMemoryReader} from './system/memory.js';
import {createPowerReader} from './system/power.js';
import {createPressureReader} from './system/pressure.js';
import {createProcessTable} from './system/processes.js';
import {platformFacts, type Mutable} from './system/shared.js';

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
	const facts = platformFacts(opts.platform ?? process.platform);
	const {platform, darwin, linux, nativeProc} = facts;
	const intervalMs = opts.intervalMs ?? 1000;
	const baseEvery = Math.max(opts.processEveryMs ?? 2000, intervalMs);
	const quietEvery = Math.max(baseEvery, opts.quietEveryMs ?? 10_000);
	// systeminformation normalises process CPU to all cores on Linux and Windows; ps on macOS is per core.
	const cpus = os.cpus();
	const cores = cpus.length || 1;
	const cpuModel = cpus[0]?.model?.trim() || undefined;
	const siCpuScale = linux || platform === 'win32' ? cores : 1;
	const tracker = createContentionTracker(opts.contention);

	const timers = new Set<NodeJS.Timeout>();
	let running = false;
	const inflight = new Set<Promise<unknown>>();
	const reasons = new Map<string, string>();
	const setReason = (key: string, text: string | undefined): void => {
		if (text === undefined) reasons.delete(key);
		else reasons.set(key, text);
	};

	// The machine loop's cadence.
	const self: Mutable<SystemState['self']> = {};
	let every = baseEvery;
	let slowFloor = baseEvery;
	let scanMsAvg: number | undefined;
	let woken = false;
	let machineWake: (() => void) | undefined;

	function noteScan(ms: number): void {
		if (procs.primed) {
			// smoothed; the priming scan (no CPU baseline) does not count
			scanMsAvg = scanMsAvg === undefined ? ms : scanMsAvg * 0.7 + ms * 0.3;
			self.processScanMs = Math.round(scanMsAvg);
			slowFloor = Math.min(MAX_SLOW_SCAN_EVERY_MS, Math.max(baseEvery, Math.round(scanMsAvg * 10)));
		}
	}

	// The subsystems (sources/system/).
	const cpu = createCpuReader(nativeProc);
	const memory = createMemoryReader(nativeProc, setReason);
	const procs = createProcessTable({platform, siCpuScale, setReason, noteScan});
	const mac = darwin ? createMacSystem(opts.macTools, setReason) : undefined;
	const gpu = createGpuReader({facts, cpuModel, setReason, memory, mac, ...(opts.nvidiaSmi ? {nvidiaSmi: opts.nvidiaSmi} : {}), ...(opts.linuxGpus ? {linuxGpus: opts.linuxGpus} : {})});
	const pressure = createPressureReader(facts, mac, setReason);
	const power = createPowerReader(facts, setReason);

	let computeTimer: NodeJS.Timeout | undefined;
	let contention: ContentionState = {hot: [], engines: [], gpuUsers: [], active: false};
	let gpuProcesses: readonly GpuProcess[] = [];
	let lastKey = '';
	let state: SystemState | undefined;

	function track(p: Promise<unknown>): void {
		inflight.add(p);
		void p.finally(() => inflight.delete(p));
	}

	/** The pids the process table keeps whether busy or not: the engines, infertop, the GPU's users. */
	function keepPids(): Set<number> {
		const keep = new Set(opts.enginePids?.() ?? []);
		keep.add(process.pid);
		// GPU users are named from the table, busy or not
		for (const a of gpu.apps) keep.add(a.pid);
		return keep;
	}

	/** Quiet: nothing competes, no engine works, no log said anything since the last scan. */
	function quiet(): boolean {
		const c = contention;
		const engineBusy = c.engines.some((e) => (e.cpuPct ?? 0) >= ENGINE_BUSY_PCT);
		return !woken && !engineBusy && c.hot.length === 0 && c.gpuUsers.length === 0 && !c.active;
	}

	async function machine(): Promise<void> {
		cpu.sample(self);
		await memory.scan();
		await procs.scan(keepPids);
		// the next interval: doubled while quiet (up to quietEvery), the base the moment work shows
		every = procs.primed && quiet() ? Math.min(quietEvery, Math.max(every * 2, baseEvery)) : baseEvery;
		every = Math.max(every, slowFloor);
		woken = false;
		self.processEveryMs = every;
	}

	function compute(): void {
		const t = now();
		const enginePids = opts.enginePids?.() ?? new Set<number>();
		const table = procs.takeFresh();
		const swapUsed = mac?.swap.used ?? memory.swapUsed;
		const swapTotal = mac?.swap.total ?? memory.swapTotal;
		const {words, level} = pressure.pressure;
		const pw = power.power;
		const cpuLoadPct = cpu.loadPct;
		const r = tracker.update({
			t,
			...(table ? {processes: table} : {}),
			selfPid: process.pid,
			enginePids,
			gpuApps: gpu.apps,
			...(swapUsed !== undefined ? {swapUsedBytes: swapUsed} : {}),
			...(swapTotal !== undefined ? {swapTotalBytes: swapTotal} : {}),
			...(words !== undefined ? {memoryPressure: words} : {}),
			...(level !== undefined ? {memoryPressureLevel: level} : {}),
			...(pw !== undefined ? {power: pw} : {}),
			cores,
			...(cpuLoadPct !== undefined ? {machineCpuPct: cpuLoadPct} : {}),
		});
		contention = r.state;
		gpuProcesses = r.gpuProcesses;
		const macSummary = mac?.summary();
		const gpus: GpuInfo[] = gpu.gpus;
		const next: SystemState = {
			...(cpuModel ? {cpuModel} : {}),
			cores,
			...(cpuLoadPct !== undefined ? {cpuLoadPct} : {}),
			memory: {...memory.memory},
			gpus,
			gpuProcesses,
			contention,
			self: {...self},
			reasons: [...reasons.values()],
			...(macSummary !== undefined ? {mac: macSummary} : {}),
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
			cpu.reset();
			// the second machine scan comes soon after the priming one (CPU % needs a baseline ≥ 0.5 s old)
			const m = loop(machine, () => (scanMsAvg === undefined ? 600 : every));
			machineWake = () => m.poke();
			// GPU at the machine loop's pace (nvidia-smi is the costliest thing here), slowed with it when quiet
			// (macOS: at the refresh interval while anything is busy: ioreg costs a few ms, no driver context)
			loop(() => gpu.scan(), () => (darwin && every <= baseEvery ? (opts.gpuEveryMs ?? intervalMs) : Math.max(opts.gpuEveryMs ?? baseEvery, every)));
			loop(() => pressure.scan(), () => Math.max(PRESSURE_EVERY_MS, every));
			loop(() => power.scan(), () => Math.max(POWER_EVERY_MS, every));
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
