import {describe, expect, it} from 'vitest';
import {createParser, detectEngine, ENGINE_KINDS, ENGINE_LABELS} from '../../source/engines/index.js';
import {fixture, readLines, requests, run} from '../helpers/engines.js';

const OLLAMA_030 = [
	'time=2026-08-21T18:40:00.000-07:00 level=INFO source=routes.go:1500 msg="Listening on 127.0.0.1:11434 (version 0.33.0)"',
	'load_tensors: offloaded 48/49 layers to GPU',
	'slot launch_slot_: id  0 | task 0 | processing task, is_child = 0',
	'slot print_timing: id  0 | task 0 |        eval time =    7000.00 ms /   351 tokens (   20.00 ms per token,    50.00 tokens per second)',
];

describe('detectEngine', () => {
	it('llama-server captures → llamacpp', () => {
		expect(detectEngine(readLines(fixture('llama.cpp/startup.stderr.log')).slice(0, 5))).toBe('llamacpp');
		expect(detectEngine(readLines(fixture('llama.cpp/log-noprefix-notimestamps.stderr.log')).slice(0, 8))).toBe('llamacpp');
	});
	it('Ollama logs with llama-server lines → ollama', () => {
		expect(detectEngine(OLLAMA_030)).toBe('ollama');
		expect(detectEngine(['Aug 22 17:36:22 host ollama[30907]: load_tensors: offloaded 48/49 layers to GPU', '[GIN] 2023/10/11 - 15:42:01 | 200 |       39.45µs |       127.0.0.1 | HEAD     "/"'])).toBe('ollama');
	});
	it('vLLM, SGLang, mlx-lm, lithos', () => {
		expect(detectEngine(['(APIServer pid=1) INFO 05-07 04:56:17 [loggers.py:271] Engine 000: Avg prompt throughput: 2.5 tokens/s, Avg generation throughput: 123.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs'])).toBe('vllm');
		expect(detectEngine(['[2026-04-08 14:05:21 TP0] Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0'])).toBe('sglang');
		expect(detectEngine(['2026-08-21 18:48:22,530 - INFO - Prompt processing progress: 2048/5321', 'Starting httpd at 127.0.0.1 on port 8080...'])).toBe('mlxlm');
		expect(detectEngine(['INFO:     Started server process [123]', 'INFO:monolith.serve:lithos-metal ready: http://127.0.0.1:8000 — model=x'])).toBe('lithos');
	});
	it('garbage → undefined', () => {
		expect(detectEngine(['hello world', '\u0000\u0001binary', ''])).toBeUndefined();
		expect(detectEngine([])).toBeUndefined();
	});
});

describe('createParser', () => {
	it('labels every engine kind', () => {
		for (const k of ENGINE_KINDS) expect(ENGINE_LABELS[k]).toBeTruthy();
	});
	it('each engine gets its own parser, or the one of the engine whose lines it writes', () => {
		expect(createParser('ollama').engine).toBe('ollama');
		expect(createParser('llamacpp').engine).toBe('llamacpp');
		expect(createParser('llamaswap').engine).toBe('llamacpp');
		expect(createParser('koboldcpp').engine).toBe('llamacpp');
	});
	it('an unknown engine detects, then parses the buffered lines too', () => {
		const p = createParser(undefined);
		const {events} = run(p, readLines(fixture('llama.cpp/spec-trace-completion-stream.log')));
		expect(p.engine).toBe('llamacpp');
		const r = requests(events).get('s1/t1')!;
		expect(r).toMatchObject({generatedTokens: 128, accepted: 99, drafted: 221, done: true, started: true});
		const q = createParser('localai');
		const {events: ev2} = run(q, OLLAMA_030);
		expect(q.engine).toBe('ollama');
		expect(requests(ev2).get('s0/t0')).toMatchObject({runner: 'gguf', generatedTokens: 351});
	});
});
