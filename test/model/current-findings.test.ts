/**
 * currentFindings (the footer, the findings list, `--notify`): the same entries as
 * findingEntries(state, deriveSessions(state)), with only the findings kept of each server's
 * sessions (issue 32: a busy server's sessions, held by the memo until the next look, outlived V8's
 * young generation). Scenarios in the engines' own line formats (test/helpers/agent-feed.ts:
 * llama.cpp = ngxson/llama.cpp @ 3f545be, Ollama @ fb30760).
 */
import {describe, expect, it} from 'vitest';
import {currentFindings, deriveSessions, findingEntries, sessionsWork} from '../../source/model/sessions.js';
import {Feed, gin, launchLongPrefill, llamaTask, ollamaGrowing, ollamaOnMacOverLimit, prefillingPast300s, T0} from '../helpers/agent-feed.js';

const whole = (f: Feed, gapMs = 60_000) => findingEntries(f.state, deriveSessions(f.state, gapMs));

/** Two servers at once: an Ollama whose prompts are cut to 4,096, and a llama-server agent whose cache misses every turn. */
function twoServers(): Feed {
	const f = ollamaGrowing('full');
	f.server('llama', 'llamacpp');
	const prompts = [3000, 3400, 3900, 4500, 5200];
	prompts.forEach((p, i) => f.lines('llama', T0 + 5000 + i * 20_000, llamaTask(i + 1, {window: 32_768, prompt: p, cached: i === 0 ? 0 : 41, prefillMs: (p - (i === 0 ? 0 : 41)) * 0.4, decodeMs: 1500, generated: 80})));
	return f;
}

describe('currentFindings: what findingEntries gives over the whole sessions', () => {
	it('two servers at once (a cut prompt, a cache that misses): equal, several kinds, newest first', () => {
		const f = twoServers();
		const got = currentFindings(f.state);
		expect(got).toEqual(whole(f));
		expect(new Set(got.map(e => e.kind))).toEqual(new Set(['truncated', 'context-near-full', 'cache-miss']));
		expect(new Set(got.map(e => e.serverId))).toEqual(new Set(['ollama', 'llama']));
		for (let i = 1; i < got.length; i++) expect(got[i - 1]!.time).toBeGreaterThanOrEqual(got[i]!.time);
	});

	it('a turn still prefilling past the client\'s 300 s: the live entry reads the newest session (its id, turns and prefill rate)', () => {
		const f = launchLongPrefill(prefillingPast300s());
		const got = currentFindings(f.state, 600_000);
		expect(got).toEqual(whole(f, 600_000));
		const live = got.filter(e => e.live);
		expect(live).toHaveLength(1);
		expect(live[0]!.turns).toEqual([3]);
		expect(live[0]!.evidence).toBe('prefilling 124,988 uncached tokens at 300 tok/s: first byte in about 417 s (10 s so far); Node clients abort at 300 s');
	});

	it('Ollama, a cache that held two turns and lost the third: equal', () => {
		const f = new Feed().server('ollama', 'ollama');
		const turn = (t: number, task: number, prompt: number, cached: number) => f.lines('ollama', t, llamaTask(task, {window: 8192, prompt, cached, prefillMs: 800, decodeMs: 1500, generated: 60})).line('ollama', t, gin(200, '2.4s', '127.0.0.1'));
		turn(T0 + 2000, 0, 2000, 0);
		turn(T0 + 20_000, 1, 2400, 2000);
		turn(T0 + 40_000, 2, 2800, 0);
		const got = currentFindings(f.state);
		expect(got).toEqual(whole(f));
		expect(got.map(e => [e.kind, e.turns])).toEqual([['cache-miss', [3]]]);
	});

	it('a Mac over its wired-memory limit (the finding deriveSessions adds to the sessions): equal', () => {
		const f = ollamaOnMacOverLimit();
		const got = currentFindings(f.state);
		expect(got).toEqual(whole(f));
		expect(got.find(e => e.kind === 'spilled-to-cpu')!.turns).toEqual([1, 2]);
	});

	it('two findings at the same time on two servers: in the order of their sessions\' last turns, as deriveSessions orders them', () => {
		const f = new Feed().server('a', 'llamacpp').server('b', 'llamacpp');
		const cut = (task: number) => llamaTask(task, {window: 4096, prompt: 3000, cached: 0, prefillMs: 1500, decodeMs: 30_000, generated: 1096, truncated: 1});
		f.lines('a', T0 + 2000, cut(1));
		f.lines('b', T0 + 2000, cut(1));
		// a's session goes on (its last turn later than b's)
		f.lines('a', T0 + 9000, llamaTask(2, {window: 32_768, prompt: 3200, cached: 3000, prefillMs: 100, decodeMs: 1500, generated: 80}));
		const got = currentFindings(f.state);
		expect(got).toEqual(whole(f));
		const tied = got.filter(e => e.time === T0 + 2000);
		expect(tied.map(e => e.serverId)).toEqual(['b', 'a']);
	});

	it('no request yet: none', () => {
		expect(currentFindings(new Feed().server('llama', 'llamacpp').state)).toEqual([]);
	});
});

describe('currentFindings keeps the findings, not the sessions', () => {
	it('a ring that did not change is not derived again; the sessions themselves are not kept for the agent view', () => {
		const f = twoServers();
		const before = sessionsWork.derives;
		currentFindings(f.state);
		expect(sessionsWork.derives - before).toBe(2);
		currentFindings(f.state);
		expect(sessionsWork.derives - before).toBe(2);
		// the agent view's derivation finds no sessions kept for it: it derives each server once more
		deriveSessions(f.state);
		expect(sessionsWork.derives - before).toBe(4);
	});

	it('where the agent view has derived the sessions, the findings read them: nothing derived twice', () => {
		const f = twoServers();
		const before = sessionsWork.derives;
		deriveSessions(f.state);
		currentFindings(f.state);
		expect(sessionsWork.derives - before).toBe(2);
	});

	it('a new request on one server derives that server only', () => {
		const f = twoServers();
		currentFindings(f.state);
		const before = sessionsWork.derives;
		f.lines('llama', T0 + 200_000, llamaTask(6, {window: 32_768, prompt: 6000, cached: 41, prefillMs: 2380, decodeMs: 1500, generated: 80}));
		const got = currentFindings(f.state);
		expect(sessionsWork.derives - before).toBe(1);
		expect(got).toEqual(whole(f));
	});
});
