/**
 * One generation: queued behind the model's other requests (loading it first if it is not), its
 * prompt cache matched against the slot's last tokens, its passes simulated (demo/sim.ts) and
 * paced in real time, its tokens emitted as they are made, and the lines its runner writes for it
 * (llama.cpp's slot and `print_timings` lines, MLX's cache and speculative-decoding lines).
 */
import type {DemoTry} from './agent.js';
import type {DemoContext} from './engine-context.js';
import type {DemoLog} from './engine-log.js';
import {loadModel} from './engine-load.js';
import {inModelQueue, KEEP_ALIVE_MS, type ModelState} from './engine-models.js';
import {nowNs, StoppedError} from './engine-schedule.js';
import {printTimingLines, slotLine, specStatisticsLine, srvLine} from './logfmt.js';
import {classifyPrompt, commonPrefix, createRng, hashString, prefillMs, simulateRequest, tokenText, tokenize, type PromptKind, type SimResult} from './sim.js';

export interface GenRequest {
	readonly model: ModelState;
	/** The prompt after the chat template. */
	readonly rendered: string;
	/** The text that decides the prompt kind. */
	readonly userText: string;
	readonly numPredict: number | undefined;
	readonly seed: number | undefined;
	/** The request's `keep_alive` (ms): how long the model stays loaded after it (default KEEP_ALIVE_MS). */
	readonly keepAliveMs?: number;
}

/**
 * The model's keep-alive ran out while it was idle: it leaves memory (Ollama unloads it and logs
 * nothing at INFO; `/api/ps` no longer lists it) and its prompt cache with it.
 */
export function expireIfIdle(m: ModelState, queued = 0, now = Date.now()): void {
	if (m.loaded && m.inQueue <= queued && m.expiresAt !== undefined && m.expiresAt.getTime() <= now) {
		m.loaded = false;
		m.lastTokens = [];
	}
}

/**
 * A prompt longer than the window is cut as Ollama ≥ 0.30.11 cuts it (llm/llama_server.go @ fb30760,
 * `contextShiftPromptLimit`): the first `keep` tokens (num_keep 4, + 1 for BOS) and the newest ones,
 * `limit = num_ctx − max((num_ctx − keep)/2, 1)` in all, with its WARN line.
 */
function truncateForWindow(log: DemoContext['log'], numCtx: number, tokens: readonly string[]): string[] | undefined {
	if (tokens.length <= numCtx - 1) return undefined;
	const keep = 5;
	const limit = numCtx - Math.max(Math.floor((numCtx - keep) / 2), 1);
	const cut = [...tokens.slice(0, keep), ...tokens.slice(tokens.length - (limit - keep))];
	log.slog('WARN', 'llama_server.go:317', 'truncating input prompt', [
		['limit', limit],
		['prompt', tokens.length],
		['keep', keep],
		['new', cut.length],
	]);
	return cut;
}

export interface GenResult {
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

/** Called with each pass's token texts as they are made. */
export type Emit = (texts: readonly string[]) => void;

/** The lines a new task's prompt writes: llama.cpp's slot lines, or MLX's prefix-cache line. */
function writePromptLines(log: DemoLog, m: ModelState, task: number, promptTokens: number, cached: number): void {
	const processed = promptTokens - cached;
	if (m.spec.runner === 'gguf') {
		log.write([
			slotLine('launch_slot_with_task', 0, task, 'processing task, is_child = 0'),
			slotLine('operator()', 0, task, `new prompt, n_ctx_slot = ${m.spec.contextLength}, n_keep = 0, task.n_tokens = ${promptTokens}`),
			slotLine('operator()', 0, task, `cached n_tokens = ${cached}, memory_seq_rm [${cached}, end)`),
		]);
	} else {
		log.slog('INFO', 'prefix_cache.go:125', cached > 0 ? 'cache hit' : 'cache miss', [
			['total', promptTokens],
			['matched', cached],
			['cached', cached],
			['left', processed],
		]);
	}
}

/** What a GGUF task writes when it ends: its timings and the running draft statistics (unless aborted), then the slot's release. */
function writeGgufEnd(log: DemoLog, m: ModelState, task: number, sim: SimResult, e: {processed: number; promptMs: number; evalMs: number; promptTokens: number; produced: number; aborted: boolean}): void {
	const {processed, promptMs, evalMs, promptTokens, produced, aborted} = e;
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
		log.write([
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
	log.write([
		slotLine('release', 0, task, `stop processing: n_tokens = ${promptTokens + produced - 1}, truncated = 0`),
		srvLine('update_slots', 'all slots are idle'),
	]);
}

/** MLX's speculative-decoding statistics line, with the draft depth over time in up to 8 buckets. */
function writeMlxStats(log: DemoLog, sim: SimResult): void {
	const buckets = Math.min(8, sim.iterations);
	const depth: string[] = [];
	for (let b = 0; b < buckets; b++) {
		const slice = sim.passes.slice(Math.floor((b * sim.iterations) / buckets), Math.floor(((b + 1) * sim.iterations) / buckets));
		const mean = slice.reduce((a, p) => a + p.drafted, 0) / Math.max(1, slice.length);
		const max = slice.reduce((a, p) => Math.max(a, p.drafted), 0);
		depth.push(`${mean.toFixed(1)}/${max}`);
	}
	log.slog('INFO', 'speculate_stats.go:62', 'speculative decode stats', [
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

export function generate(ctx: DemoContext, g: GenRequest, emit: Emit, isClosed: () => boolean, tReq: bigint, trace?: DemoTry): Promise<GenResult> {
	const {log, sched} = ctx;
	const m = g.model;
	return inModelQueue(m, async () => {
		if (isClosed()) throw new StoppedError('client gone');
		const tLoad = nowNs();
		// (this request is the one in the model's queue)
		expireIfIdle(m, 1);
		const loading = !m.loaded;
		if (loading) await loadModel(ctx, m);
		const loadNs = Number(nowNs() - tLoad);
		if (trace && loading) trace.loaded = true;
		m.requests++;
		const reqSeed = g.seed ?? ctx.seed * 1_000_003 + m.requests;
		const rng = createRng(hashString(g.rendered, reqSeed >>> 0));
		const textRng = createRng(hashString(g.userText, (reqSeed ^ 0x5bd1e995) >>> 0));
		const kind: PromptKind = classifyPrompt(g.userText);
		const whole = tokenize(g.rendered);
		const cut = m.spec.runner === 'gguf' ? truncateForWindow(log, m.spec.contextLength, whole) : undefined;
		if (trace && cut) trace.truncated = true;
		const tokens = cut ?? whole;
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

		writePromptLines(ctx.log, m, task, promptTokens, cached);

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
			await sched.sleep(start + planned - performance.now());
		};
		await waitUntil();
		// What the prompt took, measured, as a real engine's timer says it (the `session` agent's log).
		const promptMsMeasured = performance.now() - start;
		if (m.spec.runner === 'mlx' && processed >= 256) {
			log.slog('INFO', 'pipeline.go:204', 'Prompt processing progress', [
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
				log.write(slotLine('print_timings', 0, task, `n_gen = ${String(produced).padStart(6)}, tg = ${tg.toFixed(2).padStart(6)} t/s, tg_3s = ${tg3.toFixed(2).padStart(6)} t/s`));
				lastTg = now;
				lastTgCount = produced;
			}
		}
		const decodeMsMeasured = performance.now() - decodeStart;
		const evalMs = ctx.sessionMode ? decodeMsMeasured : sim.decodeMs;
		const promptMs = ctx.sessionMode ? promptMsMeasured : pMs;
		if (trace) {
			trace.prefillMs = promptMs;
			trace.decodeMs = evalMs;
			trace.generatedTokens = produced;
		}
		// The slot keeps what it generated: the next turn's prompt reuses prompt + answer.
		if (ctx.sessionMode && !aborted) m.lastTokens = cut ? [...cut, ...tokenize(texts.join(''))] : tokenize(g.rendered + texts.join(''));
		if (m.spec.runner === 'gguf') writeGgufEnd(ctx.log, m, task, sim, {processed, promptMs, evalMs, promptTokens, produced, aborted});
		else if (!aborted) writeMlxStats(ctx.log, sim);
		m.expiresAt = new Date(Date.now() + (g.keepAliveMs ?? KEEP_ALIVE_MS));
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
}
