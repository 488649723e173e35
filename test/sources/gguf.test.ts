import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {gguf} from '@huggingface/gguf';
import {readGgufHeader, ggufBytesPerToken} from '../../source/sources/gguf.js';
import {writeGguf, type WriterTensor, type KvValue} from '../helpers/gguf-writer.js';

// GGML ids and the hand-computed bytes of each tensor (rows × blocks per row × bytes per block).
const F32 = 0, F16 = 1, Q8_0 = 8, Q4_K = 12;
const t = (name: string, type: number, shape: number[], bytes: number): WriterTensor => ({name, type, shape, bytes});

const EMBD = t('token_embd.weight', Q4_K, [256, 1000], 1000 * 144); // 144000
const OUTPUT = t('output.weight', Q8_0, [256, 1000], 1000 * 8 * 34); // 272000
const OUTPUT_NORM = t('output_norm.weight', F32, [256], 1024);
function layer(i: number): WriterTensor[] {
	return [
		t(`blk.${i}.attn_norm.weight`, F32, [256], 1024),
		t(`blk.${i}.attn_q.weight`, Q4_K, [256, 256], 256 * 144),
		t(`blk.${i}.attn_k.weight`, Q4_K, [256, 256], 256 * 144),
		t(`blk.${i}.attn_v.weight`, Q8_0, [256, 256], 256 * 8 * 34),
		t(`blk.${i}.attn_output.weight`, F16, [256, 256], 256 * 256 * 2),
		t(`blk.${i}.ffn_up.weight`, Q4_K, [256, 512], 512 * 144),
		t(`blk.${i}.ffn_gate.weight`, Q4_K, [256, 512], 512 * 144),
		t(`blk.${i}.ffn_down.weight`, Q8_0, [512, 256], 256 * 16 * 34),
		t(`blk.${i}.ffn_norm.weight`, F32, [256], 1024),
	];
}
const LAYER_BYTES = 563200; // 1024 + 36864 + 36864 + 69632 + 131072 + 73728 + 73728 + 139264 + 1024

const meta = (arch: string, extra: Record<string, KvValue> = {}): Record<string, KvValue> => ({
	'general.architecture': {type: 'str', value: arch},
	'general.name': {type: 'str', value: 'test model'},
	[`${arch}.block_count`]: {type: 'u32', value: 2},
	// A vocabulary longer than the reader keeps: it must be skipped, not break the table after it.
	'tokenizer.ggml.tokens': {type: 'arr-str', value: Array.from({length: 1000}, (_, i) => `tok${i}`)},
	'tokenizer.ggml.token_type': {type: 'arr-i32', value: Array.from({length: 1000}, () => 1)},
	...extra,
});

let dir = '';
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'infertop-gguf-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

describe('GGUF header reader', () => {
	it('reads metadata and the tensor table, with byte sizes from GGML types', async () => {
		const file = path.join(dir, 'dense.gguf');
		await writeGguf(file, meta('llama'), [EMBD, OUTPUT, OUTPUT_NORM, ...layer(0), ...layer(1)]);
		const h = await readGgufHeader(file);
		expect(h.version).toBe(3);
		expect(h.architecture).toBe('llama');
		expect(h.blockCount).toBe(2);
		expect(h.metadata['general.name']).toBe('test model');
		expect(h.metadata['tokenizer.ggml.tokens']).toEqual({arrayType: 8, length: 1000});
		expect(h.tensors).toHaveLength(21);
		const byName = Object.fromEntries(h.tensors.map((x) => [x.name, x]));
		expect(byName['token_embd.weight']).toMatchObject({typeName: 'Q4_K', shape: [256, 1000], bytes: 144000});
		expect(byName['output.weight']).toMatchObject({typeName: 'Q8_0', bytes: 272000});
		expect(byName['blk.1.attn_output.weight']).toMatchObject({typeName: 'F16', bytes: 131072});
		expect(byName['blk.1.ffn_down.weight']?.offset).toBeGreaterThan(0);
	});

	it('dense model: every weight, and of the embedding table one row', async () => {
		const file = path.join(dir, 'dense2.gguf');
		await writeGguf(file, meta('llama'), [EMBD, OUTPUT, OUTPUT_NORM, ...layer(0), ...layer(1)]);
		const r = ggufBytesPerToken(await readGgufHeader(file));
		// plus one row of the table per token: 256 values of Q4_K = 144 bytes
		expect(r.bytes).toBe(2 * LAYER_BYTES + 272000 + 1024 + 144); // 1399568
		expect(r.excluded.embedding).toBe(144000 - 144);
		expect(r.detail.tiedEmbeddings).toBe(false);
	});

	it('tied embeddings: no output.weight, so the table is the output layer and read whole', async () => {
		const file = path.join(dir, 'tied.gguf');
		await writeGguf(file, meta('gemma3'), [EMBD, OUTPUT_NORM, ...layer(0), ...layer(1)]);
		const r = ggufBytesPerToken(await readGgufHeader(file));
		expect(r.bytes).toBe(2 * LAYER_BYTES + 1024 + 144000); // 1271424
		expect(r.excluded.embedding).toBe(0);
		expect(r.detail.tiedEmbeddings).toBe(true);
	});

	it('MoE: routed experts at expert_used / expert_count, shared expert and router in full', async () => {
		const file = path.join(dir, 'moe.gguf');
		await writeGguf(file, meta('qwen3moe', {'qwen3moe.expert_count': {type: 'u32', value: 8}, 'qwen3moe.expert_used_count': {type: 'u32', value: 2}}), [
			EMBD,
			OUTPUT,
			t('blk.0.attn_q.weight', Q4_K, [256, 256], 36864),
			t('blk.0.ffn_gate_inp.weight', F32, [256, 8], 8192),
			t('blk.0.ffn_up_exps.weight', Q4_K, [256, 512, 8], 8 * 512 * 144), // 589824
			t('blk.0.ffn_gate_exps.weight', Q4_K, [256, 512, 8], 8 * 512 * 144),
			t('blk.0.ffn_down_exps.weight', Q8_0, [512, 256, 8], 8 * 256 * 16 * 34), // 1114112
			t('blk.0.ffn_up_shexp.weight', Q4_K, [256, 512], 73728),
		]);
		const h = await readGgufHeader(file);
		expect(h.expertCount).toBe(8);
		expect(h.expertUsed).toBe(2);
		const r = ggufBytesPerToken(h);
		// experts: (589824 × 2 + 1114112) × 2/8 = 573440
		expect(r.bytes).toBe(144 + 36864 + 8192 + 73728 + 272000 + 573440); // 964368
		expect(r.detail.expertBytes).toBe(2293760);
		expect(r.excluded.inactiveExperts).toBe(2293760 - 573440);
	});

	it('MoE without expert counts: unknown, with a reason (never a guess)', async () => {
		const file = path.join(dir, 'moe-nocounts.gguf');
		await writeGguf(file, meta('qwen3moe'), [EMBD, OUTPUT, t('blk.0.ffn_up_exps.weight', Q4_K, [256, 512, 8], 589824)]);
		const r = ggufBytesPerToken(await readGgufHeader(file));
		expect(r.bytes).toBeUndefined();
		expect(r.reason).toMatch(/expert counts unknown/);
	});

	it('MTP layer, vision tower and audio tower are left out', async () => {
		const file = path.join(dir, 'mtp-vision.gguf');
		await writeGguf(file, meta('glm4moe', {'glm4moe.block_count': {type: 'u32', value: 3}, 'glm4moe.nextn_predict_layers': {type: 'u32', value: 1}}), [
			EMBD,
			OUTPUT,
			t('blk.0.attn_q.weight', Q4_K, [256, 256], 36864),
			t('blk.1.attn_q.weight', Q4_K, [256, 256], 36864),
			// the MTP layer: a whole block, marked by its nextn tensors
			t('blk.2.attn_q.weight', Q4_K, [256, 256], 36864),
			t('blk.2.nextn.eh_proj.weight', F16, [512, 256], 262144),
			t('blk.2.nextn.enorm.weight', F32, [256], 1024),
			t('v.blk.0.attn_q.weight', F16, [256, 256], 131072),
			t('v.patch_embd.weight', F16, [256, 256], 131072),
			t('mm.0.weight', F16, [256, 256], 131072),
			t('a.blk.0.attn_q.weight', F16, [256, 256], 131072),
		]);
		const h = await readGgufHeader(file);
		expect(h.nextnLayers).toBe(1);
		const r = ggufBytesPerToken(h);
		expect(r.bytes).toBe(144 + 2 * 36864 + 272000); // 345872
		expect(r.excluded.draft).toBe(36864 + 262144 + 1024);
		expect(r.excluded.vision).toBe(3 * 131072);
		expect(r.excluded.audio).toBe(131072);
	});

	it('agrees with @huggingface/gguf on the same file (an independent parser checks reader and writer)', async () => {
		const file = path.join(dir, 'cross.gguf');
		await writeGguf(file, meta('qwen3moe', {'qwen3moe.expert_count': {type: 'u32', value: 8}}), [EMBD, OUTPUT, ...layer(0), t('blk.0.ffn_up_exps.weight', Q4_K, [256, 512, 8], 589824)]);
		const ours = await readGgufHeader(file);
		const theirs = await gguf(file, {allowLocalFile: true});
		expect(ours.tensors.map((x) => [x.name, x.type, x.shape.join('x'), x.offset])).toEqual(theirs.tensorInfos.map((x) => [x.name, x.dtype, x.shape.join('x'), Number(x.offset)]));
		expect(ours.metadata['qwen3moe.expert_count']).toBe((theirs.metadata as Record<string, unknown>)['qwen3moe.expert_count']);
		expect(ours.headerBytes).toBe(Number(theirs.tensorDataOffset));
	});

	it('rejects a file that is not GGUF, and a truncated one', async () => {
		const notGguf = path.join(dir, 'not.gguf');
		await writeFile(notGguf, 'hello world, not a model');
		await expect(readGgufHeader(notGguf)).rejects.toThrow(/not a GGUF/);
		const cut = path.join(dir, 'cut.gguf');
		const full = path.join(dir, 'full.gguf');
		await writeGguf(full, meta('llama'), [EMBD, OUTPUT]);
		const {readFile} = await import('node:fs/promises');
		await writeFile(cut, (await readFile(full)).subarray(0, 200));
		await expect(readGgufHeader(cut)).rejects.toThrow(/truncated/);
	});
});
