/**
 * Issue 28 against a real llama-server (docs/real-servers.md), where the machine has one: the
 * server's own answers are the truth — its `exceed_context_size_error` body (`n_prompt_tokens`,
 * `n_ctx`) and each answer's `timings.cache_n` — and infertop, reading the server's log live (the
 * log named as a user names it, the process found by discovery), must find the same.
 * - a real `-c` small enough that a growing agent prompt overflows it: context-exceeded on exactly
 *   that turn, with the server's figures;
 * - a prefix that changes at the start of every prompt really misses the cache: cache-miss on the
 *   turns whose `cache_n` is under half the last prompt, diverging where `cache_n` says; the same
 *   prompts without the nonce reuse the cache and find nothing.
 * Skipped with one line where no llama-server is set up.
 */
import {rm} from 'node:fs/promises';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import {deriveSessions, type Session} from '../../source/model/sessions.js';
import {waitUntil} from '../helpers/wait.js';
import {realLlamaServer, sayWhySkipped, startLlamaServer, type StartedLlamaServer} from '../helpers/llama-server.js';

if (!realLlamaServer.available) sayWhySkipped('live llama-server findings tests', realLlamaServer.reason);

interface Answer {
	readonly status: number;
	readonly body: {timings?: {prompt_n: number; cache_n: number}; error?: {type?: string; n_prompt_tokens?: number; n_ctx?: number; message?: string}};
}

async function complete(url: string, prompt: string): Promise<Answer> {
	const res = await fetch(`${url}/completion`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({prompt, n_predict: 4, cache_prompt: true, temperature: 0})});
	return {status: res.status, body: (await res.json()) as Answer['body']};
}

/** A server with its log named as a user names it, read live by infertop (the process found by discovery). */
async function watched(args: readonly string[]): Promise<{server: StartedLlamaServer; rt: Runtime; sessions: () => Session[]; seen: () => number}> {
	const server = await startLlamaServer({args: [...args, '--parallel', '1', '-t', '1', '--log-verbosity', '4'], logFile: 'server.log'});
	const config = mergeConfig(DEFAULTS, {}, {logs: [`llamacpp=${server.logPath}`], demo: false, history: '/dev/null'});
	const rt = await startRuntime({config, scan: true, system: false, scanPorts: []});
	await rt.ready;
	const state = () => rt.store.getSnapshot();
	await waitUntil(() => state().servers[server.url]?.logLabel !== undefined, {timeoutMs: 20_000, what: 'the log tied to the server'});
	return {
		server,
		rt,
		sessions: () => {
			rt.dispatch({type: 'tick', t: Date.now()});
			return deriveSessions(state()).sessions.filter(s => s.serverId === server.url);
		},
		seen: () => state().servers[server.url]?.requestsSeen ?? 0,
	};
}

const CHUNK = 'The agent read a file and ran the tests; the next step edits the parser so it never throws. ';

describe.skipIf(!realLlamaServer.available)('a real llama-server: findings against its own answers', () => {
	let overflow: Awaited<ReturnType<typeof watched>> | undefined;
	let caches: Awaited<ReturnType<typeof watched>> | undefined;
	afterAll(async () => {
		for (const w of [overflow, caches]) {
			await w?.rt.stop();
			await w?.server.stop();
			if (w) await rm(w.server.cwd, {recursive: true, force: true});
		}
	});

	describe('-c 256: a growing prompt overflows the window', () => {
		const answers: Answer[] = [];
		beforeAll(async () => {
			overflow = await watched(['-c', '256']);
			let prompt = CHUNK;
			for (let i = 0; i < 12; i++) {
				const a = await complete(overflow.server.url, prompt);
				answers.push(a);
				if (a.status !== 200) break;
				prompt += CHUNK;
			}
			await waitUntil(() => overflow!.seen() >= answers.length, {timeoutMs: 20_000, what: 'every request read from the log'});
		}, 180_000);

		it('the server refused the last prompt for its context (the truth)', () => {
			const last = answers.at(-1)!;
			expect(last.status).toBe(400);
			expect(last.body.error?.type).toBe('exceed_context_size_error');
		});

		it('context-exceeded on exactly that turn, with the server\'s n_prompt_tokens and n_ctx; the turns before hold what the server held', () => {
			const s = overflow!.sessions();
			expect(s).toHaveLength(1);
			const turns = s[0]!.turns;
			expect(turns).toHaveLength(answers.length);
			const err = answers.at(-1)!.body.error!;
			expect(turns.flatMap((t, i) => (t.findings.some(f => f.kind === 'context-exceeded') ? [i + 1] : []))).toEqual([answers.length]);
			const f = turns.at(-1)!.findings.find(x => x.kind === 'context-exceeded')!;
			expect([f.tokens, f.window, f.fix]).toEqual([err.n_prompt_tokens, err.n_ctx, '-c 65536']);
			expect(turns.at(-1)!.finishReason).toBe('error');
			turns.slice(0, -1).forEach((t, i) => {
				const timings = answers[i]!.body.timings!;
				expect(t.contextTokens, `turn ${i + 1}`).toBe(timings.prompt_n + timings.cache_n);
				expect(t.contextWindow, `turn ${i + 1}`).toBe(256);
			});
		});
	});

	describe('a nonce at the start of every prompt really misses the cache', () => {
		const withNonce: Answer[] = [];
		const plain: Answer[] = [];
		let history = '';
		beforeAll(async () => {
			caches = await watched(['-c', '4096']);
			for (let i = 0; i < 5; i++) {
				history += CHUNK;
				const nonce = `cch=${Math.floor(Math.random() * 0xfffff).toString(16).padStart(5, '0')}; `;
				withNonce.push(await complete(caches.server.url, `${nonce}${history}`));
			}
			// A pause longer than the session gap, then the same agent without the nonce: a new session.
			await new Promise(resolve => setTimeout(resolve, 200));
			await waitUntil(() => caches!.seen() >= 5, {timeoutMs: 20_000, what: 'the nonce turns read'});
		}, 180_000);

		it('the server\'s own cache_n says it missed, and infertop finds those turns, where the prefix diverged', () => {
			expect(withNonce.every(a => a.status === 200)).toBe(true);
			const held = withNonce.map(a => a.body.timings!.prompt_n + a.body.timings!.cache_n);
			const truth = withNonce.flatMap((a, i) => (i > 0 && held[i]! >= held[i - 1]! && a.body.timings!.cache_n / held[i - 1]! < 0.5 ? [i + 1] : []));
			expect(truth.length).toBeGreaterThanOrEqual(3);
			const s = caches!.sessions()[0]!;
			expect(s.turns.map(t => t.cachedTokens)).toEqual(withNonce.map(a => a.body.timings!.cache_n));
			expect(s.turns.flatMap((t, i) => (t.findings.some(f => f.kind === 'cache-miss') ? [i + 1] : []))).toEqual(truth);
			for (const i of truth) expect(s.turns[i - 1]!.findings.find(f => f.kind === 'cache-miss')!.position).toBe(withNonce[i - 1]!.body.timings!.cache_n);
		});

		it('the same prompts without the nonce reuse the cache: no cache-miss', async () => {
			const before = caches!.seen();
			for (let i = 1; i <= 5; i++) plain.push(await complete(caches!.server.url, CHUNK.repeat(i)));
			await waitUntil(() => caches!.seen() >= before + 5, {timeoutMs: 20_000, what: 'the plain turns read'});
			const reused = plain.slice(1).map(a => a.body.timings!.cache_n);
			expect(reused.every(n => n > 0)).toBe(true);
			const turns = caches!.sessions().flatMap(s => s.turns).slice(-4);
			expect(turns.map(t => t.cachedTokens)).toEqual(reused);
			expect(turns.flatMap(t => t.findings.filter(f => f.kind === 'cache-miss'))).toEqual([]);
		}, 120_000);
	});
});
