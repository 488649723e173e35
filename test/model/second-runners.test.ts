/**
 * Issue 30, "Second runners in one Ollama log": a second model's runner starts inside one Ollama
 * log. Lines are built from ollama/ollama's format strings (@ fb3076099):
 * - llm/llama_server.go:433 `slog.Info("starting llama-server", "cmd", cmd)` (an *exec.Cmd, printed
 *   by its String(): the binary and its arguments, `--model <blob path>`), then
 *   llm/llama_server.go:1048 `slog.Info("loading model via llama-server", "model", s.modelPath)`
 *   (the blob path, not the model's name), the runner's own llama-server lines (load_tensors,
 *   `srv llama_server: model loaded`), then llm/llama_server.go:1362
 *   `llama-server started in %0.2f seconds`;
 * - x/mlxrunner/client.go:391 `slog.Info("starting mlx runner subprocess", "model", c.modelName, "port", c.port)`;
 * - x/mlxrunner/server.go:44 `slog.Info("MLX engine initialized", "MLX version", mlx.Version(), "device", "gpu")`.
 * The scheduler (server/sched.go processPending, "Block other requests until we get this pending
 * request running") starts a runner for one pending request and hands that request to it first.
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {deriveServer} from '../../source/model/derive.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {sanitize} from '../../source/util/sanitize.js';
import type {MonitorState} from '../../source/types/state.js';
import type {LineParser} from '../../source/types/events.js';

const T0 = Date.parse('2026-08-21T18:40:00Z');
const ID = 'log:server.log';
const iso = (t: number) => new Date(t).toISOString();
const slog = (t: number, source: string, msg: string, attrs = '') => `time=${iso(t)} level=INFO source=${source} msg="${msg}"${attrs ? ` ${attrs}` : ''}`;
const BLOBS = '/usr/share/ollama/.ollama/models/blobs';
const A = `${BLOBS}/sha256-6f3c1a2b9d`;
const B = `${BLOBS}/sha256-1a2b7c4e88`;

function feed(state: MonitorState, parser: LineParser, lines: readonly [number, string][]): MonitorState {
	for (const [t, raw] of lines) {
		const text = sanitize(raw);
		const events = parser.push(text);
		state = reduce(state, {type: 'log-line', serverId: ID, t, text, parsed: events !== null});
		for (const event of events ?? []) state = reduce(state, {type: 'engine-event', serverId: ID, t, event});
	}
	return state;
}

const logOnly = (): MonitorState =>
	reduce(initialState({now: T0}), {type: 'server-seen', t: T0, server: {id: ID, engine: 'ollama', source: 'log', logLabel: 'server.log'}});

/** One GGUF runner's start, as Ollama ≥ 0.30 logs it. */
const ggufLoad = (t: number, blob: string, port: number, onGpu: number, total: number): [number, string][] => [
	[t, slog(t, 'llama_server.go:433', 'starting llama-server', `cmd="/usr/lib/ollama/llama-server --model ${blob} --port ${port} --host 127.0.0.1 --no-webui --offline -c 8192 -np 1 --log-verbosity 4 --no-log-prefix --no-log-timestamps"`)],
	[t + 1, slog(t + 1, 'llama_server.go:1048', 'loading model via llama-server', `model=${blob}`)],
	[t + 2, 'load_tensors: loading model tensors, this can take a while... (load_mode = mmap)'],
	[t + 3, `load_tensors: offloaded ${onGpu}/${total} layers to GPU`],
	[t + 4, 'srv    load_model: initializing, n_slots = 1, n_ctx_slot = 8192, kv_unified = \'false\''],
	[t + 5, 'srv  llama_server: model loaded'],
	[t + 6, `srv  llama_server: listening on http://127.0.0.1:${port}`],
	[t + 7, slog(t + 7, 'llama_server.go:1362', 'llama-server started in 3.21 seconds')],
];

/** One request on a llama-server runner (print_timing / release, tools/server/server-context.cpp). */
const ggufRequest = (t: number, task: number, prompt: number, gen: number, evalMs: number): [number, string][] => [
	[t, `slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`],
	[t + 1, `slot   operator(): id  0 | task ${task} | new prompt, n_ctx_slot = 8192, n_keep = 4, task.n_tokens = ${prompt}`],
	[t + 2, `slot   operator(): id  0 | task ${task} | cached n_tokens = 0, memory_seq_rm [0, end)`],
	[t + 900, `slot print_timing: id  0 | task ${task} | prompt eval time =     400.00 ms / ${String(prompt).padStart(5)} tokens (    0.28 ms per token,  3530.00 tokens per second)`],
	[t + 901, `slot print_timing: id  0 | task ${task} |        eval time =  ${evalMs.toFixed(2).padStart(9)} ms / ${String(gen).padStart(5)} tokens (   20.00 ms per token,    50.00 tokens per second)`],
	[t + 902, `slot print_timing: id  0 | task ${task} |       total time =  ${(400 + evalMs).toFixed(2).padStart(9)} ms / ${String(prompt + gen).padStart(5)} tokens`],
	[t + 903, `slot      release: id  0 | task ${task} | stop processing: n_tokens = ${prompt + gen - 1}, truncated = 0`],
	[t + 904, '[GIN] 2026/08/21 - 18:40:19 | 200 |  1.400000000s |       127.0.0.1 | POST     "/api/chat"'],
];

describe('a second GGUF runner in one Ollama log', () => {
	function twoRunners(): MonitorState {
		const p = createParser('ollama');
		let s = logOnly();
		s = feed(s, p, [
			[T0, slog(T0, 'routes.go:1680', 'Listening on 127.0.0.1:11434 (version 0.33.0)')],
			...ggufLoad(T0 + 1000, A, 41235, 65, 65),
			...ggufRequest(T0 + 5000, 0, 1412, 50, 1000),
			...ggufRequest(T0 + 8000, 2, 1630, 40, 800),
			...ggufLoad(T0 + 12_000, B, 41236, 20, 29),
			// The request the second runner was started for: its first task (ids restart at 0).
			...ggufRequest(T0 + 16_000, 0, 300, 100, 4000),
		]);
		return reduce(s, {type: 'tick', t: T0 + 20_000});
	}

	it('the request the second runner was started for is of the second model', () => {
		const s = twoRunners();
		const reqs = s.servers[ID]!.requests;
		expect(reqs.map(r => r.model)).toEqual([A, A, B]);
		// A blob path is the log's name for a model that nothing lists: shown as its file name.
		expect(toSnapshot(s, 'test').requests.map(r => r.model)).toEqual(['sha256-6f3c1a2b9d', 'sha256-6f3c1a2b9d', 'sha256-1a2b7c4e88']);
	});

	it('each runner\'s offloaded N/M line is its own model\'s: 65/65 and 20/29, both models listed', () => {
		const s = twoRunners();
		const rows = deriveServer(s, ID);
		expect(rows.map(f => [f.model, f.processor])).toEqual([['sha256-6f3c1a2b9d', '65/65 layers GPU'], ['sha256-1a2b7c4e88', '20/29 layers GPU']]);
		const snap = toSnapshot(s, 'test');
		expect(snap.models.map(m => [m.model, m.gpuResidency, m.requests])).toEqual([['sha256-6f3c1a2b9d', 1, 2], ['sha256-1a2b7c4e88', 0.6897, 1]]);
	});

	it('a later request after both runners are up names neither: it stays unknown, never the last one loaded', () => {
		const p = createParser('ollama');
		let s = logOnly();
		s = feed(s, p, [
			...ggufLoad(T0 + 1000, A, 41235, 65, 65),
			...ggufRequest(T0 + 5000, 0, 1412, 50, 1000),
			...ggufLoad(T0 + 12_000, B, 41236, 20, 29),
			...ggufRequest(T0 + 16_000, 0, 300, 100, 4000),
			// Task 2 is past the second runner's first task and the first runner's last: either runner's.
			...ggufRequest(T0 + 22_000, 2, 500, 30, 600),
		]);
		expect(s.servers[ID]!.requests.map(r => r.model)).toEqual([A, B, undefined]);
	});
});

describe('a second MLX runner in one Ollama log', () => {
	const mlxStart = (t: number, name: string, port: number): [number, string][] => [
		[t, slog(t, 'client.go:391', 'starting mlx runner subprocess', `model=${name} port=${port}`)],
		[t + 200, slog(t + 200, 'server.go:44', 'MLX engine initialized', '"MLX version"=0.31.1 device=gpu')],
		[t + 900, slog(t + 900, 'server.go:241', 'mlx runner is ready', `port=${port}`)],
	];
	const mlxRequest = (t: number, iterations: number, drafted: number, accepted: number): [number, string][] => [
		[t, slog(t, 'prefix_cache.go:125', 'cache miss', 'total=100 left=100')],
		[t + 500, slog(t + 500, 'speculate_stats.go:62', 'speculative decode stats', `iterations=${iterations} drafted=${drafted} accepted=${accepted}`)],
		[t + 500, slog(t + 500, 'server.go:225', 'ServeHTTP', 'method=POST path=/v1/completions took=500ms status="200 OK"')],
	];

	it('the runner started serves the very next request: that request is of its model; both models 100 % GPU (unified)', () => {
		const p = createParser('ollama');
		let s = logOnly();
		s = feed(s, p, [
			...mlxStart(T0, 'qwen3.8:27b-mlx', 51234),
			...mlxRequest(T0 + 2000, 100, 200, 129),
			...mlxStart(T0 + 4000, 'gemma4:12b-mlx', 51235),
			...mlxRequest(T0 + 6000, 50, 160, 150),
			...mlxRequest(T0 + 8000, 40, 80, 60),
		]);
		s = reduce(s, {type: 'tick', t: T0 + 10_000});
		// The third request comes after both are up: its lines name neither runner.
		expect(s.servers[ID]!.requests.map(r => r.model)).toEqual(['qwen3.8:27b-mlx', 'gemma4:12b-mlx', undefined]);
		const rows = deriveServer(s, ID);
		expect(rows.map(f => [f.model, f.tokensPerPass, f.gpuResidency, f.processor])).toEqual([
			['qwen3.8:27b-mlx', 2.29, 1, '100% GPU (unified)'],
			['gemma4:12b-mlx', 4, 1, '100% GPU (unified)'],
		]);
	});

	it('a runner started while another\'s request runs: requests may be queued behind that one, so the next is unknown', () => {
		const p = createParser('ollama');
		let s = logOnly();
		s = feed(s, p, [
			...mlxStart(T0, 'qwen3.8:27b-mlx', 51234),
			[T0 + 2000, slog(T0 + 2000, 'prefix_cache.go:125', 'cache miss', 'total=100 left=100')],
			...mlxStart(T0 + 2100, 'gemma4:12b-mlx', 51235),
			[T0 + 3000, slog(T0 + 3000, 'speculate_stats.go:62', 'speculative decode stats', 'iterations=100 drafted=200 accepted=129')],
			[T0 + 3000, slog(T0 + 3000, 'server.go:225', 'ServeHTTP', 'method=POST path=/v1/completions took=1s status="200 OK"')],
			...mlxRequest(T0 + 6000, 50, 160, 150),
		]);
		expect(s.servers[ID]!.requests.map(r => r.model)).toEqual(['qwen3.8:27b-mlx', undefined]);
	});

});
