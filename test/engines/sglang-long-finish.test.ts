/**
 * SGLang `Finish` lines at `--log-requests-level 2` (tokenizer_manager.py, sgl-project/sglang: each
 * text and id list cut to 2,048, so a line runs to ~10-30 KB): the request is counted with its
 * meta_info, which closes the line, past the 4,096 characters the log pane keeps. Before, the parser
 * got the cut line and the request went uncounted. A line past the tail's 64 KiB loses its
 * meta_info: no figures, never wrong ones.
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {readLine} from '../../source/sources/log-source.js';
import {SGLANG_FINISH_CHARS} from '../../source/engines/sglang.js';
import {MAX_LINE_CHARS} from '../../source/util/sanitize.js';

/** Python's repr of a list cut as SGLang cuts it at level 2 (`[first …] ... [… last]`). */
const ids = (n: number, from: number): string => `[${Array.from({length: n}, (_, i) => from + i).join(', ')}]`;

/** A level-2 Finish line (obj, then out with its text, output ids and meta_info last). */
function finishLine(rid: string, prompt: string, answer: string, meta: string): string {
	return `[2026-04-05 20:03:00] Finish: obj=GenerateReqInput(text=${JSON.stringify(prompt)}, rid='${rid}', stream=False), out={'text': ${JSON.stringify(answer)}, 'output_ids': ${ids(1024, 151000)} ... ${ids(1024, 152000)}, 'meta_info': {${meta}}}`;
}

const META = "'id': 'r1', 'finish_reason': {'type': 'stop', 'matched': 151645}, 'prompt_tokens': 7311, 'completion_tokens': 2190, 'cached_tokens': 6912, 'e2e_latency': 41.5";

describe('SGLang Finish lines longer than the log pane keeps', () => {
	it('a ~20 KB level-2 line: the request with its meta_info, and the pane keeps 4,096 characters of it', () => {
		const line = finishLine('r1', `${'a'.repeat(2040)}...`, `${'b'.repeat(2040)}...`, META);
		expect(line.length).toBeGreaterThan(MAX_LINE_CHARS * 3);
		expect(line.length).toBeLessThan(SGLANG_FINISH_CHARS);
		const out = readLine(createParser('sglang'), line, 1000);
		expect(out.parsed).toBe(true);
		expect(out.text.length).toBeLessThan(MAX_LINE_CHARS + 40);
		expect(out.events).toHaveLength(1);
		expect(out.events![0]).toEqual({type: 'request', key: 'sglang#1', started: true, done: true, promptTokens: 7311, generatedTokens: 2190, cachedTokens: 6912, wallMs: 41_500});
	});

	it('a prompt and an answer that quote a meta_info do not stand for the real one (the last in the line)', () => {
		const fake = "'meta_info': {'prompt_tokens': 999999, 'completion_tokens': 1, 'e2e_latency': 0.001}";
		const line = finishLine('r2', `${'c'.repeat(3000)} ${fake}`, `here is ${fake} ${'d'.repeat(3000)}`, META);
		const out = readLine(createParser('sglang'), line, 1000);
		expect(out.events![0]).toMatchObject({promptTokens: 7311, generatedTokens: 2190, cachedTokens: 6912, wallMs: 41_500});
	});

	it('a level-3 line past 64 KiB: no figures for it (its meta_info is past what is read), never wrong ones', () => {
		const line = finishLine('r3', 'e'.repeat(40_000), 'f'.repeat(40_000), META);
		expect(line.length).toBeGreaterThan(SGLANG_FINISH_CHARS);
		const out = readLine(createParser('sglang'), line, 1000);
		for (const ev of out.events ?? []) expect(ev).not.toHaveProperty('promptTokens');
	});

	it('other engines still read a long line as the pane keeps it (cut at 4,096), as before', () => {
		const raw = `0.04.687.810 I slot print_timing: id  1 | task 132 | ${'x'.repeat(6000)}`;
		const out = readLine(createParser('llamacpp'), raw, 1000);
		expect(out.text.length).toBeLessThan(MAX_LINE_CHARS + 40);
		expect(createParser('llamacpp').maxChars).toBeUndefined();
	});
});
