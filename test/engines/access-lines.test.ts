/**
 * What the agent view reads from access lines (issue 16 part 1): Ollama's `[GIN]` line (gin v1.10.0
 * defaultLogFormatter) paired with the request the runner just finished — its client and whole wall
 * time —, its 503 (server/routes.go handleScheduleError: ErrMaxQueue) as a refused try; llama.cpp's
 * `-v` defer/decline lines (tools/server/server-context.cpp @ 3f545be) as the queue.
 */
import {describe, expect, it} from 'vitest';
import {createOllamaParser} from '../../source/engines/ollama.js';
import {createLlamaCppParser} from '../../source/engines/llamacpp.js';
import {requests, run} from '../helpers/engines.js';

const gguf = (task: number, prefillMs: string, decodeMs: string): string[] => [
	`slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`,
	`slot print_timing: id  0 | task ${task} | prompt eval time = ${prefillMs.padStart(10)} ms /   100 tokens (    1.00 ms per token,  1000.00 tokens per second)`,
	`slot print_timing: id  0 | task ${task} |        eval time = ${decodeMs.padStart(10)} ms /    10 tokens (   10.00 ms per token,   100.00 tokens per second)`,
	`slot      release: id  0 | task ${task} | stop processing: n_tokens = 109, truncated = 0`,
];
const gin = (status: number, latency: string, ip: string, path = '/api/chat'): string => `[GIN] 2026/12/01 - 10:00:00 | ${status} | ${latency.padStart(13)} | ${ip.padStart(15)} | POST     "${path}"`;

describe('Ollama [GIN] lines for the agent view', () => {
	it('a generation line gives the request that finished before it its client and wall time (ms, checked)', () => {
		const {events} = run(createOllamaParser(), [...gguf(0, '100.00', '400.00'), gin(200, '612.5ms', '10.0.0.5'), ...gguf(1, '50.00', '200.00'), gin(200, '1.25s', '10.0.0.7', '/v1/chat/completions')]);
		const r = requests(events);
		expect(r.get('s0/t0')).toMatchObject({client: '10.0.0.5', accessMs: 612.5});
		expect(r.get('s0/t1')).toMatchObject({client: '10.0.0.7', accessMs: 1250});
	});

	it('a [GIN] line before its request\'s release still pairs with it; a line of a non-generation path pairs with nothing', () => {
		const lines = gguf(0, '100.00', '400.00');
		const {events} = run(createOllamaParser(), [gin(200, '412µs', '127.0.0.1', '/api/ps'), ...lines.slice(0, 3), gin(200, '600ms', '10.0.0.5'), lines[3]!]);
		expect(requests(events).get('s0/t0')).toMatchObject({client: '10.0.0.5', accessMs: 600});
	});

	it('a latency shorter than the runner\'s own prompt + eval time is not that request\'s: neither is paired, the next pairs afresh', () => {
		const {events} = run(createOllamaParser(), [...gguf(0, '100.00', '400.00'), gin(200, '300ms', '10.0.0.5'), ...gguf(1, '50.00', '200.00'), gin(200, '260ms', '10.0.0.5')]);
		const r = requests(events);
		expect(r.get('s0/t0')!.client).toBeUndefined();
		expect(r.get('s0/t0')!.accessMs).toBeUndefined();
		expect(r.get('s0/t1')).toMatchObject({client: '10.0.0.5', accessMs: 260});
	});

	it('an MLX request closed twice (stats, then the runner\'s ServeHTTP after the [GIN] line) takes one access line: the next goes to the next request', () => {
		const slog = (msg: string, attrs: string) => `time=2026-08-21T18:48:22.123-07:00 level=INFO source=x.go:1 msg=${msg} ${attrs}`;
		const mlx = (n: number): string[] => [
			slog('"cache hit"', `total=${5000 + n} matched=5000 cached=5000 left=${n}`),
			slog('"speculative decode stats"', 'iterations=212 drafted=1180 accepted=833 acceptance=0.71 avg_draft=5.57 max_draft=7 avg_accepted=3.93'),
		];
		const serve = slog('ServeHTTP', 'method=POST path=/v1/completions took=9.1s status="200 OK"');
		const {events} = run(createOllamaParser(), [...mlx(100), gin(200, '9.25s', '10.0.0.5'), serve, ...mlx(200), serve, gin(200, '4.5s', '10.0.0.7')]);
		const r = requests(events);
		expect([...r.keys()]).toEqual(['mlx#1', 'mlx#2']);
		expect(r.get('mlx#1')).toMatchObject({client: '10.0.0.5', accessMs: 9250});
		expect(r.get('mlx#2')).toMatchObject({client: '10.0.0.7', accessMs: 4500});
	});

	it('503 (ErrMaxQueue) on a generation path is a refused try of that client; 503 elsewhere is not', () => {
		const {events} = run(createOllamaParser(), [gin(503, '98µs', '10.0.0.5'), gin(503, '98µs', '10.0.0.5', '/api/pull')]);
		expect(events.filter(e => e.type === 'busy')).toEqual([{type: 'busy', status: 503, reason: 'server busy', client: '10.0.0.5'}]);
	});
});

describe('llama.cpp -v: queue from defer / decline lines (verbose-overload capture lines)', () => {
	it('deferred task: queue from its first decline to its launch, in the process-relative stamps; 0 for a task launched at once', () => {
		const {events} = run(createLlamaCppParser(), [
			'0.01.124.652 D slot launch_slot_: id  0 | task -1 | launching slot : {"id":0}',
			'0.01.124.724 I slot launch_slot_: id  0 | task 17 | processing task, is_child = 0',
			'0.01.137.899 D srv  process_sing: decoding, decline task, id_task = 20',
			'0.01.187.045 D srv  process_sing: no slot is available, defer task, id_task = 20',
			'0.01.630.766 I slot launch_slot_: id  0 | task 20 | processing task, is_child = 0',
		]);
		const r = requests(events);
		expect(r.get('s0/t17')!.queueMs).toBe(0);
		expect(r.get('s0/t20')!.queueMs).toBeCloseTo(492.867, 9);
	});

	it('at default verbosity (no D lines) the queue is unknown, never 0', () => {
		const {events} = run(createLlamaCppParser(), ['0.01.130.029 I slot launch_slot_: id  0 | task 0 | processing task, is_child = 0']);
		expect(requests(events).get('s0/t0')!.queueMs).toBeUndefined();
	});
});
