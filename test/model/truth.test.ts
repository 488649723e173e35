/**
 * Issue 11 scenarios: figures true under real traffic. Each scenario feeds lines built from the
 * engines' upstream format strings through the real parsers and the real reducer (as the log source
 * does), with scripted `/api/ps` answers, and asserts the exact figure or undefined (`--`).
 *
 * Line formats: Ollama slog (`time=… level=… source=… msg=…`, log/slog TextHandler) as Ollama's
 * MLX runner writes them (x/mlxrunner: `starting mlx runner subprocess`, `cache hit|miss`,
 * `speculative decode stats` iterations/drafted/accepted — the fields of samples/ollama-mlx.log,
 * Ollama 0.33); llama-server `print_timing` / `release` (tools/server/server-context.cpp, b10587);
 * vLLM `Engine 000: Avg prompt throughput …` (vllm/v1/metrics/loggers.py) and `SpecDecoding
 * metrics: Mean acceptance length …` (vllm/v1/spec_decode/metrics.py).
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {deriveServer, figureSets, hhmm, matchProbeRequest} from '../../source/model/derive.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {logLines} from '../../source/model/log-ring.js';
import {entryText} from '../../source/ui/panes/requests.js';
import {requestEntries, tableEntries} from '../../source/ui/view-model/requests.js';
import {engineRows} from '../../source/ui/view-model/engines.js';
import {passesLines} from '../../source/ui/panes/passes.js';
import {sanitize} from '../../source/util/sanitize.js';
import type {Action, ModelInfo, MonitorState} from '../../source/types/state.js';
import type {LineParser} from '../../source/types/events.js';

/** The requests table's rows as text (time sort, no filter), at most `limit`. */
const requestRows = (servers: MonitorState['servers'], order: readonly string[], limit: number): {text: string}[] =>
	tableEntries(requestEntries(servers, order), 'time', '')
		.slice(0, limit)
		.map(e => ({text: entryText(e)}));

const T0 = Date.parse('2026-08-21T18:00:00Z');
const ID = 'ollama@127.0.0.1:11434';
const iso = (t: number) => new Date(t).toISOString();
const slog = (t: number, source: string, msg: string, attrs = '') => `time=${iso(t)} level=INFO source=${source} msg="${msg}"${attrs ? ` ${attrs}` : ''}`;

/** The log source's path: sanitize → parser → one engine-event per event, at the line's time. */
function feed(state: MonitorState, parser: LineParser, lines: readonly [number, string][], serverId = ID, at?: 'backlog' | 'earlier'): MonitorState {
	for (const [t, raw] of lines) {
		const text = sanitize(raw);
		const events = parser.push(text);
		state = reduce(state, {type: 'log-line', serverId, t, text, parsed: events !== null});
		for (const event of events ?? []) state = reduce(state, at === undefined ? {type: 'engine-event', serverId, t, event} : {type: 'engine-event', serverId, t, event, at});
	}
	return state;
}

const run = (s: MonitorState, actions: Action[]) => actions.reduce(reduce, s);
const ollama = (t = T0): MonitorState =>
	run(initialState({now: t}), [{type: 'server-seen', t, server: {id: ID, engine: 'ollama', url: 'http://127.0.0.1:11434', source: 'port-scan'}}]);
const ps = (t: number, models: ModelInfo[]): Action => ({type: 'server-models', t, serverId: ID, models});

const A = 'qwen3.8:27b-mlx';
const B = 'gemma4:12b-mlx';
const model = (name: string, expiresAt: number): ModelInfo => ({name, runner: 'mlx', format: 'safetensors', expiresAt: iso(expiresAt)});
const mlxStart = (t: number, name: string): [number, string] => [t, slog(t, 'server.go:210', 'starting mlx runner subprocess', `model=${name} port=51234`)];
const mlxRequest = (t: number, iterations: number, drafted: number, accepted: number, total = 100, cached = 0): [number, string][] => [
	[t, slog(t, 'prefix_cache.go:125', cached > 0 ? 'cache hit' : 'cache miss', `total=${total}${cached > 0 ? ` matched=${cached} cached=${cached}` : ''} left=${total - cached}`)],
	[t + 500, slog(t + 500, 'speculate_stats.go:62', 'speculative decode stats', `iterations=${iterations} drafted=${drafted} accepted=${accepted}`)],
	// x/mlxrunner server.go:225 closes every generation with its wall time (ollama @ fb30760).
	[t + 500, slog(t + 500, 'server.go:225', 'ServeHTTP', 'method=POST path=/v1/completions took=500ms status="200 OK"')],
];

/**
 * Two MLX models loaded in one Ollama: 100 passes + 129 accepted = 2.29 tokens per pass, 50 + 150 = 4.0.
 * The requests are read on from a log that rotated after both runners started (a new parser): their
 * lines name neither model. (Read on in one log, the request a runner was started for is its model's:
 * test/model/second-runners.test.ts.)
 */
function twoModels(): {state: MonitorState; parser: LineParser} {
	const parser = createParser('ollama');
	let s = run(ollama(), [ps(T0, [model(A, T0 + 300_000), model(B, T0 + 300_000)])]);
	s = feed(s, parser, [
		[T0, slog(T0, 'routes.go:1680', 'Listening on 127.0.0.1:11434 (version 0.33.0)')],
		mlxStart(T0 + 10, A),
		[T0 + 20, slog(T0 + 20, 'server.go:260', 'mlx runner is ready', 'port=51234')],
		mlxStart(T0 + 30, B),
		[T0 + 40, slog(T0 + 40, 'server.go:260', 'mlx runner is ready', 'port=51235')],
	]);
	return {state: s, parser: createParser('ollama')};
}

describe('two models on one Ollama: each model\'s figures from its own requests only', () => {
	it('lines that do not name the model stay `model unknown` until evidence says whose they are', () => {
		const two = twoModels();
		const parser = two.parser;
		let s = two.state;
		s = feed(s, parser, mlxRequest(T0 + 1000, 100, 200, 129));
		s = reduce(s, {type: 'tick', t: T0 + 1600});
		// Two MLX runners started: the stats line names neither, so nothing is blended into either.
		expect(s.servers[ID]!.requests.map(r => r.attribution)).toEqual([undefined]);
		const rows = deriveServer(s, ID);
		expect(rows.map(f => [f.model, f.tokensPerPass])).toEqual([[A, undefined], [B, undefined]]);
		expect(requestRows(s.servers, s.order, 10).map(r => r.text.includes('unknown'))).toEqual([true]);
		expect(s.servers[ID]!.requestsByModel).toEqual({unknown: 1});
	});

	it('the keep-alive that moved when a request ended says whose it was: 2.29 and 4.0, never one blend', () => {
		const two = twoModels();
		const parser = two.parser;
		let s = two.state;
		s = feed(s, parser, mlxRequest(T0 + 1000, 100, 200, 129));
		s = reduce(s, ps(T0 + 2000, [model(A, T0 + 301_500), model(B, T0 + 300_000)]));
		s = feed(s, parser, mlxRequest(T0 + 3000, 50, 160, 150, 300, 200));
		s = reduce(s, ps(T0 + 4000, [model(A, T0 + 301_500), model(B, T0 + 303_500)]));
		s = reduce(s, {type: 'tick', t: T0 + 5000});
		expect(s.servers[ID]!.requests.map(r => r.attribution)).toEqual([{model: A, by: 'keep-alive'}, {model: B, by: 'keep-alive'}]);
		const rows = deriveServer(s, ID);
		expect(rows.map(f => [f.model, f.tokensPerPass, f.acceptance])).toEqual([[A, 2.29, 129 / 200], [B, 4, 150 / 160]]);
		expect(rows.map(f => f.set)).toEqual([`last request of ${A}, 4 s`, `last request of ${B}, 2 s`]);
		expect(s.servers[ID]!.requestsByModel).toEqual({[A]: 1, [B]: 1});
		const snap = toSnapshot(s, 'test');
		expect(snap.requests.map(r => [r.model, r.attributedBy, r.tokensPerPass])).toEqual([[A, 'keep-alive', 2.29], [B, 'keep-alive', 4]]);
	});

	it('concurrent traffic: both keep-alives moved in one poll → both requests stay unknown (counted for the server)', () => {
		const two = twoModels();
		const parser = two.parser;
		let s = two.state;
		s = feed(s, parser, [...mlxRequest(T0 + 1000, 100, 200, 129), ...mlxRequest(T0 + 1100, 50, 160, 150)]);
		s = reduce(s, ps(T0 + 2000, [model(A, T0 + 301_500), model(B, T0 + 301_600)]));
		s = reduce(s, {type: 'tick', t: T0 + 2100});
		expect(s.servers[ID]!.requests.map(r => r.attribution)).toEqual([undefined, undefined]);
		expect(deriveServer(s, ID).map(f => f.tokensPerPass)).toEqual([undefined, undefined]);
		expect(s.servers[ID]!.requestsSeen).toBe(2);
		expect(s.servers[ID]!.requestsByModel).toEqual({unknown: 2});
	});

	it('the only model loaded is evidence; one MLX runner started in the log ties its lines to it', () => {
		const parser = createParser('ollama');
		let s = run(ollama(), [ps(T0, [{name: 'qwen3:8b', runner: 'gguf'}, model(A, T0 + 300_000)])]);
		s = feed(s, parser, [mlxStart(T0 + 10, A), ...mlxRequest(T0 + 1000, 100, 200, 129)]);
		s = reduce(s, {type: 'tick', t: T0 + 2000});
		expect(s.servers[ID]!.requests.map(r => r.attribution)).toEqual([{model: A, by: 'log'}]);
		expect(deriveServer(s, ID).map(f => [f.model, f.tokensPerPass])).toEqual([['qwen3:8b', undefined], [A, 2.29]]);
	});

	it('with two GGUF loads in one log, each offloaded N/M line belongs to its own model', () => {
		const parser = createParser('ollama');
		let s = ollama();
		s = feed(s, parser, [
			[T0, slog(T0, 'llama_server.go:312', 'loading model via llama-server', 'model=qwen3:8b')],
			[T0 + 1, slog(T0 + 1, 'ggml.go:482', 'offloaded 37/37 layers to GPU')],
			[T0 + 2, slog(T0 + 2, 'llama_server.go:312', 'loading model via llama-server', 'model=gemma3:27b')],
			[T0 + 3, slog(T0 + 3, 'ggml.go:482', 'offloaded 20/63 layers to GPU')],
		]);
		s = reduce(s, ps(T0 + 10, [{name: 'qwen3:8b', runner: 'gguf'}, {name: 'gemma3:27b', runner: 'gguf'}]));
		expect(deriveServer(s, ID).map(f => f.processor)).toEqual(['37/37 layers GPU', '20/63 layers GPU']);
		// The engines pane reads the same residency (computed once, in derive).
		expect(engineRows(s.servers, s.order, T0).map(r => r.processor)).toEqual(['37/37 layers GPU', '20/63 layers GPU']);
	});

	it('an mlx_lm server is 100 % GPU (unified) in derive and in the engines pane alike', () => {
		const id = 'mlxlm@127.0.0.1:8080';
		const s = run(initialState({now: T0}), [
			{type: 'server-seen', t: T0, server: {id, engine: 'mlxlm', url: 'http://127.0.0.1:8080', source: 'port-scan'}},
			{type: 'server-models', t: T0, serverId: id, models: [{name: 'mlx-community/Qwen3-8B-4bit'}]},
		]);
		expect(deriveServer(s, id).map(f => f.processor)).toEqual(['100% GPU (unified)']);
		expect(engineRows(s.servers, s.order, T0).map(r => r.processor)).toEqual(['100% GPU (unified)']);
	});
});

describe('the probe\'s log figures: its own request only', () => {
	/** The probe's GGUF request (20 tokens) and the other model's MLX request finishing in the same window. */
	function busy(): MonitorState {
		const llama = createParser('ollama');
		let s = run(ollama(), [ps(T0, [{name: 'qwen3:8b', runner: 'gguf'}, model(A, T0 + 300_000)])]);
		s = feed(s, llama, [
			[T0, slog(T0, 'llama_server.go:312', 'loading model via llama-server', 'model=qwen3:8b')],
			mlxStart(T0 + 5, A),
			[T0 + 1000, 'slot launch_slot_: id  0 | task 7 | processing task, is_child = 0'],
			[T0 + 1001, 'slot   operator(): id  0 | task 7 | new prompt, n_ctx_slot = 8192, n_keep = 4, task.n_tokens = 26'],
			...mlxRequest(T0 + 1100, 30, 60, 36, 106, 0),
			[T0 + 1900, 'slot print_timing: id  0 | task 7 | prompt eval time =      50.00 ms /    26 tokens (    1.92 ms per token,   520.00 tokens per second)'],
			[T0 + 1901, 'slot print_timing: id  0 | task 7 |        eval time =     500.00 ms /    20 tokens (   25.00 ms per token,    40.00 tokens per second)'],
			[T0 + 1902, 'slot print_timing: id  0 | task 7 |       total time =     550.00 ms /    46 tokens'],
			[T0 + 1903, 'slot      release: id  0 | task 7 | stop processing: n_tokens = 46, truncated = 0'],
		]);
		return reduce(s, {type: 'tick', t: T0 + 2000});
	}

	it('matches by the answer\'s counts: the probe\'s 20 tokens, not the MLX request that ended at the same moment', () => {
		const s = busy();
		const m = matchProbeRequest(s, ID, {fromMs: T0 + 990, toMs: T0 + 1950, completionTokens: 20, promptTokens: 26});
		expect(m).toMatchObject({key: 's0/t7', decoded: 19, accepted: undefined, passes: undefined}); // 20 generated, the first from the prompt pass
		expect(m?.reason).toBeUndefined();
	});

	it('no match → `no log line for this request`; two → `2 candidates`; never a sum', () => {
		const s = busy();
		expect(matchProbeRequest(s, ID, {fromMs: T0 + 990, toMs: T0 + 1950, completionTokens: 64})).toEqual({reason: 'no log line for this request'});
		// 66 tokens = the MLX request (30 passes + 36 accepted): with no prompt count, the GGUF one does not match either.
		expect(matchProbeRequest(s, ID, {fromMs: T0 + 990, toMs: T0 + 1950, completionTokens: 66})).toMatchObject({decoded: 66, accepted: 36});
		const two = feed(s, createParser('ollama'), [mlxStart(T0 + 1200, A), ...mlxRequest(T0 + 1300, 30, 60, 36, 106, 0)]);
		expect(matchProbeRequest(two, ID, {fromMs: T0 + 990, toMs: T0 + 1950, completionTokens: 66})).toEqual({reason: '2 candidates'});
	});

	it('a probe\'s own counts attribute its log request to the probe\'s model (and move its count)', () => {
		const two = twoModels();
		const parser = two.parser;
		let s = two.state;
		s = feed(s, parser, mlxRequest(T0 + 1000, 100, 200, 129));
		expect(s.servers[ID]!.requests[0]!.attribution).toBeUndefined();
		s = reduce(s, {type: 'request-attributed', serverId: ID, key: 'mlx#1', model: B, by: 'probe'});
		expect(s.servers[ID]!.requests[0]!.attribution).toEqual({model: B, by: 'probe'});
		expect(s.servers[ID]!.requestsByModel).toEqual({[B]: 1});
		expect(deriveServer(reduce(s, {type: 'tick', t: T0 + 2000}), ID).map(f => f.tokensPerPass)).toEqual([undefined, 2.29]);
	});
});

describe('one pane, one set', () => {
	it('after a probe the row is the probe\'s, every figure of it; `now` agrees; the set is named', () => {
		const two = twoModels();
		const parser = two.parser;
		let s = two.state;
		s = feed(s, parser, mlxRequest(T0 + 1000, 100, 200, 129));
		s = reduce(s, ps(T0 + 2000, [model(A, T0 + 301_500), model(B, T0 + 300_000)]));
		s = reduce(s, {
			type: 'probe-result',
			result: {t: T0 + 3000, engine: 'ollama', url: 'http://127.0.0.1:11434', model: A, protocol: 'ollama', prompt: 'repeat', decodeTps: 94.4, tokensPerPass: 4, acceptance: 0.9, passes: 32, ttftMs: 120, completionTokens: 128},
		});
		s = reduce(s, {type: 'tick', t: T0 + 3100});
		const [a] = deriveServer(s, ID);
		expect(a).toMatchObject({model: A, basis: 'probe', decodeTps: 94.4, tokensPerPass: 4, acceptance: 0.9, passesPerSec: 94.4 / 4, msPerPass: 1000 / (94.4 / 4)});
		expect(a!.engineTokensPerPass).toBeUndefined();
		expect(a!.set).toMatch(/^probe \d\d:\d\d:\d\d$/);
		expect(passesLines(a)[0]!.map(([, v]) => v)).toEqual(['94.4 tok/s', '4.00', '90.0%', '23.6']);
		expect(figureSets(s, ID).map(x => x.kind)).toEqual(['probe', 'none']);
	});

	it('(engine X) is over the same set as the counts, not the newest request\'s own figure', () => {
		const id = 'llamacpp@127.0.0.1:8080';
		let s = run(initialState({now: T0}), [{type: 'server-seen', t: T0, server: {id, engine: 'llamacpp', url: 'http://127.0.0.1:8080', source: 'flag'}}]);
		const req = (t: number, key: string, decoded: number, accepted: number, meanLen: number): Action => ({
			type: 'engine-event', serverId: id, t,
			event: {type: 'request', key, started: true, decodedTokens: decoded, generatedTokens: decoded + 1, accepted, drafted: accepted * 2, decodeMs: 1000, engineMeanLen: meanLen, done: true},
		});
		s = run(s, [req(T0 + 1000, 's0/t1', 100, 50, 2), req(T0 + 2000, 's0/t2', 100, 75, 4.92), {type: 'tick', t: T0 + 3000}]);
		const [f] = deriveServer(s, id);
		// Counts: 200 decoded over 50 + 25 passes; engine: (2 × 50 + 4.92 × 25) / 75.
		expect(f!.tokensPerPass).toBeCloseTo(200 / 75, 12);
		expect(f!.engineTokensPerPass).toBeCloseTo((2 * 50 + 4.92 * 25) / 75, 12);
		expect(f!.set).toBe('last 2 requests of this server, 2 s');
	});
});

describe('time: the backlog carries the log\'s own time', () => {
	it('backlog requests are "from the log, 18:40" and in time order; a line before any stamp is "earlier", never "now"', () => {
		const id = 'llamacpp@log';
		let s = run(initialState({now: T0 + 3_600_000}), [{type: 'server-seen', t: T0, server: {id, engine: 'llamacpp', source: 'log', logLabel: 'x.log'}}]);
		const parser = createParser('llamacpp');
		const request = (task: number, n: number): string[] => [
			`slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`,
			`slot print_timing: id  0 | task ${task} |        eval time =    1000.00 ms /   ${n} tokens (   10.00 ms per token,   ${n}.00 tokens per second)`,
			`slot      release: id  0 | task ${task} | stop processing: n_tokens = ${n}, truncated = 0`,
		];
		const now = T0 + 3_600_000;
		s = feed(s, parser, request(1, 100).map(l => [now, l] as [number, string]), id, 'earlier');
		const at = new Date(2026, 7, 21, 18, 40, 0).getTime();
		s = feed(s, parser, request(2, 50).map(l => [at, l] as [number, string]), id, 'backlog');
		s = reduce(s, {type: 'tick', t: Math.max(now, at + 3_600_000)});
		const reqs = s.servers[id]!.requests;
		expect(reqs.map(r => [r.key, r.earlier, r.backlog])).toEqual([['s0/t1', true, true], ['s0/t2', undefined, true]]);
		expect(reqs[0]!.lastSeen).toBe(0);
		const [f] = deriveServer(s, id);
		expect(f!.set).toBe('from the log, 18:40');
		// not of the last minute: the graph says `last`, never `now`
		expect(f!.current).toBe(false);
		expect(f!.decodeTps).toBe(49); // only the 18:40 request: 50 tokens, 49 decode steps in 1 s (the first token is the prompt pass's)
		// Newest first: 18:40, then the one whose time cannot be known.
		expect(requestRows(s.servers, s.order, 10).map(r => r.text.slice(0, 8))).toEqual(['18:40:00', 'earlier ']);
		expect(toSnapshot(s, 't').requests.map(r => r.time)).toEqual([null, new Date(at).toISOString()]);
		// Backlog requests leave the graph history alone (it is a live graph).
		expect(s.servers[id]!.history).toEqual([]);
	});
});

describe('consistency: numbers that contradict each other are never figures', () => {
	it('cached above prompt (a log line) is dropped, counted per log with its reason, and said in the log pane', () => {
		const parser = createParser('ollama');
		let s = run(ollama(), [ps(T0, [model(A, T0 + 300_000)])]);
		s = feed(s, parser, [[T0 + 1, slog(T0 + 1, 'prefix_cache.go:125', 'cache hit', 'total=106 matched=172 cached=172 left=-66')]]);
		s = feed(s, parser, [[T0 + 2, slog(T0 + 2, 'speculate_stats.go:62', 'speculative decode stats', 'iterations=30 drafted=60 accepted=36')]]);
		s = reduce(s, {type: 'tick', t: T0 + 100});
		const server = s.servers[ID]!;
		expect(server.requests).toEqual([]);
		// The line's negative `left` is caught where it enters (counted once); the request's cached > total once more.
		expect(server.linesInconsistent).toBe(2);
		expect(server.lastInconsistent).toBe('cached 172 > prompt 106');
		expect(logLines(server.log).filter(l => l.text.startsWith('infertop: request')).map(l => l.text)).toEqual(['infertop: request mlx#1 not shown: inconsistent (cached 172 > prompt 106)']);
		expect(deriveServer(s, ID)[0]!.tokensPerPass).toBeUndefined();
		expect(toSnapshot(s, 't').requests).toEqual([]);
	});

	it('accepted above drafted, tokens per pass below 1 and a rate above 1e6 tok/s are inconsistent too', () => {
		const id = 'x';
		const base = run(initialState({now: T0}), [{type: 'server-seen', t: T0, server: {id, engine: 'llamacpp', url: 'http://x', source: 'flag'}}]);
		const one = (patch: Record<string, number>) =>
			reduce(base, {type: 'engine-event', serverId: id, t: T0, event: {type: 'request', key: 'k', started: true, done: true, ...patch}}).servers[id]!;
		expect(one({accepted: 10, drafted: 5}).lastInconsistent).toBe('accepted 10 > drafted 5');
		expect(one({decodedTokens: 10, passes: 20}).lastInconsistent).toBe('tokens per pass < 1 (10 tokens in 20 passes)');
		expect(one({decodedTokens: 5000, decodeMs: 1}).lastInconsistent).toBe('decode above 1e+6 tok/s');
		expect(one({promptTokens: 2504, cachedTokens: 2849}).lastInconsistent).toBe('cached 2849 > prompt 2504');
		expect(one({decodedTokens: 10, passes: 5, accepted: 5, drafted: 8}).lastInconsistent).toBeUndefined();
	});
});

describe('batches and intervals (vLLM)', () => {
	const id = 'vllm@127.0.0.1:8000';
	const vllmLine = (hms: string, prompt: number, gen: number, running: number) =>
		`(APIServer pid=1) INFO 05-07 ${hms} [loggers.py:271] Engine 000: Avg prompt throughput: ${prompt.toFixed(1)} tokens/s, Avg generation throughput: ${gen.toFixed(1)} tokens/s, Running: ${running} reqs, Waiting: 0 reqs, GPU KV cache usage: 8.7%, Prefix cache hit rate: 34.5%`;
	const spec = (hms: string, len: number) =>
		`(APIServer pid=1) INFO 05-07 ${hms} [metrics.py:101] SpecDecoding metrics: Mean acceptance length: ${len.toFixed(2)}, Accepted throughput: 67.50 tokens/s, Drafted throughput: 178.40 tokens/s, Accepted: 675 tokens, Drafted: 1784 tokens, Per-position acceptance rate: 0.726, 0.467, Avg Draft acceptance rate: 37.8%`;
	const start = () => run(initialState({now: T0}), [{type: 'server-seen', t: T0, server: {id, engine: 'vllm', url: 'http://127.0.0.1:8000', source: 'flag'}}]);

	it('a sum over 12 running is one aggregate: per-sequence figures are --', () => {
		let s = feed(start(), createParser('vllm'), [[T0 + 10_000, vllmLine('04:56:30', 32, 640, 12)], [T0 + 10_001, spec('04:56:30', 2.9)]], id);
		s = reduce(s, {type: 'tick', t: T0 + 11_000});
		const [f] = deriveServer(s, id);
		expect(f).toMatchObject({aggregateTps: 640, running: 12, decodeTps: undefined, msPerPass: undefined, passesPerSec: undefined, tokensPerPass: 2.9, basis: 'interval'});
		expect(passesLines(f)[0]![0]).toEqual(['aggregate ', '640.0 tok/s over 12 running']);
	});

	it('one running: the interval is that request\'s; an interval without a speculation line has no tokens per pass', () => {
		let s = feed(start(), createParser('vllm'), [[T0 + 10_000, vllmLine('04:56:30', 32, 127.5, 1)], [T0 + 10_001, spec('04:56:30', 2.9)]], id);
		expect(deriveServer(reduce(s, {type: 'tick', t: T0 + 10_500}), id)[0]).toMatchObject({decodeTps: 127.5, tokensPerPass: 2.9, passesPerSec: 127.5 / 2.9});
		s = feed(s, createParser('vllm'), [[T0 + 20_000, vllmLine('04:56:40', 0, 128.2, 1)]], id);
		expect(deriveServer(reduce(s, {type: 'tick', t: T0 + 20_500}), id)[0]).toMatchObject({decodeTps: 128.2, tokensPerPass: undefined, passesPerSec: undefined});
	});
});

describe('an old log opened as a new user would (samples/ollama-gguf.log through the real log source)', () => {
	it('six requests of 2026/08/21 18:40 are "from the log, 18:40", newest first, in no live rate', async () => {
		const {createLogSource} = await import('../../source/sources/log-source.js');
		const {fileURLToPath} = await import('node:url');
		let s = run(initialState({now: Date.now()}), [{type: 'server-seen', t: Date.now(), server: {id: 'log', engine: 'ollama', source: 'log', logLabel: 'ollama-gguf.log'}}]);
		const src = createLogSource({serverId: 'log', engine: 'ollama', input: {kind: 'file', path: fileURLToPath(new URL('../../samples/ollama-gguf.log', import.meta.url))}, dispatch: a => (s = reduce(s, a))});
		await src.start();
		await src.stop();
		s = reduce(s, {type: 'tick', t: Date.now()});
		const reqs = s.servers.log!.requests.filter(r => r.done);
		expect(reqs).toHaveLength(6);
		expect(reqs.every(r => r.backlog === true && r.earlier === undefined && r.lastSeen < Date.now() - 60_000)).toBe(true);
		const times = reqs.map(r => r.lastSeen);
		expect(times).toEqual([...times].sort((a, b) => a - b));
		// Each request takes the log's own time ([GIN] read in the slog lines' -07:00): six distinct times.
		expect(new Set(times).size).toBe(6);
		const [f] = deriveServer(s, 'log');
		// 18:40–18:50 at the log's -07:00, shown in this machine's local time as every clock on screen.
		expect(times.at(-1)! >= Date.parse('2026-08-21T18:40:00-07:00') && times.at(-1)! < Date.parse('2026-08-21T18:50:00-07:00')).toBe(true);
		expect(f!.set).toBe(`from the log, ${hhmm(times.at(-1)!)}`);
		expect(f!.model).toBe('qwen3.6:27b');
		expect(s.servers.log!.history).toEqual([]);
		const rows = requestRows(s.servers, s.order, 10).map(r => r.text.slice(0, 5));
		expect(rows).toEqual([...rows].sort().reverse());
	});
});
