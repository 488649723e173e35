/**
 * A log that shows requests only as access lines (vLLM at any era, SGLang without `--log-requests`,
 * Ollama's Go runner, mlx_lm where it logs no figures): how many requests the server served with
 * figures is not known, so the REQUESTS count is `--` and JSON's `requestsSeen` null, with the
 * access lines' own count beside it. It was `0 seen` and "no request seen yet" while the log
 * scrolled with hundreds of `POST /v1/chat/completions`.
 *
 * The logs are the repository's samples (samples/README.md: reconstructed from the upstream formats)
 * and access lines in uvicorn's format (uvicorn/logging.py AccessFormatter,
 * `'%s - "%s %s HTTP/%s" %d'`), fed through the real parsers, reducer and store.
 */
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {createParser, detectEngine} from '../../source/engines/index.js';
import {isGenerationCall, requestsWithoutFigures} from '../../source/model/derive.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {createStore, type MonitorStore} from '../../source/model/store.js';
import {feedLine} from '../../source/sources/log-source.js';
import type {EngineKind} from '../../source/types/events.js';
import {emptyText, seenText} from '../../source/ui/panes/requests.js';
import {requestsSeen} from '../../source/ui/view-model/requests.js';
import {sanitize} from '../../source/util/sanitize.js';

const T0 = Date.UTC(2026, 11, 6, 9, 0, 0);
const sample = (name: string): string[] => readFileSync(fileURLToPath(new URL(`../../samples/${name}`, import.meta.url)), 'utf8').split('\n').filter(l => l.length > 0);

/** A store with each named log fed whole, as `--log` does (detected, one server each). */
function storeOf(...files: string[]): MonitorStore {
	const store = createStore({host: 'h', now: T0});
	for (const file of files) {
		const lines = sample(file);
		const engine = detectEngine(lines.slice(0, 20).map(l => sanitize(l))) as EngineKind;
		const id = `log:${file}`;
		store.dispatch({type: 'server-seen', t: T0, server: {id, engine, source: 'log', logLabel: file}});
		const parser = createParser(engine);
		lines.forEach((l, i) => feedLine(parser, id, l, T0 + i, store.dispatch));
	}
	return store;
}

const serverJson = (store: MonitorStore, file: string) => toSnapshot(store.getSnapshot(), 'test').servers.find(s => s.id === `log:${file}`)!;

describe('which access lines are generation requests', () => {
	it.each([
		['POST', '/v1/chat/completions', true],
		['POST', '/v1/completions', true],
		['POST', '/v1/chat/completions?stream=true', true],
		['POST', '/completion', true],
		['POST', '/v1/messages', true],
		['POST', '/v1/responses', true],
		['POST', '/api/chat', true],
		['POST', '/api/generate', true],
		['POST', '/generate', true],
		['POST', '/v1/chat/completions/', true],
		['GET', '/v1/chat/completions', false],
		['GET', '/v1/models', false],
		['GET', '/metrics', false],
		['POST', '/v1/embeddings', false],
		['POST', '/tokenize', false],
		['POST', '/api/show', false],
		['POST', '/v1/chat/completionsX', false],
	])('%s %s: %s', (method, path, yes) => {
		expect(isGenerationCall(method, path)).toBe(yes);
	});
});

describe('the samples: requests with figures, or only access lines', () => {
	// [sample, requestsSeen in JSON, generation requests in its access lines]
	const CASES: [string, number | null, number][] = [
		['vllm.log', null, 6],
		['vllm-v0.log', null, 2],
		['sglang.log', null, 6],
		['ollama-v024.log', null, 2],
		['lithos.log', 6, 7],
		['mlxlm.log', 5, 5],
		['ollama-mlx.log', 5, 5],
		['llama-server.log', 3, 0],
		['lmstudio.log', 3, 0],
	];
	for (const [file, seen, calls] of CASES) {
		it(`${file}: requestsSeen ${seen}, ${calls} in the access lines`, () => {
			const json = serverJson(storeOf(file), file);
			expect(json.requestsSeen).toBe(seen);
			expect(json.requestsInAccessLines).toBe(calls);
		});
	}
});

describe('the REQUESTS header and table', () => {
	it('a vLLM log alone: `-- seen`, the access lines counted, and why the table is empty', () => {
		const state = storeOf('vllm.log').getSnapshot();
		const seen = requestsSeen(state.servers, state.order);
		expect(seen.requests).toBe(0);
		expect(seen.withoutFigures).toEqual({calls: 6, engines: 'vLLM', hint: 'batch figures are under PASSES'});
		expect(seenText(0, seen.requests, seen.lag, seen.withoutFigures)).toBe("-- seen · 6 in vLLM's access lines, none with figures");
		expect(emptyText('', 0, seen.withoutFigures)).toBe('no figures per request: vLLM logs requests only as access lines; batch figures are under PASSES');
		expect(emptyText('qwen', 0, seen.withoutFigures)).toBe('no request matches');
	});

	it('llama-server and vLLM at once: the llama-server requests counted, the vLLM ones said apart (never summed into one count)', () => {
		const state = storeOf('llama-server.log', 'vllm.log', 'sglang.log').getSnapshot();
		const seen = requestsSeen(state.servers, state.order);
		expect(seen.requests).toBe(3);
		// two engines: no one engine's hint
		expect(seen.withoutFigures).toEqual({calls: 12, engines: 'vLLM and SGLang'});
		expect(seenText(3, seen.requests, seen.lag, seen.withoutFigures)).toBe("3 seen · 12 more in vLLM and SGLang's access lines, without figures");
	});

	it('an SGLang log alone: how to have a line with figures per request', () => {
		const state = storeOf('sglang.log').getSnapshot();
		const seen = requestsSeen(state.servers, state.order);
		expect(emptyText('', 0, seen.withoutFigures)).toBe('no figures per request: SGLang logs requests only as access lines; start it with --log-requests');
	});

	it('an Ollama Go-runner log: no hint it could not stand behind', () => {
		const state = storeOf('ollama-v024.log').getSnapshot();
		const seen = requestsSeen(state.servers, state.order);
		expect(seen.withoutFigures).toEqual({calls: 2, engines: 'Ollama'});
		expect(emptyText('', 0, seen.withoutFigures)).toBe('no figures per request: Ollama logs requests only as access lines');
	});

	it('a llama-server log alone reads as before', () => {
		const state = storeOf('llama-server.log').getSnapshot();
		const seen = requestsSeen(state.servers, state.order);
		expect(seen.withoutFigures).toBeUndefined();
		expect(seenText(3, seen.requests, seen.lag, seen.withoutFigures)).toBe('3 seen');
		expect(emptyText('', 0, seen.withoutFigures)).toBe('no request seen yet');
	});
});

describe('an agent on vLLM: 20 growing turns, with polls and the metrics scrape between them', () => {
	const store = createStore({host: 'h', now: T0});
	const id = 'http://127.0.0.1:8000';
	store.dispatch({type: 'server-seen', t: T0, server: {id, engine: 'vllm', source: 'flag', url: id}});
	const parser = createParser('vllm');
	const line = (t: number, text: string) => feedLine(parser, id, text, t, store.dispatch);
	for (let i = 0; i < 20; i++) {
		const t = T0 + i * 4000;
		// vllm/entrypoints/logger.py `Received request %s: prompt: %r, …` and vllm/v1/engine/async_llm.py `Added request %s.` carry no figure
		line(t, `(APIServer pid=7) INFO 12-06 09:00:${String(i * 2).padStart(2, '0')} [logger.py:43] Received request chatcmpl-${i}: prompt: '${'x'.repeat(100 * (i + 1))}', params: SamplingParams(n=1, max_tokens=512), prompt_token_ids: None, prompt_embeds shape: None, lora_request: None.`);
		line(t, `(APIServer pid=7) INFO 12-06 09:00:${String(i * 2).padStart(2, '0')} [async_llm.py:270] Added request chatcmpl-${i}.`);
		line(t + 1500, '(APIServer pid=7) INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
		line(t + 2000, '(APIServer pid=7) INFO:     127.0.0.1:51240 - "GET /v1/models HTTP/1.1" 200 OK');
		line(t + 2500, '(APIServer pid=7) INFO:     127.0.0.1:51241 - "GET /metrics HTTP/1.1" 200 OK');
	}
	// a refused try counts as a request the server received
	line(T0 + 90_000, '(APIServer pid=7) INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 429 Too Many Requests');

	it('21 generation requests counted from the access lines; the count with figures is unknown (null), not 0', () => {
		const s = store.getSnapshot().servers[id]!;
		expect(s.httpCount).toBe(61);
		expect(s.generationCalls).toBe(21);
		expect(requestsWithoutFigures(s)).toBe(21);
		const json = toSnapshot(store.getSnapshot(), 'test').servers.find(x => x.id === id)!;
		expect(json.requestsSeen).toBeNull();
		expect(json.requestsInAccessLines).toBe(21);
	});
});

describe('SGLang with --log-requests turned on later: the count is known from its first Finish line', () => {
	it('null while only access lines came, 1 once a request with figures did', () => {
		const store = storeOf('sglang.log');
		const id = 'log:sglang.log';
		expect(serverJson(store, 'sglang.log').requestsSeen).toBeNull();
		// python/sglang/srt/managers/tokenizer_manager.py: `Finish: obj=…, out={'meta_info': {…}}`
		feedLine(createParser('sglang'), id, "[2026-04-05 20:03:00] Finish: obj=GenerateReqInput(rid='a1', stream=False), out={'meta_info': {'id': 'a1', 'finish_reason': {'type': 'length', 'length': 64}, 'prompt_tokens': 1569, 'completion_tokens': 64, 'cached_tokens': 1531, 'spec_verify_ct': 20, 'e2e_latency': 1.25}}", T0 + 10_000, store.dispatch);
		const json = serverJson(store, 'sglang.log');
		expect(json.requestsSeen).toBe(1);
		expect(json.requestsInAccessLines).toBe(6);
		const state = store.getSnapshot();
		expect(requestsSeen(state.servers, state.order).withoutFigures).toBeUndefined();
	});
});
