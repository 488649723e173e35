/**
 * The engines' lines that say an agent's request went wrong (issue 28), parsed in each engine's file:
 * each form against its upstream format string (file and commit cited), the figures exact.
 */
import {describe, expect, it} from 'vitest';
import {createVllmParser} from '../../source/engines/vllm.js';
import {createLmStudioLogParser} from '../../source/engines/lmstudio.js';
import {createOllamaParser} from '../../source/engines/ollama.js';
import {createLlamaCppParser} from '../../source/engines/llamacpp.js';
import {run} from '../helpers/engines.js';
import type {EngineEvent} from '../../source/types/events.js';

const signals = (events: readonly EngineEvent[]) => events.flatMap(e => (e.type === 'agent-signal' ? [e.signal] : []));

describe('vLLM', () => {
	it('`logger.exception("Error in extracting tool call from response.")` (vllm/tool_parsers/hermes_tool_parser.py @ becf329), its traceback not understood', () => {
		const line = 'ERROR 12-01 10:00:03 [hermes_tool_parser.py:136] Error in extracting tool call from response.';
		const {events, unparsed} = run(createVllmParser(), [line, 'Traceback (most recent call last):', 'json.decoder.JSONDecodeError: Expecting value: line 2 column 1 (char 1)']);
		expect(signals(events)).toEqual([{kind: 'tool-call-failed', evidence: 'Error in extracting tool call from response.'}]);
		expect(unparsed).toHaveLength(2);
	});
});

describe('LM Studio (closed source: lines as captured in lmstudio-bug-tracker issues)', () => {
	it('runtime log: a tool call it could not parse; the context overflows with their figures', () => {
		const {events} = run(createLmStudioLogParser(), [
			'[ERROR] llama.cpp@1.50.2 (llama.cpp-linux-x86_64-avx2) qwen3-coder-30b pid=4242 Failed to generate a tool call (this tool call will be omitted from the response): Failed to parse tool call: Unexpected end of JSON input',
			'[ERROR] llama.cpp@1.50.2 (llama.cpp-linux-x86_64-avx2) qwen3-coder-30b pid=4242 Trying to keep the first 9120 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input',
			'[ERROR] mlx-llm@0.30.1 (mlx-llm-mac-arm64-apple-metal-advsimd) gemma-3-12b pid=4243 Reached context length of 8192 tokens with model (arch: gemma3) that does not currently support mid-generation context overflow. Try reloading with a larger context length or shortening the prompt/chat.',
		]);
		expect(signals(events).map(s => (s as {kind: string}).kind)).toEqual(['tool-call-failed', 'context-exceeded', 'context-exceeded']);
		expect(signals(events)[1]).toMatchObject({keep: 9120, window: 4096});
		expect(signals(events)[2]).toMatchObject({window: 8192});
	});
	it('stats stopReason: maxPredictedTokensReached and contextLengthReached are finish length (@lmstudio/sdk LLMPredictionStopReason)', () => {
		const {events} = run(createLmStudioLogParser(), [
			'{"timestamp":1,"data":{"type":"llm.prediction.output","modelIdentifier":"m","output":"","stats":{"stopReason":"maxPredictedTokensReached","predictedTokensCount":1024}}}',
		]);
		expect(events.find(e => e.type === 'request' && 'finishReason' in e)).toMatchObject({finishReason: 'length', generatedTokens: 1024});
	});
});

describe('Ollama slog lines (ollama/ollama @ fb30760, v0.33.0-rc2)', () => {
	it('truncating input prompt (llm/llama_server.go:317), evicting (server/sched.go:551), reducing context (:652), tool call parsing failed (model/parsers/qwen3.go:117)', () => {
		const {events} = run(createOllamaParser(), [
			'time=2026-12-01T10:00:00.000Z level=WARN source=llama_server.go:317 msg="truncating input prompt" limit=2051 prompt=6000 keep=5 new=2051',
			'time=2026-12-01T10:00:01.000Z level=INFO source=sched.go:551 msg="llama-server model predicted to exceed available memory, evicting" predicted="9.8 GiB" predicted_num_ctx=8192 num_batch=512 available="7.1 GiB" gpu_free="7.1 GiB" system_free="20.3 GiB" system_limited=false',
			'time=2026-12-01T10:00:02.000Z level=WARN source=sched.go:652 msg="llama-server load failed; reducing automatic context and retrying once" model=/blobs/sha256-1 old_num_ctx=262144 new_num_ctx=32768 error="out of memory"',
			'time=2026-12-01T10:00:03.000Z level=WARN source=qwen3.go:117 msg="qwen3 tool call parsing failed" error="invalid character \'}\' looking for beginning of value"',
		]);
		expect(signals(events).map(s => {
			const {evidence: _e, ...rest} = s;
			return rest;
		})).toEqual([
			{kind: 'truncated', limit: 2051, prompt: 6000, keep: 5, kept: 2051},
			{kind: 'evicting', window: 8192},
			{kind: 'context-shrunk', window: 32_768, limit: 262_144},
			{kind: 'tool-call-failed'},
		]);
	});
});

describe('llama-server (ngxson/llama.cpp @ 3f545be)', () => {
	it('"input (%d tokens) is larger than the max context size (%d tokens). skipping" (server-context.cpp:3073) is a refusal for context with its figures', () => {
		const {events} = run(createLlamaCppParser(), [
			'slot launch_slot_: id  0 | task 9 | processing task, is_child = 0',
			'srv    send_error: task id = 9, error: input (70000 tokens) is larger than the max context size (65536 tokens). skipping',
		]);
		expect(signals(events)).toEqual([{kind: 'context-exceeded', key: 's0/t9', evidence: 'error: input (70000 tokens) is larger than the max context size (65536 tokens). skipping', prompt: 70000, window: 65536}]);
	});
	it('f_sim_best × the prompt is the prefix it shares with what the slot held', () => {
		const {events} = run(createLlamaCppParser(), [
			'slot get_availabl: id  1 | task -1 | selected slot by LCP similarity, f_sim_best = 0.950 (> 0.100 thold), f_keep = 0.990',
			'slot launch_slot_: id  1 | task 12 | processing task, is_child = 0',
			'slot   operator(): id  1 | task 12 | new prompt, n_ctx_slot = 32768, n_keep = 0, task.n_tokens = 4000',
		]);
		expect(events.filter(e => e.type === 'request').at(-1)).toMatchObject({promptTokens: 4000, contextWindow: 32768, sharedPrefixTokens: 3800});
	});
});
