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
	it('samples/mlxlm.log: one request per Prompt Cache line, prefill = progress total, closed by the access line', () => {
		const {events, unparsed} = run(createMlxLmParser(), readLines(fileURLToPath(new URL('../../samples/mlxlm.log', import.meta.url))));
		expect(unparsed).toEqual([]);
		const reqs = requests(events);
		// The access line closes it and names its client (the agent view's sessions).
		expect(reqs.get('mlxlm#1')).toEqual({key: 'mlxlm#1', started: true, prefillTokens: 2262, done: true, client: '127.0.0.1'});
		expect(reqs.get('mlxlm#2')).toEqual({key: 'mlxlm#2', started: true, prefillTokens: 4042, done: true, client: '127.0.0.1'});
		// The uncached part is not the prompt: prompt and cached stay unknown at INFO.
		const f = requestFigures(reqs.get('mlxlm#1')!);
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
