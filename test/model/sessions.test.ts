/**
 * The agent view's sessions and budget (issue 16 part 1) from scripted log lines in the engines'
 * upstream formats — the real llama.cpp captures of shared/fixtures, copied to test/fixtures (prompt-cache reuse, `-v`
 * deferred tasks), Ollama `[GIN]` + llama-server lines, lithos-metal — never the demo. Every value
 * is exact or null.
 */
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {processRelativeMs} from '../../source/engines/log-time.js';
import {feedLine} from '../../source/sources/log-source.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {budgetWords, deriveSessions, serverSessions} from '../../source/model/sessions.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import type {EngineKind} from '../../source/types/events.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);
// Copied unchanged from shared/fixtures/llama.cpp (test/fixtures/engines/README.md).
const FIXTURES = new URL('../fixtures/engines/llama.cpp/', import.meta.url);
const fixtureLines = (name: string): string[] => readFileSync(new URL(name, FIXTURES), 'utf8').split('\n').filter(l => l.length > 0);

/** A state fed line by line, each at the time given (as a live tail would), through the real parser and reducer. */
class Feed {
	state: MonitorState = initialState({now: T0});
	private readonly parsers = new Map<string, ReturnType<typeof createParser>>();
	dispatch = (a: Action): void => {
		this.state = reduce(this.state, a);
	};
	server(id: string, engine: EngineKind): this {
		this.dispatch({type: 'server-seen', t: T0, server: {id, engine, source: 'flag', url: `http://${id}`}});
		this.parsers.set(id, createParser(engine));
		return this;
	}
	line(id: string, t: number, line: string, at?: 'backlog' | 'earlier'): this {
		feedLine(this.parsers.get(id)!, id, line, t, this.dispatch, at);
		this.dispatch({type: 'tick', t: Math.max(this.state.now, t)});
		return this;
	}
	lines(id: string, t: number, lines: readonly string[]): this {
		for (const l of lines) this.line(id, t, l);
		return this;
	}
}

const ms2 = (x: number | undefined): number | undefined => (x === undefined ? undefined : Math.round(x * 1000) / 1000);

describe('llama.cpp, default verbosity: prompt-cache reuse (v2 partial-reuse captures)', () => {
	const f = new Feed().server('llama', 'llamacpp');
	// Each line at its own process-relative time (as the log source anchors them).
	for (const n of [1, 2, 3, 4]) for (const l of fixtureLines(`v2-partial-reuse-req${n}.log`)) f.line('llama', T0 + processRelativeMs(l)!, l);
	const view = serverSessions(f.state.servers.llama!);
	const s = view.sessions[0]!;

	it('one session of four turns; the log names no client, so none is invented', () => {
		expect(view.sessions).toHaveLength(1);
		expect(s.client).toBeUndefined();
		expect(s.turns).toHaveLength(4);
	});

	it('per turn: prompt and cached tokens (worked out from stop processing, as llama.cpp logs them), prefill and decode exact', () => {
		expect(s.turns.map(t => t.promptTokens)).toEqual([1559, 1569, 1559, 1559]);
		expect(s.turns.map(t => t.cachedTokens)).toEqual([0, 1531, 1531, 1558]);
		expect(s.turns.map(t => t.prefillMs)).toEqual([4423.92, 319.87, 240.91, 22.73]);
		expect(s.turns.map(t => t.decodeMs)).toEqual([758.56, 776.78, 808.62, 699.35]);
		expect(s.turns.map(t => t.generatedTokens)).toEqual([32, 32, 32, 32]);
	});

	it('queue: unknown for the first turn (nothing says when it arrived); 0 for the next ones (no other request held the slot since the last ended); idle = launch − last release', () => {
		expect(s.turns.map(t => t.queueMs)).toEqual([undefined, 0, 0, 0]);
		expect(s.turns.map(t => ms2(t.idleBeforeMs))).toEqual([undefined, 2022.909, 2021.839, 2021.76]);
	});

	it('budget: partial sums are never shown (queue null), shares over the known parts, cache saving by the measured prefill rate', () => {
		const b = s.budget;
		expect(b.queueMs).toBeUndefined();
		expect(b.unknown).toEqual({queue: 1, prefill: 0, decode: 0, idle: 0});
		expect(ms2(b.prefillMs)).toBe(5007.43);
		expect(ms2(b.decodeMs)).toBe(3043.31);
		expect(ms2(b.idleMs)).toBe(6066.508);
		// Shares over the three turns whose every part is known (turn 1's queue is not).
		expect(b.sharesOver).toBe(3);
		const wall = 583.51 + 2284.75 + 6066.508;
		expect(b.shares.queue).toBe(0);
		expect(b.shares.prefill).toBeCloseTo(583.51 / wall, 6);
		expect(b.shares.idle).toBeCloseTo(6066.508 / wall, 6);
		// Σ uncached / Σ prefill time = (1559 + 38 + 28 + 1) / 5007.43 ms
		expect(s.prefillTps).toBeCloseTo((1626 * 1000) / 5007.43, 9);
		expect(b.savedByCacheMs).toBeCloseTo((4620 * 5007.43) / 1626, 9);
		expect(budgetWords(s)).toBe("decode is 80 % of this agent's wait; the cache saved 14 s over 4 turns; prefill 20 %; queue 0 %; idle between turns 68 % of wall time; shares over the 3 turns fully known; unknown: queue (1 of 4)");
	});

	it('snapshot --json: sessions[] with the documented keys, unknown = null', () => {
		const snap = toSnapshot(f.state, 'test');
		const js = snap.sessions[0]!;
		expect(js.model).toBeNull();
		expect(js.server).toBe('llama');
		expect(js.client).toBeNull();
		expect(js.clientKnown).toBe(false);
		expect(js.turns[0]).toEqual({time: new Date(T0 + 6312.978).toISOString(), promptTokens: 1559, cachedTokens: 0, promptEstimated: true, queueMs: null, prefillMs: 4423.92, decodeMs: 758.56, generatedTokens: 32, idleBeforeMs: null, retries: 0, contextTokens: 1559, contextWindow: null, contextFill: null, cacheReuse: 0, cacheReuseBasis: 'prompt', loadMs: null, finishReason: null, findings: []});
		expect(js.budget).toMatchObject({queueMs: null, prefillMs: 5007.43, decodeMs: 3043.31, idleMs: 6066.508, savedByCacheMs: Math.round(((4620 * 5007.43) / 1626) * 1000) / 1000});
	});
});

describe('llama.cpp at -v: deferred tasks are the queue (verbose-overload capture, 4 requests on 2 slots)', () => {
	const f = new Feed().server('llama', 'llamacpp');
	for (const l of fixtureLines('verbose-overload.log')) {
		const rel = processRelativeMs(l);
		f.line('llama', rel === undefined ? f.state.now : T0 + rel, l);
	}
	const turns = deriveSessions(f.state).sessions.flatMap(s => s.turns);

	it('queue per task: from its first decline/defer line to its launch; 0 where the debug log shows no wait', () => {
		const byTask = Object.fromEntries(turns.map(t => [t.key, ms2(t.queueMs)]));
		// task 17 launched at once; 19 was declined at 1.137.713 and launched at 1.187.041;
		// 20: declined 1.137.899 → launched 1.630.766; 21: declined 1.138.208 → launched 1.689.119.
		expect(byTask).toEqual({'s0/t17': 0, 's1/t19': 49.328, 's0/t20': 492.867, 's1/t21': 550.911});
	});
});

// Ollama ≥ 0.30: llama-server lines without prefix (-lv 4), [GIN] lines (gin v1.10.0 defaultLogFormatter).
const gguf = (task: number, prompt: number, cached: number, prefillMs: number, decodeMs: number, n: number): string[] => [
	`slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`,
	`slot   operator(): id  0 | task ${task} | new prompt, n_ctx_slot = 8192, n_keep = 0, task.n_tokens = ${prompt}`,
	`slot   operator(): id  0 | task ${task} | cached n_tokens = ${cached}, memory_seq_rm [${cached}, end)`,
	`slot print_timing: id  0 | task ${task} | prompt eval time = ${prefillMs.toFixed(2).padStart(10)} ms / ${String(prompt - cached).padStart(5)} tokens (    0.50 ms per token,  2000.00 tokens per second)`,
	`slot print_timing: id  0 | task ${task} |        eval time = ${decodeMs.toFixed(2).padStart(10)} ms / ${String(n).padStart(5)} tokens (   20.20 ms per token,    49.50 tokens per second)`,
	`slot print_timing: id  0 | task ${task} |       total time = ${(prefillMs + decodeMs).toFixed(2).padStart(10)} ms / ${String(prompt - cached + n).padStart(5)} tokens`,
	`slot      release: id  0 | task ${task} | stop processing: n_tokens = ${prompt + n - 1}, truncated = 0`,
];
const gin = (status: number, latency: string, ip: string): string => `[GIN] 2026/12/01 - 10:00:00 | ${status} | ${latency.padStart(13)} | ${ip.padStart(15)} | POST     "/api/chat"`;

describe('two agents on two models at once (Ollama by client address; lithos-metal), one with a busy retry', () => {
	const f = new Feed().server('ollama', 'ollama').server('lithos', 'lithos');
	f.dispatch({type: 'server-models', t: T0, serverId: 'ollama', models: [{name: 'qwen3:8b', format: 'gguf', runner: 'gguf'}]});
	f.line('lithos', T0, 'INFO:monolith.serve:lithos-metal ready: http://127.0.0.1:8000 — model=qwen3.8-27b; DSpark=disabled; verification rows=1');
	// Agent A (10.0.0.5) on Ollama: turn 1 runs 0.75 s → 3.0 s (arrived at −0.25 s: 250 ms waiting).
	f.line('ollama', T0 + 750, gguf(0, 2000, 0, 1000, 2000, 100)[0]!);
	f.lines('ollama', T0 + 3000, gguf(0, 2000, 0, 1000, 2000, 100).slice(1));
	f.line('ollama', T0 + 3000, gin(200, '3.25s', '10.0.0.5'));
	// Agent B (lithos, 10.0.0.9): two turns at the same time as A's.
	f.line('lithos', T0 + 1500, "INFO:monolith.serve:Generation: {'steps': 40, 'decode_gpu_ms': 800.0, 'wall_ms': 1300.0, 'prefill_wall_ms': 400.0, 'cached_prompt_tokens': 0}");
	f.line('lithos', T0 + 1500, 'INFO:     10.0.0.9:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
	// B's second try is refused (one generation at a time) while another client's request runs, then accepted.
	f.line('lithos', T0 + 4000, 'INFO:     10.0.0.9:5556 - "POST /v1/chat/completions HTTP/1.1" 429 Too Many Requests');
	f.line('lithos', T0 + 6000, "INFO:monolith.serve:Generation: {'steps': 30, 'decode_gpu_ms': 600.0, 'wall_ms': 1000.0, 'cached_prompt_tokens': 9000}");
	f.line('lithos', T0 + 6000, 'INFO:     10.0.0.9:5557 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
	// A's turn 2 is refused twice (Ollama ErrMaxQueue → 503) while 10.0.0.7's request runs, then accepted.
	f.line('ollama', T0 + 5000, gin(503, '120.5µs', '10.0.0.5'));
	f.line('ollama', T0 + 4000, gguf(1, 500, 0, 250, 1000, 50)[0]!);
	f.line('ollama', T0 + 5400, gin(503, '98µs', '10.0.0.5'));
	f.lines('ollama', T0 + 5500, gguf(1, 500, 0, 250, 1000, 50).slice(1));
	f.line('ollama', T0 + 5500, gin(200, '1.5s', '10.0.0.7'));
	f.line('ollama', T0 + 6200, gguf(2, 2400, 2099, 300, 1500, 80)[0]!);
	f.lines('ollama', T0 + 8000, gguf(2, 2400, 2099, 300, 1500, 80).slice(1));
	f.line('ollama', T0 + 8000, gin(200, '2.1s', '10.0.0.5'));
	const view = deriveSessions(f.state);
	const find = (server: string, client: string) => view.sessions.find(s => s.serverId === server && s.client === client)!;

	it('three sessions: one per client and model, never blended', () => {
		expect(view.sessions.map(s => [s.serverId, s.model, s.client, s.turns.length])).toEqual([
			['ollama', 'qwen3:8b', '10.0.0.7', 1],
			['lithos', 'qwen3.8-27b', '10.0.0.9', 2],
			['ollama', 'qwen3:8b', '10.0.0.5', 2],
		]);
	});

	it('Ollama: queue = [GIN] latency − prefill − decode, plus the wait since the first refused try; idle ends at the first try', () => {
		const a = find('ollama', '10.0.0.5');
		expect(a.turns.map(t => t.queueMs)).toEqual([250, 300 + 900]);
		expect(a.turns.map(t => t.retries)).toEqual([0, 2]);
		expect(a.turns.map(t => t.idleBeforeMs)).toEqual([undefined, 2000]);
		expect(a.budget).toMatchObject({queueMs: 1450, prefillMs: 1300, decodeMs: 3500, idleMs: 2000});
		// cached 0 + 2099 tokens at the model's measured rate: (2000 + 500 + 301) tokens in 1550 ms.
		expect(a.budget.savedByCacheMs).toBeCloseTo((2099 * 1550) / 2801, 9);
	});

	it('lithos-metal: never queues (it refuses), so queue is the retry wait; a turn without prefill time is in no share, no partial sum is shown, and the words say so', () => {
		const b = find('lithos', '10.0.0.9');
		expect(b.turns.map(t => t.queueMs)).toEqual([0, 1000]);
		expect(b.turns.map(t => t.prefillMs)).toEqual([400, undefined]);
		expect(b.turns.map(t => t.idleBeforeMs)).toEqual([undefined, 2500]);
		expect(b.budget.prefillMs).toBeUndefined();
		// The shares: over turn 1 alone (turn 2's prefill is unknown); no idle among them.
		expect(b.budget.sharesOver).toBe(1);
		expect(b.budget.waitShares).toEqual({queue: 0, prefill: 400 / 1200, decode: 800 / 1200});
		expect(b.budget.shares.idle).toBeUndefined();
		// Without prompt counts there is no measured prefill rate: the cache saving is unknown.
		expect(b.budget.savedByCacheMs).toBeUndefined();
		expect(budgetWords(b)).toBe('decode is 67 % of this agent\'s wait; cache saving unknown (no measured prefill rate); prefill 33 %; queue 0 %; shares over the 1 turn fully known; unknown: prefill (1 of 2)');
		const js = toSnapshot(f.state, 'test').sessions.find(s => s.server === 'lithos')!;
		expect(js.budget.prefillMs).toBeNull();
		expect(js.budget.shares).toEqual({queue: 0, prefill: 0.3333, decode: 0.6667, idle: null});
		expect(js.budget.sharesOver).toBe(1);
		expect(js.turns[1]!.prefillMs).toBeNull();
	});
});

describe('an old log: turns whose time is unknown stay out of every session', () => {
	const f = new Feed().server('llama', 'llamacpp');
	const lines = fixtureLines('v2-partial-reuse-req1.log').map(l => l.replace(/^\d+\.\d{2}\.\d{3}\.\d{3} /, ''));
	for (const l of lines) f.line('llama', T0, l, 'earlier');
	const later = fixtureLines('v2-partial-reuse-req2.log').map(l => l.replace(/^\d+\.\d{2}\.\d{3}\.\d{3} /, ''));
	f.line('llama', T0 + 10_000, later[0]!).line('llama', T0 + 10_000, later[1]!);
	f.lines('llama', T0 + 11_000, later.slice(2));

	it('the backlog request before any stamp is counted as without time; the live one is a session of one turn', () => {
		const view = deriveSessions(f.state);
		expect(view.withoutTime).toBe(1);
		expect(view.sessions).toHaveLength(1);
		expect(view.sessions[0]!.turns.map(t => [t.prefillMs, t.queueMs, t.idleBeforeMs])).toEqual([[319.87, undefined, undefined]]);
		expect(toSnapshot(f.state, 'test').sessionsWithoutTime).toBe(1);
	});
});

describe('the session gap', () => {
	const f = new Feed().server('llama', 'llamacpp');
	const req = (task: number, at: number, prompt: number, cached: number) => {
		f.line('llama', at, `slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`);
		f.line('llama', at, `slot   operator(): id  0 | task ${task} | new prompt, n_ctx_slot = 8192, n_keep = 0, task.n_tokens = ${prompt}`);
		f.line('llama', at, `slot   operator(): id  0 | task ${task} | cached n_tokens = ${cached}, memory_seq_rm [${cached}, end)`);
		f.line('llama', at + 500, `slot print_timing: id  0 | task ${task} | prompt eval time =     100.00 ms / ${String(prompt - cached).padStart(5)} tokens (    1.00 ms per token,  1000.00 tokens per second)`);
		f.line('llama', at + 500, `slot print_timing: id  0 | task ${task} |        eval time =     400.00 ms /    10 tokens (   44.44 ms per token,    22.50 tokens per second)`);
		f.line('llama', at + 500, `slot      release: id  0 | task ${task} | stop processing: n_tokens = ${prompt + 9}, truncated = 0`);
	};
	req(0, T0, 1000, 0);
	// 90 s later, but its prompt grows by prefix (cached ≥ 90 % of the last prompt): the same session.
	req(1, T0 + 90_500, 1200, 1009);
	// 90 s later again, a fresh prompt: a new session.
	req(2, T0 + 181_000, 300, 0);

	it('prefix growth joins past the gap; a fresh prompt after the gap starts a new session; a longer gap joins it', () => {
		expect(serverSessions(f.state.servers.llama!, 60_000).sessions.map(s => s.turns.length)).toEqual([2, 1]);
		expect(serverSessions(f.state.servers.llama!, 120_000).sessions.map(s => s.turns.length)).toEqual([3]);
	});
});

describe("infertop's own probes are no agent's turns", () => {
	it('a log request the probe matched (attributed by probe) is left out of the sessions', () => {
		const f = new Feed().server('ollama', 'ollama');
		f.lines('ollama', T0 + 1000, gguf(0, 500, 0, 100, 400, 10));
		f.line('ollama', T0 + 1000, gin(200, '520ms', '127.0.0.1'));
		f.lines('ollama', T0 + 3000, gguf(1, 500, 0, 100, 400, 10));
		f.line('ollama', T0 + 3000, gin(200, '510ms', '127.0.0.1'));
		expect(deriveSessions(f.state).sessions.flatMap(s => s.turns.map(t => t.key))).toEqual(['s0/t0', 's0/t1']);
		f.dispatch({type: 'request-attributed', serverId: 'ollama', key: 's0/t1', model: 'qwen3:8b', by: 'probe'});
		expect(deriveSessions(f.state).sessions.flatMap(s => s.turns.map(t => t.key))).toEqual(['s0/t0']);
	});
});
