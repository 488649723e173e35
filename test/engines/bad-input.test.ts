import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import type {EngineKind} from '../../source/types/events.js';
import {sanitize} from '../../source/util/sanitize.js';
import {requests, run} from '../helpers/engines.js';

const ENGINES: EngineKind[] = ['ollama', 'llamacpp', 'vllm', 'sglang', 'mlxlm', 'lithos'];

function garbage(n: number, seed: number): string {
	let s = '';
	let x = seed;
	for (let i = 0; i < n; i++) {
		x = (x * 1103515245 + 12345) & 0x7fffffff;
		s += String.fromCharCode(x % 0xffff);
	}
	return s;
}

const EVAL = 'slot print_timing: id  0 | task 3 |        eval time =    1000.00 ms /   100 tokens (   10.10 ms per token,    99.00 tokens per second)';

describe('bad input never crashes and never yields a wrong figure', () => {
	for (const engine of ENGINES) {
		it(engine, () => {
			const p = createParser(engine);
			const huge = 'slot print_timing: id  0 | task 9 | eval time = ' + '9'.repeat(10 * 1024 * 1024);
			const lines = [
				huge,
				'\u001b[34m0.00.146.724\u001b[0m \u001b[32mI \u001b[0m' + EVAL,
				EVAL + '\r',
				Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3]).toString('utf8'),
				garbage(5000, 7),
				garbage(200, 3),
				'slot print_timing: id  0 | task 4 |        eval time =    1000.00 ms /   10',
				'time=2026-08-21T18:48:25.900-07:00 level=INFO source=x.go:1 msg="speculative decode stats" iterations=abc drafted= accepted',
				'[GIN] 2026/08/21 - 18:48:30 | 200 |  nonsense |       127.0.0.1 | POST     "/api/chat"',
				"INFO:monolith.serve:Generation: {'steps': None, 'cached_prompt_tokens': 'x'}",
				'[2026-04-08 14:05:21 TP0] Decode batch, #running-req: abc, gen throughput (token/s): nan',
				'(APIServer pid=1) INFO 05-07 04:56:17 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: nan, Accepted: 0 tokens, Drafted: 0 tokens, Avg Draft acceptance rate: nan%',
				'',
			];
			// Huge lines are rejected up front, not scanned (speed is the parse bench's business, not a test's).
			const {events} = run(p, lines);
			// The huge line never produces a request; the half-written eval line no figure.
			const reqs = requests(events);
			expect(reqs.has('s0/t9')).toBe(false);
			expect(reqs.get('s0/t4')?.generatedTokens).toBeUndefined();
			for (const e of events) {
				for (const [k, v] of Object.entries(e)) if (typeof v === 'number') expect(Number.isFinite(v), `${engine} ${e.type}.${k}`).toBe(true);
			}
			// Unsanitized 10 MB line straight into the parser: rejected on length.
			expect(p.push(huge)).toBeNull();
			if (engine === 'llamacpp' || engine === 'ollama') {
				const r = reqs.get('s0/t3')!;
				expect(r.generatedTokens).toBe(100);
				expect(r.decodedTokens).toBe(99);
			}
		});
	}

	it('two engines in one file: llama.cpp lines inside a vLLM parser are not understood, nothing mixed', () => {
		const p = createParser('vllm');
		const {events, unparsed} = run(p, [EVAL, '(APIServer pid=1) INFO 05-07 04:56:17 [loggers.py:271] Engine 000: Avg prompt throughput: 2.5 tokens/s, Avg generation throughput: 123.8 tokens/s, Running: 1 reqs, Waiting: 0 reqs']);
		expect(unparsed).toEqual([EVAL]);
		expect(events).toHaveLength(1);
	});

	it('sanitize keeps parsers fed with one clean line', () => {
		expect(sanitize(EVAL + '\r')).toBe(EVAL);
	});
});
