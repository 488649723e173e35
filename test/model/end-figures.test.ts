/**
 * endFigures (what the store counts a finished request by: its totals, histograms and pass sample)
 * gives requestFigures's promptTokens, decodeTps and tokensPerPass, value for value (-0 and NaN
 * told apart), on seeded random counts of every kind: absent, 0, fractions, negative, NaN, ±Infinity,
 * with and without an outcome, speculative counts or the engine's own passes; and a llama.cpp
 * request's histograms from either.
 */
import {describe, expect, it} from 'vitest';
import {endFigures, requestFigures, type RequestCounts} from '../../source/model/figures.js';
import {observeRequest} from '../../source/model/request-histograms.js';
import {prng} from '../helpers/fuzz.js';

const VALUES = [undefined, 0, -0, 1, 2, 7, 12, 64, 0.5, 37.2, 902.4, 1e9, -1, -3.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
const FIELDS = ['promptTokens', 'cachedTokens', 'prefillTokens', 'prefillMs', 'generatedTokens', 'decodedTokens', 'decodeMs', 'passes', 'drafted', 'accepted', 'engineMeanLen'] as const;

function randomCounts(rnd: () => number): RequestCounts {
	const r: Record<string, unknown> = {};
	for (const f of FIELDS) {
		if (rnd() < 0.4) continue;
		r[f] = VALUES[Math.floor(rnd() * VALUES.length)];
	}
	if (rnd() < 0.2) r.promptEstimated = true;
	if (rnd() < 0.1) r.outcome = rnd() < 0.5 ? 'error' : 'cancelled';
	return r as RequestCounts;
}

describe('endFigures', () => {
	it('as requestFigures on the three figures the store reads, on seeded random counts', () => {
		const rnd = prng(2026);
		let defined = 0;
		for (let i = 0; i < 20_000; i++) {
			const r = randomCounts(rnd);
			const a = requestFigures(r);
			const b = endFigures(r);
			for (const k of ['promptTokens', 'decodeTps', 'tokensPerPass'] as const) {
				expect(Object.is(b[k], a[k]), `${k} of ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))}`).toBe(true);
				if (a[k] !== undefined) defined++;
			}
		}
		expect(defined).toBeGreaterThan(5000);
	});

	it('a llama.cpp request: the same histograms from either', () => {
		const r = {key: 's0/t1', serverId: 'x', firstSeen: 0, lastSeen: 0, done: true, prefillTokens: 12, prefillMs: 37.2, generatedTokens: 64, decodedTokens: 63, decodeMs: 902.4, engineTps: 70.92};
		expect(observeRequest(undefined, r, endFigures(r))).toEqual(observeRequest(undefined, r, requestFigures(r)));
		expect(endFigures(r)).toEqual({promptTokens: undefined, decodeTps: (63 * 1000) / 902.4, tokensPerPass: 1});
	});
});
