/**
 * Bytes per token (DESIGN §1): the bytes of weights one target forward pass reads.
 *
 * Counted: every tensor of the target model, except
 * - the token-embedding table: a pass reads one row of it per token (counted when the tensor's rows
 *   are known, else left out: a row is KB against GB) — unless embeddings are tied (no separate
 *   output tensor): then the table is the output layer and is read whole;
 * - draft / MTP heads (`mtp.*`, `blk.N.nextn.*` and the whole block that holds them, layers past
 *   the main model's layer count, `draft.*`): they run in the draft, not the target pass;
 * - vision / audio towers (`v.*`, `mm.*`, `a.*`, `vision_tower`, `multi_modal_projector`,
 *   `audio_tower`, `model.visual.*` …).
 * MoE expert tensors (`ffn_*_exps`, `experts.N.`, `switch_mlp`) count at experts_used / expert_count;
 * shared experts and routers count fully.
 *
 * Pure. Also holds the GGML type table (block size, bytes per block) and safetensors dtype sizes;
 * quant types of one engine's own come from its descriptor (`tensorQuants`), read through the registry.
 */
import {TENSOR_QUANTS} from '../engines/index.js';

/** GGML tensor types: id → [name, elements per block, bytes per block]. Ids as in ggml.h / @huggingface/gguf. */
const GGML_TYPES: readonly (readonly [number, string, number, number])[] = [
	[0, 'F32', 1, 4],
	[1, 'F16', 1, 2],
	[2, 'Q4_0', 32, 18],
	[3, 'Q4_1', 32, 20],
	[6, 'Q5_0', 32, 22],
	[7, 'Q5_1', 32, 24],
	[8, 'Q8_0', 32, 34],
	[9, 'Q8_1', 32, 36],
	[10, 'Q2_K', 256, 84],
	[11, 'Q3_K', 256, 110],
	[12, 'Q4_K', 256, 144],
	[13, 'Q5_K', 256, 176],
	[14, 'Q6_K', 256, 210],
	[15, 'Q8_K', 256, 292],
	[16, 'IQ2_XXS', 256, 66],
	[17, 'IQ2_XS', 256, 74],
	[18, 'IQ3_XXS', 256, 98],
	[19, 'IQ1_S', 256, 50],
	[20, 'IQ4_NL', 32, 18],
	[21, 'IQ3_S', 256, 110],
	[22, 'IQ2_S', 256, 82],
	[23, 'IQ4_XS', 256, 136],
	[24, 'I8', 1, 1],
	[25, 'I16', 1, 2],
	[26, 'I32', 1, 4],
	[27, 'I64', 1, 8],
	[28, 'F64', 1, 8],
	[29, 'IQ1_M', 256, 56],
	[30, 'BF16', 1, 2],
	// 31–33, 36–38: repacked Q4_0 / IQ4_NL variants of older files (same bytes as their base type).
	[31, 'Q4_0_4_4', 32, 18],
	[32, 'Q4_0_4_8', 32, 18],
	[33, 'Q4_0_8_8', 32, 18],
	[34, 'TQ1_0', 256, 54],
	[35, 'TQ2_0', 256, 66],
	[36, 'IQ4_NL_4_4', 32, 18],
	[37, 'IQ4_NL_4_8', 32, 18],
	[38, 'IQ4_NL_8_8', 32, 18],
	[39, 'MXFP4', 32, 17],
	[40, 'NVFP4', 64, 36],
	[41, 'Q1_0', 128, 18],
	[42, 'Q2_0', 64, 18],
];

export interface GgmlType {
	readonly id: number;
	readonly name: string;
	readonly blockSize: number;
	readonly typeSize: number;
}

const BY_ID = new Map<number, GgmlType>();
const BY_NAME = new Map<string, GgmlType>();
for (const [id, name, blockSize, typeSize] of GGML_TYPES) {
	const t = {id, name, blockSize, typeSize};
	BY_ID.set(id, t);
	BY_NAME.set(name, t);
}

/** Safetensors dtypes → bytes per element (Ollama's MLX models may report these as tensor types too). */
const SAFETENSORS_DTYPES: Readonly<Record<string, number>> = {
	BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, F8_E8M0: 1, F8_E4M3FN: 1,
	I16: 2, U16: 2, F16: 2, BF16: 2,
	I32: 4, U32: 4, F32: 4,
	I64: 8, U64: 8, F64: 8,
	F4: 0.5, F6_E2M3: 0.75, F6_E3M2: 0.75,
};

/** A GGML type by numeric id, numeric string or name (`Q4_K`, `q4_k`, `F16`…). */
export function ggmlType(type: string | number): GgmlType | undefined {
	if (typeof type === 'number') return BY_ID.get(type);
	const s = type.trim();
	if (/^\d+$/.test(s)) return BY_ID.get(Number(s));
	return BY_NAME.get(s.toUpperCase());
}

export function safetensorsDtypeBytes(dtype: string): number | undefined {
	return SAFETENSORS_DTYPES[dtype.trim().toUpperCase()];
}

/**
 * Bytes of a tensor from its type (GGML id/name or safetensors dtype) and shape (any order).
 * GGML: rows × ceil(ne0 / block) × bytes per block, ne0 = shape[0] (GGUF order, innermost first).
 */
export function tensorBytes(type: string | number, shape: readonly number[]): number | undefined {
	if (shape.some((d) => !Number.isFinite(d) || d < 0)) return undefined;
	const g = ggmlType(type);
	if (g) {
		if (shape.length === 0) return g.blockSize === 1 ? g.typeSize : undefined;
		const ne0 = shape[0] ?? 0;
		const rows = shape.slice(1).reduce((a, b) => a * b, 1);
		return rows * Math.ceil(ne0 / g.blockSize) * g.typeSize;
	}
	if (typeof type === 'string') {
		const n = shape.reduce((a, d) => a * d, 1);
		const b = safetensorsDtypeBytes(type);
		if (b !== undefined) return Math.ceil(n * b);
		// An engine's own quant types (the descriptors' `tensorQuants`: Ollama's MLX INT4…).
		const q = TENSOR_QUANTS.get(type.trim().toUpperCase());
		if (q) return Math.ceil(n / q[0]) * q[1];
	}
	return undefined;
}

export interface TensorEntry {
	readonly name: string;
	readonly bytes: number;
	/** Rows of the tensor (for the embedding table: the vocabulary), where known. See `tableRows`. */
	readonly rows?: number;
}

/**
 * Rows of a 2-D table from its shape in either order (GGUF [n_embd, n_vocab], HF [n_vocab, n_embd],
 * MLX packed [n_vocab, n_embd / 8]): the vocabulary is always the larger dimension.
 */
export function tableRows(shape: readonly number[]): number | undefined {
	if (shape.length < 2) return undefined;
	const m = Math.max(...shape);
	return Number.isFinite(m) && m > 0 ? m : undefined;
}

export interface BytesMeta {
	readonly expertCount?: number;
	readonly expertUsed?: number;
	/** Layers of the main model (GGUF `<arch>.block_count` minus nextn layers; HF `num_hidden_layers`). */
	readonly mainLayers?: number;
}

export type TensorRole = 'weight' | 'embedding' | 'output' | 'expert' | 'draft' | 'vision' | 'audio';

export interface BytesPerTokenResult {
	/** Bytes one target pass reads; undefined when it cannot be known (see `reason`). */
	readonly bytes?: number;
	readonly reason?: string;
	/** Bytes left out, by why. */
	readonly excluded: {readonly embedding: number; readonly draft: number; readonly vision: number; readonly audio: number; readonly inactiveExperts: number};
	readonly detail: {
		readonly tensors: number;
		/** Bytes of all tensors in the file(s). */
		readonly totalBytes: number;
		readonly denseBytes: number;
		readonly outputBytes: number;
		/** Bytes of all expert tensors (before scaling) and the fraction counted. */
		readonly expertBytes: number;
		readonly expertFraction?: number;
		readonly tiedEmbeddings: boolean;
	};
}

// Vision / audio towers and projectors, GGUF and HF naming.
const VISION = /^(v|mm)\.|(^|\.)(vision_tower|vision_model|visual|vision_encoder|multi_modal_projector|mm_projector|vision_projector|embed_vision|image_newline|vision_embed_tokens|patch_embed)(\.|$)/;
const AUDIO = /^a\.|(^|\.)(audio_tower|audio_model|audio_encoder|embed_audio|audio_projector)(\.|$)/;
// Draft heads: MTP (DeepSeek/Qwen naming), GGUF nextn, named draft models.
const DRAFT = /^(mtp|draft|draft_model|dflash|eagle|medusa)[._]|(^|\.)(mtp|nextn)\./;
const GGUF_BLOCK = /^blk\.(\d+)\./;
const HF_LAYER = /(?:^|\.)layers\.(\d+)\./;
// Token embedding table (GGUF token_embd; HF embed_tokens / wte / tok_embeddings / word_embeddings).
const EMBEDDING = /^token_embd\.|(^|\.)(embed_tokens|wte|tok_embeddings|word_embeddings)\./;
// Output layer (GGUF output.weight; HF lm_head; MLX adds .scales/.biases).
const OUTPUT = /^output\.(weight|bias|scales|biases)$|(^|\.)lm_head\.|^embed_out\./;
// Routed experts. Shared experts (`_shexp`, `shared_expert(s)`) are dense.
const EXPERT = /_exps(\.|$)|(^|\.)experts(\.|$)|(^|\.)switch_mlp\./;
const SHARED = /_shexp|shared_expert/;

/** Which part of the model a tensor belongs to, by its name (GGUF or HF safetensors naming). */
export function tensorRole(name: string, draftBlocks?: ReadonlySet<number>, mainLayers?: number): TensorRole {
	if (VISION.test(name)) return 'vision';
	if (AUDIO.test(name)) return 'audio';
	if (DRAFT.test(name)) return 'draft';
	const blk = GGUF_BLOCK.exec(name) ?? HF_LAYER.exec(name);
	if (blk) {
		const i = Number(blk[1]);
		if (draftBlocks?.has(i)) return 'draft';
		if (mainLayers !== undefined && i >= mainLayers) return 'draft';
	}
	if (EMBEDDING.test(name)) return 'embedding';
	if (OUTPUT.test(name)) return 'output';
	if (EXPERT.test(name) && !SHARED.test(name)) return 'expert';
	return 'weight';
}

const known = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x) && x > 0;

export function bytesPerToken(tensors: readonly TensorEntry[], meta: BytesMeta = {}): BytesPerTokenResult {
	// A GGUF block that holds any nextn tensor is the MTP layer: all of it belongs to the draft.
	const draftBlocks = new Set<number>();
	for (const t of tensors) {
		if (/(^|\.)nextn\./.test(t.name)) {
			const m = GGUF_BLOCK.exec(t.name);
			if (m) draftBlocks.add(Number(m[1]));
		}
	}
	let total = 0;
	let dense = 0;
	let output = 0;
	let embedding = 0;
	let embeddingRow = 0;
	let expert = 0;
	const excluded = {embedding: 0, draft: 0, vision: 0, audio: 0, inactiveExperts: 0};
	for (const t of tensors) {
		const b = Number.isFinite(t.bytes) && t.bytes > 0 ? t.bytes : 0;
		total += b;
		const role = tensorRole(t.name, draftBlocks, meta.mainLayers);
		switch (role) {
			case 'vision': excluded.vision += b; break;
			case 'audio': excluded.audio += b; break;
			case 'draft': excluded.draft += b; break;
			case 'embedding':
				embedding += b;
				embeddingRow += t.rows !== undefined && t.rows > 0 ? b / t.rows : 0;
				break;
			case 'output': output += b; break;
			case 'expert': expert += b; break;
			default: dense += b;
		}
	}
	const tied = output === 0 && embedding > 0;
	if (tied) output = embedding;
	else {
		// One row per token; the rest of the table is not read.
		dense += embeddingRow;
		excluded.embedding = embedding - embeddingRow;
	}

	let expertFraction: number | undefined;
	let reason: string | undefined;
	if (expert > 0) {
		if (known(meta.expertCount) && known(meta.expertUsed) && meta.expertUsed <= meta.expertCount) {
			expertFraction = meta.expertUsed / meta.expertCount;
			excluded.inactiveExperts = expert * (1 - expertFraction);
		} else {
			reason = 'MoE expert counts unknown';
		}
	}
	const detail = {tensors: tensors.length, totalBytes: total, denseBytes: dense, outputBytes: output, expertBytes: expert, expertFraction, tiedEmbeddings: tied};
	if (tensors.length === 0 || total === 0) return {reason: 'no tensors', excluded, detail};
	if (reason !== undefined) return {reason, excluded, detail};
	const bytes = dense + output + (expertFraction === undefined ? 0 : expert * expertFraction);
	if (bytes <= 0) return {reason: 'no target weights found', excluded, detail};
	return {bytes: Math.round(bytes), excluded, detail};
}

/** KV cache element sizes by cache type (llama.cpp `--cache-type-k/-v`, Ollama OLLAMA_KV_CACHE_TYPE). */
const KV_TYPE_BYTES: Readonly<Record<string, number>> = {f32: 4, f16: 2, bf16: 2, q8_0: 34 / 32, q5_1: 24 / 32, q5_0: 22 / 32, q4_1: 20 / 32, q4_0: 18 / 32, iq4_nl: 18 / 32};

export interface KvCacheInput {
	/** GGUF KV map (a GGUF header's metadata, or Ollama `/api/show` model_info). */
	readonly metadata: Readonly<Record<string, unknown>>;
	/** Tokens in the context now (what one pass attends over). */
	readonly contextTokens: number;
	/** Each defaults to f16, as in llama.cpp; Ollama's OLLAMA_KV_CACHE_TYPE sets both. */
	readonly cacheTypeK?: string;
	readonly cacheTypeV?: string;
}

/**
 * KV cache bytes one decode pass reads at the current context (DESIGN §1's optional addition to
 * bytes per token): context × Σ layers kv_heads × (key_length × bytes_k + value_length × bytes_v).
 * Plain and grouped-query attention only, with hybrid models' full-attention layers found by
 * `full_attention_interval`. Sliding-window, MLA and recurrent layouts whose layers cannot be told
 * apart from the metadata are unknown (undefined), never guessed.
 */
export function kvCacheBytesRead(input: KvCacheInput): number | undefined {
	const m = input.metadata;
	const arch = typeof m['general.architecture'] === 'string' ? m['general.architecture'] : undefined;
	if (arch === undefined || !(input.contextTokens >= 0)) return undefined;
	const num = (k: string): number | undefined => {
		const v = m[`${arch}.${k}`];
		return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
	};
	const has = (prefix: string): boolean => Object.keys(m).some((k) => k.startsWith(`${arch}.${prefix}`));
	if (has('attention.sliding_window') || has('attention.kv_lora_rank') || has('attention.q_lora_rank')) return undefined;
	const blocks = num('block_count');
	const heads = num('attention.head_count');
	const embd = num('embedding_length');
	if (blocks === undefined) return undefined;
	const layers = blocks - (num('nextn_predict_layers') ?? 0);
	const interval = num('full_attention_interval');
	if ((has('ssm.') || has('wkv.') || has('shortconv.')) && interval === undefined) return undefined;
	const kvRaw = m[`${arch}.attention.head_count_kv`] ?? m[`${arch}.attention.head_count`];
	const kvHeads = (i: number): number | undefined => {
		if (typeof kvRaw === 'number') return kvRaw;
		if (Array.isArray(kvRaw) && typeof kvRaw[i] === 'number') return kvRaw[i] as number;
		return undefined;
	};
	const kLen = num('attention.key_length') ?? (embd !== undefined && heads ? embd / heads : undefined);
	const vLen = num('attention.value_length') ?? kLen;
	const bK = KV_TYPE_BYTES[(input.cacheTypeK ?? 'f16').toLowerCase()];
	const bV = KV_TYPE_BYTES[(input.cacheTypeV ?? 'f16').toLowerCase()];
	if (kLen === undefined || vLen === undefined || bK === undefined || bV === undefined) return undefined;
	let perToken = 0;
	for (let i = 0; i < layers; i++) {
		if (interval !== undefined && interval > 0 && (i + 1) % interval !== 0) continue;
		const h = kvHeads(i);
		if (h === undefined) return undefined;
		perToken += h * (kLen * bK + vLen * bV);
	}
	return Math.round(perToken * input.contextTokens);
}
