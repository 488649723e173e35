/**
 * The two models of the demo engine (seed 000): the same 27B architecture on Ollama's two engines.
 * `qwen3.8:27b-mlx` on the MLX engine (safetensors, NVFP4, MTP head `mtp.*`) and `qwen3.8:latest`
 * on the GGUF engine (Q4_K_M, MTP head `blk.64.nextn.*`). Their tensor lists are generated here; the
 * simulated bytes per token IS the sum of those tensors by DESIGN §1's rules, so /api/show and the
 * simulation can never disagree. Pure.
 */
import {createHash} from 'node:crypto';
import type {DemoModelParams, Runner} from './sim.js';

export interface DemoTensor {
	readonly name: string;
	readonly type: string;
	/** GGUF order: ne0 (row length) first. */
	readonly shape: readonly number[];
}

/** Bytes per element block of each tensor type used here: [block elements, block bytes]. */
export const TENSOR_TYPE_BLOCKS: Readonly<Record<string, readonly [number, number]>> = {
	F32: [1, 4],
	F16: [1, 2],
	BF16: [1, 2],
	Q8_0: [32, 34],
	Q4_K: [256, 144],
	Q6_K: [256, 210],
	// NVFP4: 4-bit values with one 8-bit scale per 16 values = 4.5 bits per weight.
	NVFP4: [16, 9],
};

export function tensorElements(t: DemoTensor): number {
	return t.shape.reduce((a, b) => a * b, 1);
}

/** Bytes of one tensor; undefined for an unknown type. */
export function tensorBytes(t: DemoTensor): number | undefined {
	const block = TENSOR_TYPE_BLOCKS[t.type];
	if (!block) return undefined;
	const n = tensorElements(t);
	return (n / block[0]) * block[1];
}

/** Is this tensor outside the target pass (MTP/draft head, vision/audio tower)? */
export function isDraftOrTower(name: string): boolean {
	return /^mtp\./.test(name) || /^blk\.\d+\.nextn\./.test(name) || /^(?:v|mm|a)\./.test(name);
}

/**
 * Bytes one target pass reads, by DESIGN §1: every tensor except the token embedding (one row is
 * read; read whole when tied, i.e. no output.weight), MTP/draft heads and vision towers.
 * (MoE expert scaling is not needed: the demo models are dense.)
 */
export function bytesPerTokenFromTensors(tensors: readonly DemoTensor[]): number {
	const tied = !tensors.some((t) => t.name === 'output.weight');
	const draftBlocks = nextnBlocks(tensors);
	let sum = 0;
	for (const t of tensors) {
		if (isDraftOrTower(t.name) || draftBlocks.has(blockOf(t.name) ?? -1)) continue;
		const b = tensorBytes(t) ?? 0;
		if (t.name === 'token_embd.weight') {
			const rows = t.shape[1] ?? 1;
			sum += tied ? b : b / rows;
			continue;
		}
		sum += b;
	}
	return sum;
}

/** Block index of a `blk.N.*` tensor. */
export function blockOf(name: string): number | undefined {
	const m = /^blk\.(\d+)\./.exec(name);
	return m ? Number(m[1]) : undefined;
}

/** GGUF blocks that hold an MTP (nextn) layer: the whole block belongs to the draft. */
export function nextnBlocks(tensors: readonly DemoTensor[]): Set<number> {
	const out = new Set<number>();
	for (const t of tensors) if (/^blk\.\d+\.nextn\./.test(t.name)) out.add(blockOf(t.name)!);
	return out;
}

export interface DemoModelSpec {
	readonly name: string;
	readonly runner: Runner;
	readonly architecture: string;
	readonly quantization: string;
	readonly fileType?: number;
	/** `<arch>.block_count`: for the GGUF model it includes the MTP (nextn) block, as llama.cpp's converter writes it. */
	readonly blockCount: number;
	/** Blocks of the main model (the target pass). */
	readonly mainLayers: number;
	readonly embedding: number;
	readonly feedForward: number;
	readonly headCount: number;
	readonly headCountKv: number;
	readonly headDim: number;
	readonly vocab: number;
	readonly contextTrain: number;
	readonly contextLength: number;
	readonly tensors: readonly DemoTensor[];
	readonly parameterCount: number;
	/** Bytes on disk: every tensor. */
	readonly fileBytes: number;
	readonly bytesPerToken: number;
	readonly digest: string;
	/** KV cache bytes at the loaded context (simulated). */
	readonly kvBytes: number;
	/** Compute buffer bytes (simulated). */
	readonly computeBytes: number;
}

const N_EMBD = 5120;
const N_FF = 19968;
const N_HEAD = 24;
const N_HEAD_KV = 4;
const HEAD_DIM = 256;
const N_LAYER = 64;
const N_VOCAB = 248320;

function layerTensors(prefix: (name: string) => string, quant: (name: string, layer: number) => string, layer: number): DemoTensor[] {
	const q = N_HEAD * HEAD_DIM;
	const kv = N_HEAD_KV * HEAD_DIM;
	const names: Array<[string, number[]]> = [
		['attn_norm.weight', [N_EMBD]],
		['attn_q.weight', [N_EMBD, q]],
		['attn_k.weight', [N_EMBD, kv]],
		['attn_v.weight', [N_EMBD, kv]],
		['attn_output.weight', [q, N_EMBD]],
		['ffn_norm.weight', [N_EMBD]],
		['ffn_gate.weight', [N_EMBD, N_FF]],
		['ffn_up.weight', [N_EMBD, N_FF]],
		['ffn_down.weight', [N_FF, N_EMBD]],
	];
	return names.map(([n, shape]) => ({name: prefix(n), type: shape.length === 1 ? 'F32' : quant(n, layer), shape}));
}

function digestFor(name: string, prefix?: string): string {
	const h = createHash('sha256').update(`infertop-demo:${name}`).digest('hex');
	return prefix ? prefix + h.slice(prefix.length) : h;
}

function buildSpec(name: string, runner: Runner): DemoModelSpec {
	const tensors: DemoTensor[] = [];
	if (runner === 'gguf') {
		// Q4_K_M: Q6_K for half of attn_v / ffn_down and for output, Q4_K elsewhere.
		const quant = (n: string, layer: number): string =>
			(n === 'attn_v.weight' || n === 'ffn_down.weight') && (layer < N_LAYER / 8 || layer >= (7 * N_LAYER) / 8 || layer % 3 === 2) ? 'Q6_K' : 'Q4_K';
		tensors.push({name: 'token_embd.weight', type: 'Q4_K', shape: [N_EMBD, N_VOCAB]});
		for (let l = 0; l < N_LAYER; l++) tensors.push(...layerTensors((n) => `blk.${l}.${n}`, quant, l));
		tensors.push({name: 'output_norm.weight', type: 'F32', shape: [N_EMBD]});
		tensors.push({name: 'output.weight', type: 'Q6_K', shape: [N_EMBD, N_VOCAB]});
		// The MTP head: one more block (GGUF block_count includes it) holding the nextn tensors,
		// drafted with by llama-server's draft-mtp; it runs in the draft, not in the target pass.
		tensors.push(...layerTensors((n) => `blk.${N_LAYER}.${n}`, quant, N_LAYER));
		tensors.push({name: `blk.${N_LAYER}.nextn.eh_proj.weight`, type: 'Q4_K', shape: [2 * N_EMBD, N_EMBD]});
		tensors.push({name: `blk.${N_LAYER}.nextn.enorm.weight`, type: 'F32', shape: [N_EMBD]});
		tensors.push({name: `blk.${N_LAYER}.nextn.hnorm.weight`, type: 'F32', shape: [N_EMBD]});
		tensors.push({name: `blk.${N_LAYER}.nextn.shared_head_norm.weight`, type: 'F32', shape: [N_EMBD]});
	} else {
		const quant = (): string => 'NVFP4';
		tensors.push({name: 'token_embd.weight', type: 'NVFP4', shape: [N_EMBD, N_VOCAB]});
		for (let l = 0; l < N_LAYER; l++) tensors.push(...layerTensors((n) => `blk.${l}.${n}`, quant, l).map((t) => (t.type === 'F32' ? {...t, type: 'BF16'} : t)));
		tensors.push({name: 'output_norm.weight', type: 'BF16', shape: [N_EMBD]});
		tensors.push({name: 'output.weight', type: 'NVFP4', shape: [N_EMBD, N_VOCAB]});
		// The multi-token-prediction head (≈0.24 GB): runs in the draft, not in the target pass.
		tensors.push({name: 'mtp.fc.weight', type: 'NVFP4', shape: [2 * N_EMBD, N_EMBD]});
		tensors.push({name: 'mtp.pre_fc_norm_embedding.weight', type: 'BF16', shape: [N_EMBD]});
		tensors.push({name: 'mtp.pre_fc_norm_hidden.weight', type: 'BF16', shape: [N_EMBD]});
		tensors.push(...layerTensors((n) => `mtp.layers.0.${n}`, quant, 0).map((t) => (t.type === 'F32' ? {...t, type: 'BF16'} : t)));
		tensors.push({name: 'mtp.norm.weight', type: 'BF16', shape: [N_EMBD]});
	}
	const parameterCount = tensors.reduce((a, t) => a + tensorElements(t), 0);
	const fileBytes = Math.round(tensors.reduce((a, t) => a + (tensorBytes(t) ?? 0), 0));
	const contextLength = runner === 'gguf' ? 32768 : 131072;
	// KV cache: 16 full-attention layers of 64 keep a KV cache (the other 48 are linear attention), f16.
	const kvBytes = 16 * 2 * N_HEAD_KV * HEAD_DIM * 2 * contextLength;
	return {
		name,
		runner,
		architecture: runner === 'gguf' ? 'qwen35' : 'qwen3_5',
		quantization: runner === 'gguf' ? 'Q4_K_M' : 'nvfp4',
		fileType: runner === 'gguf' ? 15 : undefined,
		blockCount: runner === 'gguf' ? N_LAYER + 1 : N_LAYER,
		mainLayers: N_LAYER,
		embedding: N_EMBD,
		feedForward: N_FF,
		headCount: N_HEAD,
		headCountKv: N_HEAD_KV,
		headDim: HEAD_DIM,
		vocab: N_VOCAB,
		contextTrain: 262144,
		contextLength,
		tensors,
		parameterCount,
		fileBytes,
		bytesPerToken: bytesPerTokenFromTensors(tensors),
		digest: runner === 'mlx' ? digestFor(name, '5642e97495e1') : digestFor(name),
		kvBytes,
		computeBytes: 560 * 1048576,
	};
}

export const DEMO_SPECS: readonly DemoModelSpec[] = [buildSpec('qwen3.8:27b-mlx', 'mlx'), buildSpec('qwen3.8:latest', 'gguf')];

/** Base (speed 1) simulation parameters, from seed 000's measurements on a 638 GB/s machine. */
export const DEMO_BANDWIDTH_GBS = 638;

export function baseParams(spec: DemoModelSpec, split: number): DemoModelParams {
	if (spec.runner === 'mlx') {
		return {
			name: spec.name,
			runner: 'mlx',
			bytesPerToken: spec.bytesPerToken,
			bandwidthGBs: DEMO_BANDWIDTH_GBS,
			// verify passes: 45–50 ms for 14.45 GB (290–320 GB/s); plain: mlx-lm's 470 GB/s.
			efficiency: 0.48,
			plainEfficiency: 0.74,
			draftMax: 4,
			draftMsPerToken: 1.5,
			prefillTps: 420,
			loadMs: 3640,
			split: 0,
			cpuBandwidthGBs: 90,
			contextLength: spec.contextLength,
		};
	}
	return {
		name: spec.name,
		runner: 'gguf',
		bytesPerToken: spec.bytesPerToken,
		bandwidthGBs: DEMO_BANDWIDTH_GBS,
		// verify passes cost far more on this engine (27.5 tok/s at mean len 4.47); plain ≈ llama-bench's 26.4 tok/s.
		efficiency: 0.16,
		plainEfficiency: 0.62,
		draftMax: 4,
		draftMsPerToken: 2,
		prefillTps: 380,
		loadMs: 3210,
		split: Math.min(1, Math.max(0, split)),
		cpuBandwidthGBs: 90,
		contextLength: spec.contextLength,
	};
}

/** Scale a model's time constants by the engine's speed factor (speed 20 = twenty times faster). */
export function scaleParams(p: DemoModelParams, speed: number): DemoModelParams {
	return {
		...p,
		bandwidthGBs: p.bandwidthGBs * speed,
		cpuBandwidthGBs: p.cpuBandwidthGBs * speed,
		draftMsPerToken: p.draftMsPerToken / speed,
		prefillTps: p.prefillTps * speed,
		loadMs: p.loadMs / speed,
	};
}

/** "27.3B" style parameter size, as Ollama shows it. */
export function parameterSize(n: number): string {
	if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
	return `${(n / 1e6).toFixed(2)}M`;
}

export const MIB = 1048576;

/** Share of one target pass's bytes that sits on the CPU for a GGUF layout. */
export function cpuShareOfPass(spec: DemoModelSpec, layout: GgufLayout): number {
	const firstGpu = spec.blockCount - Math.min(spec.blockCount, layout.gpuLayers);
	const draft = nextnBlocks(spec.tensors);
	let cpu = 0;
	for (const t of spec.tensors) {
		const l = blockOf(t.name);
		if (l !== undefined) {
			if (l < firstGpu && !draft.has(l)) cpu += tensorBytes(t) ?? 0;
		} else if (t.name.startsWith('output') && layout.gpuLayers < layout.totalLayers) cpu += tensorBytes(t) ?? 0;
	}
	return cpu / spec.bytesPerToken;
}

export interface GgufLayout {
	readonly totalLayers: number;
	readonly gpuLayers: number;
	/** Buffer sizes in bytes. */
	readonly gpuModel: number;
	readonly cpuModel: number;
	readonly gpuKv: number;
	readonly cpuKv: number;
	readonly gpuCompute: number;
	readonly cpuCompute: number;
}

/**
 * Where the GGUF model's layers and buffers go for a CPU share `split`: llama.cpp offloads the last
 * N of n_layer + 1 layers (the +1 being the output layer, offloaded only when all are).
 */
export function ggufLayout(spec: DemoModelSpec, split: number): GgufLayout {
	const s = Math.min(1, Math.max(0, split));
	if (s === 0) return layoutFor(spec, spec.blockCount + 1);
	// The layer count whose CPU share of the buffers (what `ollama ps` shows) comes closest to `split`.
	let best = layoutFor(spec, 0);
	for (let n = 0; n <= spec.blockCount + 1; n++) {
		const l = layoutFor(spec, n);
		if (Math.abs(cpuShare(l) - s) < Math.abs(cpuShare(best) - s)) best = l;
	}
	return best;
}

/** CPU share of all buffers of a layout (Ollama's (size − size_vram) / size). */
export function cpuShare(l: GgufLayout): number {
	const gpu = l.gpuModel + l.gpuKv + l.gpuCompute;
	const cpu = l.cpuModel + l.cpuKv + l.cpuCompute;
	return cpu / (gpu + cpu);
}

const blockCache = new WeakMap<DemoModelSpec, number[]>();

function blockBytesOf(spec: DemoModelSpec): number[] {
	let out = blockCache.get(spec);
	if (!out) {
		out = new Array<number>(spec.blockCount).fill(0);
		for (const t of spec.tensors) {
			const l = blockOf(t.name);
			if (l === undefined) continue;
			out[l] = (out[l] ?? 0) + (tensorBytes(t) ?? 0);
		}
		blockCache.set(spec, out);
	}
	return out;
}

function layoutFor(spec: DemoModelSpec, gpuLayers: number): GgufLayout {
	const totalLayers = spec.blockCount + 1;
	const perBlock = blockBytesOf(spec);
	const blockBytes = (l: number): number => perBlock[l] ?? 0;
	const outputBytes = spec.tensors.filter((t) => t.name.startsWith('output')).reduce((a, t) => a + (tensorBytes(t) ?? 0), 0);
	const embdBytes = spec.tensors.filter((t) => t.name === 'token_embd.weight').reduce((a, t) => a + (tensorBytes(t) ?? 0), 0);
	const firstGpu = spec.blockCount - Math.min(spec.blockCount, gpuLayers);
	let gpuModel = 0;
	let cpuModel = embdBytes;
	for (let l = 0; l < spec.blockCount; l++) {
		if (l >= firstGpu) gpuModel += blockBytes(l);
		else cpuModel += blockBytes(l);
	}
	if (gpuLayers >= totalLayers) gpuModel += outputBytes;
	else cpuModel += outputBytes;
	const gpuShare = Math.max(0, Math.min(spec.mainLayers, gpuLayers - (spec.blockCount - spec.mainLayers))) / spec.mainLayers;
	const gpuKv = Math.round(spec.kvBytes * gpuShare);
	return {
		totalLayers,
		gpuLayers,
		gpuModel,
		cpuModel,
		gpuKv,
		cpuKv: spec.kvBytes - gpuKv,
		gpuCompute: gpuLayers > 0 ? spec.computeBytes : 0,
		cpuCompute: gpuLayers < totalLayers ? 64 * MIB : 16 * MIB,
	};
}
