/**
 * Why the agent is slow or forgetting (issue 28): scenario tests, each an agent session in the
 * engines' own upstream line formats (file and commit beside each), through the real parsers and
 * reducer; every figure exact or null.
 *
 * Ollama @ fb30760 (v0.33.0-rc2) unless said; llama.cpp = ngxson/llama.cpp @ 3f545be.
 */
import {describe, expect, it} from 'vitest';
import {deriveSessions, findingEntries, type Session} from '../../source/model/sessions.js';
import {FINDING_KINDS, summaryLine, windowFor, type Finding, type FindingKind} from '../../source/model/findings.js';
import {initialState} from '../../source/model/reducer.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {Feed, gin, launchLongPrefill, llamaTask, ollamaGrowing, ollamaOnMacOverLimit, prefillingPast300s, slog, T0} from '../helpers/agent-feed.js';

const kinds = (s: Session): string[][] => s.turns.map(t => t.findings.map(f => f.kind));
const turnsWith = (s: Session, kind: string): number[] => s.turns.flatMap((t, i) => (t.findings.some(f => f.kind === kind) ? [i + 1] : []));
const round4 = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1e4) / 1e4);

describe('Ollama v0.30.0–v0.30.10: the prompt cut to num_ctx (limit = num_ctx)', () => {
	const f = ollamaGrowing('full');
	const s = deriveSessions(f.state).sessions[0]!;

	it('one session of 9 turns; truncated on turns 4–9 (the WARN line each), near-full on turn 3 (3,900 of 4,096)', () => {
		expect(s.turns).toHaveLength(9);
		expect(turnsWith(s, 'truncated')).toEqual([4, 5, 6, 7, 8, 9]);
		expect(turnsWith(s, 'context-near-full')).toEqual([3]);
		expect(turnsWith(s, 'cache-miss')).toEqual([]);
	});

	it('per turn: the held prompt, its window and fill; the cut turns hold 4,095 of 4,096', () => {
		expect(s.turns.map(t => t.contextTokens)).toEqual([1200, 2500, 3900, 4095, 4095, 4095, 4095, 4095, 4095]);
		expect(s.turns.map(t => t.contextWindow)).toEqual(Array(9).fill(4096));
		expect(s.turns.map(t => round4(t.contextFill))).toEqual([0.293, 0.6104, 0.9521, 0.9998, 0.9998, 0.9998, 0.9998, 0.9998, 0.9998]);
	});

	it('the evidence is the WARN line; the fix the window the prompt fits (≥ 64k, Ollama\'s docs for agents)', () => {
		const last = s.turns[8]!.findings.find(x => x.kind === 'truncated')!;
		expect(last.evidence).toBe(slog(T0 + 1000 + 8 * 30_000, 'WARN', 'llama_server.go:317', 'truncating input prompt', 'limit=4096 prompt=61204 keep=4 new=4095'));
		expect(last.fix).toBe('OLLAMA_CONTEXT_LENGTH=65536');
		expect([last.tokens, last.window]).toEqual([61_204, 4096]);
	});

	it('the line above the turns names it, with its fix', () => {
		expect(summaryLine(s.turns, 'Ollama')).toBe('✖ prompt truncated on 6 of 9 turns: 61,204 tokens into a 4,096 window (Ollama WARN "truncating input prompt") — fix: OLLAMA_CONTEXT_LENGTH=65536');
	});

	it('snapshot --json: per turn and top level', () => {
		const snap = toSnapshot(f.state, 'test');
		const turn = snap.sessions[0]!.turns[3]!;
		expect(turn).toMatchObject({contextTokens: 4095, contextWindow: 4096, contextFill: 0.9998, cacheReuse: round4(4 / 3900), cacheReuseBasis: 'previous-prompt', loadMs: null, finishReason: null});
		expect(turn.findings).toEqual([{kind: 'truncated', evidence: expect.stringContaining('msg="truncating input prompt" limit=4096 prompt=6000'), fix: 'OLLAMA_CONTEXT_LENGTH=65536'}]);
		const top = snap.findings.find(x => x.kind === 'truncated')!;
		expect(top).toMatchObject({server: 'ollama', model: 'qwen3-coder:30b', kind: 'truncated', fix: 'OLLAMA_CONTEXT_LENGTH=65536', turns: [4, 5, 6, 7, 8, 9]});
		expect(top.time).toBe(new Date(s.turns[8]!.time).toISOString());
	});
});

describe('Ollama v0.30.11+: about half the window survives the cut (contextShiftPromptLimit)', () => {
	const s = deriveSessions(ollamaGrowing('half').state).sessions[0]!;
	it('truncated on turns 4–9; each holds 2,051 of 4,096 (4096 − (4096 − 5) / 2)', () => {
		expect(turnsWith(s, 'truncated')).toEqual([4, 5, 6, 7, 8, 9]);
		expect(s.turns.slice(3).map(t => t.contextTokens)).toEqual(Array(6).fill(2051));
		expect(round4(s.turns[3]!.contextFill)).toBe(0.5007);
		expect(s.turns[3]!.findings.find(x => x.kind === 'truncated')!.evidence).toContain('limit=2051 prompt=6000 keep=5 new=2051');
	});
	it('without the WARN lines (a log that lost them), the held prompt that stops growing at half the window says so from the second capped turn', () => {
		const quiet = deriveSessions(ollamaGrowing('half', false).state).sessions[0]!;
		expect(turnsWith(quiet, 'truncated')).toEqual([5, 6, 7, 8, 9]);
		const inferred = quiet.turns[4]!.findings.find(x => x.kind === 'truncated')!;
		expect(inferred.evidence).toBe('prompt held 2,051 tokens of a 4,096 window on this and the previous turn: it stopped growing');
		expect(inferred.fix).toBe('OLLAMA_CONTEXT_LENGTH=65536');
		// Turn 4 fell from 3,900 to 2,051: a cache miss of a prompt that did not grow is not said either.
		expect(turnsWith(quiet, 'cache-miss')).toEqual([]);
	});
});

describe('an agent whose system prompt starts with a changing nonce (llama-server -lv 4)', () => {
	// Claude Code ≥ 2.1.36 puts `x-anthropic-billing-header: …; cch=<5 hex>;` first: the prefix diverges at token 41 every turn.
	const f = new Feed().server('llama', 'llamacpp');
	const prompts = [3000, 3400, 3900, 4500, 5200, 6000];
	prompts.forEach((p, i) => {
		const t = T0 + i * 20_000;
		f.lines('llama', t + 3000, llamaTask(i + 1, {window: 32_768, prompt: p, cached: i === 0 ? 0 : 41, prefillMs: (p - (i === 0 ? 0 : 41)) * 0.4, decodeMs: 1500, generated: 80}));
	});
	const s = deriveSessions(f.state).sessions[0]!;

	it('cache-miss on turns 2–6, each diverging at token 41: a nonce', () => {
		expect(turnsWith(s, 'cache-miss')).toEqual([2, 3, 4, 5, 6]);
		const miss = s.turns[1]!.findings[0]!;
		expect([miss.kind, miss.position, miss.nonce]).toEqual(['cache-miss', 41, true]);
		expect(miss.fix).toMatch(/^CLAUDE_CODE_ATTRIBUTION_HEADER=0 /);
	});
	it('cache reuse: cached ÷ the previous prompt this one resent; the first turn has nothing to reuse from', () => {
		expect(s.turns.map(t => round4(t.cacheReuse))).toEqual([0, round4(41 / 3000), round4(41 / 3400), round4(41 / 3900), round4(41 / 4500), round4(41 / 5200)]);
		expect(s.turns.map(t => t.cacheReuseBasis)).toEqual(['prompt', 'previous-prompt', 'previous-prompt', 'previous-prompt', 'previous-prompt', 'previous-prompt']);
		expect(summaryLine(s.turns, 'llama.cpp')).toBe('✖ prompt cache missed on 5 of 6 turns: prefix diverges at token 41 every turn (a nonce) (41 of 3,400 prompt tokens from the cache after a 3,000-token turn: prefix diverges at token 41, as on the turns around it: a nonce or timestamp near the prompt\'s start) — fix: CLAUDE_CODE_ATTRIBUTION_HEADER=0 (Claude Code\'s per-request cch= nonce); otherwise take the changing text out of the system prompt\'s start');
	});
	it('a session that reuses its prefix has no cache-miss', () => {
		const g = new Feed().server('llama', 'llamacpp');
		prompts.forEach((p, i) => g.lines('llama', T0 + i * 20_000 + 3000, llamaTask(i + 1, {window: 32_768, prompt: p, cached: i === 0 ? 0 : prompts[i - 1]!, prefillMs: 100, decodeMs: 1500, generated: 80})));
		const ok = deriveSessions(g.state).sessions[0]!;
		expect(kinds(ok)).toEqual(Array(6).fill([]));
		expect(ok.turns.map(t => t.cacheReuse)).toEqual([0, 1, 1, 1, 1, 1]);
	});
});

describe('a reload between turns, for each cause (Ollama)', () => {
	/** `slog.Info(fmt.Sprintf("llama-server started in %0.2f seconds", …))` — llm/llama_server.go:1362. */
	const started = (t: number, s: number) => slog(t, 'INFO', 'llama_server.go:1362', `llama-server started in ${s.toFixed(2)} seconds`);
	const models = (f: Feed, t: number, names: string[], ctx = 8192) => f.dispatch({type: 'server-models', t, serverId: 'ollama', models: names.map(name => ({name, format: 'gguf', runner: 'gguf', contextLength: ctx}))});
	const turn = (f: Feed, t: number, task: number, window = 8192, prompt = 2000, cached = 0) => f.lines('ollama', t, llamaTask(task, {window, prompt, cached, prefillMs: 800, decodeMs: 1500, generated: 60})).line('ollama', t, gin(200, '2.4s', '127.0.0.1'));

	it('keep-alive expired: the model left /api/ps while the agent was idle, then loaded on the next turn', () => {
		const f = new Feed().server('ollama', 'ollama');
		models(f, T0, ['qwen3:8b']);
		f.line('ollama', T0 + 500, started(T0 + 500, 3.1));
		turn(f, T0 + 3000, 0);
		turn(f, T0 + 20_000, 1, 8192, 2400, 2000);
		models(f, T0 + 330_000, []);
		f.line('ollama', T0 + 335_000, started(T0 + 335_000, 4.21));
		models(f, T0 + 336_000, ['qwen3:8b']);
		turn(f, T0 + 337_000, 0, 8192, 2800, 0);
		const s = deriveSessions(f.state, 600_000).sessions[0]!;
		expect(s.turns.map(t => t.loadMs)).toEqual([3100, 0, 4210]);
		const r = s.turns[2]!.findings.find(x => x.kind === 'reloaded')!;
		expect([r.cause, r.fix, r.evidence]).toEqual(['keep-alive expired: the model left memory while the agent was idle', 'OLLAMA_KEEP_ALIVE=-1', started(T0 + 335_000, 4.21)]);
		// The first load is the session's cold start: in loadMs, not a reload.
		expect(turnsWith(s, 'reloaded')).toEqual([3]);
	});

	it('a load is not a queue: the first turn waited 3.2 s while the model loaded 3.1 s — loadMs, no `queued`; without the load line it is queued', () => {
		const loaded = new Feed().server('ollama', 'ollama');
		models(loaded, T0, ['qwen3:8b']);
		loaded.line('ollama', T0 + 3100, started(T0 + 3100, 3.1));
		loaded.lines('ollama', T0 + 5500, llamaTask(0, {window: 8192, prompt: 2000, cached: 0, prefillMs: 800, decodeMs: 1500, generated: 60})).line('ollama', T0 + 5500, gin(200, '5.5s', '127.0.0.1'));
		const s = deriveSessions(loaded.state, 600_000).sessions[0]!;
		expect([s.turns[0]!.queueMs, s.turns[0]!.loadMs]).toEqual([3200, 3100]);
		expect(turnsWith(s, 'queued')).toEqual([]);
		const waited = new Feed().server('ollama', 'ollama');
		models(waited, T0, ['qwen3:8b']);
		waited.lines('ollama', T0 + 5500, llamaTask(0, {window: 8192, prompt: 2000, cached: 0, prefillMs: 800, decodeMs: 1500, generated: 60})).line('ollama', T0 + 5500, gin(200, '5.5s', '127.0.0.1'));
		expect(turnsWith(deriveSessions(waited.state, 600_000).sessions[0]!, 'queued')).toEqual([1]);
	});

	it('evicted: another model\'s load evicted it (sched.go:551 "…predicted to exceed available memory, evicting")', () => {
		const f = new Feed().server('ollama', 'ollama');
		models(f, T0, ['qwen3:8b']);
		turn(f, T0 + 3000, 0);
		// The autocomplete model loads: the scheduler evicts the chat model first.
		f.line('ollama', T0 + 10_000, slog(T0 + 10_000, 'INFO', 'sched.go:551', 'llama-server model predicted to exceed available memory, evicting', 'predicted="9.8 GiB" predicted_num_ctx=8192 num_batch=512 available="7.1 GiB" gpu_free="7.1 GiB" system_free="20.3 GiB" system_limited=false'));
		f.line('ollama', T0 + 12_000, started(T0 + 12_000, 2.5));
		f.dispatch({type: 'request-attributed', serverId: 'ollama', key: 'r1:s0/t0', model: 'qwen2.5-coder:1.5b', by: 'probe'});
		f.line('ollama', T0 + 25_000, started(T0 + 25_000, 6.02));
		turn(f, T0 + 30_000, 0, 8192, 2400, 0);
		const s = deriveSessions(f.state).sessions[0]!;
		const r = s.turns.at(-1)!.findings.find(x => x.kind === 'reloaded')!;
		expect([r.cause, r.fix]).toEqual(['evicted: another model needed the memory', 'OLLAMA_MAX_LOADED_MODELS=2']);
		expect(s.turns.at(-1)!.loadMs).toBe(8520);
	});

	it('options changed: the agent sent another num_ctx (server/sched.go needsReload), so the runner restarted with it', () => {
		const f = new Feed().server('ollama', 'ollama');
		models(f, T0, ['qwen3:8b']);
		turn(f, T0 + 3000, 0, 8192);
		f.line('ollama', T0 + 9000, started(T0 + 9000, 5.5));
		turn(f, T0 + 12_000, 0, 16_384, 2400, 0);
		const s = deriveSessions(f.state).sessions[0]!;
		const r = s.turns[1]!.findings.find(x => x.kind === 'reloaded')!;
		expect([r.cause, r.fix]).toEqual(['options changed: context 8,192 → 16,384', 'send the same num_ctx every turn (or none, with OLLAMA_CONTEXT_LENGTH set)']);
		expect(s.turns.map(t => t.contextWindow)).toEqual([8192, 16_384]);
		expect(s.turns.map(t => t.loadMs)).toEqual([0, 5500]);
	});
});

describe('llama-server refuses a prompt past its window (exceed_context_size_error)', () => {
	const f = new Feed().server('llama', 'llamacpp');
	f.lines('llama', T0 + 2000, llamaTask(1, {window: 8192, prompt: 6000, cached: 0, prefillMs: 3000, decodeMs: 1500, generated: 80}));
	f.lines('llama', T0 + 20_000, [
		'slot launch_slot_: id  0 | task 2 | processing task, is_child = 0',
		'slot   operator(): id  0 | task 2 | new prompt, n_ctx_slot = 8192, n_keep = 0, task.n_tokens = 9000',
		// SRV_ERR("task id = %d, error: %s\n") in send_error (server-context.cpp:1919); the message of :3082.
		'srv    send_error: task id = 2, error: request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it',
		'slot      release: id  0 | task 2 | stop processing: n_tokens = 6079, truncated = 0',
	]);
	const s = deriveSessions(f.state).sessions[0]!;
	it('the refused request is turn 2, finished by error, with its figures from the message', () => {
		expect(s.turns).toHaveLength(2);
		expect(s.turns[1]!.finishReason).toBe('error');
		const e = s.turns[1]!.findings.find(x => x.kind === 'context-exceeded')!;
		expect([e.tokens, e.window, e.fix]).toEqual([9000, 8192, '-c 65536']);
		expect(e.evidence).toBe('error: request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it');
		// The engine held none of it: the turn's context is unknown, its fill null (the finding has the figures).
		expect([s.turns[1]!.contextTokens, s.turns[1]!.contextWindow, s.turns[1]!.contextFill]).toEqual([undefined, 8192, undefined]);
	});
	it('a failed turn is not in the budget (its figures are not whole)', () => {
		expect(s.budget.prefillMs).toBe(3000);
		expect(s.turns[0]!.finishReason).toBeUndefined();
	});
	it('"context shift is disabled" mid-generation is context-exceeded too', () => {
		const g = new Feed().server('llama', 'llamacpp');
		g.lines('llama', T0 + 2000, [
			'slot launch_slot_: id  0 | task 4 | processing task, is_child = 0',
			'slot   operator(): id  0 | task 4 | new prompt, n_ctx_slot = 4096, n_keep = 0, task.n_tokens = 4000',
			'srv    send_error: task id = 4, error: context shift is disabled',
			'slot      release: id  0 | task 4 | stop processing: n_tokens = 4095, truncated = 0',
		]);
		const t = deriveSessions(g.state).sessions[0]!.turns[0]!;
		expect(t.findings.map(x => [x.kind, x.evidence, x.fix])).toEqual([['context-exceeded', 'error: context shift is disabled', '-c 65536']]);
	});
	it('with shift off, a generation that ran into the window ends truncated = 1: cut at the window, finish length', () => {
		const g = new Feed().server('llama', 'llamacpp');
		g.lines('llama', T0 + 2000, llamaTask(5, {window: 4096, prompt: 3000, cached: 0, prefillMs: 1500, decodeMs: 30_000, generated: 1096, truncated: 1}));
		const t = deriveSessions(g.state).sessions[0]!.turns[0]!;
		expect(t.finishReason).toBe('length');
		expect(t.findings.map(x => [x.kind, x.evidence])).toEqual([['context-exceeded', 'stop processing: n_tokens = 4095, truncated = 1']]);
	});
});

describe('llama-server --context-shift: the window shifted during a turn', () => {
	const f = new Feed().server('llama', 'llamacpp');
	// SLT_WRN(slot, "slot context shift, n_keep = %d, n_left = %d, n_discard = %d\n") — server-context.cpp:2822.
	f.lines('llama', T0 + 40_000, llamaTask(3, {window: 8192, prompt: 7000, cached: 0, prefillMs: 3500, decodeMs: 30_000, generated: 1500, truncated: 1}, ['slot   pre_decode: id  0 | task 3 | slot context shift, n_keep = 0, n_left = 8190, n_discard = 4095']));
	const t = deriveSessions(f.state).sessions[0]!.turns[0]!;
	it('context-shifted with the line; the release\'s truncated = 1 is that shift, not a refusal', () => {
		expect(t.findings.map(x => [x.kind, x.evidence, x.fix])).toEqual([['context-shifted', 'slot context shift, n_keep = 0, n_left = 8190, n_discard = 4095', '-c 65536']]);
		expect(t.finishReason).toBeUndefined();
	});
});

describe('a tool call that failed to parse', () => {
	it('Ollama: `slog.Warn("qwen tool call parsing failed", "error", err)` (model/parsers/qwen3coder.go:71) on turn 2', () => {
		const f = new Feed().server('ollama', 'ollama');
		f.dispatch({type: 'server-models', t: T0, serverId: 'ollama', models: [{name: 'qwen3-coder:30b', format: 'gguf', runner: 'gguf', contextLength: 65_536}]});
		f.lines('ollama', T0 + 2000, llamaTask(0, {window: 65_536, prompt: 9000, cached: 0, prefillMs: 4000, decodeMs: 3000, generated: 120}));
		f.line('ollama', T0 + 2000, gin(200, '7.1s', '127.0.0.1'));
		f.lines('ollama', T0 + 20_000, llamaTask(1, {window: 65_536, prompt: 9400, cached: 9100, prefillMs: 150, decodeMs: 3000, generated: 150}).slice(0, 6));
		const warn = slog(T0 + 20_500, 'WARN', 'qwen3coder.go:71', 'qwen tool call parsing failed', 'error="XML syntax error on line 3: unexpected EOF"');
		f.line('ollama', T0 + 20_500, warn);
		f.lines('ollama', T0 + 20_500, llamaTask(1, {window: 65_536, prompt: 9400, cached: 9100, prefillMs: 150, decodeMs: 3000, generated: 150}).slice(6));
		f.line('ollama', T0 + 20_500, gin(200, '3.2s', '127.0.0.1'));
		const s = deriveSessions(f.state).sessions[0]!;
		expect(kinds(s)).toEqual([[], ['tool-call-failed']]);
		expect(s.turns[1]!.findings[0]!.evidence).toBe(warn);
	});
	it('llama-server: `common_chat_peg_parse: unparsed %s output` (common/chat.cpp:3871), then the HTTP 500\'s message in send_error', () => {
		const f = new Feed().server('llama', 'llamacpp');
		f.lines('llama', T0 + 5000, llamaTask(7, {window: 32_768, prompt: 5000, cached: 0, prefillMs: 2000, decodeMs: 3000, generated: 90}));
		f.line('llama', T0 + 5001, 'W common_chat_peg_parse: unparsed peg-native output: <tool_call>{"name": "read_file", "arguments": {"path": ');
		const s = deriveSessions(f.state).sessions[0]!;
		// The parser runs as the answer is made, just after the release: it belongs to the turn in flight
		// when it was written, or the next one to end.
		f.lines('llama', T0 + 9000, llamaTask(8, {window: 32_768, prompt: 5200, cached: 5000, prefillMs: 100, decodeMs: 3000, generated: 90}));
		const after = deriveSessions(f.state).sessions[0]!;
		expect(kinds(s)).toEqual([[]]);
		expect(kinds(after)).toEqual([[], ['tool-call-failed']]);
		expect(after.turns[1]!.findings[0]!.evidence).toBe('common_chat_peg_parse: unparsed peg-native output: <tool_call>{"name": "read_file", "arguments": {"path": ');
	});
});

describe('the output budget ran out: finish length (llama-server -v `stopped by limit, n_gen = %d, n_predict = %d`, server-context.cpp:1789)', () => {
	const f = new Feed().server('llama', 'llamacpp');
	// A reasoning model spent all 512 tokens thinking: the answer's visible content is empty.
	f.lines('llama', T0 + 9000, llamaTask(2, {window: 32_768, prompt: 4000, cached: 0, prefillMs: 2000, decodeMs: 10_000, generated: 512}, ['slot process_toke: id  0 | task 2 | stopped by limit, n_gen = 512, n_predict = 512']));
	const t = deriveSessions(f.state).sessions[0]!.turns[0]!;
	it('output-limit, finishReason length, the limit from the line', () => {
		expect(t.finishReason).toBe('length');
		expect(t.findings.map(x => [x.kind, x.evidence])).toEqual([['output-limit', 'finish_reason length after 512 tokens (n_predict 512)']]);
	});
});

describe('a prefill long enough to pass the client\'s 300 s', () => {
	// Earlier turns measure this model's prefill rate: 300 tok/s.
	const f = prefillingPast300s();
	it('a finished turn whose first byte came after 300 s: timeout-risk on it', () => {
		const s = deriveSessions(f.state, 600_000).sessions[0]!;
		expect(turnsWith(s, 'timeout-risk')).toEqual([2]);
		expect(s.turns[1]!.findings.find(x => x.kind === 'timeout-risk')!.evidence).toBe('307 s before the first byte: Node clients abort at 300 s and retry the whole prefill');
	});
	it('while the next turn is still prefilling, the predicted first byte (uncached ÷ the measured rate) is said before it happens', () => {
		launchLongPrefill(f);
		const view = deriveSessions(f.state, 600_000);
		const live = findingEntries(f.state, view).filter(e => e.live);
		expect(live).toHaveLength(1);
		expect(live[0]!.kind).toBe('timeout-risk');
		expect(live[0]!.turns).toEqual([3]);
		// 124,988 uncached at (18,000 + 92,000) ÷ (60 + 306.66667) s = 300.0 tok/s ⇒ 417 s.
		expect(live[0]!.evidence).toBe('prefilling 124,988 uncached tokens at 300 tok/s: first byte in about 417 s (10 s so far); Node clients abort at 300 s');
	});
});

describe('queued: the turn waited for a slot longer than its own prefill', () => {
	it('llama-server -v: the deferred task waited 4.2 s and prefilled 0.3 s', () => {
		const f = new Feed().server('llama', 'llamacpp');
		f.lines('llama', T0 + 5000, llamaTask(1, {window: 32_768, prompt: 4000, cached: 0, prefillMs: 2000, decodeMs: 3000, generated: 90}));
		// SRV_DBG("no slot is available, defer task, id_task = %d\n") — server-context.cpp @ 3f545be, with its process-relative stamps.
		f.line('llama', T0 + 6000, '0.06.000.000 D srv  process_sing: no slot is available, defer task, id_task = 2');
		f.lines('llama', T0 + 12_000, llamaTask(2, {window: 32_768, prompt: 4200, cached: 4000, prefillMs: 300, decodeMs: 3000, generated: 90}).map((l, i) => (i === 0 ? `0.10.200.000 I ${l}` : l)));
		const s = deriveSessions(f.state).sessions[0]!;
		expect(s.turns[1]!.queueMs).toBe(4200);
		expect(turnsWith(s, 'queued')).toEqual([2]);
		expect(s.turns[1]!.findings.find(x => x.kind === 'queued')!.fix).toBe('-np 2 (with -c doubled: each slot gets -c ÷ -np)');
	});
});

describe('part of the model on the CPU', () => {
	it('Ollama /api/ps size_vram < size: on every turn, with the figures', () => {
		const f = new Feed().server('ollama', 'ollama');
		f.dispatch({type: 'server-models', t: T0, serverId: 'ollama', models: [{name: 'qwen3:32b', format: 'gguf', runner: 'gguf', contextLength: 32_768, sizeBytes: 24e9, sizeVramBytes: 14e9, processor: '42%/58% CPU/GPU'}]});
		f.lines('ollama', T0 + 2000, llamaTask(0, {window: 32_768, prompt: 3000, cached: 0, prefillMs: 3000, decodeMs: 9000, generated: 60}));
		const s = deriveSessions(f.state).sessions[0]!;
		expect(s.turns[0]!.findings).toEqual([{kind: 'spilled-to-cpu', evidence: 'size_vram 14.0 GB of size 24.0 GB (42%/58% CPU/GPU)', fix: 'a smaller quantization or a shorter context, so the whole model fits the GPU'}]);
	});
	it('a Mac whose engines hold more than the GPU may wire (wiredLimitVerdict over): spilled-to-cpu with the sysctl fix (issue 33)', () => {
		const f = ollamaOnMacOverLimit();
		const s = deriveSessions(f.state).sessions[0]!;
		expect(turnsWith(s, 'spilled-to-cpu')).toEqual([1, 2]);
		const m = s.turns[0]!.findings[0]!;
		expect(m.evidence).toBe('engines hold 100.6 GiB, over the GPU\'s wired-memory limit of 96.0 GiB (105 %): over the limit: expect slow decode or a failed load');
		expect(m.fix).toBe('sudo sysctl iogpu.wired_limit_mb=113664');
	});
});

describe('the fix\'s window', () => {
	it('the smallest power of two the prompt fits, at least Ollama\'s 64k for agents, larger than the window it replaces', () => {
		expect([windowFor(61_204), windowFor(70_000), windowFor(1000, 65_536), windowFor(4096, 4096)]).toEqual([65_536, 131_072, 131_072, 65_536]);
	});
});

describe('Prometheus: turns per finding kind, and the newest turn\'s context fill, per model', () => {
	it('the 9-turn Ollama session: truncated 6, near-full 1; fill 0.9998 (counted once each settled turn)', async () => {
		const {RequestCounters, renderMetrics} = await import('../../source/metrics/exporter.js');
		const {FIGURES} = await import('../../source/model/figure-table.js');
		const f = ollamaGrowing('full');
		f.dispatch({type: 'tick', t: f.state.now + 60_000});
		const counters = new RequestCounters();
		counters.observe(f.state);
		counters.observe(f.state);
		const text = renderMetrics(f.state, [], counters, FIGURES);
		expect(text).toContain('# TYPE infertop_agent_findings_total counter');
		const series = text.split('\n').filter(l => l.startsWith('infertop_agent_findings_total{') || l.startsWith('infertop_agent_context_fill_ratio{'));
		expect(series).toEqual([
			'infertop_agent_findings_total{engine="ollama",server="http://ollama",model="qwen3-coder:30b",kind="context-near-full"} 1',
			'infertop_agent_findings_total{engine="ollama",server="http://ollama",model="qwen3-coder:30b",kind="truncated"} 6',
			'infertop_agent_context_fill_ratio{engine="ollama",server="http://ollama",model="qwen3-coder:30b"} 0.999755859375',
		]);
	});
});

describe('findingEntries: one pass over the turns for every kind (issue 32)', () => {
	/** The entries as the list states them: per session, per kind in FINDING_KINDS order, the turns with it and its own (else first) instance. */
	function reference(sessions: readonly Session[]) {
		const out = [];
		for (const s of sessions) {
			for (const kind of FINDING_KINDS) {
				const turns = s.turns.flatMap((t, i) => (t.findings.some(f => f.kind === kind) ? [i + 1] : []));
				if (turns.length === 0) continue;
				const all = s.turns.flatMap(t => t.findings.filter(f => f.kind === kind));
				const finding = all.find(f => !f.inferred) ?? all[0]!;
				out.push({time: s.turns[turns.at(-1)! - 1]!.time, serverId: s.serverId, model: s.model, sessionId: s.id, kind, evidence: finding.evidence, fix: finding.fix, turns, finding});
			}
		}
		return out.sort((a, b) => b.time - a.time);
	}
	const f = (kind: FindingKind, evidence: string, inferred?: boolean): Finding => ({kind, evidence, fix: `fix ${evidence}`, ...(inferred ? {inferred} : {})});
	const turn = (time: number, findings: Finding[]) => ({time, findings}) as unknown as Session['turns'][number];
	const session = (id: string, turns: Session['turns']): Session => ({id, serverId: id.split('/')[0]!, engine: 'llamacpp', model: 'm', turns, budget: {} as Session['budget']}) as Session;

	it('several kinds on a turn, one kind twice on a turn, the engine\'s own line after an inferred one, kinds out of list order: as the list states them', () => {
		const sessions = [
			session('a/m/-/1', [
				turn(1000, [f('cache-miss', 'miss 1', true), f('context-near-full', 'near 1', true)]),
				turn(2000, []),
				turn(3000, [f('context-near-full', 'near 3', true), f('truncated', 'cut 3 inferred', true), f('truncated', 'cut 3 WARN')]),
				turn(4000, [f('truncated', 'cut 4 WARN'), f('cache-miss', 'miss 4', true), f('cache-miss', 'miss 4 again', true)]),
			]),
			session('b/m/-/1', [turn(1500, [f('queued', 'queued 1', true)]), turn(5000, [f('tool-call-failed', 'tool 2'), f('queued', 'queued 2', true)])]),
			session('c/m/-/1', [turn(2500, [])]),
		];
		const state = initialState({});
		const got = findingEntries(state, {sessions, withoutTime: 0});
		expect(got).toEqual(reference(sessions));
		const a = got.filter(e => e.serverId === 'a');
		expect(a.map(e => [e.kind, e.turns, e.evidence])).toEqual([
			['truncated', [3, 4], 'cut 3 WARN'],
			['cache-miss', [1, 4], 'miss 1'],
			['context-near-full', [1, 3], 'near 1'],
		]);
	});
});
