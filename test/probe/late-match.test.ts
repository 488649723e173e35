/**
 * probe/late-match.ts: a probe's own request whose log line is read after the probe stopped waiting
 * (a loaded machine, a log read behind) is still told from an agent's turn: attributed to the
 * probe once exactly one request matches its answer's counts, never on a guess between two, and
 * nothing is waited for where the server's log is not read.
 */
import {describe, expect, it} from 'vitest';
import {createStore} from '../../source/model/store.js';
import {attributeLate} from '../../source/probe/late-match.js';
import {LOG_LAG_MS, matchProbeRequest} from '../../source/model/derive.js';
import {createParser} from '../../source/engines/index.js';
import {readLine} from '../../source/sources/log-source.js';
import type {Action} from '../../source/types/state.js';

/** A real llama-server b10587 request block (test/fixtures/engines/llama.cpp/chat.log), task `task`, 64 tokens generated from a 21-token prompt. */
const block = (task: number, slot = 1): string[] => [
	`0.03.603.255 I slot get_availabl: id  ${slot} | task -1 | selected slot by LCP similarity, f_sim_best = 0.125 (> 0.100 thold), f_keep = 0.029`,
	`0.03.603.439 I slot launch_slot_: id  ${slot} | task ${task} | processing task, is_child = 0`,
	`0.04.687.810 I slot print_timing: id  ${slot} | task ${task} | prompt eval time =      65.70 ms /    21 tokens (    3.13 ms per token,   319.63 tokens per second)`,
	`0.04.687.816 I slot print_timing: id  ${slot} | task ${task} |        eval time =    1018.62 ms /    64 tokens (   16.17 ms per token,    61.85 tokens per second)`,
	`0.04.687.818 I slot print_timing: id  ${slot} | task ${task} |       total time =    1084.32 ms /    85 tokens`,
	`0.04.687.858 I slot      release: id  ${slot} | task ${task} | stop processing: n_tokens = 87, truncated = 0`,
];

function setup() {
	const store = createStore({now: 1_000});
	const parser = createParser('llamacpp');
	store.dispatch({type: 'server-seen', t: 1_000, server: {id: 's', engine: 'llamacpp', source: 'log'}});
	const dispatched: Action[] = [];
	const dispatch = (a: Action) => {
		dispatched.push(a);
		store.dispatch(a);
	};
	/** The block's lines, read at `t` (ms since the epoch: the probe's window is in the same clock). */
	const read = (lines: string[], t: number) => store.dispatch({type: 'log-batch', serverId: 's', lines: lines.map((l, i) => readLine(parser, l, t + i))});
	return {store, dispatch, dispatched, read};
}

describe('a probe request read late from the log', () => {
	it('is attributed to the probe when its line comes after the probe stopped waiting, past the usual lag', async () => {
		const {store, dispatch, dispatched, read} = setup();
		const now = Date.now();
		// the probe's stream ran [now - 5 s, now - 3.5 s]; a line already read (an unrelated request) keeps the log "read"
		read(block(1, 0).slice(0, 2), now - 9_000);
		const q = {fromMs: now - 5_000, toMs: now - 3_500, completionTokens: 64, model: 'qwen'};
		// read 3.5 s after the stream ended: outside LOG_LAG_MS, so the probe's own wait found nothing
		expect(LOG_LAG_MS).toBeLessThan(3_500);
		const pending = attributeLate(() => store.getSnapshot(), dispatch, 's', [q], 2_000);
		await new Promise(r => setTimeout(r, 300));
		read(block(7), now);
		expect(matchProbeRequest(store.getSnapshot(), 's', q)).toEqual({reason: 'no log line for this request'});
		expect(await pending).toBe(1);
		const key = store.getSnapshot().servers.s!.requests.find(r => r.done)!.key;
		expect(dispatched.filter(a => a.type === 'request-attributed')).toEqual([{type: 'request-attributed', serverId: 's', key, model: 'qwen', by: 'probe'}]);
		expect(store.getSnapshot().servers.s!.requests.find(r => r.key === key)!.attribution).toEqual({model: 'qwen', by: 'probe'});
	});

	it('two requests with the same counts: neither is taken for it', async () => {
		const {store, dispatch, dispatched, read} = setup();
		const now = Date.now();
		read([...block(7, 1), ...block(8, 2)], now - 1_000);
		const q = {fromMs: now - 5_000, toMs: now - 4_000, completionTokens: 64, model: 'qwen'};
		expect(await attributeLate(() => store.getSnapshot(), dispatch, 's', [q], 600)).toBe(0);
		expect(dispatched).toEqual([]);
	});

	it('two answers with the same counts (the concurrency pair), each in the other\'s window: both requests are the probe\'s, no agent turn is taken', async () => {
		const {store, dispatch, dispatched, read} = setup();
		const now = Date.now();
		read(block(1, 0).slice(0, 2), now - 9_000);
		// an agent's request with other counts in the same span stays the agent's
		const agent = block(9, 3).map(l => l.replace('/    64 tokens', '/    80 tokens'));
		read([...block(7, 1), ...block(8, 2), ...agent], now - 1_000);
		const a = {fromMs: now - 3_000, toMs: now - 1_500, completionTokens: 64, model: 'qwen'};
		const b = {fromMs: now - 2_500, toMs: now - 1_200, completionTokens: 64, model: 'qwen'};
		expect(matchProbeRequest(store.getSnapshot(), 's', a)).toEqual({reason: '2 candidates'});
		expect(await attributeLate(() => store.getSnapshot(), dispatch, 's', [a, b], 2_000)).toBe(2);
		const byProbe = store.getSnapshot().servers.s!.requests.filter(r => r.attribution?.by === 'probe').map(r => r.generatedTokens);
		expect(byProbe).toEqual([64, 64]);
		expect(dispatched).toHaveLength(2);
		// one answer against those two requests: neither is taken (a guess between two)
		const fresh = setup();
		fresh.read(block(1, 0).slice(0, 2), now - 9_000);
		fresh.read([...block(7, 1), ...block(8, 2)], now - 1_000);
		expect(await attributeLate(() => fresh.store.getSnapshot(), fresh.dispatch, 's', [a], 400)).toBe(0);
	});

	it('a server whose log is not read: nothing is waited for', async () => {
		const {store, dispatch} = setup();
		const t0 = Date.now();
		expect(await attributeLate(() => store.getSnapshot(), dispatch, 's', [{fromMs: t0 - 2_000, toMs: t0 - 1_000, completionTokens: 64, model: 'qwen'}], 5_000)).toBe(0);
		expect(Date.now() - t0).toBeLessThan(1_000);
	});
});

describe('the probe matching its own request while it waits', () => {
	it("the concurrency pair's second answer, its own line not read yet, does not take the first's request; once its line comes, it takes its own", () => {
		const {store, dispatch, read} = setup();
		const now = Date.now();
		// both answers' windows hold the first request (sent together; the engine ran them one after the other)
		const a = {fromMs: now - 3_000, toMs: now - 1_500, completionTokens: 64, model: 'qwen'};
		const b = {fromMs: now - 3_000, toMs: now - 1_400, completionTokens: 64, model: 'qwen'};
		read(block(7, 1), now - 1_600);
		const first = matchProbeRequest(store.getSnapshot(), 's', a);
		expect(first).toMatchObject({key: expect.any(String)});
		const firstKey = (first as {key: string}).key;
		// the first answer's request is infertop's (what the runtime dispatches on a match)
		dispatch({type: 'request-attributed', serverId: 's', key: firstKey, model: 'qwen', by: 'probe'});
		// the second's own line is not read yet: no candidate, not the first's request
		expect(matchProbeRequest(store.getSnapshot(), 's', b)).toEqual({reason: 'no log line for this request'});
		read(block(8, 2), now - 1_450);
		const second = matchProbeRequest(store.getSnapshot(), 's', b);
		expect(second).toMatchObject({key: expect.any(String)});
		expect((second as {key: string}).key).not.toBe(firstKey);
		// neither taken yet: a guess between two is never made
		const fresh = setup();
		fresh.read(block(7, 1), now - 1_600);
		fresh.read(block(8, 2), now - 1_450);
		expect(matchProbeRequest(fresh.store.getSnapshot(), 's', b)).toEqual({reason: '2 candidates'});
	});
});
