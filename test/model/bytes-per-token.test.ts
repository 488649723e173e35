import {describe, expect, it} from 'vitest';
import {GGMLQuantizationType} from '@huggingface/gguf';
import {bytesPerToken, ggmlType, tensorBytes, tensorRole} from '../../source/model/bytes-per-token.js';

describe('GGML type table', () => {
	it('uses the ids of @huggingface/gguf', () => {
		for (const name of ['F32', 'F16', 'BF16', 'Q4_0', 'Q4_1', 'Q5_0', 'Q5_1', 'Q8_0', 'Q2_K', 'Q3_K', 'Q4_K', 'Q5_K', 'Q6_K', 'Q8_K',
			'IQ2_XXS', 'IQ2_XS', 'IQ3_XXS', 'IQ1_S', 'IQ4_NL', 'IQ3_S', 'IQ2_S', 'IQ4_XS', 'IQ1_M', 'TQ1_0', 'TQ2_0', 'MXFP4', 'NVFP4'] as const) {
			const id = GGMLQuantizationType[name];
			expect(ggmlType(id)?.name, name).toBe(name);
			expect(ggmlType(name)?.id, name).toBe(id);
		}
	});

	it('computes bytes per row from block sizes (bits per weight as published)', () => {
		const bpw = (type: string): number => (tensorBytes(type, [4096, 4096]) ?? NaN) * 8 / (4096 * 4096);
		expect(bpw('F32')).toBe(32);
		expect(bpw('F16')).toBe(16);
		expect(bpw('BF16')).toBe(16);
		expect(bpw('Q8_0')).toBe(8.5);
		expect(bpw('Q4_0')).toBe(4.5);
		expect(bpw('Q4_K')).toBe(4.5);
		expect(bpw('Q5_K')).toBe(5.5);
		expect(bpw('Q6_K')).toBe(6.5625);
		expect(bpw('Q3_K')).toBe(3.4375);
		expect(bpw('Q2_K')).toBe(2.625);
		expect(bpw('IQ4_XS')).toBe(4.25);
		expect(bpw('IQ2_XXS')).toBe(2.0625);
		expect(bpw('IQ1_S')).toBe(1.5625);
		expect(bpw('MXFP4')).toBe(4.25);
		expect(bpw('NVFP4')).toBe(4.5);
		expect(tensorBytes('Q4_K', [4096, 4096])).toBe(4096 * 16 * 144);
	});

	it('accepts numeric ids, numeric strings, lower case, and safetensors dtypes', () => {
		expect(tensorBytes(12, [256, 2])).toBe(288);
		expect(tensorBytes('12', [256, 2])).toBe(288);
		expect(tensorBytes('q4_k', [256, 2])).toBe(288);
		expect(tensorBytes('U32', [10, 4])).toBe(160);
		expect(tensorBytes('F8_E4M3', [10, 4])).toBe(40);
		expect(tensorBytes('WHAT', [10])).toBeUndefined();
		expect(tensorBytes(999, [10])).toBeUndefined();
	});
});

describe('bytes per token, HF safetensors naming', () => {
	it('MoE with per-expert tensors, shared expert, router, MTP head and vision tower', () => {
		const tensors = [
			{name: 'model.embed_tokens.weight', bytes: 1000},
			{name: 'lm_head.weight', bytes: 1000},
			{name: 'model.layers.0.self_attn.q_proj.weight', bytes: 500},
			...[0, 1, 2, 3].map((e) => ({name: `model.layers.0.mlp.experts.${e}.gate_proj.weight`, bytes: 100})),
			{name: 'model.layers.0.mlp.shared_expert.gate_proj.weight', bytes: 50},
			{name: 'model.layers.0.mlp.gate.weight', bytes: 10},
			{name: 'mtp.layers.0.self_attn.q_proj.weight', bytes: 999},
			{name: 'mtp.fc.weight', bytes: 99},
			{name: 'model.visual.blocks.0.attn.qkv.weight', bytes: 777},
			{name: 'model.vision_tower.encoder.layers.0.mlp.fc1.weight', bytes: 7},
			{name: 'model.multi_modal_projector.linear_1.weight', bytes: 7},
			{name: 'model.audio_tower.layers.0.fc1.weight', bytes: 5},
		];
		const r = bytesPerToken(tensors, {expertCount: 4, expertUsed: 1});
		expect(r.bytes).toBe(1000 + 500 + 100 + 50 + 10);
		expect(r.excluded).toEqual({embedding: 1000, draft: 1098, vision: 791, audio: 5, inactiveExperts: 300});
	});

	it('MLX stacked experts (switch_mlp) with scales and biases', () => {
		const r = bytesPerToken([
			{name: 'model.embed_tokens.weight', bytes: 64},
			{name: 'model.embed_tokens.scales', bytes: 8},
			{name: 'model.embed_tokens.biases', bytes: 8},
			{name: 'model.layers.0.mlp.switch_mlp.gate_proj.weight', bytes: 800},
			{name: 'model.layers.0.mlp.switch_mlp.gate_proj.scales', bytes: 80},
			{name: 'model.layers.0.mlp.switch_mlp.gate_proj.biases', bytes: 80},
		], {expertCount: 8, expertUsed: 2});
		// tied (no lm_head): the quantized table with its scales and biases is read whole
		expect(r.bytes).toBe(80 + 240);
		expect(r.detail.tiedEmbeddings).toBe(true);
	});

	it('DeepSeek-style MTP layer past num_hidden_layers is the draft', () => {
		const r = bytesPerToken([
			{name: 'model.layers.60.self_attn.q_a_proj.weight', bytes: 10},
			{name: 'model.layers.61.self_attn.q_a_proj.weight', bytes: 10},
			{name: 'model.layers.61.eh_proj.weight', bytes: 10},
			{name: 'lm_head.weight', bytes: 5},
		], {mainLayers: 61});
		expect(r.bytes).toBe(15);
		expect(r.excluded.draft).toBe(20);
	});

	it('a GGUF block with nextn tensors is MTP even without nextn metadata', () => {
		expect(tensorRole('blk.46.attn_q.weight', new Set([46]))).toBe('draft');
		const r = bytesPerToken([
			{name: 'blk.0.attn_q.weight', bytes: 10},
			{name: 'blk.1.ffn_up_exps.weight', bytes: 80},
			{name: 'blk.1.nextn.shared_head_head.weight', bytes: 10},
			{name: 'output.weight', bytes: 3},
		], {expertCount: 8, expertUsed: 1});
		expect(r.bytes).toBe(13);
	});

	it('roles by name', () => {
		expect(tensorRole('output_norm.weight')).toBe('weight');
		expect(tensorRole('output.weight')).toBe('output');
		expect(tensorRole('token_embd.weight')).toBe('embedding');
		expect(tensorRole('blk.3.ffn_down_shexp.weight')).toBe('weight');
		expect(tensorRole('blk.3.ffn_gate_up_exps.weight')).toBe('expert');
		expect(tensorRole('blk.3.ffn_down_exps.bias')).toBe('expert');
		expect(tensorRole('model.layers.3.mlp.shared_experts.up_proj.weight')).toBe('weight');
		expect(tensorRole('model.layers.3.block_sparse_moe.experts.7.w1.weight')).toBe('expert');
		expect(tensorRole('model.language_model.embed_tokens.weight')).toBe('embedding');
		expect(tensorRole('v.blk.0.attn_q.weight')).toBe('vision');
		expect(tensorRole('a.blk.0.attn_q.weight')).toBe('audio');
	});

	it('nothing to count is unknown, never 0', () => {
		expect(bytesPerToken([]).bytes).toBeUndefined();
		expect(bytesPerToken([{name: 'v.blk.0.x', bytes: 5}]).bytes).toBeUndefined();
	});
});

describe('KV cache bytes read per pass', () => {
	it('grouped-query attention, f16 and q8_0 caches (Llama 3.1 8B: 32 layers, 8 KV heads of 128)', async () => {
		const {kvCacheBytesRead} = await import('../../source/model/bytes-per-token.js');
		const metadata = {'general.architecture': 'llama', 'llama.block_count': 32, 'llama.embedding_length': 4096, 'llama.attention.head_count': 32, 'llama.attention.head_count_kv': 8};
		// 32 × 8 × (128 + 128) × 2 bytes = 131072 bytes per context token
		expect(kvCacheBytesRead({metadata, contextTokens: 1000})).toBe(131072 * 1000);
		expect(kvCacheBytesRead({metadata, contextTokens: 1000, cacheTypeK: 'q8_0'})).toBe(32 * 8 * 128 * (34 / 32 + 2) * 1000);
		expect(kvCacheBytesRead({metadata, contextTokens: 0})).toBe(0);
	});

	it('hybrid model: only full-attention layers keep a cache (16 of 64 at interval 4)', async () => {
		const {kvCacheBytesRead} = await import('../../source/model/bytes-per-token.js');
		const metadata = {'general.architecture': 'qwen35', 'qwen35.block_count': 64, 'qwen35.attention.head_count': 24, 'qwen35.attention.head_count_kv': 4, 'qwen35.attention.key_length': 256, 'qwen35.attention.value_length': 256, 'qwen35.full_attention_interval': 4, 'qwen35.ssm.state_size': 128};
		expect(kvCacheBytesRead({metadata, contextTokens: 32768})).toBe(16 * 2 * 4 * 256 * 2 * 32768);
	});

	it('layouts it cannot tell apart are unknown', async () => {
		const {kvCacheBytesRead} = await import('../../source/model/bytes-per-token.js');
		expect(kvCacheBytesRead({metadata: {'general.architecture': 'gemma3', 'gemma3.block_count': 26, 'gemma3.attention.sliding_window': 512, 'gemma3.attention.head_count_kv': 1, 'gemma3.attention.key_length': 256}, contextTokens: 10})).toBeUndefined();
		expect(kvCacheBytesRead({metadata: {'general.architecture': 'mamba2', 'mamba2.block_count': 48, 'mamba2.ssm.state_size': 128}, contextTokens: 10})).toBeUndefined();
		expect(kvCacheBytesRead({metadata: {}, contextTokens: 10})).toBeUndefined();
	});
});
