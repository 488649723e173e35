/**
 * What if against a real llama-server (issue 29), where the machine has one (docs/real-servers.md;
 * skipped with one line where not): two configurations — the small model and the big one, each on
 * its own llama-server with `--parallel 1` — an agent-like session of growing turns run on the
 * small one, both measured through the probe path at several depths (`compare --depths`), the
 * session projected onto the big one, then the same turns replayed on the big one (twice: their mean).
 * The projection must land within 15 % of the replay; the numbers are printed for the readme.
 */
import {readFile, rm} from 'node:fs/promises';
import {performance} from 'node:perf_hooks';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {measureProfile} from '../../source/probe/depths.js';
import {projectSession, projectTurns} from '../../source/model/whatif.js';
import type {Session, Turn} from '../../source/model/sessions.js';
import type {Profile} from '../../source/types/whatif.js';
import {realLlamaServer, sayWhySkipped, startLlamaServer, type StartedLlamaServer} from '../helpers/llama-server.js';

const available = realLlamaServer.available && realLlamaServer.bigModel !== undefined;
if (!available) sayWhySkipped('what-if replay on a real llama-server', realLlamaServer.reason || realLlamaServer.bigReason);

const CONTEXT = 8192;
const TURNS = 8;
const GEN = 24;

interface Answer {
	readonly usage?: {prompt_tokens?: number; completion_tokens?: number};
	readonly timings?: {prompt_n?: number; cache_n?: number; prompt_ms?: number; predicted_n?: number; predicted_ms?: number};
}

/** The session's messages: a system prompt, then per turn the previous answer and ~1200 characters of a tool's output. */
function conversation(source: string): {role: string; content: string}[][] {
	const out: {role: string; content: string}[][] = [];
	const messages = [
		{role: 'system', content: 'You are a coding agent. Read the files the tools return and answer with one short next step.'},
		{role: 'user', content: 'Find where the terminal UI decides to redraw.'},
	];
	for (let i = 0; i < TURNS; i++) {
		out.push(messages.map((m) => ({...m})));
		messages.push({role: 'assistant', content: `Next I read part ${i + 1}.`});
		messages.push({role: 'user', content: `Tool output ${i + 1}:\n${source.slice(i * 1200, (i + 1) * 1200)}`});
	}
	return out;
}

/** Run the turns one after another on a server: each turn's counts and times from its answer, and the wall time. */
async function runTurns(url: string, turns: {role: string; content: string}[][]): Promise<{turns: Turn[]; wallMs: number[]}> {
	const out: Turn[] = [];
	const wallMs: number[] = [];
	let prevEnd: number | undefined;
	for (const [i, messages] of turns.entries()) {
		const t0 = performance.now();
		const start = Date.now();
		const r = await fetch(`${url}/v1/chat/completions`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({messages, max_tokens: GEN, temperature: 0, stream: false, ignore_eos: true})});
		const a = (await r.json()) as Answer;
		wallMs.push(performance.now() - t0);
		const tm = a.timings ?? {};
		const end = Date.now();
		out.push({
			serverId: 'small',
			key: `t${i}`,
			time: end,
			start,
			promptTokens: (tm.prompt_n ?? 0) + (tm.cache_n ?? 0),
			cachedTokens: tm.cache_n,
			promptEstimated: false,
			prefillTokens: tm.prompt_n,
			queueMs: 0,
			prefillMs: tm.prompt_ms,
			decodeMs: tm.predicted_ms,
			generatedTokens: tm.predicted_n,
			idleBeforeMs: prevEnd === undefined ? undefined : 0,
			retries: 0,
			backlog: false,
			findings: [],
		});
		prevEnd = end;
	}
	return {turns: out, wallMs};
}

describe.skipIf(!available)('what if on a real llama-server: small model → big model', () => {
	let small: StartedLlamaServer;
	let big: StartedLlamaServer;
	let own: Profile;
	let other: Profile;
	let session: Session;
	let replayMs: number;
	let replays: number[];

	beforeAll(async () => {
		const args = ['-c', String(CONTEXT), '--parallel', '1', '-t', '2'];
		small = await startLlamaServer({args});
		big = await startLlamaServer({model: realLlamaServer.bigModel, args, readyTimeoutMs: 120_000});
		const source = await readFile(new URL('../../samples/prompts/long-source.txt', import.meta.url), 'utf8');
		const turns = conversation(source);
		const ran = await runTurns(small.url, turns);
		session = {id: 'small/session', serverId: 'small', engine: 'llamacpp', model: 'small', turns: ran.turns, budget: {} as Session['budget']};
		const deepest = Math.max(...ran.turns.map((t) => t.promptTokens ?? 0));
		const depths = [0, Math.round(deepest / 3), Math.round((2 * deepest) / 3), deepest + 100];
		own = {...(await measureProfile({target: {url: small.url, engine: 'llamacpp', model: 'small', contextWindow: CONTEXT}, depths, source, maxTokens: GEN, version: 'test'})), model: 'small'};
		other = {...(await measureProfile({target: {url: big.url, engine: 'llamacpp', model: 'big', contextWindow: CONTEXT}, depths, source, maxTokens: GEN, version: 'test'})), model: 'big'};
		// The replay: the same turns on the big model, wall clock, twice (their mean): one replay on this
		// 2-core machine strayed by up to ~10 % from the next, which alone came near the bound.
		// Each starts as the session did on the small server, with nothing of its turns in the slot's
		// cache: a short unrelated request first (--parallel 1: it takes the slot's cache).
		replays = [];
		for (let i = 0; i < 2; i++) {
			await fetch(`${big.url}/v1/chat/completions`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({messages: [{role: 'user', content: 'Say OK.'}], max_tokens: 1, temperature: 0})}).then((r) => r.json());
			replays.push((await runTurns(big.url, turns)).wallMs.reduce((a, b) => a + b, 0));
		}
		replayMs = replays.reduce((a, b) => a + b, 0) / replays.length;
	}, 900_000);

	afterAll(async () => {
		await small?.stop();
		await big?.stop();
		// the folders startLlamaServer made for the servers' logs
		for (const s of [small, big]) if (s) await rm(s.cwd, {recursive: true, force: true});
	});

	it('the projection onto the big model lands within 15 % of replaying the turns there', () => {
		const rows = projectSession(session, [other], {url: small.url, profile: own});
		const row = rows.find((r) => r.model === 'big')!;
		const self = projectTurns(session.turns, 'small', own);
		const errorPct = ((row.projectedMs! - replayMs) / replayMs) * 100;
		process.stderr.write(`what-if replay: ${TURNS} turns to ${Math.max(...session.turns.map((t) => t.promptTokens ?? 0))} tokens; projected on big ${Math.round(row.projectedMs!)} ms, replayed ${Math.round(replayMs)} ms (mean of ${replays.map(Math.round).join(' and ')}; ${errorPct.toFixed(1)} %); own server: projected ${Math.round(self.projectedMs!)} ms, recorded ${Math.round(row.actualMs!)} ms (${row.selfErrorPct} %); token ratio ${row.tokenRatio}\n`);
		expect(row.unable).toBeNull();
		expect(row.projectedMs).not.toBeNull();
		expect(Math.abs(errorPct)).toBeLessThan(15);
	});
});
