/**
 * The machine's memory bandwidth for the ceiling (DESIGN §1): `--bandwidth GB/s` wins; otherwise the
 * chip or GPU is detected (sysctl + system_profiler on macOS, nvidia-smi, systeminformation) and
 * looked up in the built-in table (model/chips.ts). Never throws; unknown → gbs undefined + hint.
 */
import {loadExeca} from './lazy-execa.js';
import type {BandwidthInfo} from '../types/state.js';
import {appleChip, lookupBandwidth, unknownChipHint, type ChipInput} from '../model/chips.js';
import {sanitize} from '../util/sanitize.js';
import {readLinuxCpuBrand, readLinuxGpus} from './linux-hw.js';

export interface BandwidthDeps {
	readonly platform?: NodeJS.Platform;
	/** Run a command; stdout, or undefined when it failed or is missing. */
	readonly run?: (file: string, args: readonly string[]) => Promise<string | undefined>;
	readonly cpuBrand?: () => Promise<string | undefined>;
	readonly gpuControllers?: () => Promise<readonly {model?: string; cores?: number}[]>;
}

const TIMEOUT_MS = 8000;

async function defaultRun(file: string, args: readonly string[]): Promise<string | undefined> {
	try {
		const r = await (await loadExeca())(file, args, {timeout: TIMEOUT_MS, reject: false, stdin: 'ignore'});
		return r.exitCode === 0 && typeof r.stdout === 'string' ? r.stdout : undefined;
	} catch {
		return undefined;
	}
}

async function defaultCpuBrand(): Promise<string | undefined> {
	// Linux: /proc/cpuinfo (sources/linux-hw.ts), not systeminformation (~7 MB of RSS once loaded)
	if (process.platform === 'linux') return readLinuxCpuBrand();
	try {
		// systeminformation only for these static facts, loaded when first asked (not at start-up)
		const si = (await import('systeminformation')).default;
		const c = await si.cpu();
		const brand = [c.manufacturer, c.brand].filter(Boolean).join(' ').trim();
		return brand || undefined;
	} catch {
		return undefined;
	}
}

async function defaultControllers(): Promise<readonly {model?: string; cores?: number}[]> {
	if (process.platform === 'linux') return (await readLinuxGpus()).map((g) => ({model: g.name}));
	try {
		const si = (await import('systeminformation')).default;
		const g = await si.graphics();
		return g.controllers.map((c) => ({model: c.model, cores: (c as {cores?: number}).cores}));
	} catch {
		return [];
	}
}

/** GPU core count from `system_profiler -json SPDisplaysDataType` (sppci_cores). Pure. */
export function parseSystemProfilerCores(stdout: string | undefined): {cores?: number; model?: string} {
	if (!stdout) return {};
	try {
		const j: unknown = JSON.parse(stdout);
		const list = (j as {SPDisplaysDataType?: unknown}).SPDisplaysDataType;
		if (Array.isArray(list)) {
			for (const d of list) {
				const cores = Number((d as {sppci_cores?: unknown}).sppci_cores);
				const model = (d as {sppci_model?: unknown}).sppci_model;
				if (Number.isInteger(cores) && cores > 0) return {cores, model: typeof model === 'string' ? model : undefined};
			}
		}
	} catch {
		// Plain-text output: "Total Number of Cores: 40"
		const m = /Total Number of Cores:\s*(\d+)/.exec(stdout);
		if (m) return {cores: Number(m[1])};
	}
	return {};
}

/** Detect the chip, look it up; `override` (GB/s) wins. Never throws. */
export async function detectBandwidth({override, deps = {}}: {override?: number; deps?: BandwidthDeps} = {}): Promise<BandwidthInfo> {
	const run = deps.run ?? defaultRun;
	const platform = deps.platform ?? process.platform;
	const input: {cpuBrand?: string; gpuName?: string; gpuCores?: number; pCores?: number} = {};
	try {
		if (platform === 'darwin') {
			input.cpuBrand = (await run('sysctl', ['-n', 'machdep.cpu.brand_string']))?.trim() || undefined;
			if (!input.cpuBrand) input.cpuBrand = await (deps.cpuBrand ?? defaultCpuBrand)();
			if (appleChip(input.cpuBrand)) {
				const sp = parseSystemProfilerCores(await run('system_profiler', ['-json', 'SPDisplaysDataType']));
				input.gpuCores = sp.cores;
				if (input.gpuCores === undefined) {
					const ctl = await (deps.gpuControllers ?? defaultControllers)();
					input.gpuCores = ctl.find((c) => typeof c.cores === 'number' && c.cores > 0)?.cores;
				}
				const p = Number((await run('sysctl', ['-n', 'hw.perflevel0.physicalcpu']))?.trim());
				if (Number.isInteger(p) && p > 0) input.pCores = p;
			}
		} else {
			const smi = await run('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader']);
			const first = smi?.split('\n').map((l) => l.trim()).find(Boolean);
			if (first) input.gpuName = first;
			if (!input.gpuName) {
				const ctl = await (deps.gpuControllers ?? defaultControllers)();
				// The first controller the table knows (an iGPU is often listed before the discrete one).
				const known = ctl.find((c) => c.model && lookupBandwidth({gpuName: c.model}));
				input.gpuName = known?.model ?? ctl.find((c) => c.model)?.model;
			}
			input.cpuBrand = await (deps.cpuBrand ?? defaultCpuBrand)();
		}
	} catch {}
	const clean: ChipInput = {
		...input,
		cpuBrand: input.cpuBrand === undefined ? undefined : sanitize(input.cpuBrand, 120),
		gpuName: input.gpuName === undefined ? undefined : sanitize(input.gpuName, 120),
	};
	const found = lookupBandwidth(clean);
	const chip = found?.chip ?? clean.gpuName ?? clean.cpuBrand;
	if (override !== undefined && Number.isFinite(override) && override > 0) {
		return {gbs: override, source: '--bandwidth', chip};
	}
	if (found) return {gbs: found.gbs, source: found.source, chip: found.chip};
	return {gbs: undefined, chip, hint: unknownChipHint(clean)};
}
