/**
 * mlx_lm.server requests from its INFO lines (ml-explore/mlx-lm mlx_lm/server.py @ d78bf58, 0.32.0):
 * `Prompt Cache:` (server.py:443), `Prompt processing progress:` (server.py:1363), the stdlib access
 * line (BaseHTTPRequestHandler.log_request at send_response), DEBUG `Outgoing Response:` (server.py:1513).
 */
import {describe, expect, it} from 'vitest';
import {createMlxLmParser} from '../../source/engines/mlxlm.js';
import {requestFigures} from '../../source/model/figures.js';
import {readLines, requests, run} from '../helpers/engines.js';
import {fileURLToPath} from 'node:url';

describe('mlx_lm.server requests', () => {
	it('samples/mlxlm.log (--log-level DEBUG): one request per Prompt Cache line, its model from the request body, prompt / cached / generated from the usage', () => {
		const {events, unparsed} = run(createMlxLmParser(), readLines(fileURLToPath(new URL('../../samples/mlxlm.log', import.meta.url))));
		expect(unparsed).toEqual([]);
		const reqs = requests(events);
		// The access line closes it and names its client (the agent view's sessions).
		expect(reqs.get('mlxlm#1')).toEqual({key: 'mlxlm#1', started: true, model: 'mlx-community/Qwen3-8B-4bit', prefillTokens: 2262, done: true, client: '127.0.0.1', promptTokens: 2262, generatedTokens: 180, cachedTokens: 0});
		expect(reqs.get('mlxlm#2')).toEqual({key: 'mlxlm#2', started: true, model: 'mlx-community/Qwen3-8B-4bit', prefillTokens: 4042, done: true, client: '127.0.0.1', promptTokens: 6342, generatedTokens: 210, cachedTokens: 2300});
		// The uncached part the progress lines count is the prompt less the cached prefix.
		for (const r of reqs.values()) expect(r.prefillTokens).toBe(r.promptTokens! - r.cachedTokens!);
	});

	it('at INFO the uncached part is not the prompt: prompt and cached stay unknown', () => {
		const {events} = run(createMlxLmParser(), [
			'2026-08-21 18:48:13,439 - INFO - Prompt Cache: 0 sequences, 0.00 GB',
			'2026-08-21 18:48:17,325 - INFO - Prompt processing progress: 2048/2262',
			'2026-08-21 18:48:21,370 - INFO - Prompt processing progress: 2262/2262',
			'127.0.0.1 - - [21/Aug/2026 18:48:26] "POST /v1/chat/completions HTTP/1.1" 200 -',
		]);
		const r = requests(events).get('mlxlm#1')!;
		expect(r).toEqual({key: 'mlxlm#1', started: true, prefillTokens: 2262, done: true, client: '127.0.0.1'});
		const f = requestFigures(r);
		expect([f.promptTokens, f.cachedTokens, f.decodeTps]).toEqual([undefined, undefined, undefined]);
	});

	it('DEBUG Outgoing Response (non-streamed): usage gives prompt, generated and cached', () => {
		const {events} = run(createMlxLmParser(), [
			'2026-08-21 18:48:13,439 - INFO - Prompt Cache: 1 sequences, 0.47 GB',
			'2026-08-21 18:48:13,439 - INFO - - KVCache: 1 sequences, 0.47 GB',
			'2026-08-21 18:48:14,000 - INFO - Prompt processing progress: 214/214',
			'127.0.0.1 - - [21/Aug/2026 18:48:14] "POST /v1/chat/completions HTTP/1.1" 200 -',
			'2026-08-21 18:48:14,001 - DEBUG - Starting completion:',
			'2026-08-21 18:48:16,200 - DEBUG - Outgoing Response: {',
			'\t"id": "chatcmpl-1",',
			'\t"usage": {',
			'\t\t"prompt_tokens": 2262,',
			'\t\t"completion_tokens": 96,',
			'\t\t"total_tokens": 2358,',
			'\t\t"prompt_tokens_details": {',
			'\t\t\t"cached_tokens": 2048',
			'\t\t}',
			'\t}',
			'}',
		]);
		expect(requests(events).get('mlxlm#1')).toEqual({key: 'mlxlm#1', started: true, prefillTokens: 214, done: true, client: '127.0.0.1', promptTokens: 2262, generatedTokens: 96, cachedTokens: 2048});
	});

	it('before v0.31.2 (no Prompt Cache line) the first progress line opens the request; a 404 answer is a failed request', () => {
		const {events} = run(createMlxLmParser(), [
			'2026-01-02 10:00:00,000 - INFO - Prompt processing progress: 512/900',
			'2026-01-02 10:00:01,000 - INFO - Prompt processing progress: 900/900',
			'127.0.0.1 - - [02/Jan/2026 10:00:01] "POST /v1/completions HTTP/1.1" 200 -',
			'2026-01-02 10:00:05,000 - INFO - Prompt Cache: 1 sequences, 0.10 GB',
			'127.0.0.1 - - [02/Jan/2026 10:00:05] "POST /v1/completions HTTP/1.1" 404 -',
			'127.0.0.1 - - [02/Jan/2026 10:00:06] "GET /v1/models HTTP/1.1" 200 -',
		]);
		const reqs = requests(events);
		expect([...reqs.keys()]).toEqual(['mlxlm#1', 'mlxlm#2']);
		expect(reqs.get('mlxlm#1')).toMatchObject({prefillTokens: 900, done: true});
		expect(reqs.get('mlxlm#2')).toMatchObject({outcome: 'error', done: true});
	});

	it('batched: two open requests, progress lines name neither → no prefill figure for either', () => {
		const {events} = run(createMlxLmParser(), [
			'2026-08-21 18:48:13,439 - INFO - Prompt Cache: 1 sequences, 0.47 GB',
			'2026-08-21 18:48:13,440 - INFO - Prompt Cache: 2 sequences, 0.94 GB',
			'2026-08-21 18:48:14,000 - INFO - Prompt processing progress: 300/300',
		]);
		const reqs = requests(events);
		expect(reqs.get('mlxlm#1')!.prefillTokens).toBeUndefined();
		expect(reqs.get('mlxlm#2')!.prefillTokens).toBeUndefined();
		expect(events).toContainEqual({type: 'prefill-progress', processed: 300, total: 300, progress: 1});
	});
});

describe('mlx_lm.generate --verbose summary (mlx_lm/generate.py:781-789 @ d78bf58)', () => {
	it('one request: prefill from the prompt line; decode n − 1 steps in the time the rate implies', () => {
		const {events, unparsed} = run(createMlxLmParser(), [
			'==========',
			'==========',
			'Prompt: 2262 tokens, 452.400 tokens-per-sec',
			'Generation: 256 tokens, 32.000 tokens-per-sec',
			'Peak memory: 17.231 GB',
		]);
		expect(unparsed).toEqual([]);
		const r = requests(events).get('mlxgen#1')!;
		expect(r).toMatchObject({prefillTokens: 2262, generatedTokens: 256, decodedTokens: 255, engineTps: 32, done: true});
		expect(r.prefillMs).toBeCloseTo(5000, 6);
		expect(r.decodeMs).toBeCloseTo(8000, 6);
		expect(requestFigures(r).decodeTps!.toFixed(3)).toBe('31.875');
	});
});

describe('issue 30: mlx-lm\'s quieter formats reach the request', () => {
	it('generate summary `Prompt: 5321 tokens, 612.402 tokens-per-sec` gives the request\'s prompt count (what mlx_lm itself calls the prompt)', () => {
		const {events} = run(createMlxLmParser(), ['==========', 'Prompt: 5321 tokens, 612.402 tokens-per-sec', 'Generation: 100 tokens, 30.000 tokens-per-sec', 'Peak memory: 5.000 GB']);
		const r = requests(events).get('mlxgen#1')!;
		expect(r).toMatchObject({promptTokens: 5321, prefillTokens: 5321});
		// Nothing in the summary says what a --prompt-cache-file held: the cached count stays unknown.
		expect(r.cachedTokens).toBeUndefined();
		expect(requestFigures(r).promptTokens).toBe(5321);
	});

	it('DEBUG `Incoming Request Body` (server.py:1097 @ d78bf58) names the model of the request it opens; a nested "model" does not', () => {
		const {events, unparsed} = run(createMlxLmParser(), [
			'2026-08-21 18:48:13,100 - DEBUG - Incoming Request Body: {',
			'\t"model": "mlx-community/Qwen3-0.6B-4bit",',
			'\t"messages": [',
			'\t\t{',
			'\t\t\t"model": "not this one",',
			'\t\t\t"content": "hi"',
			'\t\t}',
			'\t],',
			'\t"max_tokens": 16',
			'}',
			'2026-08-21 18:48:13,439 - INFO - Prompt Cache: 0 sequences, 0.00 GB',
			'2026-08-21 18:48:13,500 - INFO - Prompt processing progress: 9/9',
			'127.0.0.1 - - [21/Aug/2026 18:48:13] "POST /v1/chat/completions HTTP/1.1" 200 -',
			'2026-08-21 18:48:13,501 - DEBUG - Starting completion:',
			'2026-08-21 18:48:13,520 - DEBUG - Hello',
			'2026-08-21 18:48:13,700 - DEBUG - Outgoing Response: {',
			'\t"id": "chatcmpl-1",',
			'\t"model": "mlx-community/Qwen3-0.6B-4bit",',
			'\t"usage": {',
			'\t\t"prompt_tokens": 9,',
			'\t\t"completion_tokens": 16,',
			'\t\t"total_tokens": 25,',
			'\t\t"prompt_tokens_details": {',
			'\t\t\t"cached_tokens": 0',
			'\t\t}',
			'\t}',
			'}',
			// The next request's body names no model: it is not the last one's.
			'2026-08-21 18:48:20,000 - DEBUG - Incoming Request Body: {',
			'\t"messages": []',
			'}',
			'2026-08-21 18:48:20,100 - INFO - Prompt Cache: 1 sequences, 0.01 GB',
		]);
		expect(unparsed).toEqual([]);
		const reqs = requests(events);
		expect(reqs.get('mlxlm#1')).toEqual({key: 'mlxlm#1', started: true, model: 'mlx-community/Qwen3-0.6B-4bit', prefillTokens: 9, done: true, client: '127.0.0.1', promptTokens: 9, generatedTokens: 16, cachedTokens: 0});
		expect(reqs.get('mlxlm#2')!.model).toBeUndefined();
	});
});
