/**
 * Bytes per token of a served model (DESIGN §1), from the best source there is, with the source named:
 *   1. a local GGUF file: llama-server `/props` model_path, an Ollama blob (manifest → model layer)
 *      → `gguf header`
 *   2. Ollama `POST /api/show {"verbose": true}`: tensors (name, type, shape) + model_info expert counts
 *      → `ollama /api/show`
 *   3. local safetensors headers (mlx-lm, vLLM, SGLang, LM Studio; a model path or the Hugging Face
 *      cache) → `safetensors headers`
 *   4. llama-server `/v1/models` meta.size, the whole file → `~ /v1/models meta.size` (an estimate)
 * Never throws: what cannot be known comes back as `{reason}`. Results are cached per (server, model, digest).
 */
import {existsSync, statSync} from 'node:fs';
import {open, readdir, readFile, stat} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {Dispatch, ModelInfo} from '../types/state.js';
import type {EngineKind} from '../types/events.js';
import {isRecord} from '../engines/answers.js';
import {engineOf} from '../engines/index.js';
import {bytesPerToken, tableRows, tensorBytes, type BytesMeta, type TensorEntry} from '../model/bytes-per-token.js';
import {readGgufHeader, ggufBytesPerToken, type GgufHeader} from './gguf.js';
import {httpGet, httpPost, isAnswer, parseJson} from './http-get.js';

export interface ModelBytesServer {
	readonly engine: EngineKind;
	readonly url?: string;
	readonly apiKey?: string;
	/** The built-in demo engine: its models are not on disk. */
	readonly demo?: boolean;
}

export type ModelBytesResult = {readonly bytesPerToken: number; readonly source: string} | {readonly reason: string};

export interface ModelBytesOptions {
	readonly env?: NodeJS.ProcessEnv;
	readonly home?: string;
	readonly timeoutMs?: number;
	/** Clock for retrying unknowns (tests). */
	readonly now?: () => number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0']);

/** Files named by a server are only read when the server runs on this machine. */
export function isLocalServer(url: string | undefined): boolean {
	if (url === undefined) return true;
	try {
		return LOOPBACK.has(new URL(url).hostname);
	} catch {
		return false;
	}
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Ollama's verbose `/api/show` holds the whole vocabulary (and merges): some MB; past this, unknown. */
const MAX_ANSWER_BYTES = 64 << 20;

/** GET (or POST `body`) `url` and its JSON, through node:http (http-get.ts says why not fetch). Throws what failed. */
async function getJson(url: string, server: ModelBytesServer, opts: ModelBytesOptions, body?: unknown): Promise<unknown> {
	// The key only ever goes to the server it belongs to (this URL is built from server.url).
	const o = {timeoutMs: opts.timeoutMs ?? 10_000, maxBytes: MAX_ANSWER_BYTES, ...(server.apiKey ? {apiKey: server.apiKey} : {})};
	const r = body === undefined ? await httpGet(url, o) : await httpPost(url, {...o, json: body});
	if (!isAnswer(r)) throw new Error(r.error);
	if (r.status < 200 || r.status > 299) throw new Error(`HTTP ${r.status}`);
	if (r.truncated) throw new Error(`answer over ${MAX_ANSWER_BYTES >> 20} MB`);
	const json = parseJson(r.body);
	if (json === undefined) throw new Error('answer is not JSON');
	return json;
}

const endpoint = (base: string, p: string): string => `${base.replace(/\/+$/, '')}${p}`;

function bytesOrReason(r: {bytes?: number; reason?: string}, source: string): ModelBytesResult {
	return r.bytes !== undefined ? {bytesPerToken: r.bytes, source} : {reason: `${source}: ${r.reason ?? 'unknown'}`};
}

// ---- GGUF files -------------------------------------------------------------------------------

const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/;

/** Read a GGUF (all shards of a split model) and count bytes per token. */
export async function ggufFileBytes(file: string): Promise<ModelBytesResult> {
	const first = await readGgufHeader(file);
	const m = SPLIT.exec(file);
	let header: GgufHeader = first;
	if (m) {
		const total = Number(m[2]);
		const tensors = [...first.tensors];
		for (let i = 1; i <= total; i++) {
			const shard = file.replace(SPLIT, `-${String(i).padStart(5, '0')}-of-${m[2]}.gguf`);
			if (shard === file) continue;
			const h = await readGgufHeader(shard);
			tensors.push(...h.tensors);
		}
		// Metadata (expert counts) lives in the first shard; tensors are spread over all of them.
		const firstShard = file.replace(SPLIT, `-00001-of-${m[2]}.gguf`);
		const meta = firstShard === file ? first : await readGgufHeader(firstShard);
		header = {...meta, tensors};
	}
	return bytesOrReason(ggufBytesPerToken(header), 'gguf header');
}

/** Ollama model name → manifest path pieces (host/namespace/model/tag), as Ollama lays them out. */
export function ollamaManifestPath(modelsDir: string, name: string): string | undefined {
	let rest = name.trim();
	if (rest === '' || rest.includes('..')) return undefined;
	let tag = 'latest';
	const colon = rest.lastIndexOf(':');
	if (colon > rest.lastIndexOf('/')) {
		tag = rest.slice(colon + 1);
		rest = rest.slice(0, colon);
	}
	const parts = rest.split('/').filter(Boolean);
	if (parts.length === 1) parts.unshift('registry.ollama.ai', 'library');
	else if (parts.length === 2) parts.unshift('registry.ollama.ai');
	if (parts.length !== 3 || !tag) return undefined;
	return path.join(modelsDir, 'manifests', ...parts, tag);
}

export function ollamaModelsDirs(env: NodeJS.ProcessEnv, home: string): string[] {
	const dirs: string[] = [];
	if (env.OLLAMA_MODELS) dirs.push(env.OLLAMA_MODELS);
	dirs.push(path.join(home, '.ollama', 'models'));
	if (process.platform === 'linux') dirs.push('/usr/share/ollama/.ollama/models');
	return dirs;
}

export interface OllamaLayer {
	readonly mediaType: string;
	readonly blob: string;
	readonly name?: string;
	readonly size?: number;
}

/** The layers of an Ollama model's manifest, each with its blob path (blobs checked to exist lazily). */
export async function ollamaManifestLayers(name: string, opts: ModelBytesOptions = {}): Promise<OllamaLayer[] | undefined> {
	const env = opts.env ?? process.env;
	const home = opts.home ?? os.homedir();
	for (const dir of ollamaModelsDirs(env, home)) {
		const manifest = ollamaManifestPath(dir, name);
		if (!manifest || !existsSync(manifest)) continue;
		try {
			const m: unknown = JSON.parse(await readFile(manifest, 'utf8'));
			const layers = isRecord(m) && Array.isArray(m.layers) ? m.layers : [];
			const out: OllamaLayer[] = [];
			for (const l of layers) {
				if (!isRecord(l) || typeof l.mediaType !== 'string' || typeof l.digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(l.digest)) continue;
				out.push({mediaType: l.mediaType, blob: path.join(dir, 'blobs', l.digest.replace(':', '-')), name: typeof l.name === 'string' ? l.name : undefined, size: num(l.size)});
			}
			return out;
		} catch {}
	}
	return undefined;
}

/** The GGUF blob of an Ollama model, from its manifest's model layer. */
export async function ollamaBlobPath(name: string, opts: ModelBytesOptions = {}): Promise<string | undefined> {
	const layers = await ollamaManifestLayers(name, opts);
	const blob = layers?.find((l) => l.mediaType === 'application/vnd.ollama.image.model')?.blob;
	return blob && existsSync(blob) ? blob : undefined;
}

/**
 * An Ollama model on disk: its GGUF blob, or (MLX engine) one safetensors blob per tensor — or per
 * layer's expert group — with config.json as a JSON layer. Draft tensors (`draft.*`) are left out by name.
 */
export async function ollamaLocalBytes(name: string, opts: ModelBytesOptions = {}): Promise<ModelBytesResult | undefined> {
	const layers = await ollamaManifestLayers(name, opts);
	if (!layers) return undefined;
	const model = layers.find((l) => l.mediaType === 'application/vnd.ollama.image.model');
	if (model) return existsSync(model.blob) ? ggufFileBytes(model.blob) : undefined;
	const tensorLayers = layers.filter((l) => l.mediaType === 'application/vnd.ollama.image.tensor');
	if (tensorLayers.length === 0) return undefined;
	const tensors: TensorEntry[] = [];
	for (const l of tensorLayers) tensors.push(...(await readSafetensorsHeader(l.blob)));
	const cfg = layers.find((l) => l.mediaType === 'application/vnd.ollama.image.json' && l.name === 'config.json');
	const meta = cfg && existsSync(cfg.blob) ? metaFromHfConfig(JSON.parse(await readFile(cfg.blob, 'utf8'))) : {};
	return bytesOrReason(bytesPerToken(tensors, meta), 'safetensors headers');
}

// ---- Ollama /api/show -------------------------------------------------------------------------

/** Bytes per token from an Ollama `/api/show` verbose reply (tensors + model_info). Pure. */
export function bytesFromOllamaShow(show: unknown): ModelBytesResult {
	const source = 'ollama /api/show';
	if (!isRecord(show)) return {reason: `${source}: not an object`};
	const raw = show.tensors;
	if (!Array.isArray(raw) || raw.length === 0) return {reason: `${source}: no tensors`};
	const tensors: TensorEntry[] = [];
	for (const t of raw) {
		if (!isRecord(t) || typeof t.name !== 'string') continue;
		const type = typeof t.type === 'string' || typeof t.type === 'number' ? t.type : undefined;
		const shape = Array.isArray(t.shape) ? t.shape.map(Number) : undefined;
		const bytes = type === undefined || shape === undefined ? undefined : tensorBytes(type, shape);
		if (bytes === undefined) return {reason: `${source}: tensor ${t.name}: type ${String(t.type)} unknown`};
		tensors.push({name: t.name, bytes, rows: shape && tableRows(shape)});
	}
	return bytesOrReason(bytesPerToken(tensors, metaFromModelInfo(show.model_info)), source);
}

/** Expert counts and layer counts from a GGUF KV map (Ollama `model_info`). */
export function metaFromModelInfo(info: unknown): BytesMeta {
	if (!isRecord(info)) return {};
	const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : undefined;
	const pick = (suffix: string): number | undefined => {
		if (arch !== undefined && num(info[`${arch}.${suffix}`]) !== undefined) return num(info[`${arch}.${suffix}`]);
		for (const [k, v] of Object.entries(info)) if (k.endsWith(`.${suffix}`) && num(v) !== undefined) return num(v);
		return undefined;
	};
	const blocks = pick('block_count');
	const nextn = pick('nextn_predict_layers');
	return {
		expertCount: pick('expert_count'),
		expertUsed: pick('expert_used_count'),
		mainLayers: blocks !== undefined && nextn !== undefined && nextn > 0 ? blocks - nextn : undefined,
	};
}

// ---- safetensors ------------------------------------------------------------------------------

/** Tensors (name, exact bytes from data_offsets) of one safetensors file's header. */
export async function readSafetensorsHeader(file: string): Promise<TensorEntry[]> {
	const fh = await open(file, 'r');
	try {
		const len = Buffer.alloc(8);
		await fh.read(len, 0, 8, 0);
		const n = Number(len.readBigUInt64LE());
		if (n <= 0 || n > 256 * 1024 * 1024) throw new Error('bad safetensors header length');
		const buf = Buffer.alloc(n);
		const {bytesRead} = await fh.read(buf, 0, n, 8);
		if (bytesRead !== n) throw new Error('safetensors header truncated');
		const header: unknown = JSON.parse(buf.toString('utf8'));
		if (!isRecord(header)) throw new Error('bad safetensors header');
		const out: TensorEntry[] = [];
		for (const [name, info] of Object.entries(header)) {
			if (name === '__metadata__' || !isRecord(info)) continue;
			const off = info.data_offsets;
			let bytes: number | undefined;
			if (Array.isArray(off) && off.length === 2 && num(off[0]) !== undefined && num(off[1]) !== undefined) bytes = Number(off[1]) - Number(off[0]);
			else if (typeof info.dtype === 'string' && Array.isArray(info.shape)) bytes = tensorBytes(info.dtype, info.shape.map(Number));
			if (bytes === undefined || bytes < 0) throw new Error(`tensor ${name}: size unknown`);
			out.push({name, bytes, rows: Array.isArray(info.shape) ? tableRows(info.shape.map(Number)) : undefined});
		}
		return out;
	} finally {
		await fh.close();
	}
}

/** Expert and layer counts from a Hugging Face config.json (text_config nested for multimodal models). */
export function metaFromHfConfig(config: unknown): BytesMeta {
	if (!isRecord(config)) return {};
	const c = isRecord(config.text_config) ? {...config, ...config.text_config} : config;
	const first = (...keys: string[]): number | undefined => {
		for (const k of keys) if (num(c[k]) !== undefined) return num(c[k]);
		return undefined;
	};
	return {
		expertCount: first('num_experts', 'num_local_experts', 'n_routed_experts', 'moe_num_experts'),
		expertUsed: first('num_experts_per_tok', 'num_experts_per_token', 'moe_topk', 'moe_k'),
		mainLayers: first('num_hidden_layers', 'n_layers', 'num_layers'),
	};
}

/** Bytes per token of a local directory of safetensors shards (MLX or HF checkpoint). */
export async function safetensorsDirBytes(dir: string): Promise<ModelBytesResult> {
	const source = 'safetensors headers';
	let files: string[];
	const index = path.join(dir, 'model.safetensors.index.json');
	if (existsSync(index)) {
		const idx: unknown = JSON.parse(await readFile(index, 'utf8'));
		const map = isRecord(idx) && isRecord(idx.weight_map) ? idx.weight_map : {};
		files = [...new Set(Object.values(map).filter((v): v is string => typeof v === 'string' && !v.includes('..') && !path.isAbsolute(v)))];
	} else {
		files = (await readdir(dir)).filter((f) => f.endsWith('.safetensors'));
	}
	if (files.length === 0) return {reason: `${source}: no safetensors files`};
	const tensors: TensorEntry[] = [];
	for (const f of files) tensors.push(...(await readSafetensorsHeader(path.join(dir, f))));
	let meta: BytesMeta = {};
	const cfg = path.join(dir, 'config.json');
	if (existsSync(cfg)) meta = metaFromHfConfig(JSON.parse(await readFile(cfg, 'utf8')));
	// num_hidden_layers marks layers past it as MTP only when such layers exist (DeepSeek-V3 style).
	return bytesOrReason(bytesPerToken(tensors, meta), source);
}

/** A model id → a local directory: the id itself, the Hugging Face cache, LM Studio's models dir. */
export async function localModelDir(name: string, opts: ModelBytesOptions = {}): Promise<string | undefined> {
	const env = opts.env ?? process.env;
	const home = opts.home ?? os.homedir();
	const isDir = (p: string): boolean => {
		try {
			return statSync(p).isDirectory();
		} catch {
			return false;
		}
	};
	if (path.isAbsolute(name) || name.startsWith('~')) {
		const p = name.startsWith('~') ? path.join(home, name.slice(1)) : name;
		return isDir(p) ? p : undefined;
	}
	const parts = name.split('/');
	if (parts.length === 2 && parts.every((p) => p && p !== '..' && p !== '.')) {
		const hub = env.HF_HUB_CACHE ?? (env.HF_HOME ? path.join(env.HF_HOME, 'hub') : path.join(home, '.cache', 'huggingface', 'hub'));
		const snaps = path.join(hub, `models--${parts[0]}--${parts[1]}`, 'snapshots');
		if (isDir(snaps)) {
			const entries = await readdir(snaps);
			let best: {p: string; t: number} | undefined;
			for (const e of entries) {
				const p = path.join(snaps, e);
				try {
					const s = await stat(p);
					if (s.isDirectory() && (!best || s.mtimeMs > best.t)) best = {p, t: s.mtimeMs};
				} catch {}
			}
			if (best) return best.p;
		}
		const lms = path.join(home, '.lmstudio', 'models', parts[0] ?? '', parts[1] ?? '');
		if (isDir(lms)) return lms;
	}
	return undefined;
}

/** A local model directory: GGUF inside (not the mmproj) or safetensors. */
async function localDirBytes(dir: string): Promise<ModelBytesResult> {
	const entries = await readdir(dir);
	// Split models count once, by their first shard; several quantizations side by side are ambiguous.
	const ggufs = entries.filter((f) => f.endsWith('.gguf') && !/mmproj/i.test(f) && (!SPLIT.test(f) || /-00001-of-\d{5}\.gguf$/.test(f))).sort();
	if (ggufs.length > 1) return {reason: `gguf header: ${ggufs.length} GGUF files in ${path.basename(dir)}, which one is loaded is unknown`};
	if (ggufs[0]) return ggufFileBytes(path.join(dir, ggufs[0]));
	return safetensorsDirBytes(dir);
}

// ---- resolution -------------------------------------------------------------------------------

async function resolveUncached(server: ModelBytesServer, model: ModelInfo, opts: ModelBytesOptions): Promise<ModelBytesResult> {
	const reasons: string[] = [];
	const attempt = async (what: string, fn: () => Promise<ModelBytesResult | undefined>): Promise<ModelBytesResult | undefined> => {
		try {
			const r = await fn();
			if (r && 'bytesPerToken' in r) return r;
			if (r) reasons.push(r.reason);
		} catch (error) {
			reasons.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
		}
		return undefined;
	};
	const local = isLocalServer(server.url);
	const hints = engineOf(server.engine).modelBytes;

	// 1. A local GGUF file named by the server or found where the engine keeps it.
	if (local && model.modelPath && existsSync(model.modelPath)) {
		const r = await attempt('gguf header', () => ggufFileBytes(model.modelPath as string));
		if (r) return r;
	}
	if (local && hints.ggufFromProps && server.url && !model.modelPath) {
		const r = await attempt('gguf header', async () => {
			const props = await getJson(endpoint(server.url as string, '/props'), server, opts);
			const p = isRecord(props) && typeof props.model_path === 'string' ? props.model_path : undefined;
			if (!p || !existsSync(p)) return {reason: 'gguf header: /props model_path not on this machine'};
			return ggufFileBytes(p);
		});
		if (r) return r;
	}
	// The demo engine's models are not on disk: never look up a real Ollama's blobs for them.
	if (local && hints.ollamaBlobs && server.demo !== true) {
		const r = await attempt('ollama blobs', () => ollamaLocalBytes(model.name, opts));
		if (r) return r;
	}
	// 2. Ollama's own tensor list.
	if (hints.ollamaShow && server.url) {
		const r = await attempt('ollama /api/show', async () => bytesFromOllamaShow(await getJson(endpoint(server.url as string, '/api/show'), server, opts, {model: model.name, verbose: true})));
		if (r) return r;
	}
	// 3. Local safetensors (or GGUF) directories for the engines that load by model id or path.
	if (local && hints.localDirs) {
		const r = await attempt('safetensors headers', async () => {
			const dir = await localModelDir(model.modelPath ?? model.name, opts);
			return dir ? localDirBytes(dir) : undefined;
		});
		if (r) return r;
	}
	// 4. llama-server's file size: an estimate (it counts the embedding table and any draft/vision tensors).
	if (server.url && hints.fileSizeFromModels) {
		const r = await attempt('~ /v1/models meta.size', async () => {
			const list = await getJson(endpoint(server.url as string, '/v1/models'), server, opts);
			const data = isRecord(list) && Array.isArray(list.data) ? list.data.filter(isRecord) : [];
			const entry = data.find((d) => d.id === model.name) ?? (data.length === 1 ? data[0] : undefined);
			const size = entry && isRecord(entry.meta) ? num(entry.meta.size) : undefined;
			return size !== undefined && size > 0 ? {bytesPerToken: size, source: '~ /v1/models meta.size'} : {reason: '~ /v1/models meta.size: none'};
		});
		if (r) return r;
	}
	return {reason: reasons.length > 0 ? reasons.join('; ') : 'no source for bytes per token'};
}

const cache = new Map<string, {readonly p: Promise<ModelBytesResult>; failedAt?: number}>();
const MAX_CACHE = 256;
/** An unknown result is retried after this long (a server still loading its model, a file not yet there). */
export const RETRY_UNKNOWN_MS = 60_000;

/** Bytes per token of `model` on `server`. Never throws; cached per (server, model, digest); unknowns retried after a minute. */
export function resolveModelBytes(server: ModelBytesServer, model: ModelInfo, opts: ModelBytesOptions = {}): Promise<ModelBytesResult> {
	const key = `${server.engine}|${server.url ?? ''}|${model.name}|${model.digest ?? ''}|${model.modelPath ?? ''}`;
	const clock = opts.now ?? Date.now;
	const now = clock();
	const hit = cache.get(key);
	if (hit && (hit.failedAt === undefined || now - hit.failedAt < RETRY_UNKNOWN_MS)) return hit.p;
	const p = resolveUncached(server, model, opts).catch((error: unknown) => ({reason: error instanceof Error ? error.message : String(error)}));
	const entry: {p: Promise<ModelBytesResult>; failedAt?: number} = {p};
	void p.then((r) => {
		if ('reason' in r) entry.failedAt = clock();
	});
	cache.delete(key);
	if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value as string);
	cache.set(key, entry);
	return p;
}

/** Forget cached results (tests; a model re-pulled under the same digest cannot happen). */
export function clearModelBytesCache(): void {
	cache.clear();
}

export interface ModelBytesResolver {
	/** Resolve once per (server, model, digest); dispatches `model-bytes` when known. */
	request(serverId: string, server: ModelBytesServer, model: ModelInfo): void;
	/** Why the last resolution of a model came back unknown, if it did. */
	reason(serverId: string, model: string): string | undefined;
}

export function createModelBytesResolver({dispatch, options}: {dispatch: Dispatch; options?: ModelBytesOptions}): ModelBytesResolver {
	const now = options?.now ?? Date.now;
	// key → undefined while resolving or resolved; the time of an unknown result, retried after RETRY_UNKNOWN_MS.
	const requested = new Map<string, number | undefined>();
	const reasons = new Map<string, string>();
	return {
		request(serverId, server, model) {
			const key = `${serverId}|${model.name}|${model.digest ?? ''}`;
			if (requested.has(key)) {
				const failedAt = requested.get(key);
				if (failedAt === undefined || now() - failedAt < RETRY_UNKNOWN_MS) return;
			}
			if (requested.size >= MAX_CACHE) requested.delete(requested.keys().next().value as string);
			requested.set(key, undefined);
			void resolveModelBytes(server, model, options).then((r) => {
				if ('bytesPerToken' in r) {
					reasons.delete(`${serverId}|${model.name}`);
					dispatch({type: 'model-bytes', serverId, model: model.name, bytesPerToken: r.bytesPerToken, source: r.source});
				} else {
					requested.set(key, now());
					reasons.set(`${serverId}|${model.name}`, r.reason);
				}
			});
		},
		reason(serverId, model) {
			return reasons.get(`${serverId}|${model}`);
		},
	};
}
