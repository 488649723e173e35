import {describe, expect, it} from 'vitest';
import {cumulative, observeRequest, observeValue} from '../../source/model/request-histograms.js';
import type {RequestRecord} from '../../source/types/state.js';

const req = (p: Partial<RequestRecord>): RequestRecord => ({serverId: 's', key: 'k', firstSeen: 0, lastSeen: 0, done: true, ...p}) as RequestRecord;

describe('request histograms', () => {
	it('a value on a bound counts in that bucket (le), above the last only in count and sum', () => {
		let h = observeValue(undefined, [1, 2, 5], 1);
		h = observeValue(h, [1, 2, 5], 1.5);
		h = observeValue(h, [1, 2, 5], 5);
		h = observeValue(h, [1, 2, 5], 7);
		expect(h.buckets).toEqual([1, 1, 1]);
		expect(cumulative(h)).toEqual([1, 2, 3]);
		expect(h.count).toBe(4);
		expect(h.sum).toBe(14.5);
	});

	it('never changes the histogram it was given', () => {
		const a = observeValue(undefined, [1, 2], 1);
		const b = observeValue(a, [1, 2], 2);
		expect(a).toEqual({buckets: [1, 0], sum: 1, count: 1});
		expect(b).toEqual({buckets: [1, 1], sum: 3, count: 2});
	});

	it('an unknown value is not observed (never 0); a request with none keeps the same object', () => {
		const before = observeRequest(undefined, req({decodeMs: 2000, generatedTokens: 100}));
		// no draft: one token per pass (the figure's own rule); prefill never stated: no prefill histogram
		expect(Object.keys(before ?? {}).sort()).toEqual(['infertop_request_decode_duration_seconds', 'infertop_request_decode_tokens_per_second', 'infertop_request_tokens_per_pass']);
		expect(before?.infertop_request_tokens_per_pass?.sum).toBe(1);
		expect(before?.infertop_request_decode_tokens_per_second?.sum).toBe(50);
		const same = observeRequest(before, req({}));
		expect(same).toBe(before);
	});
});
