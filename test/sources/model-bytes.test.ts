import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi} from 'vitest';
import {bytesFromOllamaShow, clearModelBytesCache, createModelBytesResolver, ollamaManifestPath, resolveModelBytes} from '../../source/sources/model-bytes.js';
import type {Action} from '../../source/types/state.js';
import {writeGguf} from '../helpers/gguf-writer.js';
import {writeSafetensors} from '../helpers/safetensors-writer.js';
import {DEMO_SPECS} from '../../source/demo/models.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server | undefined;
let dir = '';
let calls: string[] = [];

async function serve(handler: Handler): Promise<string> {
	server = createServer((req, res) => {
		let body = '';
		req.on('data', (c: Buffer) => (body += c.toString()));
		req.on('end', () => {
			calls.push(`${req.method} ${req.url} ${body}`);
			handler(req, body, res);
		});
	});
	await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
const json = (res: ServerResponse, v: unknown, status = 200): void => {
	res.writeHead(status, {'content-type': 'application/json'});
	res.end(JSON.stringify(v));
};

// A tiny dense model: embedding (excluded) 144000, output Q8_0 272000, one Q4_K 256×256 = 36864.
const TENSORS = [
	{name: 'token_embd.weight', type: 12, shape: [256, 1000], bytes: 144000},
	{name: 'output.weight', type: 8, shape: [256, 1000], bytes: 272000},
	{name: 'blk.0.attn_q.weight', type: 12, shape: [256, 256], bytes: 36864},
];
const EXPECTED = 272000 + 36864 + 144; // + one row of the embedding table

const opts = (): {env: NodeJS.ProcessEnv; home: string} => ({env: {OLLAMA_MODELS: path.join(dir, 'ollama')}, home: path.join(dir, 'home')});

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'infertop-bytes-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});
beforeEach(() => {
	calls = [];
	clearModelBytesCache();
});
afterEach(async () => {
	const s = server;
	server = undefined;
	if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
});

describe('Ollama /api/show tensors', () => {
	it('handles type names and numeric GGML ids, and model_info expert counts', () => {
		const show = {
			model_info: {'general.architecture': 'qwen3moe', 'qwen3moe.expert_count': 128, 'qwen3moe.expert_used_count': 8},
			tensors: [
				{name: 'token_embd.weight', type: 'Q4_K', shape: [2048, 151936]},
				{name: 'output.weight', type: 14, shape: [2048, 151936]},
				{name: 'blk.0.attn_q.weight', type: 'BF16', shape: [2048, 4096]},
				{name: 'blk.0.ffn_up_exps.weight', type: 'Q4_K', shape: [2048, 768, 128]},
			],
		};
		const r = bytesFromOllamaShow(show);
		// embedding row Q4_K: 8 × 144; output Q6_K: 151936 × 8 × 210; attn BF16: 2048 × 4096 × 2; experts: 128 × 768 × 8 × 144 × 8/128
		expect(r).toEqual({bytesPerToken: 8 * 144 + 151936 * 8 * 210 + 2048 * 4096 * 2 + 768 * 8 * 144 * 8, source: 'ollama /api/show'});
	});

	it('an unknown type or no tensors is a reason, not a number', () => {
		expect(bytesFromOllamaShow({tensors: [{name: 'x', type: 'Q9_Z', shape: [4]}]})).toEqual({reason: 'ollama /api/show: tensor x: type Q9_Z unknown'});
		expect(bytesFromOllamaShow({model_info: {}})).toEqual({reason: 'ollama /api/show: no tensors'});
	});

	it('asks a (demo) Ollama server with verbose: true', async () => {
		const url = await serve((req, body, res) => {
			if (req.url === '/api/show' && JSON.parse(body).verbose === true) json(res, {model_info: {'general.architecture': 'llama'}, tensors: TENSORS.map(({name, type, shape}) => ({name, type: type === 12 ? 'Q4_K' : 'Q8_0', shape}))});
			else json(res, {error: 'no'}, 404);
		});
		const r = await resolveModelBytes({engine: 'ollama', url, demo: true}, {name: 'demo:27b'}, opts());
		expect(r).toEqual({bytesPerToken: EXPECTED, source: 'ollama /api/show'});
		expect(calls[0]).toContain('"model":"demo:27b"');
	});

	it('goes through node:http, not fetch (its first call loads undici: ~19 MB a monitor would keep), with the key and the JSON type', async () => {
		const seen: (string | undefined)[] = [];
		const url = await serve((req, _body, res) => {
			seen.push(req.headers.authorization, req.headers['content-type']);
			json(res, {tensors: TENSORS.map(({name, type, shape}) => ({name, type: type === 12 ? 'Q4_K' : 'Q8_0', shape}))});
		});
		const spy = vi.spyOn(globalThis, 'fetch').mockRejectedValue(new Error('fetch must not be called'));
		try {
			const r = await resolveModelBytes({engine: 'ollama', url, apiKey: 'k1'}, {name: 'm:1'}, opts());
			expect(r).toEqual({bytesPerToken: EXPECTED, source: 'ollama /api/show'});
			expect(spy).not.toHaveBeenCalled();
		} finally {
			spy.mockRestore();
		}
		expect(seen).toEqual(['Bearer k1', 'application/json']);
		expect(calls).toEqual([`POST /api/show ${JSON.stringify({model: 'm:1', verbose: true})}`]);
	});

	it('an answer that is not JSON, or an error status, is a reason, not a figure', async () => {
		let answer = (res: ServerResponse): void => void res.writeHead(200, {'content-type': 'text/html'}).end('<html>proxy login</html>');
		const url = await serve((_req, _body, res) => answer(res));
		const html = await resolveModelBytes({engine: 'ollama', url}, {name: 'm:1'}, opts());
		expect(html).toEqual({reason: expect.stringContaining('ollama /api/show: answer is not JSON')});
		clearModelBytesCache();
		answer = (res) => json(res, {error: 'model "m:1" not found'}, 404);
		const missing = await resolveModelBytes({engine: 'ollama', url}, {name: 'm:1'}, opts());
		expect(missing).toEqual({reason: expect.stringContaining('ollama /api/show: HTTP 404')});
	});
});

describe('the demo engine contract', () => {
	it('its /api/show tensors sum, by these rules, to its simulated bytes per token', () => {
		expect(DEMO_SPECS.length).toBeGreaterThan(0);
		for (const spec of DEMO_SPECS) {
			const r = bytesFromOllamaShow({model_info: {'general.architecture': spec.architecture}, tensors: spec.tensors});
			expect(r, spec.name).toEqual({bytesPerToken: Math.round(spec.bytesPerToken), source: 'ollama /api/show'});
		}
	});
});

describe('Ollama MLX engine models (one safetensors blob per tensor)', () => {
	it('reads the tensor blobs and config.json named by the manifest', async () => {
		const models = path.join(dir, 'ollama');
		const blobs = path.join(models, 'blobs');
		await mkdir(blobs, {recursive: true});
		const layers: unknown[] = [];
		let n = 0;
		const blob = async (mediaType: string, name: string, write: (file: string) => Promise<void>): Promise<void> => {
			const digest = (++n).toString(16).padStart(64, 'e');
			await write(path.join(blobs, `sha256-${digest}`));
			layers.push({mediaType, digest: `sha256:${digest}`, size: 1, name});
		};
		const T = 'application/vnd.ollama.image.tensor';
		await blob(T, 'model.embed_tokens.weight', (f) => writeSafetensors(f, [
			{name: 'model.embed_tokens.weight', dtype: 'U32', shape: [1000, 32], bytes: 128000},
			{name: 'model.embed_tokens.weight.scale', dtype: 'U8', shape: [1000, 16], bytes: 16000},
		]));
		await blob(T, 'lm_head.weight', (f) => writeSafetensors(f, [{name: 'lm_head.weight', dtype: 'U32', shape: [1000, 32], bytes: 128000}, {name: 'lm_head.weight.scale', dtype: 'U8', shape: [1000, 16], bytes: 16000}]));
		await blob(T, 'model.layers.0.self_attn.q_proj.weight', (f) => writeSafetensors(f, [{name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'BF16', shape: [256, 256], bytes: 131072}]));
		// a packed expert group: 4 experts in one blob, 1 used
		await blob(T, 'model.layers.0.mlp.experts', (f) => writeSafetensors(f, [0, 1, 2, 3].map((e) => ({name: `model.layers.0.mlp.experts.${e}.up_proj.weight`, dtype: 'U32', shape: [512, 32], bytes: 65536}))));
		await blob(T, 'model.layers.0.mlp.shared_experts', (f) => writeSafetensors(f, [{name: 'model.layers.0.mlp.shared_experts.up_proj.weight', dtype: 'U32', shape: [512, 32], bytes: 65536}]));
		await blob(T, 'mtp.fc.weight', (f) => writeSafetensors(f, [{name: 'mtp.fc.weight', dtype: 'BF16', shape: [256, 512], bytes: 262144}]));
		await blob(T, 'draft.model.layers.0.mlp.down_proj.weight', (f) => writeSafetensors(f, [{name: 'draft.model.layers.0.mlp.down_proj.weight', dtype: 'BF16', shape: [256, 256], bytes: 131072}]));
		await blob('application/vnd.ollama.image.json', 'config.json', (f) => writeFile(f, JSON.stringify({text_config: {num_hidden_layers: 1, num_experts: 4, num_experts_per_tok: 1}})));
		const manifest = ollamaManifestPath(models, 'qwen3.8:27b-mlx')!;
		await mkdir(path.dirname(manifest), {recursive: true});
		await writeFile(manifest, JSON.stringify({schemaVersion: 2, layers}));
		const r = await resolveModelBytes({engine: 'ollama', url: 'http://127.0.0.1:9'}, {name: 'qwen3.8:27b-mlx'}, opts());
		// embedding row (128 + 16) + lm_head 144000 + q_proj 131072 + experts 262144 / 4 + shared 65536
		expect(r).toEqual({bytesPerToken: 144 + 144000 + 131072 + 65536 + 65536, source: 'safetensors headers'});
	});

	it('Ollama MLX quant types in /api/show (INT4, INT8, NVFP4, MXFP8) with unpacked shapes', () => {
		const r = bytesFromOllamaShow({tensors: [
			{name: 'lm_head.weight', type: 'INT4', shape: [1000, 256]},
			{name: 'model.layers.0.mlp.up_proj.weight', type: 'INT8', shape: [512, 256]},
			{name: 'model.layers.0.mlp.down_proj.weight', type: 'NVFP4', shape: [256, 512]},
			{name: 'model.layers.0.mlp.gate_proj.weight', type: 'MXFP8', shape: [512, 256]},
		]});
		// int4: 20 bytes per 32; int8: 68 per 64; nvfp4: 9 per 16; mxfp8: 33 per 32
		expect(r).toEqual({bytesPerToken: 256000 / 32 * 20 + 131072 / 64 * 68 + 131072 / 16 * 9 + 131072 / 32 * 33, source: 'ollama /api/show'});
	});
});

describe('local GGUF files', () => {
	it('reads the Ollama blob named by the model manifest before asking the server', async () => {
		const models = path.join(dir, 'ollama');
		const digest = 'ab'.repeat(32);
		await mkdir(path.join(models, 'blobs'), {recursive: true});
		await writeGguf(path.join(models, 'blobs', `sha256-${digest}`), {'general.architecture': {type: 'str', value: 'llama'}}, TENSORS);
		const manifest = ollamaManifestPath(models, 'tiny:q4')!;
		expect(manifest).toBe(path.join(models, 'manifests', 'registry.ollama.ai', 'library', 'tiny', 'q4'));
		await mkdir(path.dirname(manifest), {recursive: true});
		await writeFile(manifest, JSON.stringify({layers: [{mediaType: 'application/vnd.ollama.image.template', digest: `sha256:${'cd'.repeat(32)}`}, {mediaType: 'application/vnd.ollama.image.model', digest: `sha256:${digest}`}]}));
		const url = await serve((_req, _body, res) => json(res, {error: 'should not be asked'}, 500));
		const r = await resolveModelBytes({engine: 'ollama', url}, {name: 'tiny:q4', digest: 'x1'}, opts());
		expect(r).toEqual({bytesPerToken: EXPECTED, source: 'gguf header'});
		expect(calls).toHaveLength(0);
	});

	it('reads llama-server /props model_path', async () => {
		const file = path.join(dir, 'model.gguf');
		await writeGguf(file, {'general.architecture': {type: 'str', value: 'llama'}}, TENSORS);
		const url = await serve((req, _body, res) => (req.url === '/props' ? json(res, {model_path: file, total_slots: 1}) : json(res, {}, 404)));
		expect(await resolveModelBytes({engine: 'llamacpp', url}, {name: 'model.gguf'}, opts())).toEqual({bytesPerToken: EXPECTED, source: 'gguf header'});
	});

	it('falls back to /v1/models meta.size, marked as an estimate', async () => {
		const url = await serve((req, _body, res) => {
			if (req.url === '/props') json(res, {model_path: '/nonexistent/elsewhere.gguf'});
			else if (req.url === '/v1/models') json(res, {object: 'list', data: [{id: 'm.gguf', object: 'model', meta: {n_params: 8030261248, size: 4920733696}}]});
			else json(res, {}, 404);
		});
		expect(await resolveModelBytes({engine: 'llamacpp', url}, {name: 'm.gguf'}, opts())).toEqual({bytesPerToken: 4920733696, source: '~ /v1/models meta.size'});
	});
});

describe('safetensors headers (MLX)', () => {
	it('sums shards from the index, experts scaled by config.json', async () => {
		const m = path.join(dir, 'mlx-moe');
		await mkdir(m, {recursive: true});
		await writeSafetensors(path.join(m, 'model-00001-of-00002.safetensors'), [
			{name: 'model.embed_tokens.weight', dtype: 'U32', shape: [1000, 32], bytes: 128000},
			{name: 'model.embed_tokens.scales', dtype: 'BF16', shape: [1000, 4], bytes: 8000},
			{name: 'model.layers.0.self_attn.q_proj.weight', dtype: 'U32', shape: [256, 32], bytes: 32768},
		]);
		await writeSafetensors(path.join(m, 'model-00002-of-00002.safetensors'), [
			{name: 'model.layers.0.mlp.switch_mlp.up_proj.weight', dtype: 'U32', shape: [8, 512, 32], bytes: 524288},
			{name: 'model.layers.0.mlp.switch_mlp.up_proj.scales', dtype: 'BF16', shape: [8, 512, 4], bytes: 32768},
			{name: 'lm_head.weight', dtype: 'U32', shape: [1000, 32], bytes: 128000},
			{name: 'mtp.fc.weight', dtype: 'BF16', shape: [256, 512], bytes: 262144},
		]);
		const weightMap = {
			'model.embed_tokens.weight': 'model-00001-of-00002.safetensors', 'model.embed_tokens.scales': 'model-00001-of-00002.safetensors',
			'model.layers.0.self_attn.q_proj.weight': 'model-00001-of-00002.safetensors',
			'model.layers.0.mlp.switch_mlp.up_proj.weight': 'model-00002-of-00002.safetensors', 'lm_head.weight': 'model-00002-of-00002.safetensors',
		};
		await writeFile(path.join(m, 'model.safetensors.index.json'), JSON.stringify({metadata: {}, weight_map: weightMap}));
		await writeFile(path.join(m, 'config.json'), JSON.stringify({num_hidden_layers: 1, num_experts: 8, num_experts_per_tok: 2}));
		const r = await resolveModelBytes({engine: 'mlxlm', url: 'http://127.0.0.1:1'}, {name: m}, opts());
		// + one row of the packed table (128000 / 1000) and of its scales (8000 / 1000)
		expect(r).toEqual({bytesPerToken: 128 + 8 + 32768 + 128000 + (524288 + 32768) / 4, source: 'safetensors headers'});
	});

	it('finds a model id in the Hugging Face cache', async () => {
		const snap = path.join(dir, 'home', '.cache', 'huggingface', 'hub', 'models--mlx-community--Tiny-4bit', 'snapshots', 'abc123');
		await mkdir(snap, {recursive: true});
		await writeSafetensors(path.join(snap, 'model.safetensors'), [
			{name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [100, 8], bytes: 1600},
			{name: 'model.layers.0.mlp.down_proj.weight', dtype: 'BF16', shape: [8, 8], bytes: 128},
		]);
		const r = await resolveModelBytes({engine: 'mlxlm'}, {name: 'mlx-community/Tiny-4bit'}, opts());
		expect(r).toEqual({bytesPerToken: 1728, source: 'safetensors headers'}); // tied: table read whole
	});
});

describe('never throws', () => {
	it('a dead server and no files give a reason', async () => {
		const r = await resolveModelBytes({engine: 'ollama', url: 'http://127.0.0.1:9'}, {name: 'nothing:here'}, {...opts(), timeoutMs: 2000});
		expect('reason' in r && r.reason).toMatch(/ollama \/api\/show/);
	});

	it('the resolver dispatches model-bytes once per model', async () => {
		const url = await serve((_req, _body, res) => json(res, {tensors: TENSORS.map(({name, type, shape}) => ({name, type, shape}))}));
		const actions: Action[] = [];
		const resolver = createModelBytesResolver({dispatch: (a) => actions.push(a), options: opts()});
		resolver.request('s1', {engine: 'ollama', url, demo: true}, {name: 'demo:mlx'});
		resolver.request('s1', {engine: 'ollama', url, demo: true}, {name: 'demo:mlx'});
		const deadline = Date.now() + 5000;
		while (actions.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
		expect(actions).toEqual([{type: 'model-bytes', serverId: 's1', model: 'demo:mlx', bytesPerToken: EXPECTED, source: 'ollama /api/show'}]);
		expect(calls).toHaveLength(1);
	});

	it('an unknown result (a server still loading) is retried after a minute, not before', async () => {
		let ready = false;
		const url = await serve((_req, _body, res) => (ready ? json(res, {tensors: TENSORS.map(({name, type, shape}) => ({name, type, shape}))}) : json(res, {error: 'loading'}, 503)));
		let clock = 1_000_000;
		const actions: Action[] = [];
		const resolver = createModelBytesResolver({dispatch: (a) => actions.push(a), options: {...opts(), now: () => clock}});
		const server = {engine: 'ollama' as const, url, demo: true};
		resolver.request('s1', server, {name: 'late:1'});
		const until = async (pred: () => boolean): Promise<void> => {
			const deadline = Date.now() + 5000;
			while (!pred() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
		};
		await until(() => resolver.reason('s1', 'late:1') !== undefined);
		expect(resolver.reason('s1', 'late:1')).toMatch(/HTTP 503/);
		ready = true;
		clock += 30_000;
		resolver.request('s1', server, {name: 'late:1'});
		clock += 31_000;
		resolver.request('s1', server, {name: 'late:1'});
		await until(() => actions.length > 0);
		expect(calls).toHaveLength(2);
		expect(actions).toEqual([{type: 'model-bytes', serverId: 's1', model: 'late:1', bytesPerToken: EXPECTED, source: 'ollama /api/show'}]);
		expect(resolver.reason('s1', 'late:1')).toBeUndefined();
	});
});

describe('local model directories with GGUF files', () => {
	it('a split GGUF model counts every shard; several quantizations are ambiguous', async () => {
		const m = path.join(dir, 'home', '.lmstudio', 'models', 'pub', 'Split-GGUF');
		await mkdir(m, {recursive: true});
		const arch = {'general.architecture': {type: 'str' as const, value: 'llama'}};
		await writeGguf(path.join(m, 'model-00001-of-00002.gguf'), arch, TENSORS.slice(0, 2));
		await writeGguf(path.join(m, 'model-00002-of-00002.gguf'), {}, TENSORS.slice(2));
		await writeFile(path.join(m, 'mmproj-model-f16.gguf'), 'not read');
		expect(await resolveModelBytes({engine: 'lmstudio', url: 'http://127.0.0.1:1234'}, {name: 'pub/Split-GGUF'}, opts())).toEqual({bytesPerToken: EXPECTED, source: 'gguf header'});
		await writeGguf(path.join(m, 'other-Q8_0.gguf'), arch, TENSORS);
		clearModelBytesCache();
		const r = await resolveModelBytes({engine: 'lmstudio', url: 'http://127.0.0.1:1234'}, {name: 'pub/Split-GGUF'}, opts());
		expect('reason' in r && r.reason).toMatch(/2 GGUF files in Split-GGUF/);
	});
});
