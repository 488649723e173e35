import {describe, expect, it} from 'vitest';
import {createOllamaParser, goDurationMs, ollamaHumanBytes, ollamaProcessor, sizeToMiB, slogAttrs} from '../../source/engines/ollama.js';
import {acceptance, requestFigures} from '../../source/model/figures.js';
import {one, requests, run} from '../helpers/engines.js';

describe('Ollama slog and gin lines (engines.md §1e)', () => {
	it('captured slog lines are understood; quoted attributes parse', () => {
		const p = createOllamaParser();
		expect(one(p, 'time=2025-07-01T19:33:43.162Z level=INFO source=types.go:130 msg="inference compute" id=GPU-452cac9f-6960-839c-4fb3-0cec83699196 library=cuda variant=v12 compute=6.1 driver=12.7 name="NVIDIA GeForce GT 1030" total="3.9 GiB" available="3.9 GiB"')).toEqual([]);
		expect(one(p, 'time=2025-07-01T19:33:43.163Z level=INFO source=routes.go:1721 msg="vram-based default context" total_vram="3.9 GiB" default_num_ctx=4096')).toEqual([]);
		expect(slogAttrs(' name="NVIDIA GeForce GT 1030" total="3.9 GiB" "MLX version"=0.29.1 device=gpu')).toEqual({name: 'NVIDIA GeForce GT 1030', total: '3.9 GiB', 'MLX version': '0.29.1', device: 'gpu'});
	});

	it('[GIN] request lines, latency µs/ms/s/1m2.5s → ms', () => {
		const p = createOllamaParser();
		expect(one(p, '[GIN] 2023/10/11 - 15:42:01 | 200 |       39.45µs |       127.0.0.1 | HEAD     "/"'))
			.toEqual([{type: 'http', status: 200, method: 'HEAD', path: '/', client: '127.0.0.1', latencyMs: expect.closeTo(0.03945, 9)}]);
		expect(one(p, '[GIN] 2026/08/21 - 18:48:30 | 200 |  8.123456789s |       127.0.0.1 | POST     "/api/chat"'))
			.toEqual([{type: 'http', status: 200, method: 'POST', path: '/api/chat', client: '127.0.0.1', latencyMs: expect.closeTo(8123.456789, 6)}]);
		// ANSI colours (gin on a TTY) are stripped by sanitize.
		expect(one(p, '[GIN] 2026/08/21 - 18:48:30 |\u001b[97;42m 200 \u001b[0m|      1m2.5s |       127.0.0.1 |\u001b[97;46m POST    \u001b[0m "/api/generate"'))
			.toEqual([{type: 'http', status: 200, method: 'POST', path: '/api/generate', client: '127.0.0.1', latencyMs: 62500}]);
		expect(goDurationMs('12.5ms')).toBe(12.5);
		expect(goDurationMs('1h0m3s')).toBe(3_603_000);
		expect(goDurationMs('800ns')).toBeCloseTo(0.0008, 8);
		expect(goDurationMs('bogus')).toBeUndefined();
	});

	it('server start, journald prefix stripped', () => {
		const p = createOllamaParser();
		expect(one(p, 'Aug 22 17:36:22 host ollama[30907]: time=2026-08-22T17:36:22.000Z level=INFO source=routes.go:1500 msg="Listening on 127.0.0.1:11434 (version 0.33.0)"'))
			.toEqual([{type: 'server-start', listen: '127.0.0.1:11434', version: '0.33.0'}]);
	});

	it('runner start/ready lines of every era → model-loaded', () => {
		const p = createOllamaParser();
		expect(one(p, 'time=2024-12-01T10:00:00.000Z level=INFO source=server.go:600 msg="llama runner started in 2.01 seconds"'))
			.toEqual([{type: 'model-loaded', runner: 'gguf', seconds: 2.01, model: undefined, evidence: 'time=2024-12-01T10:00:00.000Z level=INFO source=server.go:600 msg="llama runner started in 2.01 seconds"'}]);
		expect(one(p, '2023/12/03 14:58:42 llama.go:492: llama runner started in 9.200880 seconds'))
			.toEqual([{type: 'model-loaded', runner: 'gguf', seconds: 9.20088, model: undefined, evidence: '2023/12/03 14:58:42 llama.go:492: llama runner started in 9.200880 seconds'}]);
		expect(one(p, 'time=2026-06-10T10:00:00.000Z level=INFO source=llama_server.go:300 msg="loading model via llama-server" model=/models/blobs/sha256-abc')).toEqual([]);
		expect(one(p, 'time=2026-06-10T10:00:03.000Z level=INFO source=llama_server.go:400 msg="llama-server started in 3.21 seconds"'))
			.toEqual([{type: 'model-loaded', runner: 'gguf', seconds: 3.21, model: '/models/blobs/sha256-abc', evidence: 'time=2026-06-10T10:00:03.000Z level=INFO source=llama_server.go:400 msg="llama-server started in 3.21 seconds"'}]);
		expect(one(p, 'time=2026-08-21T18:48:00.000-07:00 level=INFO source=server.go:100 msg="starting mlx runner subprocess" model=qwen3.6:27b-mlx port=51234')).toEqual([]);
		expect(one(p, 'time=2026-08-21T18:48:05.000-07:00 level=INFO source=server.go:150 msg="mlx runner is ready" port=51234'))
			.toEqual([{type: 'model-loaded', runner: 'mlx', model: 'qwen3.6:27b-mlx', evidence: 'time=2026-08-21T18:48:05.000-07:00 level=INFO source=server.go:150 msg="mlx runner is ready" port=51234'}]);
	});

	it('offload lines of each era', () => {
		const p = createOllamaParser();
		expect(one(p, 'time=2024-12-15T10:00:00.000Z level=INFO source=memory.go:356 msg="offload to cuda" layers.requested=-1 layers.model=29 layers.offload=29 layers.split="" memory.available="[78.6 GiB]" memory.gpu_overhead="0 B" memory.required.full="3.7 GiB" memory.required.partial="3.7 GiB" memory.required.kv="896.0 MiB"'))
			.toEqual([{type: 'offload', layersOnGpu: 29, layersTotal: 29}]);
		expect(one(p, 'time=2024-05-20T10:00:00.000Z level=INFO source=memory.go:133 msg="offload to gpu" layers.requested=-1 layers.real=5 layers.model=33'))
			.toEqual([{type: 'offload', layersOnGpu: 5, layersTotal: 33}]);
		expect(one(p, 'time=2025-08-20T10:00:00.000Z level=INFO source=server.go:200 msg=offload library=cuda layers.requested=-1 layers.model=49 layers.offload=48 layers.split="" memory.available="[11.1 GiB]" projector.weights="795.9 MiB" projector.graph="1.0 GiB"'))
			.toEqual([{type: 'offload', layersOnGpu: 48, layersTotal: 49}]);
		expect(one(p, 'time=2025-08-20T10:00:00.000Z level=INFO source=ggml.go:400 msg="offloaded 41/41 layers to GPU"'))
			.toEqual([{type: 'offload', layersOnGpu: 41, layersTotal: 41}]);
		expect(one(p, 'time=2025-08-20T10:00:00.000Z level=INFO source=ggml.go:390 msg="offloading 40 repeating layers to GPU"')).toEqual([]);
	});

	it('model weights / kv cache / compute graph lines → buffers', () => {
		const p = createOllamaParser();
		expect(one(p, 'time=2025-08-20T10:00:00.000Z level=INFO source=device.go:200 msg="model weights" device=CUDA0 size="4.3 GiB"'))
			.toEqual([{type: 'buffer', device: 'CUDA0', kind: 'model', mib: 4.3 * 1024, onGpu: true}]);
		expect(one(p, 'time=2025-07-10T10:00:00.000Z level=INFO source=device.go:200 msg="model weights" buffer=CUDA1 size="11.9 GiB"'))
			.toEqual([{type: 'buffer', device: 'CUDA1', kind: 'model', mib: 11.9 * 1024, onGpu: true}]);
		expect(one(p, 'time=2025-08-20T10:00:00.000Z level=INFO source=device.go:210 msg="kv cache" device=CPU size="512.0 MiB"'))
			.toEqual([{type: 'buffer', device: 'CPU', kind: 'KV', mib: 512, onGpu: false}]);
		expect(sizeToMiB('1.5 KiB')).toBeCloseTo(1.5 / 1024, 9);
	});

	it('raw llama-server lines inside an Ollama ≥0.30 log are parsed and tagged gguf', () => {
		const p = createOllamaParser();
		const {events, unparsed} = run(p, [
			'time=2026-08-21T18:40:00.000-07:00 level=INFO source=llama_server.go:300 msg="loading model via llama-server" model=qwen3:8b',
			'load_tensors: offloaded 48/49 layers to GPU',
			'load_tensors:        CUDA0 model buffer size = 12900.00 MiB',
			'slot launch_slot_: id  0 | task 0 | processing task, is_child = 0',
			'slot   operator(): id  0 | task 0 | new prompt, n_ctx_slot = 131072, n_keep = 4, task.n_tokens = 14892',
			'slot   operator(): id  0 | task 0 | cached n_tokens = 0, memory_seq_rm [0, end)',
			'slot print_timing: id  0 | task 0 | prompt processing, n_tokens =   1536, progress = 0.10, t =   3.42 s / 448.61 tokens per second',
			'slot print_timing: id  0 | task 0 | prompt eval time =   33000.00 ms / 14892 tokens (    2.22 ms per token,   451.27 tokens per second)',
			'slot print_timing: id  0 | task 0 |        eval time =    7000.00 ms /   351 tokens (   20.00 ms per token,    50.00 tokens per second)',
			'slot print_timing: id  0 | task 0 | draft acceptance = 0.86695 ( 2906 accepted /  3352 generated), mean len =  4.47',
			'slot      release: id  0 | task 0 | stop processing: n_tokens = 15243, truncated = 0',
			'[GIN] 2026/08/21 - 18:48:30 | 200 |  40.1s |       127.0.0.1 | POST     "/api/chat"',
		]);
		expect(unparsed).toEqual([]);
		const r = requests(events).get('s0/t0')!;
		expect(r).toMatchObject({runner: 'gguf', model: 'qwen3:8b', promptTokens: 14892, cachedTokens: 0, prefillTokens: 14892, generatedTokens: 351, decodedTokens: 350, accepted: 2906, drafted: 3352, engineMeanLen: 4.47, done: true});
		expect(events).toContainEqual({type: 'offload', layersOnGpu: 48, layersTotal: 49, model: 'qwen3:8b'});
		expect(events).toContainEqual({type: 'prefill-progress', key: 's0/t0', processed: 1536, progress: 0.1, tps: 448.61});
	});
});

describe('Ollama MLX engine lines', () => {
	it('cache hit opens mlx#n, speculative decode stats closes it (engines.md example)', () => {
		const p = createOllamaParser();
		const {events, unparsed} = run(p, [
			'time=2026-08-21T18:48:22.123-07:00 level=INFO source=prefix_cache.go:125 msg="cache hit" total=5321 matched=5120 cached=5120 left=201',
			'time=2026-08-21T18:48:22.125-07:00 level=INFO source=pipeline.go:204 msg="Prompt processing progress" processed=201 total=201',
			'time=2026-08-21T18:48:25.900-07:00 level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=212 drafted=1180 accepted=833 acceptance=0.71 avg_draft=5.57 max_draft=7 avg_accepted=3.93 depth_over_time="2.1/4 4.8/6 5.9/7 6.0/7 6.0/7 5.8/7 6.0/7 5.9/7"',
			'time=2026-08-21T18:48:25.901-07:00 level=INFO source=pipeline.go:91 msg="peak memory" size=...',
		]);
		expect(unparsed).toEqual([]);
		expect(events).toContainEqual({type: 'prefill-progress', key: 'mlx#1', processed: 201, total: 201, progress: 1});
		const r = requests(events).get('mlx#1')!;
		expect(r).toEqual({key: 'mlx#1', runner: 'mlx', started: true, done: true, promptTokens: 5321, cachedTokens: 5120, sharedPrefixTokens: 5120, prefillTokens: 201, passes: 212, drafted: 1180, accepted: 833, decodedTokens: 1045, generatedTokens: 1045, engineMeanLen: 4.93});
		expect(r.decodeMs).toBeUndefined();
		const f = requestFigures(r);
		expect(f.tokensPerPass!.toFixed(2)).toBe('4.93');
		expect(f.acceptance!.toFixed(2)).toBe('0.71');
		expect(f.decodeTps).toBeUndefined();
	});

	it('seed 000: iterations=225 drafted=458 accepted=287 → 512 tokens, 2.28 per pass, acceptance 0.63', () => {
		const p = createOllamaParser();
		const {events} = run(p, [
			'time=2026-08-21T18:48:00.000-07:00 level=INFO source=prefix_cache.go:125 msg="cache miss" total=40 left=40',
			'time=2026-08-21T18:48:10.000-07:00 level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=225 drafted=458 accepted=287 acceptance=0.63 avg_draft=2.04 max_draft=4',
		]);
		const r = requests(events).get('mlx#1')!;
		expect(r.decodedTokens).toBe(512);
		expect(r.cachedTokens).toBe(0);
		const f = requestFigures(r);
		expect(f.tokensPerPass!.toFixed(2)).toBe('2.28');
		expect(acceptance(r.accepted, r.drafted)!.toFixed(2)).toBe('0.63');
		expect((r.drafted! / r.passes!).toFixed(2)).toBe('2.04');
		expect(r.engineMeanLen).toBeUndefined();
	});

	it('older forms: v0.30.11 field order and MTP decode stats with generated', () => {
		const p = createOllamaParser();
		const a = one(p, 'time=2026-07-01T10:00:00.000Z level=DEBUG source=speculate_stats.go:60 msg="speculative decode stats" drafted=100 accepted=80 acceptance=0.80 iterations=50 avg_draft=2.00 avg_accepted=1.60 mismatches=3 all_accepted=20 max_draft=4 draft_schedule="2,3,4"');
		expect(a).toEqual([{type: 'request', key: 'mlx#1', runner: 'mlx', done: true, passes: 50, drafted: 100, accepted: 80, decodedTokens: 130, generatedTokens: 130, engineMeanLen: 2.6}]);
		const b = one(p, 'time=2026-05-01T10:00:00.000Z level=INFO source=mtp.go:200 msg="MTP decode stats" generated=129 drafted=100 accepted=80 acceptance=0.80 iterations=50 avg_draft=2.00 avg_accepted=1.60 target_duration=2s draft_duration=1s validate_duration=0.1s');
		expect(b).toEqual([{type: 'request', key: 'mlx#2', runner: 'mlx', done: true, passes: 50, drafted: 100, accepted: 80, decodedTokens: 129, generatedTokens: 129, engineMeanLen: 2.6}]);
		expect(one(p, 'time=2026-05-01T10:00:00.000Z level=INFO source=mtp.go:100 msg="MTP greedy decode enabled" initial_draft_tokens=2 max_draft_tokens=4'))
			.toEqual([{type: 'spec-init', kind: 'mtp', detail: 'initial_draft_tokens=2 max_draft_tokens=4'}]);
	});
});

describe('Ollama MLX requests with no speculative decode stats (x/mlxrunner @ fb30760 = v0.33.0-rc2+, same lines since v0.17.6)', () => {
	// prefix_cache.go:125 slog.Info(msg, "total", …, "matched", …, "cached", …, "left", …);
	// pipeline.go:204 "Prompt processing progress"; pipeline.go:91 "peak memory";
	// server.go:225 slog.Log(ctx, level, "ServeHTTP", "method", r.Method, "path", r.URL.Path, "took", time.Since(t), "status", recorder.Status()).
	const NO_DRAFT = [
		'time=2026-08-21T18:49:00.000-07:00 level=INFO source=prefix_cache.go:125 msg="cache hit" total=1200 matched=1024 cached=1024 left=176',
		'time=2026-08-21T18:49:00.400-07:00 level=INFO source=pipeline.go:204 msg="Prompt processing progress" processed=176 total=176',
		'time=2026-08-21T18:49:04.100-07:00 level=INFO source=pipeline.go:91 msg="peak memory" size="17.2 GiB"',
		'time=2026-08-21T18:49:04.101-07:00 level=INFO source=server.go:225 msg=ServeHTTP method=POST path=/v1/completions took=4.101234567s status="200 OK"',
	];

	it('a model without a draft head: one finished request, prompt/cache/wall known, tokens not', () => {
		const {events, unparsed} = run(createOllamaParser(), NO_DRAFT);
		expect(unparsed).toEqual([]);
		const r = requests(events).get('mlx#1')!;
		const {wallMs, ...rest} = r;
		expect(rest).toEqual({key: 'mlx#1', runner: 'mlx', started: true, done: true, promptTokens: 1200, cachedTokens: 1024, sharedPrefixTokens: 1024, prefillTokens: 176});
		expect(wallMs).toBeCloseTo(4101.234567, 6);
		const f = requestFigures(r);
		expect([f.promptTokens, f.cachedTokens, f.decodeTps, f.tokensPerPass, f.passes]).toEqual([1200, 1024, undefined, undefined, undefined]);
	});

	it('with stats, ServeHTTP adds the wall time to the same request; health GETs are not requests', () => {
		const p = createOllamaParser();
		const {events} = run(p, [
			'time=2026-08-21T18:48:22.123-07:00 level=INFO source=prefix_cache.go:125 msg="cache hit" total=5321 matched=5120 cached=5120 left=201',
			'time=2026-08-21T18:48:25.900-07:00 level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=212 drafted=1180 accepted=833 acceptance=0.71 avg_draft=5.57 max_draft=7 avg_accepted=3.93',
			'time=2026-08-21T18:48:25.901-07:00 level=INFO source=pipeline.go:91 msg="peak memory" size="58.2 GiB"',
			'time=2026-08-21T18:48:25.902-07:00 level=INFO source=server.go:225 msg=ServeHTTP method=POST path=/v1/completions took=3.779s status="200 OK"',
			'time=2026-08-21T18:48:26.000-07:00 level=INFO source=server.go:225 msg=ServeHTTP method=GET path=/v1/status took=120µs status="200 OK"',
		]);
		const reqs = requests(events);
		expect([...reqs.keys()]).toEqual(['mlx#1']);
		expect(reqs.get('mlx#1')).toMatchObject({passes: 212, wallMs: 3779, done: true});
	});

	it('a request the client dropped (runner.go "Request terminated"), and a 5xx ServeHTTP', () => {
		const p = createOllamaParser();
		const {events} = run(p, [
			NO_DRAFT[0]!,
			'time=2026-08-21T18:49:01.000-07:00 level=INFO source=runner.go:232 msg="Request terminated" error="context canceled"',
			'time=2026-08-21T18:49:01.001-07:00 level=INFO source=server.go:225 msg=ServeHTTP method=POST path=/v1/completions took=1s status="200 OK"',
			'time=2026-08-21T18:49:02.000-07:00 level=INFO source=prefix_cache.go:131 msg="cache miss" total=40 left=40',
			'time=2026-08-21T18:49:02.100-07:00 level=ERROR source=server.go:225 msg=ServeHTTP method=POST path=/v1/completions took=100ms status="500 Internal Server Error"',
		]);
		const reqs = requests(events);
		expect(reqs.get('mlx#1')).toMatchObject({outcome: 'cancelled', done: true, wallMs: 1000});
		expect(reqs.get('mlx#2')).toMatchObject({outcome: 'error', done: true, wallMs: 100});
	});

	it('a request whose ServeHTTP line never came is closed by the next cache line', () => {
		const {events} = run(createOllamaParser(), [NO_DRAFT[0]!, NO_DRAFT[0]!]);
		const reqs = requests(events);
		expect(reqs.get('mlx#1')!.done).toBe(true);
		expect(reqs.get('mlx#2')!.done).toBeUndefined();
	});
});

describe('ollama ps PROCESSOR and SIZE, as the CLI prints them', () => {
	it('every PROCESSOR form', () => {
		expect(ollamaProcessor(100, 100)).toBe('100% GPU');
		expect(ollamaProcessor(100, 0)).toBe('100% CPU');
		expect(ollamaProcessor(100, 52)).toBe('48%/52% CPU/GPU');
		expect(ollamaProcessor(100, 120)).toBe('Unknown');
		expect(ollamaProcessor(undefined, 1)).toBeUndefined();
	});
	it('HumanBytes decimal units', () => {
		expect(ollamaHumanBytes(42e9 + 5e8)).toBe('42 GB');
		expect(ollamaHumanBytes(9.6e9)).toBe('9.6 GB');
		expect(ollamaHumanBytes(5137025024)).toBe('5.1 GB');
		expect(ollamaHumanBytes(999)).toBe('999 B');
	});
});
