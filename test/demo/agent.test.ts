/**
 * The demo agent's own accounting (source/demo/agent.ts), by the definitions of readme "The agent
 * view", on hand-made traces: the numbers the end-to-end test holds infertop's budget against.
 */
import {describe, expect, it} from 'vitest';
import {agentAccounting, type DemoTurnTrace} from '../../source/demo/agent.js';

const ms = (x: number): bigint => BigInt(Math.round(x * 1e6));

describe('agentAccounting', () => {
	const traces: DemoTurnTrace[] = [
		// main turn: arrives at 0, 250 ms waiting, 1000 ms prefill, 2000 ms decode → ends at 3250
		{id: 't0', side: false, tries: [{arriveNs: ms(0), finishNs: ms(3250), status: 200, prefillMs: 1000, decodeMs: 2000, promptTokens: 2000, cachedTokens: 0, processedTokens: 2000, generatedTokens: 100}]},
		// refused twice (5000, 5400), accepted at 5900, ends at 8000 (300 ms waiting)
		{id: 't1', side: false, tries: [
			{arriveNs: ms(5000), finishNs: ms(5000.1), status: 503},
			{arriveNs: ms(5400), finishNs: ms(5400.1), status: 503},
			{arriveNs: ms(5900), finishNs: ms(8000), status: 200, prefillMs: 300, decodeMs: 1500, promptTokens: 2400, cachedTokens: 2100, processedTokens: 300, generatedTokens: 80},
		]},
		// a side request that overlaps t1: no idle before it
		{id: 's0', side: true, tries: [{arriveNs: ms(6000), finishNs: ms(9000), status: 200, prefillMs: 100, decodeMs: 400, promptTokens: 500, cachedTokens: 400, processedTokens: 100, generatedTokens: 20}]},
		// still running: not counted
		{id: 't2', side: false, tries: [{arriveNs: ms(9500)}]},
	];
	const a = agentAccounting(traces);

	it('per turn, in the order they ended: queue = wall − prefill − decode + the wait since the first refused try; idle since the turns before ended', () => {
		expect(a.turns.map(t => t.id)).toEqual(['t0', 't1', 's0']);
		expect(a.turns.map(t => Math.round(t.queueMs * 1000) / 1000)).toEqual([250, 300 + 900, 2500]);
		expect(a.turns.map(t => t.retries)).toEqual([0, 2, 0]);
		expect(a.turns.map(t => t.idleBeforeMs)).toEqual([undefined, 1750, 0]);
	});

	it('the budget and the cache saving at the measured prefill rate (Σ processed ÷ Σ prefill time)', () => {
		expect(Math.round(a.queueMs * 1000) / 1000).toBe(3950);
		expect(a.retryMs).toBe(900);
		expect(a.prefillMs).toBe(1400);
		expect(a.decodeMs).toBe(3900);
		expect(a.idleMs).toBe(1750);
		expect(a.savedByCacheMs).toBeCloseTo((2500 * 1400) / 2400, 9);
	});
});
