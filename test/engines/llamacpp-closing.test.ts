/**
 * The closing patch of a llama.cpp request (`stop processing: n_tokens = N`) is written as one
 * literal where the patch is bare (issue 32), with the prompt and cached counts a default-verbosity
 * log does not state estimated. It must be the frozen reference parser's patch, key for key and in
 * its order, in every shape: no estimate, both estimated, only the prompt (the cached count stated:
 * `n_past was set to`), only the cached count (the prompt stated: `need to evaluate …`), an estimate
 * the f_sim_best check refuses; with a router child's prefix, a runner or a model (req's path).
 * Lines: llama-server b10587 formats as in test/fixtures/engines/llama.cpp (server-context.cpp @ 3f545be).
 */
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser, type LlamaCppParserOptions} from '../../source/engines/llamacpp.js';
import {createReferenceLlamaCppParser} from '../helpers/llamacpp-48848bc.js';
import {mutate, prng} from '../helpers/fuzz.js';

function block(r: () => number, task: number, child: string): string[] {
	const slot = task % 4;
	const s = `id  ${slot} | task ${task} |`;
	const at = (line: string): string => `${child}0.01.000.000 ${line}`;
	const prefill = 1 + Math.floor(r() * 40);
	const generated = Math.floor(r() * 80);
	const cached = Math.floor(r() * 30);
	const nTokens = Math.max(0, cached + prefill + generated - 1 + (r() < 0.2 ? Math.floor(r() * 5) - 2 : 0));
	const out: string[] = [];
	if (r() < 0.6) out.push(at(`I slot get_availabl: id  ${slot} | task -1 | selected slot by LCP similarity, f_sim_best = ${(r() < 0.7 ? cached / (cached + prefill) : r()).toFixed(3)} (> 0.100 thold), f_keep = 0.029`));
	out.push(at(`I slot launch_slot_: ${s} processing task, is_child = 0`));
	if (r() < 0.25) out.push(at(`W slot   operator(): ${s} need to evaluate at least 1 token for each active slot (n_past = ${cached + prefill}, task.n_tokens() = ${cached + prefill})`));
	if (r() < 0.25) out.push(at(`W slot   operator(): ${s} n_past was set to ${cached}`));
	if (r() < 0.9) out.push(at(`I slot print_timing: ${s} prompt eval time =      37.20 ms /    ${prefill} tokens (    3.10 ms per token,   322.58 tokens per second)`));
	if (r() < 0.9) out.push(at(`I slot print_timing: ${s}        eval time =     902.40 ms /    ${generated} tokens (   14.10 ms per token,    70.92 tokens per second)`));
	out.push(at(`I slot      release: ${s} stop processing: n_tokens = ${nTokens}, truncated = ${r() < 0.1 ? 1 : 0}`));
	return out;
}

describe('the closing patch of a llama.cpp request', () => {
	const cases: Array<[string, string, LlamaCppParserOptions]> = [
		['plain', '', {}],
		['router child', '[8081] ', {}],
		['runner and model', '', {runner: 'gguf', model: () => 'qwen3.6:27b'}],
	];
	for (const [name, child, options] of cases) {
		it(`the reference parser's patch in every shape (${name})`, () => {
			const r = prng(name.length * 101);
			const fast = createLlamaCppParser(options);
			const ref = createReferenceLlamaCppParser(options);
			const shapes = new Set<string>();
			for (let task = 0; task < 1500; task++) {
				for (const line of block(r, task, child).map(l => (r() < 0.03 ? mutate(l, r) : l))) {
					const got = fast.push(line);
					expect(JSON.stringify(got), line).toBe(JSON.stringify(ref.push(line)));
					for (const e of got ?? []) if (e.type === 'request' && e.done === true) shapes.add(Object.keys(e).join(','));
				}
			}
			// every shape of the closing patch came up
			expect([...shapes].filter(k => k.includes('promptEstimated')).length, [...shapes].join(' | ')).toBeGreaterThanOrEqual(3);
			expect([...shapes].some(k => !k.includes('promptEstimated'))).toBe(true);
		});
	}
});
