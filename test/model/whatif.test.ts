import {describe, expect, it} from 'vitest';
import {actualMsOf, decodeMsPerTokenAt, lastSession, newerOfMeasuredAndLog, passiveProfile, prefillTimeAt, projectSession, projectTurns, tokenRatio, whatIfText, type WhatIfRow} from '../../source/model/whatif.js';
import type {Session, Turn} from '../../source/model/sessions.js';
import type {DepthPoint, Profile} from '../../source/types/whatif.js';

const T0 = Date.UTC(2026, 11, 5, 9, 0, 0);
const GEN = 200;
const IDLE = 5000;

/** A depth point with TTFT = `ttftMs` at `promptTokens`, decoding at `msPerToken`. */
const pt = (promptTokens: number, ttftMs: number, msPerToken: number): DepthPoint => ({nominal: promptTokens, promptTokens, ttftMs, prefillTps: (promptTokens * 1000) / ttftMs, decodeTps: 1000 / msPerToken, t: T0});

const profile = (p: Partial<Profile> & Pick<Profile, 'url' | 'model' | 'points'>): Profile => ({engine: 'llamacpp', measuredAt: T0 - 3 * 3_600_000, version: '0.9.0', cache: {reused: true, by: 'count'}, concurrency: 'parallel', ...p});

/** The server the session ran on: 1 ms per prompt token at every depth, 25 ms per generated token, reuses the prefix. */
const OWN = profile({url: 'http://127.0.0.1:8080', model: 'agent-model', points: [pt(8192, 8192, 25), pt(32_768, 32_768, 25)], tokenizer: {textId: 'depth-0 v1', tokens: 100}});

/**
 * An agent session of 20 growing turns on OWN: prompts 4000, 5500 … 32500 tokens, each reusing the
 * previous prompt, 200 tokens generated, 5 s of the agent's tools between turns, recorded exactly as
 * OWN's curve says (so its self error is 0).
 */
function agentSession(o: {idle?: (i: number) => number; prompts?: number[]} = {}): Session {
	const turns: Turn[] = [];
	let end = T0;
	const prompts = o.prompts ?? Array.from({length: 20}, (_, i) => 4000 + 1500 * i);
	for (const [i, prompt] of prompts.entries()) {
		const cached = i === 0 ? 0 : prompts[i - 1]!;
		const idle = i === 0 ? undefined : (o.idle?.(i) ?? IDLE);
		const start = i === 0 ? T0 : end + idle!;
		const prefillMs = prompt - cached;
		const decodeMs = GEN * 25;
		end = start + prefillMs + decodeMs;
		turns.push({serverId: 's1', key: `r${i}`, time: end, start, promptTokens: prompt, cachedTokens: cached, promptEstimated: false, prefillTokens: prompt - cached, queueMs: 0, prefillMs, decodeMs, generatedTokens: GEN, idleBeforeMs: idle, retries: 0, backlog: false, findings: []});
	}
	return {id: 's1/agent-model/-/r0', serverId: 's1', engine: 'llamacpp', model: 'agent-model', turns, budget: {} as Session['budget']};
}

/** Twice as fast at prefill (0.5 ms per token), 20 ms per token decode, reuses, side by side. */
const FAST = profile({url: 'http://127.0.0.1:8081', model: 'agent-model', points: [pt(40, 20, 20), pt(32_768, 16_384, 20)]});
/**
 * Prefill 0.5 ms per token to 8K, then 1 ms per token (T(32768) = 4096 + 24576); decode 20 ms per
 * token at 8K growing to 40 at 32K; never reuses a prefix; one request at a time.
 */
const DEEP_SLOW = profile({url: 'http://127.0.0.1:11434', engine: 'ollama', model: 'agent-model', points: [pt(8192, 4096, 20), pt(32_768, 28_672, 40)], cache: {reused: false, by: 'time'}, concurrency: 'one-at-a-time'});

const byServer = (rows: readonly WhatIfRow[], url: string): WhatIfRow => rows.find((r) => r.server === url)!;

describe('what if: a session of 20 growing turns projected onto two profiles', () => {
	const s = agentSession();
	const rows = projectSession(s, [OWN, FAST, DEEP_SLOW], {url: OWN.url, profile: OWN});

	it('the session\'s own server first, projected the same way: the method\'s own error is 0 on a curve it recorded', () => {
		expect(actualMsOf(s.turns)).toBe(227_500); // prefill 32500 + decode 100000 + idle 95000
		const own = rows[0]!;
		expect(own.actual).toBe(true);
		expect(own.server).toBe(OWN.url);
		expect(own.projectedMs).toBe(227_500);
		expect(own.selfErrorPct).toBe(0);
		expect(rows.map((r) => r.server)).toEqual([OWN.url, FAST.url, DEEP_SLOW.url]);
	});

	it('a faster server that reuses the prefix: the uncached growth at 0.5 ms, 20 ms per token, the same idle', () => {
		const r = byServer(rows, FAST.url);
		// Uncached: 4000 + 19 × 1500 = 32500 tokens × 0.5 ms (T is linear through both points).
		expect(r.parts).toEqual({queueMs: 0, loadMs: 0, prefillMs: 16_250, decodeMs: 80_000, idleMs: 95_000});
		expect(r.projectedMs).toBe(191_250);
		expect(r.changePct).toBe(-15.93);
		expect(r.selfErrorPct).toBe(0);
		expect(r.dominant).toBe('idle');
		expect(r.tokenRatio).toBe(1);
		expect(r.unable).toBeNull();
		expect(r.rates).toEqual({depthFrom: 4000, depthTo: 32_500, prefillTps: [2000, 2000], decodeTps: [50, 50], measuredDepths: [40, 32_768]});
		expect(r.ratesMeasuredAt).toBe(new Date(T0 - 3 * 3_600_000).toISOString());
	});

	it('a server without prefix reuse whose rates fall with depth: the whole prompt every turn, by the curve', () => {
		const r = byServer(rows, DEEP_SLOW.url);
		// Σ T(prompt): 0.5 ms per token to 8192, then 4096 + 1 ms per token beyond; decode 200 × (20 → 40 ms).
		expect(r.parts).toEqual({queueMs: 0, loadMs: 0, prefillMs: 287_118, decodeMs: 114_055.34, idleMs: 95_000});
		expect(r.projectedMs).toBe(496_173.34);
		expect(r.changePct).toBe(118.1);
		expect(r.dominant).toBe('prefill');
		expect(r.rates.prefillTps).toEqual([2000, 1144.21]);
		expect(r.rates.decodeTps).toEqual([50, 25.14]);
	});

	it('the text table says which is which, the parts, the age, and that answers are not judged', () => {
		const text = whatIfText(s, rows, T0);
		expect(text).toContain('recorded 228 s; the method\'s own error on its server: 0 %');
		expect(text).toMatch(/^\*\s+http:\/\/127\.0\.0\.1:8080 /m);
		expect(text).toMatch(/127\.0\.0\.1:8081\s+llamacpp\s+agent-model\s+191 s\s+-16 %\s+0\.0 s\s+0\.0 s\s+16 s\s+80 s\s+95 s\s+2000\s+50\s+4\.0K–33K\s+3 h/);
		expect(text).toContain('the quality of the answers is not judged');
	});
});

describe('what if: what the candidate cannot do, and what is unknown', () => {
	it('a window smaller than a turn\'s prompt + answer: unable at that turn, never shown as fast', () => {
		const small = profile({url: 'http://127.0.0.1:9000', model: 'agent-model', points: FAST.points, contextWindow: 16_384});
		const r = projectTurns(agentSession().turns, 'agent-model', small);
		// Turn 10: 4000 + 9 × 1500 = 17500 prompt + 200 generated > 16384.
		expect(r.unable).toBe('turn 10 needs 18K tokens, window 16K');
		expect(r.projectedMs).toBeNull();
		expect(r.parts.prefillMs).toBeNull();
	});

	it('turns deeper than the deepest point + 25 %: null with the reason; within it, the last segment extended', () => {
		const shallow = profile({url: 'http://127.0.0.1:9001', model: 'agent-model', points: [pt(8192, 4096, 20), pt(16_384, 8192, 20)]});
		expect(prefillTimeAt(shallow.points, 20_480)).toBe(10_240);
		expect(prefillTimeAt(shallow.points, 20_481)).toBeNull();
		expect(decodeMsPerTokenAt(shallow.points, 20_480)).toBe(20);
		expect(decodeMsPerTokenAt(shallow.points, 30_000)).toBeNull();
		const r = projectTurns(agentSession().turns, 'agent-model', shallow);
		expect(r.projectedMs).toBeNull();
		expect(r.parts.prefillMs).toBeNull();
		// Turns 12 to 20 (20500 … 32500 tokens) are beyond 20480.
		expect(r.notes).toContain('9 turns are deeper than 20K tokens (the deepest measured, 16K, + 25 %): measure deeper (compare --depths)');
	});

	it('an idle gap longer than the keep-alive: the load time, and the prefix cache lost with the model', () => {
		const ttl = profile({url: 'http://127.0.0.1:9002', engine: 'ollama', model: 'agent-model', points: FAST.points, keepAliveMs: 60_000, loadMs: 3000});
		const s = agentSession({idle: (i) => (i === 5 ? 90_000 : IDLE)});
		const r = projectTurns(s.turns, 'agent-model', ttl);
		expect(r.parts.loadMs).toBe(3000);
		// Turn 6 (11500 tokens) reads its whole prompt again: 11500 × 0.5 instead of 1500 × 0.5.
		expect(r.parts.prefillMs).toBe(16_250 + (11_500 - 1500) * 0.5);
		expect(r.parts.idleMs).toBe(18 * IDLE + 90_000);
		expect(r.notes).toContain('1 reload: the agent\'s idle outlasted the 60 s keep-alive');
		const unknownLoad = projectTurns(s.turns, 'agent-model', {...ttl, loadMs: undefined});
		expect(unknownLoad.parts.loadMs).toBeNull();
		expect(unknownLoad.projectedMs).toBeNull();
	});

	it('one at a time: a side request that overlapped the previous turn waits for it', () => {
		// Turn 2 arrives 1 s after turn 1 began, while turn 1 still ran (a side request).
		const s = agentSession({prompts: [4000, 4000]});
		const t1 = s.turns[0]!;
		const t2 = {...s.turns[1]!, start: t1.start! + 1000, idleBeforeMs: 0, cachedTokens: 0};
		const serial = profile({url: 'http://127.0.0.1:9003', model: 'agent-model', points: FAST.points, concurrency: 'one-at-a-time', cache: {reused: false}});
		const r = projectTurns([{...t1, cachedTokens: 0}, t2], 'agent-model', serial, {ownConcurrency: 'parallel'});
		// Turn 1 on it: 4000 × 0.5 + 200 × 20 = 6000 ms; turn 2 arrives at 1000: waits 5000.
		expect(r.parts.queueMs).toBe(5000);
		expect(r.parts.prefillMs).toBe(4000);
		const same = projectTurns([{...t1, cachedTokens: 0}, {...t2, queueMs: 750}], 'agent-model', serial, {ownConcurrency: 'one-at-a-time'});
		// Queues the way the session's server does: the turns' own queue.
		expect(same.parts.queueMs).toBe(750);
	});

	it('another model: tokens scaled by the tokenizers\' ratio on the same text; unknown without the session model\'s count', () => {
		const other = profile({url: 'http://127.0.0.1:9004', model: 'other-model', points: FAST.points, tokenizer: {textId: 'depth-0 v1', tokens: 110}});
		expect(tokenRatio(other, 'agent-model', OWN)).toEqual({ratio: 1.1, note: 'tokens scaled by 1.100 (110 vs 100 tokens of the same text)'});
		const r = projectTurns(agentSession().turns, 'agent-model', other, {own: OWN});
		expect(r.tokenRatio).toBe(1.1);
		// 4400 + 19 × 1650 uncached tokens × 0.5 ms; 220 tokens × 20 ms × 20 turns.
		expect(r.parts.prefillMs).toBe(17_875);
		expect(r.parts.decodeMs).toBe(88_000);
		const unknown = projectTurns(agentSession().turns, 'agent-model', other);
		expect(unknown.projectedMs).toBeNull();
		expect(unknown.tokenRatio).toBeNull();
		expect(unknown.notes).toEqual(['tokenizer ratio unknown: the session\'s own model has no measured profile (compare --depths on it)']);
	});

	it('the session\'s server unmeasured: every row says its own error is unknown; a turn without counts makes the sum unknown', () => {
		const s = agentSession();
		const rows = projectSession(s, [FAST], {url: OWN.url});
		expect(rows).toHaveLength(1);
		expect(rows[0]!.selfErrorPct).toBeNull();
		expect(rows[0]!.notes).toContain('the method\'s own error is unknown: the session\'s server has no measured profile');
		const holed = {...s, turns: s.turns.map((t, i) => (i === 3 ? {...t, generatedTokens: undefined} : t))};
		const r = projectTurns(holed.turns, 'agent-model', FAST);
		expect(r.projectedMs).toBeNull();
		expect(r.parts.decodeMs).toBeNull();
		expect(r.parts.idleMs).toBe(95_000);
		expect(r.notes).toContain('turn 4: generated tokens unknown');
	});
});

describe('what if: passive curves from the log\'s finished requests', () => {
	/** Requests at 1000 … 8000 tokens, 200 cached each: prefill 0.5 ms per uncached token to 4000, 1 ms beyond; decode 20 ms per token. */
	const points = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000].map((prompt, i) => ({prompt, cached: 200, prefillMs: (prompt - 200) * (prompt <= 4000 ? 0.5 : 1), decodeMs: 100 * 20, generated: 100, t: T0 + i * 1000}));

	it('every request a point, pooled by depth: T(d) adds each group\'s cost per token; decode per token; says where from', () => {
		const p = passiveProfile('http://127.0.0.1:8081', 'llamacpp', 'agent-model', points, T0 + 10 * 60_000)!;
		// 8 requests, 8 groups of one: cost per token 0.5 ms to 4000, then 1 ms.
		expect(p.points.map((x) => [x.promptTokens, x.ttftMs])).toEqual([
			[1000, 500],
			[2000, 1000],
			[3000, 1500],
			[4000, 2000],
			[5000, 3000],
			[6000, 4000],
			[7000, 5000],
			[8000, 6000],
		]);
		expect(p.points.every((x) => x.decodeTps === 50)).toBe(true);
		expect(p.cache.reused).toBe(true);
		expect(p.measuredAt).toBe(T0 + 7000);
		expect(p.passive).toBe('rates from 8 finished requests in its log (the engine\'s own times; newest 10 min ago)');
		expect(passiveProfile('http://x', 'llamacpp', 'm', points.slice(0, 2), T0)).toBeUndefined();
	});

	it('a projection onto the log\'s curve says so, and its rates\' source', () => {
		const p = passiveProfile(FAST.url, 'llamacpp', 'agent-model', points, T0)!;
		const s = agentSession({prompts: [2000, 3000, 6000]});
		const r = projectTurns(s.turns, 'agent-model', {...p, concurrency: 'parallel'});
		expect(r.ratesSource).toBe('log');
		// Uncached 2000 (0 → 2000: 1000 ms), 1000 (2000 → 3000: 500 ms), 3000 (3000 → 6000: 500 + 2000 ms).
		expect(r.parts.prefillMs).toBe(4000);
		expect(r.parts.decodeMs).toBe(3 * 200 * 20);
		expect(r.notes[0]).toMatch(/^rates from 8 finished requests in its log/);
	});
});

describe('what if: the own server\'s rates from its own log', () => {
	it('the method\'s own error is not measured against itself: null, with why; the candidates still projected', () => {
		const points = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000].map((prompt, i) => ({prompt, cached: 200, prefillMs: (prompt - 200) * 0.5, decodeMs: 100 * 20, generated: 100, t: T0 + i * 1000}));
		const own = {...passiveProfile(OWN.url, 'llamacpp', 'agent-model', points, T0 + 60_000)!, concurrency: 'parallel' as const};
		const rows = projectSession(agentSession(), [FAST], {url: OWN.url, profile: own});
		expect(rows[0]!.ratesSource).toBe('log');
		expect([rows[0]!.actual, rows[0]!.selfErrorPct, rows[0]!.changePct]).toEqual([true, null, null]);
		expect(rows[0]!.notes.at(-1)).toBe('the method\'s own error is unknown: its server\'s rates come from the same log as this session\'s turns (no measured profile)');
		const fast = byServer(rows, FAST.url);
		expect(fast.projectedMs).toBe(191_250);
		expect(fast.selfErrorPct).toBeNull();
		expect(fast.notes).toContain('the method\'s own error is unknown: its server\'s rates come from the same log as this session\'s turns (no measured profile)');
	});
});

describe('what if: the newer of the measurement and the log', () => {
	/** A server whose log holds finished requests of `agent-model` (0.25 ms per uncached token, 10 ms per generated), ending at `end`. */
	const server = (end: number) => ({
		id: 's2',
		engine: 'llamacpp' as const,
		url: FAST.url,
		models: [],
		requests: [2000, 4000, 8000, 16_000].map((prompt, i) => ({serverId: 's2', key: `q${i}`, model: 'agent-model', firstSeen: end - 5000, lastSeen: end - (3 - i) * 1000, done: true, promptTokens: prompt, cachedTokens: 0, prefillMs: prompt * 0.25, decodeMs: 500, generatedTokens: 50})),
	});

	it('the log\'s curve where its newest request is later than the measurement, the measured one where not; each says which', () => {
		const later = newerOfMeasuredAndLog([FAST], {s2: server(FAST.measuredAt + 60_000)} as never, FAST.measuredAt + 120_000);
		expect(later).toHaveLength(1);
		expect(later[0]!.passive).toBe('rates from 4 finished requests in its log (the engine\'s own times; newest 1 min ago), newer than the measurement of 2 min ago');
		expect(later[0]!.points.map((p) => [p.promptTokens, p.ttftMs, p.decodeTps])).toEqual([
			[2000, 500, 100],
			[4000, 1000, 100],
			[8000, 2000, 100],
			[16_000, 4000, 100],
		]);
		// The measured cache and concurrency are kept.
		expect(later[0]!.concurrency).toBe('parallel');
		const earlier = newerOfMeasuredAndLog([FAST], {s2: server(FAST.measuredAt - 60_000)} as never, FAST.measuredAt + 120_000);
		expect(earlier[0]!.points).toEqual(FAST.points);
		expect(earlier[0]!.passive).toBeUndefined();
		expect(earlier[0]!.notes).toEqual(["measured rates: newer than the log's requests"]);
		// A server × model with a log and no measurement is a candidate from its log alone.
		const only = newerOfMeasuredAndLog([], {s2: server(T0)} as never, T0);
		expect(only.map((p) => [p.url, p.model, p.version])).toEqual([[FAST.url, 'agent-model', 'log']]);
	});
});

describe('what if: which session `last` is', () => {
	it('the newest of more than one turn (a side request is a session of one), else the newest', () => {
		const long = agentSession({prompts: [1000, 2000]});
		const side = {...agentSession({prompts: [300]}), id: 'side'};
		expect(lastSession([long, side])?.id).toBe(long.id);
		expect(lastSession([side])?.id).toBe('side');
		expect(lastSession([])).toBeUndefined();
	});
});
