/**
 * The demo engine (DESIGN §5): a real HTTP server on 127.0.0.1 that imitates an Ollama 0.34 daemon
 * with two models (seed 000) — one on the GGUF engine (llama-server lines in the log) and one on the
 * MLX engine — generating tokens at the pace of a simulated model and appending the log lines a
 * real Ollama writes to a log file. Everything downstream (log tail, parsers, pollers, probe) is
 * infertop's real code path.
 */
import {closeSync, openSync, writeSync} from 'node:fs';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {homedir} from 'node:os';
import path from 'node:path';
import {
	bufferLine,
	ginLine,
	printTimingLines,
	slogLine,
	slogTime,
	slotLine,
	specLine,
	specStatisticsLine,
	srvLine,
	type SlogLevel,
} from './logfmt.js';
import {DEMO_BANDWIDTH_GBS, DEMO_SPECS, MIB, baseParams, cpuShareOfPass, ggufLayout, parameterSize, scaleParams, type DemoModelSpec, type GgufLayout} from './models.js';
import {drain, postJson} from './post.js';
import {agentAccounting, runAgentLoop, type AgentAccounting, type DemoTry, type DemoTurnTrace} from './agent.js';
import {classifyPrompt, commonPrefix, createRng, hashString, prefillMs, simulateRequest, tokenText, tokenize, type DemoModelParams, type PromptKind, type SimResult} from './sim.js';

export type {DemoModelParams, PromptKind, SimResult, SimPass, Rng} from './sim.js';
export {classifyPrompt, createRng, simulateRequest, positionProbability, TARGET_ACCEPTANCE} from './sim.js';
export {DEMO_SPECS, DEMO_BANDWIDTH_GBS, baseParams, scaleParams, ggufLayout, bytesPerTokenFromTensors, tensorBytes, isDraftOrTower, type DemoTensor, type DemoModelSpec} from './models.js';

export const DEMO_OLLAMA_VERSION = '0.34.0';

export interface DemoOptions {
	logPath: string;
	host?: '127.0.0.1';
	/** 0 (default) = a free port. */
	port?: number;
	/** 0..1 share of the GGUF model on the CPU; default 0. */
	split?: number;
	/**
	 * Background requests every few seconds; default true. `both`: one agent per model, both models busy at once.
	 * `session`: the simulated coding agent of demo/agent.ts on the GGUF model (`--demo-agent`): growing
	 * prompts, tool pauses, side requests that queue, a queue limit of one waiting request (503 past it,
	 * as Ollama's OLLAMA_MAX_QUEUE), measured prompt/eval times in the log, and its own accounting.
	 */
	agent?: boolean | 'both' | 'session';
	/** `session` agent: stop after this many main turns (tests). */
	agentTurns?: number;
	/** Agent period in ms; default 4000 / speed. */
	agentIntervalMs?: number;
	/** Time scale (tests use e.g. 20); default 1. Durations, rates and bandwidth all scale with it. */
	speed?: number;
	seed?: number;
}

export interface DemoEngine {
	readonly url: string;
	readonly port: number;
	readonly logPath: string;
	/** Simulation parameters per model, already scaled by `speed`. */
	readonly models: readonly DemoModelParams[];
	/** The demo's simulated memory bandwidth (GB/s, × speed). */
	readonly bandwidthGBs: number;
	/** `session` agent: every turn's tries as the engine saw them, and the simulation's own budget. */
	readonly agentTraces: () => readonly DemoTurnTrace[];
	readonly agentAccounting: () => AgentAccounting;
	/** `session` agent: resolves when its loop ended (maxTurns reached or stopped). */
	readonly agentDone: Promise<void>;
	stop(): Promise<void>;
}

interface SpecTotals {
	calls: number;
	genDrafts: number;
	accDrafts: number;
	genTokens: number;
	accTokens: number;
	accPos: number[];
	draftMs: number;
}

interface ModelState {
	readonly spec: DemoModelSpec;
	readonly params: DemoModelParams;
	readonly layout: GgufLayout | undefined;
	readonly runnerPort: number;
	loaded: boolean;
	loadedAt: Date | undefined;
	expiresAt: Date | undefined;
	queue: Promise<void>;
	/** Requests in the model's queue, the running one included. */
	inQueue: number;
	nextTask: number;
	lastTokens: string[];
	readonly spec_: SpecTotals;
	requests: number;
}

interface GenRequest {
	readonly model: ModelState;
	/** The prompt after the chat template. */
	readonly rendered: string;
	/** The text that decides the prompt kind. */
	readonly userText: string;
	readonly numPredict: number | undefined;
	readonly seed: number | undefined;
}

interface GenResult {
	readonly text: string;
	readonly nGen: number;
	readonly promptTokens: number;
	readonly cached: number;
	readonly processed: number;
	readonly promptMs: number;
	readonly evalMs: number;
	readonly loadNs: number;
	readonly totalNs: number;
	readonly doneReason: 'stop' | 'length';
	readonly sim: SimResult;
	readonly aborted: boolean;
}

class StoppedError extends Error {}

const KEEP_ALIVE_MS = 5 * 60 * 1000;
const LLAMA_SERVER_BIN = '/usr/lib/ollama/llama-server';

function nowNs(): bigint {
	return process.hrtime.bigint();
}

function jsonBody(res: http.ServerResponse, status: number, body: unknown): void {
	const text = JSON.stringify(body);
	res.writeHead(status, {'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text)});
	res.end(text);
}

function textBody(res: http.ServerResponse, status: number, text: string, contentType = 'text/plain; charset=utf-8'): void {
	res.writeHead(status, {'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text)});
	res.end(text);
}

async function readBody(req: http.IncomingMessage, limit = 4 * 1024 * 1024): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		const b = chunk as Buffer;
		size += b.length;
		if (size > limit) throw new Error('request body too large');
		chunks.push(b);
	}
	return Buffer.concat(chunks).toString('utf8');
}

type Json = Record<string, unknown>;

function asObject(v: unknown): Json | undefined {
	return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function asNumber(v: unknown): number | undefined {
	return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function messageText(content: unknown): string {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) {
		return content
			.map((p) => {
				const o = asObject(p);
				return o && typeof o.text === 'string' ? o.text : '';
			})
			.join('');
	}
	return '';
}

/** Qwen's ChatML template, as the model's template renders it. */
function renderChat(messages: ReadonlyArray<{role: string; content: string}>): string {
	return messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('') + '<|im_start|>assistant\n';
}

export async function startDemoEngine(opts: DemoOptions): Promise<DemoEngine> {
	const speed = opts.speed && opts.speed > 0 ? opts.speed : 1;
	const seed = opts.seed ?? 1;
	const split = Math.min(1, Math.max(0, opts.split ?? 0));
	const host = '127.0.0.1';
	const fd = openSync(opts.logPath, 'a');
	let fdOpen = true;
	let stopped = false;
	const sleepers = new Set<{timer: NodeJS.Timeout; resolve: () => void}>();
	const active = new Set<Promise<unknown>>();
	let port = 0;

	const write = (lines: string | readonly string[]): void => {
		if (!fdOpen) return;
		const text = (typeof lines === 'string' ? [lines] : lines).map((l) => `${l}\n`).join('');
		try {
			writeSync(fd, text);
		} catch {
			// a log that cannot be written must not take the engine down
		}
	};
	const slog = (level: SlogLevel, source: string, msg: string, attrs: ReadonlyArray<readonly [string, string | number | boolean]> = []): void =>
		write(slogLine(new Date(), level, source, msg, attrs));

	const sleep = (ms: number): Promise<void> => {
		if (stopped) return Promise.reject(new StoppedError('stopped'));
		if (ms <= 0) return Promise.resolve();
		return new Promise<void>((resolve, reject) => {
			const entry = {
				timer: setTimeout(() => {
					sleepers.delete(entry);
					if (stopped) reject(new StoppedError('stopped'));
					else resolve();
				}, ms),
				resolve: () => reject(new StoppedError('stopped')),
			};
			sleepers.add(entry);
		});
	};

	const models: ModelState[] = DEMO_SPECS.map((spec, i) => {
		const layout = spec.runner === 'gguf' ? ggufLayout(spec, split) : undefined;
		let base = baseParams(spec, split);
		// The share of one pass's bytes that sits on the CPU, from where the layers really went.
		if (layout) base = {...base, split: cpuShareOfPass(spec, layout)};
		return {
			spec,
			params: scaleParams(base, speed),
			layout,
			runnerPort: 50_000 + (hashString(spec.name, seed) % 10_000) + i,
			loaded: false,
			loadedAt: undefined,
			expiresAt: undefined,
			queue: Promise.resolve(),
			inQueue: 0,
			nextTask: 0,
			lastTokens: [],
			spec_: {calls: 0, genDrafts: 0, accDrafts: 0, genTokens: 0, accTokens: 0, accPos: new Array<number>(baseParams(spec, split).draftMax).fill(0), draftMs: 0},
			requests: 0,
		};
	});
	const findModel = (name: unknown): ModelState | undefined => {
		if (typeof name !== 'string') return undefined;
		const n = name.includes(':') ? name : `${name}:latest`;
		return models.find((m) => m.spec.name === n);
	};

	// ---- model load -------------------------------------------------------------------------
	const blobPath = (m: ModelState): string => path.join(homedir(), '.ollama', 'models', 'blobs', `sha256-${m.spec.digest}`);

	const loadModel = async (m: ModelState): Promise<void> => {
		const t0 = nowNs();
		if (m.spec.runner === 'gguf') {
			const lay = m.layout as GgufLayout;
			const blob = blobPath(m);
			slog('INFO', 'llama_server.go:512', 'starting llama-server', [
				[
					'cmd',
					`${LLAMA_SERVER_BIN} --model ${blob} --port ${m.runnerPort} --host 127.0.0.1 --no-webui --offline -c ${m.spec.contextLength} -np 1 --log-verbosity 4 --no-log-prefix --no-log-timestamps --n-gpu-layers ${lay.gpuLayers} --spec-type draft-mtp`,
				],
			]);
			slog('INFO', 'llama_server.go:1046', 'loading model via llama-server', [['model', blob]]);
			await sleep(m.params.loadMs * 0.6);
			const repeating = Math.min(m.spec.blockCount, lay.gpuLayers);
			const lines = [
				srvLine('load_model', `loading model '${blob}'`),
				'load_tensors: loading model tensors, this can take a while... (load_mode = mmap)',
				...(lay.gpuLayers >= lay.totalLayers ? ['load_tensors: offloading output layer to GPU'] : []),
				`load_tensors: offloading ${repeating} repeating layers to GPU`,
				`load_tensors: offloaded ${lay.gpuLayers}/${lay.totalLayers} layers to GPU`,
				bufferLine('load_tensors', 'CPU_Mapped', 'model', lay.cpuModel),
				...(lay.gpuModel > 0 ? [bufferLine('load_tensors', 'MTL0_Mapped', 'model', lay.gpuModel)] : []),
				'llama_context: constructing llama_context',
				'llama_context: n_seq_max             = 1',
				`llama_context: n_ctx                 = ${m.spec.contextLength}`,
				`llama_context: n_ctx_seq             = ${m.spec.contextLength}`,
				'llama_context: n_batch               = 2048',
				'llama_context: n_ubatch              = 512',
				bufferLine('llama_context', 'CPU', 'output', 0.95 * MIB),
				...(lay.gpuKv > 0 ? [bufferLine('llama_kv_cache', 'MTL0', 'KV', lay.gpuKv)] : []),
				...(lay.cpuKv > 0 ? [bufferLine('llama_kv_cache', 'CPU', 'KV', lay.cpuKv)] : []),
				...(lay.gpuCompute > 0 ? [bufferLine('sched_reserve', 'MTL0', 'compute', lay.gpuCompute)] : []),
				bufferLine('sched_reserve', 'CPU', 'compute', lay.cpuCompute),
				`common_speculative_init_result: creating MTP draft context against the target model '${blob}'`,
				srvLine('load_model', `initializing, n_slots = 1, n_ctx_slot = ${m.spec.contextLength}, kv_unified = 'false'`),
				specLine('common_speculative_init', `adding speculative implementation 'draft-mtp'`),
				specLine('common_speculative_init', `- n_max=${m.params.draftMax}, n_min=0, p_min=0.000000`),
				srvLine('load_model', 'speculative decoding context initialized'),
				slotLine('load_model', 0, -1, `new slot, n_ctx = ${m.spec.contextLength}`),
				srvLine('llama_server', 'model loaded'),
				srvLine('llama_server', `listening on http://127.0.0.1:${m.runnerPort}`),
				srvLine('update_slots', 'all slots are idle'),
			];
			write(lines);
			await sleep(m.params.loadMs * 0.4);
			const secs = Number(nowNs() - t0) / 1e9;
			slog('INFO', 'llama_server.go:725', `llama-server started in ${secs.toFixed(2)} seconds`);
		} else {
			slog('INFO', 'server.go:168', 'starting mlx runner subprocess', [
				['model', m.spec.name],
				['port', m.runnerPort],
			]);
			await sleep(m.params.loadMs * 0.2);
			slog('INFO', 'runner.go:92', 'MLX engine initialized', [
				['MLX version', '0.31.1'],
				['device', 'gpu'],
			]);
			await sleep(m.params.loadMs * 0.6);
			slog('INFO', 'manifest.go:141', 'Loaded tensors from manifest', [['count', m.spec.tensors.length]]);
			await sleep(m.params.loadMs * 0.2);
			slog('INFO', 'server.go:241', 'mlx runner is ready', [['port', m.runnerPort]]);
		}
		m.loaded = true;
		m.loadedAt = new Date();
	};

	// ---- one generation ---------------------------------------------------------------------
	type Emit = (texts: readonly string[]) => void;

	/** Requests to one model run one at a time, in arrival order (like `-np 1`). */
	const inModelQueue = async <T>(m: ModelState, work: () => Promise<T>): Promise<T> => {
		const prev = m.queue;
		let release!: () => void;
		m.queue = new Promise<void>((r) => {
			release = r;
		});
		m.inQueue++;
		try {
			await prev;
			return await work();
		} finally {
			m.inQueue--;
			release();
		}
	};
	// ---- the `session` agent's mode: a queue limit and the engine-side record of every try ----------
	const sessionMode = opts.agent === 'session';
	/** One running and one waiting: a third request is refused (Ollama ErrMaxQueue → 503). */
	const MAX_IN_QUEUE = 2;
	const traces = new Map<string, DemoTurnTrace>();
	const tryOf = new WeakMap<http.IncomingMessage, DemoTry>();

	const generate = (g: GenRequest, emit: Emit, isClosed: () => boolean, tReq: bigint, trace?: DemoTry): Promise<GenResult> => {
		const m = g.model;
		return inModelQueue(m, async () => {
			if (isClosed()) throw new StoppedError('client gone');
			const tLoad = nowNs();
			if (!m.loaded) await loadModel(m);
			const loadNs = Number(nowNs() - tLoad);
			m.requests++;
			const reqSeed = g.seed ?? seed * 1_000_003 + m.requests;
			const rng = createRng(hashString(g.rendered, reqSeed >>> 0));
			const textRng = createRng(hashString(g.userText, (reqSeed ^ 0x5bd1e995) >>> 0));
			const kind: PromptKind = classifyPrompt(g.userText);
			const tokens = tokenize(g.rendered);
			const promptTokens = Math.max(1, tokens.length);
			const cached = Math.min(commonPrefix(m.lastTokens, tokens), promptTokens - 1);
			const processed = promptTokens - cached;
			m.lastTokens = tokens;
			if (trace) {
				trace.promptTokens = promptTokens;
				trace.cachedTokens = cached;
				trace.processedTokens = processed;
			}
			const natural = 64 + Math.floor(rng() * 192);
			// Generation never runs past the loaded context (bounded work for any num_predict).
			const room = Math.max(1, m.spec.contextLength - promptTokens);
			const asked = g.numPredict !== undefined && g.numPredict >= 1 ? Math.floor(g.numPredict) : undefined;
			const nGen = Math.min(asked ?? natural, room);
			const doneReason = asked !== undefined || nGen < natural ? 'length' : 'stop';
			const sim = simulateRequest(m.params, kind, nGen, rng, promptTokens);
			const pMs = prefillMs(m.params, processed, cached);
			const task = m.nextTask++;

			if (m.spec.runner === 'gguf') {
				write([
					slotLine('launch_slot_with_task', 0, task, 'processing task, is_child = 0'),
					slotLine('operator()', 0, task, `new prompt, n_ctx_slot = ${m.spec.contextLength}, n_keep = 0, task.n_tokens = ${promptTokens}`),
					slotLine('operator()', 0, task, `cached n_tokens = ${cached}, memory_seq_rm [${cached}, end)`),
				]);
			} else {
				slog('INFO', 'prefix_cache.go:125', cached > 0 ? 'cache hit' : 'cache miss', [
					['total', promptTokens],
					['matched', cached],
					['cached', cached],
					['left', processed],
				]);
			}

			let produced = 0;
			const texts: string[] = [];
			const take = (n: number): string[] => {
				const out: string[] = [];
				for (let i = 0; i < n && produced < nGen; i++, produced++) out.push(tokenText(kind, produced, textRng));
				texts.push(...out);
				return out;
			};
			const start = performance.now();
			let planned = pMs;
			let aborted = false;
			const waitUntil = async (): Promise<void> => {
				await sleep(start + planned - performance.now());
			};
			await waitUntil();
			// What the prompt took, measured, as a real engine's timer says it (the `session` agent's log).
			const promptMsMeasured = performance.now() - start;
			if (m.spec.runner === 'mlx' && processed >= 256) {
				slog('INFO', 'pipeline.go:204', 'Prompt processing progress', [
					['processed', processed],
					['total', processed],
				]);
			}
			if (m.spec.runner === 'gguf') emit(take(1));
			let lastTg = performance.now();
			let lastTgCount = produced;
			const decodeStart = performance.now();
			for (const pass of sim.passes) {
				if (isClosed()) {
					aborted = true;
					break;
				}
				planned += pass.ms;
				await waitUntil();
				emit(take(pass.tokens));
				if (m.spec.runner === 'gguf' && produced >= 100 && performance.now() - lastTg >= 3000) {
					const now = performance.now();
					const tg = ((produced - 1) * 1000) / Math.max(1e-9, now - decodeStart);
					const tg3 = ((produced - lastTgCount) * 1000) / Math.max(1e-9, now - lastTg);
					write(slotLine('print_timings', 0, task, `n_gen = ${String(produced).padStart(6)}, tg = ${tg.toFixed(2).padStart(6)} t/s, tg_3s = ${tg3.toFixed(2).padStart(6)} t/s`));
					lastTg = now;
					lastTgCount = produced;
				}
			}
			const decodeMsMeasured = performance.now() - decodeStart;
			const evalMs = sessionMode ? decodeMsMeasured : sim.decodeMs;
			const promptMs = sessionMode ? promptMsMeasured : pMs;
			if (trace) {
				trace.prefillMs = promptMs;
				trace.decodeMs = evalMs;
				trace.generatedTokens = produced;
			}
			// The slot keeps what it generated: the next turn's prompt reuses prompt + answer.
			if (sessionMode && !aborted) m.lastTokens = tokenize(g.rendered + texts.join(''));
			if (m.spec.runner === 'gguf') {
				if (!aborted) {
					const st = m.spec_;
					st.calls += sim.draftingPasses;
					st.genDrafts += sim.draftingPasses;
					st.accDrafts += sim.passes.filter((p) => p.accepted > 0).length;
					st.genTokens += sim.drafted;
					st.accTokens += sim.accepted;
					st.draftMs += sim.drafted * m.params.draftMsPerToken;
					sim.accPerPos.forEach((r, i) => {
						st.accPos[i] = (st.accPos[i] ?? 0) + Math.round(r * sim.draftingPasses);
					});
					write([
						...printTimingLines({
							slot: 0,
							task,
							promptN: processed,
							promptMs,
							nGen: sim.nGen,
							predictedMs: evalMs,
							graphsReused: Math.max(0, sim.iterations - 1),
							drafted: sim.drafted,
							accepted: sim.accepted,
							draftingPasses: sim.draftingPasses,
							accPerPos: sim.accPerPos,
						}),
						...(sim.drafted > 0
							? [
									specStatisticsLine('draft-mtp', {
										calls: st.calls,
										genDrafts: st.genDrafts,
										accDrafts: st.accDrafts,
										genTokens: st.genTokens,
										accTokens: st.accTokens,
										accPerPos: st.accPos.map((c) => (st.genDrafts > 0 ? c / st.genDrafts : 0)),
										durMs: [0.002, st.draftMs, 0.04],
									}),
								]
							: []),
					]);
				}
				write([
					slotLine('release', 0, task, `stop processing: n_tokens = ${promptTokens + produced - 1}, truncated = 0`),
					srvLine('update_slots', 'all slots are idle'),
				]);
			} else if (!aborted) {
				const buckets = Math.min(8, sim.iterations);
				const depth: string[] = [];
				for (let b = 0; b < buckets; b++) {
					const slice = sim.passes.slice(Math.floor((b * sim.iterations) / buckets), Math.floor(((b + 1) * sim.iterations) / buckets));
					const mean = slice.reduce((a, p) => a + p.drafted, 0) / Math.max(1, slice.length);
					const max = slice.reduce((a, p) => Math.max(a, p.drafted), 0);
					depth.push(`${mean.toFixed(1)}/${max}`);
				}
				slog('INFO', 'speculate_stats.go:62', 'speculative decode stats', [
					['iterations', sim.iterations],
					['drafted', sim.drafted],
					['accepted', sim.accepted],
					['acceptance', (sim.acceptance ?? 0).toFixed(2)],
					['avg_draft', (sim.drafted / Math.max(1, sim.iterations)).toFixed(2)],
					['max_draft', sim.maxDraft],
					['avg_accepted', (sim.accepted / Math.max(1, sim.iterations)).toFixed(2)],
					['depth_over_time', depth.join(' ')],
				]);
			}
			m.expiresAt = new Date(Date.now() + KEEP_ALIVE_MS);
			return {
				text: texts.join(''),
				nGen: produced,
				promptTokens,
				cached,
				processed,
				promptMs,
				evalMs,
				loadNs,
				totalNs: Number(nowNs() - tReq),
				doneReason,
				sim,
				aborted,
			};
		});
	};

	// ---- HTTP -------------------------------------------------------------------------------
	const details = (s: DemoModelSpec): Json => ({
		parent_model: '',
		format: s.runner === 'gguf' ? 'gguf' : 'safetensors',
		family: s.architecture,
		families: [s.architecture],
		parameter_size: parameterSize(s.parameterCount),
		quantization_level: s.quantization,
	});
	const modifiedAt = slogTime(new Date(Date.now() - 3 * 86_400_000));

	const psSizes = (m: ModelState): {size: number; vram: number} => {
		if (m.layout) {
			const l = m.layout;
			const gpu = l.gpuModel + l.gpuKv + l.gpuCompute;
			const cpu = l.cpuModel + l.cpuKv + l.cpuCompute;
			// All layers offloaded: Ollama sets size to size_vram.
			if (l.gpuLayers >= l.totalLayers) return {size: gpu, vram: gpu};
			return {size: gpu + cpu, vram: gpu};
		}
		const size = m.spec.fileBytes + Math.round(m.spec.kvBytes / 4) + m.spec.computeBytes;
		return {size, vram: size};
	};

	const modelInfo = (s: DemoModelSpec): Json => {
		const a = s.architecture;
		const info: Json = {
			'general.architecture': a,
			'general.basename': 'Qwen3.8',
			'general.size_label': '27B',
			'general.parameter_count': s.parameterCount,
			...(s.fileType !== undefined ? {'general.file_type': s.fileType, 'general.quantization_version': 2} : {}),
			[`${a}.block_count`]: s.blockCount,
			[`${a}.context_length`]: s.contextTrain,
			[`${a}.embedding_length`]: s.embedding,
			[`${a}.feed_forward_length`]: s.feedForward,
			[`${a}.attention.head_count`]: s.headCount,
			[`${a}.attention.head_count_kv`]: s.headCountKv,
			[`${a}.attention.key_length`]: s.headDim,
			[`${a}.attention.value_length`]: s.headDim,
			[`${a}.full_attention_interval`]: 4,
			...(s.runner === 'gguf' ? {[`${a}.nextn_predict_layers`]: s.blockCount - s.mainLayers} : {}),
			[`${a}.vocab_size`]: s.vocab,
			'tokenizer.ggml.model': 'gpt2',
			'tokenizer.ggml.tokens': null,
			'tokenizer.ggml.merges': null,
			'tokenizer.ggml.token_type': null,
		};
		return info;
	};

	const genFields = (r: GenResult): Json => ({
		total_duration: r.totalNs,
		load_duration: r.loadNs,
		prompt_eval_count: r.promptTokens,
		prompt_eval_duration: Math.round(r.promptMs * 1e6),
		eval_count: r.nGen,
		eval_duration: Math.round(r.evalMs * 1e6),
	});

	let nextId = 1;

	const handleOllamaGen = async (req: http.IncomingMessage, res: http.ServerResponse, body: Json, chat: boolean, tReq: bigint): Promise<void> => {
		const m = findModel(body.model);
		if (typeof body.model !== 'string' || body.model === '') return jsonBody(res, 400, {error: 'model is required'});
		if (!m) return jsonBody(res, 404, {error: `model "${body.model}" not found, try pulling it first`});
		// server/sched.go ErrMaxQueue, answered 503 by routes.go handleScheduleError (ollama/ollama @ fb30760).
		if (sessionMode && m.inQueue >= MAX_IN_QUEUE) return jsonBody(res, 503, {error: 'server busy, please try again.  maximum pending requests exceeded'});
		const options = asObject(body.options) ?? {};
		const stream = body.stream !== false;
		let rendered: string;
		let userText: string;
		if (chat) {
			const msgs = Array.isArray(body.messages) ? body.messages.map(asObject).filter((x): x is Json => x !== undefined) : [];
			const list = msgs.map((x) => ({role: typeof x.role === 'string' ? x.role : 'user', content: messageText(x.content)}));
			if (list.length === 0) {
				if (!m.loaded) await runTask(() => withModelLoad(m));
				return jsonBody(res, 200, {model: m.spec.name, created_at: new Date().toISOString(), message: {role: 'assistant', content: ''}, done_reason: 'load', done: true});
			}
			rendered = renderChat(list);
			userText = [...list].reverse().find((x) => x.role === 'user')?.content ?? list[list.length - 1]?.content ?? '';
		} else {
			const prompt = typeof body.prompt === 'string' ? body.prompt : '';
			if (prompt === '') {
				if (!m.loaded) await runTask(() => withModelLoad(m));
				return jsonBody(res, 200, {model: m.spec.name, created_at: new Date().toISOString(), response: '', done: true, done_reason: 'load'});
			}
			const system = typeof body.system === 'string' ? body.system : '';
			rendered = body.raw === true ? prompt : renderChat([...(system ? [{role: 'system', content: system}] : []), {role: 'user', content: prompt}]);
			userText = prompt;
		}
		const g: GenRequest = {model: m, rendered, userText, numPredict: asNumber(options.num_predict), seed: asNumber(options.seed)};
		const chunk = (text: string): Json =>
			chat
				? {model: m.spec.name, created_at: new Date().toISOString(), message: {role: 'assistant', content: text}, done: false}
				: {model: m.spec.name, created_at: new Date().toISOString(), response: text, done: false};
		if (stream) res.writeHead(200, {'Content-Type': 'application/x-ndjson'});
		const r = await generate(
			g,
			(texts) => {
				if (!stream || texts.length === 0 || res.writableEnded || res.destroyed) return;
				res.write(texts.map((t) => `${JSON.stringify(chunk(t))}\n`).join(''));
			},
			() => res.destroyed,
			tReq,
			tryOf.get(req),
		);
		if (r.aborted || res.destroyed) return void res.end();
		const final: Json = chat
			? {model: m.spec.name, created_at: new Date().toISOString(), message: {role: 'assistant', content: stream ? '' : r.text}, done_reason: r.doneReason, done: true, ...genFields(r)}
			: {model: m.spec.name, created_at: new Date().toISOString(), response: stream ? '' : r.text, done: true, done_reason: r.doneReason, ...genFields(r)};
		if (stream) res.end(`${JSON.stringify(final)}\n`);
		else jsonBody(res, 200, final);
	};

	const openAiError = (res: http.ServerResponse, status: number, message: string, type: string): void =>
		jsonBody(res, status, {error: {message, type, param: null, code: null}});

	const handleOpenAi = async (req: http.IncomingMessage, res: http.ServerResponse, body: Json, chat: boolean, tReq: bigint): Promise<void> => {
		const m = findModel(body.model);
		if (typeof body.model !== 'string' || body.model === '') return openAiError(res, 400, 'model is required', 'invalid_request_error');
		if (!m) return openAiError(res, 404, `model "${body.model}" not found, try pulling it first`, 'not_found_error');
		let rendered: string;
		let userText: string;
		if (chat) {
			const msgs = Array.isArray(body.messages) ? body.messages.map(asObject).filter((x): x is Json => x !== undefined) : [];
			const list = msgs.map((x) => ({role: typeof x.role === 'string' ? x.role : 'user', content: messageText(x.content)}));
			if (list.length === 0) return openAiError(res, 400, 'invalid message format', 'invalid_request_error');
			rendered = renderChat(list);
			userText = [...list].reverse().find((x) => x.role === 'user')?.content ?? '';
		} else {
			const prompt = typeof body.prompt === 'string' ? body.prompt : Array.isArray(body.prompt) && typeof body.prompt[0] === 'string' ? body.prompt[0] : undefined;
			if (prompt === undefined) return openAiError(res, 400, 'invalid prompt', 'invalid_request_error');
			rendered = prompt;
			userText = prompt;
		}
		const stream = body.stream === true;
		const includeUsage = asObject(body.stream_options)?.include_usage === true;
		const maxTokens = asNumber(body.max_completion_tokens) ?? asNumber(body.max_tokens);
		const id = `${chat ? 'chatcmpl' : 'cmpl'}-${nextId++}`;
		const created = Math.floor(Date.now() / 1000);
		const object = chat ? 'chat.completion.chunk' : 'text_completion';
		const base = (): Json => ({id, object, created, model: m.spec.name, system_fingerprint: 'fp_ollama'});
		const choice = (text: string, finish: string | null): Json =>
			chat ? {index: 0, delta: {role: 'assistant', content: text}, finish_reason: finish} : {text, index: 0, finish_reason: finish};
		if (stream) res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive'});
		const r = await generate(
			{model: m, rendered, userText, numPredict: maxTokens, seed: asNumber(body.seed)},
			(texts) => {
				if (!stream || texts.length === 0 || res.writableEnded || res.destroyed) return;
				res.write(texts.map((t) => `data: ${JSON.stringify({...base(), choices: [choice(t, null)]})}\n\n`).join(''));
			},
			() => res.destroyed,
			tReq,
		);
		if (r.aborted || res.destroyed) return void res.end();
		const usage = {prompt_tokens: r.promptTokens, completion_tokens: r.nGen, total_tokens: r.promptTokens + r.nGen};
		if (stream) {
			let out = `data: ${JSON.stringify({...base(), choices: [choice('', r.doneReason)]})}\n\n`;
			if (includeUsage) out += `data: ${JSON.stringify({...base(), choices: [], usage})}\n\n`;
			out += 'data: [DONE]\n\n';
			res.end(out);
			return;
		}
		jsonBody(res, 200, {
			id,
			object: chat ? 'chat.completion' : 'text_completion',
			created,
			model: m.spec.name,
			system_fingerprint: 'fp_ollama',
			choices: [chat ? {index: 0, message: {role: 'assistant', content: r.text}, finish_reason: r.doneReason} : {text: r.text, index: 0, finish_reason: r.doneReason}],
			usage,
		});
	};

	const withModelLoad = (m: ModelState): Promise<void> =>
		inModelQueue(m, async () => {
			if (!m.loaded) await loadModel(m);
			m.expiresAt = new Date(Date.now() + KEEP_ALIVE_MS);
		});

	const runTask = <T>(fn: () => Promise<T>): Promise<T> => {
		const p = fn();
		active.add(p);
		const done = (): void => {
			active.delete(p);
		};
		p.then(done, done);
		return p;
	};

	const route = async (req: http.IncomingMessage, res: http.ServerResponse, tReq: bigint): Promise<void> => {
		const url = new URL(req.url ?? '/', 'http://localhost');
		const method = req.method ?? 'GET';
		const p = url.pathname;
		const getLike = method === 'GET' || method === 'HEAD';
		if (p === '/' && getLike) return textBody(res, 200, 'Ollama is running');
		if (p === '/api/version' && getLike) return jsonBody(res, 200, {version: DEMO_OLLAMA_VERSION});
		if (p === '/api/ps' && getLike) {
			const list = models
				.filter((m) => m.loaded)
				.map((m) => {
					const {size, vram} = psSizes(m);
					return {
						name: m.spec.name,
						model: m.spec.name,
						size,
						digest: m.spec.digest,
						details: details(m.spec),
						expires_at: slogTime(m.expiresAt ?? new Date(Date.now() + KEEP_ALIVE_MS)),
						size_vram: vram,
						context_length: m.spec.contextLength,
					};
				})
				.sort((a, b) => (a.expires_at < b.expires_at ? 1 : a.expires_at > b.expires_at ? -1 : 0));
			return jsonBody(res, 200, {models: list});
		}
		if (p === '/api/tags' && getLike) {
			return jsonBody(res, 200, {
				models: models.map((m) => ({name: m.spec.name, model: m.spec.name, modified_at: modifiedAt, size: m.spec.fileBytes, digest: m.spec.digest, details: details(m.spec)})),
			});
		}
		if (p === '/v1/models' && getLike) {
			const created = Math.floor(Date.parse(modifiedAt) / 1000);
			return jsonBody(res, 200, {object: 'list', data: models.map((m) => ({id: m.spec.name, object: 'model', created, owned_by: 'library'}))});
		}
		const posts = ['/api/show', '/api/generate', '/api/chat', '/v1/chat/completions', '/v1/completions'];
		if (!posts.includes(p) || method !== 'POST') return textBody(res, 404, '404 page not found');
		let body: Json;
		try {
			const raw = await readBody(req);
			const parsed: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
			const o = asObject(parsed);
			if (!o) throw new Error('expected a JSON object');
			body = o;
		} catch (e) {
			const msg = e instanceof Error ? e.message : 'invalid request';
			if (p.startsWith('/v1/')) return openAiError(res, 400, msg, 'invalid_request_error');
			return jsonBody(res, 400, {error: msg});
		}
		if (p === '/api/show') {
			const name = body.model ?? body.name;
			const m = findModel(name);
			if (!m) return jsonBody(res, 404, {error: `model '${typeof name === 'string' ? name : ''}' not found`});
			const s = m.spec;
			return jsonBody(res, 200, {
				license: 'Apache License 2.0',
				modelfile: `# Modelfile generated by "ollama show"\nFROM ${blobPath(m)}\nTEMPLATE {{ .Prompt }}\nPARAMETER temperature 0.6\n`,
				parameters: 'temperature                    0.6\ntop_k                          20\ntop_p                          0.95',
				template: '{{ .Prompt }}',
				details: details(s),
				model_info: modelInfo(s),
				...(body.verbose === true ? {tensors: s.tensors.map((t) => ({name: t.name, type: t.type, shape: t.shape}))} : {}),
				capabilities: ['completion', 'tools', 'thinking'],
				modified_at: modifiedAt,
			});
		}
		if (p === '/api/generate' || p === '/api/chat') return handleOllamaGen(req, res, body, p === '/api/chat', tReq);
		return handleOpenAi(req, res, body, p === '/v1/chat/completions', tReq);
	};

	const server = http.createServer((req, res) => {
		const tReq = nowNs();
		const ip = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
		const turnId = sessionMode ? req.headers['x-demo-turn'] : undefined;
		let attempt: DemoTry | undefined;
		if (typeof turnId === 'string' && turnId.length <= 32) {
			attempt = {arriveNs: tReq};
			const t = traces.get(turnId) ?? {id: turnId, side: turnId.startsWith('s'), tries: []};
			t.tries.push(attempt);
			traces.set(turnId, t);
			tryOf.set(req, attempt);
		}
		let logged = false;
		const gin = (): void => {
			if (logged) return;
			logged = true;
			const end = nowNs();
			if (attempt) {
				attempt.finishNs = end;
				attempt.status = res.statusCode;
			}
			write(ginLine(new Date(), res.statusCode, end - tReq, ip, req.method ?? 'GET', req.url ?? '/'));
		};
		res.on('finish', gin);
		res.on('close', gin);
		void runTask(async () => {
			try {
				await route(req, res, tReq);
			} catch (e) {
				if (e instanceof StoppedError) {
					res.destroy();
					return;
				}
				if (!res.headersSent) jsonBody(res, 500, {error: e instanceof Error ? e.message : 'internal error'});
				else res.end();
			}
		});
	});
	server.keepAliveTimeout = 1000;

	try {
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(opts.port ?? 0, host, () => {
				server.off('error', reject);
				resolve();
			});
		});
	} catch (e) {
		fdOpen = false;
		closeSync(fd);
		server.close(() => undefined);
		throw e;
	}
	port = (server.address() as AddressInfo).port;
	const url = `http://${host}:${port}`;
	slog('INFO', 'routes.go:1809', `Listening on ${host}:${port} (version ${DEMO_OLLAMA_VERSION})`);

	// ---- background agent -------------------------------------------------------------------
	const agentCtl = new AbortController();
	let agentTimer: NodeJS.Timeout | undefined;
	let agentDone: Promise<void> = Promise.resolve();
	if (sessionMode) {
		const gguf = models.find((m) => m.spec.runner === 'gguf') ?? models[0]!;
		agentDone = runTask(() =>
			runAgentLoop({
				url,
				model: gguf.spec.name,
				speed,
				rng: createRng(seed ^ 0x2545f491),
				signal: agentCtl.signal,
				sleep,
				contextTokens: gguf.spec.contextLength,
				maxTurns: opts.agentTurns,
			}).catch(() => undefined),
		);
	} else if (opts.agent !== false) {
		const interval = opts.agentIntervalMs ?? Math.max(50, 4000 / speed);
		const agentRng = createRng(seed ^ 0x9e3779b9);
		const system =
			'You are a coding agent working in a TypeScript repository. Keep answers short and precise. ' +
			'The repository is a terminal monitor for local inference engines; its figures must be true. '.repeat(6);
		const asks: Record<PromptKind, string[]> = {
			code: ['Implement a TypeScript function that parses a gin request line and returns its latency in ms.', 'Refactor this function so the parser never throws on malformed input: function parse(line) { return JSON.parse(line); }'],
			prose: ['Explain unified memory in 150 words.', 'Summarise why a verify pass costs more than a plain pass, in a paragraph.'],
			repeat: ['Repeat this sentence exactly 40 times, one per line: The quick brown fox jumps over the lazy dog.'],
			hex: ['Print 256 random hexadecimal bytes.'],
		};
		const kinds: PromptKind[] = ['code', 'prose', 'code', 'repeat', 'code', 'hex'];
		let n = 0;
		// One request at a time per agent; `both` runs one agent per model, so both are busy at once.
		const agents = opts.agent === 'both' ? models.map((m) => m.spec.name) : [undefined];
		const busyOf = new Map<string | undefined, boolean>();
		const tickOne = async (pinned: string | undefined): Promise<void> => {
			if (stopped || busyOf.get(pinned) === true) return;
			busyOf.set(pinned, true);
			try {
				const kind = kinds[n % kinds.length] ?? 'code';
				const list = asks[kind];
				const ask = list[Math.floor(agentRng() * list.length)] ?? list[0] ?? 'Hello';
				const model = pinned ?? models[n % models.length]?.spec.name ?? 'qwen3.8:latest';
				const numPredict = 96 + Math.floor(agentRng() * 224);
				const endpoint = n % 3;
				n++;
				let reqPath: string;
				let reqBody: Json;
				if (endpoint === 0) {
					reqPath = '/api/chat';
					reqBody = {model, messages: [{role: 'system', content: system}, {role: 'user', content: ask}], options: {num_predict: numPredict}};
				} else if (endpoint === 1) {
					reqPath = '/api/generate';
					reqBody = {model, system, prompt: ask, options: {num_predict: numPredict}};
				} else {
					reqPath = '/v1/chat/completions';
					reqBody = {model, stream: true, stream_options: {include_usage: true}, max_tokens: numPredict, messages: [{role: 'system', content: system}, {role: 'user', content: ask}]};
				}
				await drain(await postJson(url + reqPath, JSON.stringify(reqBody), agentCtl.signal));
			} catch {
				// the agent is best effort: a failed request is simply the next one's turn
			} finally {
				busyOf.set(pinned, false);
			}
		};
		const tick = async (): Promise<void> => {
			await Promise.all(agents.map((a) => tickOne(a)));
		};
		const schedule = (delay: number): void => {
			if (stopped) return;
			agentTimer = setTimeout(() => {
				void runTask(tick);
				schedule(interval);
			}, delay);
		};
		schedule(Math.min(interval, 50));
	}

	let stopping: Promise<void> | undefined;
	const stop = (): Promise<void> => {
		if (stopping) return stopping;
		stopping = (async () => {
			stopped = true;
			if (agentTimer) clearTimeout(agentTimer);
			agentCtl.abort();
			for (const s of sleepers) {
				clearTimeout(s.timer);
				s.resolve();
			}
			sleepers.clear();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await Promise.allSettled([...active]);
			await closed;
			if (fdOpen) {
				fdOpen = false;
				closeSync(fd);
			}
		})();
		return stopping;
	};

	return {
		url,
		port,
		logPath: opts.logPath,
		models: models.map((m) => m.params),
		bandwidthGBs: DEMO_BANDWIDTH_GBS * speed,
		agentTraces: () => [...traces.values()],
		agentAccounting: () => agentAccounting([...traces.values()]),
		agentDone,
		stop,
	};
}

