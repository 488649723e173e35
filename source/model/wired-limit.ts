/**
 * Apple silicon: does what the engines hold on the GPU fit under the GPU's wired-memory limit?
 * (pure; issue 33). macOS lets the GPU wire only part of unified memory; a model plus its KV cache
 * past that limit decodes far below the ceiling, or fails to load, and nothing says why.
 *
 * The limit, best source first:
 *  1. `sysctl iogpu.wired_limit_mb` when set (not 0): exact, and live (a `sudo sysctl` takes effect
 *     at once). MiB: setting N makes Metal's recommendedMaxWorkingSetSize N MiB exactly (measured in
 *     AlexsJones/llmfit#754 on an M3 16 GB with 12000 and 14000; antirez/ds4#893: 114688 → 112.00 GiB).
 *  2. The engine's own statement of Metal's recommendedMaxWorkingSetSize: mlx-lm's warning "requires X
 *     MB which is close to the maximum recommended size of Y MB" (engines/mlxlm.ts), llama.cpp's and
 *     Ollama's `ggml_metal_device_init: recommendedMaxWorkingSetSize = N MB` (engines/llamacpp.ts).
 *  3. The default macOS applies when the sysctl is 0, estimated (`~`) from `hw.memsize`: about two
 *     thirds of RAM up to 36 GiB and three quarters above. Sources: the rule as published
 *     (thinkdifferent.blog "The MacBook Pro setting that doubles your AI performance": ~65–70 % at
 *     36 GB or less, ~75 % above; stencel.io on a 128 GB M1 Ultra: ~96 GB, "roughly 75 %"), and
 *     llama.cpp's own `recommendedMaxWorkingSetSize` lines: 11453.25 MB on 16 GiB Macs and 17179.89 MB
 *     on a 24 GiB M2 (exactly 2/3, MB = 10^6 bytes). Not verified: where the step lies between 36 and
 *     48 GiB, and whether it holds on macOS 26, where a 128 GiB M5 Max measured 107.52 GiB (84 %,
 *     antirez/ds4#890) — so the rule is only ever an estimate, shown with `~`, and any engine's
 *     statement replaces it.
 *
 * What the engines hold on the GPU, from their own numbers only (never guessed from file sizes):
 * Ollama's `/api/ps` size_vram (weights + KV cache + graph) per loaded model; llama.cpp's buffer lines
 * on the GPU device (model + KV + compute buffers, `MTL0 … buffer size`); oMLX's status memory; else
 * mlx-lm's warning (weights only: its KV cache is not known). Servers on other machines are left out.
 *
 * The verdict: `fits`, `near the limit (N %)` from 90 % (mlx-lm's own threshold, generate.py:239 @
 * d78bf58) or `over the limit: expect slow decode or a failed load`, with the fix
 * `sudo sysctl iogpu.wired_limit_mb=N`: N = what the engines hold + 10 % headroom, rounded up to a
 * whole GiB, never more than RAM less what macOS keeps for itself (infertop's rule: the larger of
 * 4 GiB and an eighth of RAM; mlx-lm's readme asks only for "larger than the model, smaller than the
 * machine's memory").
 */
import {engineOf} from '../engines/index.js';
import type {MonitorState, ServerState} from '../types/state.js';
import type {GpuInfo, MacState} from '../types/system.js';

export const MIB = 2 ** 20;
export const GIB = 2 ** 30;
/** RAM up to which the estimated default is two thirds (above: three quarters). */
export const DEFAULT_RULE_STEP_BYTES = 36 * GIB;
/** mlx-lm warns from 0.9 × the limit (generate.py:239 @ d78bf58): "near" from there. */
export const NEAR_RATIO = 0.9;
/** Headroom the fix adds over what the engines hold (compute buffers, a longer context). */
export const FIX_HEADROOM = 0.1;

/** The estimated macOS default for a Mac with this much RAM (sysctl 0): ~2/3 up to 36 GiB, ~3/4 above. */
export function macDefaultWiredLimitBytes(memsizeBytes: number): number | undefined {
	if (!Number.isFinite(memsizeBytes) || memsizeBytes <= 0) return undefined;
	return Math.floor(memsizeBytes <= DEFAULT_RULE_STEP_BYTES ? (memsizeBytes * 2) / 3 : (memsizeBytes * 3) / 4);
}

export type WiredLimitSource = 'sysctl' | 'engine' | 'default-rule';

export interface WiredLimit {
	readonly bytes: number;
	readonly source: WiredLimitSource;
	/** Only the default rule is an estimate. */
	readonly estimated: boolean;
	/** Where it comes from, in words: `iogpu.wired_limit_mb=114688`, `said by mlx-lm (Metal)`, `~ macOS default for 128 GiB`. */
	readonly label: string;
}

export interface EngineLimitStatement {
	readonly bytes: number;
	/** The engine that said it (its display name). */
	readonly by: string;
}

/** The limit in force: sysctl when set, else the engine's statement, else the estimated default. */
export function wiredLimitOf(mac: Pick<MacState, 'memsizeBytes' | 'wiredLimitMb'>, stated?: EngineLimitStatement): WiredLimit | undefined {
	const mb = mac.wiredLimitMb;
	if (mb !== undefined && mb > 0) return {bytes: mb * MIB, source: 'sysctl', estimated: false, label: `iogpu.wired_limit_mb=${mb}`};
	if (stated !== undefined && stated.bytes > 0) return {bytes: stated.bytes, source: 'engine', estimated: false, label: `said by ${stated.by} (Metal)`};
	if (mac.memsizeBytes === undefined) return undefined;
	const bytes = macDefaultWiredLimitBytes(mac.memsizeBytes);
	return bytes === undefined ? undefined : {bytes, source: 'default-rule', estimated: true, label: `~ macOS default for ${gib(mac.memsizeBytes, 0)}`};
}

export interface DemandPart {
	readonly serverId: string;
	readonly model?: string;
	readonly bytes: number;
	/** `weights + KV cache`, `weights` (KV cache not known)… */
	readonly what: string;
	/** The engine's number it comes from: its descriptor's `modelMemory.vramSource` (Ollama's size_vram), `GPU buffers`, `status memory`, `mlx-lm warning`. */
	readonly from: string;
}

export interface GpuDemand {
	readonly bytes: number;
	readonly parts: readonly DemandPart[];
	/** Servers of this machine with a model loaded whose GPU bytes are not known (the sum is a lower bound). */
	readonly unknown: readonly string[];
	/** Some part counts weights only (its KV cache is not known). */
	readonly kvMissing: boolean;
}

const LOOPBACK = /^(localhost|127(?:\.\d+){3}|\[?::1\]?|0\.0\.0\.0|\[?::\]?)$/i;

/** A server of this machine: a process found here, a log without a URL, or a loopback URL. */
export function onThisMachine(s: ServerState): boolean {
	if (s.pid !== undefined || s.url === undefined) return true;
	try {
		return LOOPBACK.test(new URL(s.url).hostname);
	} catch {
		return false;
	}
}

const positive = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n) && n > 0;

/** What one server holds on the GPU, from its own numbers; undefined = nothing loaded, 'unknown' = loaded but not said. */
export function serverGpuBytes(s: ServerState): DemandPart[] | 'unknown' | undefined {
	const loaded = s.models.filter((m) => m.loaded !== false);
	// The engine's own number of what a loaded model holds on the GPU (its descriptor's `modelMemory`).
	const vramSource = engineOf(s.engine).modelMemory?.vramSource;
	const vram = loaded.filter((m) => positive(m.sizeVramBytes));
	if (vramSource !== undefined && vram.length > 0) return vram.map((m) => ({serverId: s.id, model: m.name, bytes: m.sizeVramBytes!, what: 'weights + KV cache', from: vramSource}));
	const buffers = Object.values(s.buffers).filter((b) => b.onGpu && Number.isFinite(b.mib) && b.mib > 0);
	if (buffers.some((b) => b.kind === 'model')) {
		const bytes = buffers.reduce((n, b) => n + b.mib * MIB, 0);
		const kv = buffers.some((b) => b.kind === 'KV');
		return [{serverId: s.id, ...(loaded.length === 1 ? {model: loaded[0]!.name} : {}), bytes, what: kv ? 'weights + KV cache' : 'weights', from: 'GPU buffers'}];
	}
	if (positive(s.load?.memoryBytes)) return [{serverId: s.id, bytes: s.load.memoryBytes, what: 'models + caches', from: 'status memory'}];
	if (positive(s.gpuLimit?.requiredBytes)) {
		return [{serverId: s.id, ...(loaded.length === 1 ? {model: loaded[0]!.name} : {}), bytes: s.gpuLimit.requiredBytes, what: 'weights', from: 'engine warning'}];
	}
	return loaded.length > 0 ? 'unknown' : undefined;
}

/** What the engines of this machine hold on the GPU; undefined when nothing is known to be loaded. */
export function gpuDemand(state: Pick<MonitorState, 'servers' | 'order'>): GpuDemand | undefined {
	const parts: DemandPart[] = [];
	const unknown: string[] = [];
	for (const id of state.order) {
		const s = state.servers[id];
		if (!s || s.state === 'down' || !onThisMachine(s)) continue;
		const p = serverGpuBytes(s);
		if (p === 'unknown') unknown.push(id);
		else if (p) parts.push(...p);
	}
	if (parts.length === 0) return undefined;
	return {bytes: parts.reduce((n, p) => n + p.bytes, 0), parts, unknown, kvMissing: parts.some((p) => p.what === 'weights')};
}

/** The newest limit an engine of this machine stated in its log. */
export function statedLimit(state: Pick<MonitorState, 'servers' | 'order'>, nameOf: (s: ServerState) => string): EngineLimitStatement | undefined {
	let best: {t: number; st: EngineLimitStatement} | undefined;
	for (const id of state.order) {
		const s = state.servers[id];
		if (!s?.gpuLimit || !onThisMachine(s) || !positive(s.gpuLimit.limitBytes)) continue;
		if (!best || s.gpuLimit.t > best.t) best = {t: s.gpuLimit.t, st: {bytes: s.gpuLimit.limitBytes, by: nameOf(s)}};
	}
	return best?.st;
}

export type WiredLevel = 'fits' | 'near' | 'over';

export interface WiredFix {
	/** The value to set, MiB. */
	readonly mb: number;
	readonly command: string;
	/** Why this N, in words. */
	readonly why: string;
}

export interface WiredVerdict {
	readonly level: WiredLevel;
	/** demand ÷ limit × 100. */
	readonly pct: number;
	readonly demandBytes: number;
	readonly limit: WiredLimit;
	/** The demand is a lower bound (a server's bytes unknown) or weights only (a KV cache unknown). */
	readonly partial: boolean;
	/** `fits (41 % of the limit)`, `near the limit (93 %)`, `over the limit: expect slow decode or a failed load`. */
	readonly text: string;
	/** Raise the limit: absent when it fits, or when no limit this Mac can give would hold it. */
	readonly fix?: WiredFix;
	/** Set when even the largest sensible limit is too small: what to do instead. */
	readonly advice?: string;
}

export interface WiredVerdictInput {
	readonly demandBytes: number;
	readonly limit: WiredLimit;
	/** `hw.memsize`: bounds the fix. */
	readonly memsizeBytes?: number;
	readonly partial?: boolean;
}

function gib(bytes: number, digits = 1): string {
	return `${(bytes / GIB).toFixed(digits)} GiB`;
}

/** What macOS keeps for itself in infertop's fix: the larger of 4 GiB and an eighth of RAM. */
export function macReserveBytes(memsizeBytes: number): number {
	return Math.max(4 * GIB, memsizeBytes / 8);
}

/**
 * The verdict on `demandBytes` against the limit, with the fix: pure, for the panes, the snapshot,
 * the metrics and the agent findings (an `over` verdict is the "spilled past the GPU limit" finding).
 * Undefined when the figures cannot be true (not finite, not positive).
 */
export function wiredLimitVerdict(input: WiredVerdictInput): WiredVerdict | undefined {
	const {demandBytes, limit} = input;
	if (!Number.isFinite(demandBytes) || demandBytes <= 0 || !Number.isFinite(limit.bytes) || limit.bytes <= 0) return undefined;
	const ratio = demandBytes / limit.bytes;
	const pct = ratio * 100;
	const level: WiredLevel = ratio > 1 ? 'over' : ratio >= NEAR_RATIO ? 'near' : 'fits';
	const partial = input.partial === true;
	const text = level === 'over'
		? 'over the limit: expect slow decode or a failed load'
		: level === 'near'
			? `near the limit (${Math.round(pct)} %)`
			: partial
				? `fits as far as known (${Math.round(pct)} % of the limit)`
				: `fits (${Math.round(pct)} % of the limit)`;
	if (level === 'fits') return {level, pct, demandBytes, limit, partial, text};
	// (the epsilon: 90 GiB × 1.1 is 99.00000000000001 in floating point, and 99 GiB is meant)
	const wantMb = Math.ceil((demandBytes * (1 + FIX_HEADROOM)) / GIB - 1e-9) * 1024;
	const mem = input.memsizeBytes;
	const capMb = mem !== undefined && mem > 0 ? Math.floor((mem - macReserveBytes(mem)) / MIB) : undefined;
	if (capMb !== undefined && wantMb > capMb) {
		return {level, pct, demandBytes, limit, partial, text, advice: `${gib(demandBytes)} + ${FIX_HEADROOM * 100} % headroom does not fit ${gib(mem!, 0)} of RAM with ${gib(macReserveBytes(mem!))} left to macOS: use a smaller quantization, a shorter context or fewer models`};
	}
	if (wantMb * MIB <= limit.bytes) return {level, pct, demandBytes, limit, partial, text};
	const why = `what the engines hold, ${gib(demandBytes)}, + ${FIX_HEADROOM * 100} % headroom, rounded up to a whole GiB${mem !== undefined && mem > 0 ? `; leaves ${gib(mem - wantMb * MIB)} of ${gib(mem, 0)} to macOS` : ''}`;
	return {level, pct, demandBytes, limit, partial, text, fix: {mb: wantMb, command: `sudo sysctl iogpu.wired_limit_mb=${wantMb}`, why}};
}

/** The Apple GPU of the state (the first unified-memory GPU), if any. */
export function appleGpu(gpus: readonly GpuInfo[]): GpuInfo | undefined {
	return gpus.find((g) => g.unified === true);
}

export interface MacGpuSummary {
	readonly gpu?: GpuInfo;
	readonly limit?: WiredLimit;
	readonly demand?: GpuDemand;
	readonly verdict?: WiredVerdict;
}

/** Everything the Mac lines of the panes, the snapshot and the metrics show; undefined off macOS. */
export function macGpuSummary(state: Pick<MonitorState, 'servers' | 'order' | 'system'>): MacGpuSummary | undefined {
	const mac = state.system.mac;
	if (!mac) return undefined;
	const gpu = appleGpu(state.system.gpus);
	const limit = wiredLimitOf(mac, statedLimit(state, (s) => engineOf(s.engine).label));
	const demand = gpuDemand(state);
	const verdict = limit && demand ? wiredLimitVerdict({demandBytes: demand.bytes, limit, ...(mac.memsizeBytes !== undefined ? {memsizeBytes: mac.memsizeBytes} : {}), partial: demand.unknown.length > 0 || demand.kvMissing}) : undefined;
	return {...(gpu ? {gpu} : {}), ...(limit ? {limit} : {}), ...(demand ? {demand} : {}), ...(verdict ? {verdict} : {})};
}

/** GiB with one decimal (the unit macOS and the sysctl use). */
export function gibText(bytes: number | undefined): string {
	return bytes === undefined || !Number.isFinite(bytes) ? '--' : gib(bytes);
}

/**
 * The Mac lines of the ENGINES pane: the GPU busy share and the limit verdict, then the fix where
 * there is one. Empty when there is nothing to say (no Mac, nothing loaded and no GPU reading).
 */
export interface MacGpuLine {
	readonly text: string;
	readonly level: 'good' | 'warn' | 'bad' | 'muted';
}

export function macGpuLines(summary: MacGpuSummary | undefined): MacGpuLine[] {
	if (!summary) return [];
	const {gpu, limit, demand, verdict} = summary;
	const head: string[] = [];
	if (gpu) head.push(`GPU ${gpu.utilizationPct === undefined ? '--' : `${Math.round(gpu.utilizationPct)} %`} busy`);
	if (demand) head.push(`engines hold ${demand.unknown.length > 0 ? '≥ ' : ''}${gibText(demand.bytes)}${demand.kvMissing ? ' (weights; KV cache not known)' : ''}`);
	if (limit) head.push(`GPU limit ${limit.estimated ? '~' : ''}${gibText(limit.bytes)} (${limit.label})`);
	else head.push('GPU limit --');
	if (verdict) head.push(verdict.text);
	if (head.length === 1 && !gpu && !demand) return [];
	const level = verdict?.level === 'over' ? 'bad' : verdict?.level === 'near' ? 'warn' : verdict ? 'good' : 'muted';
	const lines: MacGpuLine[] = [{text: head.join(' · '), level}];
	if (verdict?.fix) lines.push({text: `fix: ${verdict.fix.command} (${verdict.fix.why})`, level: 'muted'});
	else if (verdict?.advice) lines.push({text: verdict.advice, level: 'muted'});
	return lines;
}
