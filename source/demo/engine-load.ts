/**
 * A model load, with the lines Ollama and its runner write while loading: for the GGUF model the
 * `llama-server` command line and llama.cpp's load lines (layers offloaded, buffers, context,
 * speculative decoding), for the MLX model the runner's start lines. Formats: demo/logfmt.ts.
 */
import type {DemoContext} from './engine-context.js';
import {blobPath, inModelQueue, KEEP_ALIVE_MS, type ModelState} from './engine-models.js';
import {nowNs} from './engine-schedule.js';
import {bufferLine, slotLine, specLine, srvLine} from './logfmt.js';
import {MIB, type GgufLayout} from './models.js';

const LLAMA_SERVER_BIN = '/usr/lib/ollama/llama-server';

export async function loadModel(ctx: DemoContext, m: ModelState): Promise<void> {
	const {log, sched} = ctx;
	const t0 = nowNs();
	if (m.spec.runner === 'gguf') {
		const lay = m.layout as GgufLayout;
		const blob = blobPath(m);
		log.slog('INFO', 'llama_server.go:512', 'starting llama-server', [
			[
				'cmd',
				`${LLAMA_SERVER_BIN} --model ${blob} --port ${m.runnerPort} --host 127.0.0.1 --no-webui --offline -c ${m.spec.contextLength} -np 1 --log-verbosity 4 --no-log-prefix --no-log-timestamps --n-gpu-layers ${lay.gpuLayers} --spec-type draft-mtp`,
			],
		]);
		log.slog('INFO', 'llama_server.go:1046', 'loading model via llama-server', [['model', blob]]);
		await sched.sleep(m.params.loadMs * 0.6);
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
		log.write(lines);
		await sched.sleep(m.params.loadMs * 0.4);
		const secs = Number(nowNs() - t0) / 1e9;
		log.slog('INFO', 'llama_server.go:725', `llama-server started in ${secs.toFixed(2)} seconds`);
	} else {
		log.slog('INFO', 'server.go:168', 'starting mlx runner subprocess', [
			['model', m.spec.name],
			['port', m.runnerPort],
		]);
		await sched.sleep(m.params.loadMs * 0.2);
		log.slog('INFO', 'runner.go:92', 'MLX engine initialized', [
			['MLX version', '0.31.1'],
			['device', 'gpu'],
		]);
		await sched.sleep(m.params.loadMs * 0.6);
		log.slog('INFO', 'manifest.go:141', 'Loaded tensors from manifest', [['count', m.spec.tensors.length]]);
		await sched.sleep(m.params.loadMs * 0.2);
		log.slog('INFO', 'server.go:241', 'mlx runner is ready', [['port', m.runnerPort]]);
	}
	m.loaded = true;
	m.loadedAt = new Date();
}

/** A load asked for on its own (an empty prompt): queued like a request, it renews the keep-alive. */
export function withModelLoad(ctx: DemoContext, m: ModelState): Promise<void> {
	return inModelQueue(m, async () => {
		if (!m.loaded) await loadModel(ctx, m);
		m.expiresAt = new Date(Date.now() + KEEP_ALIVE_MS);
	});
}
