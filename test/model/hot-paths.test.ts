/**
 * The store's per-line and per-request paths made cheaper for a busy log (issue 32) give what the
 * plain forms gave: the consistency check's by-name first pass, requestFigures' two literals, the
 * log ring appended in place, histograms observed into a batch's own objects.
 */
import {describe, expect, it} from 'vitest';
import {inconsistency, type CountsToCheck} from '../../source/model/consistency.js';
import {requestFigures} from '../../source/model/figures.js';
import {appendLog, appendTo, emptyLog, logFlags, logLines, logTail, type LogRing} from '../../source/model/log-ring.js';
import {observeRequest} from '../../source/model/request-histograms.js';
import type {LogLine, RequestRecord} from '../../source/types/state.js';
import {prng} from '../helpers/fuzz.js';

const FIELDS = ['promptTokens', 'cachedTokens', 'prefillTokens', 'prefillMs', 'generatedTokens', 'decodedTokens', 'decodeMs', 'passes', 'drafted', 'accepted', 'engineMeanLen', 'engineTps'] as const;

describe('inconsistency: every field by name first', () => {
	it('names the same first field as a loop over the fields would, over 20,000 fuzzed count sets', () => {
		const rnd = prng(32);
		const values: unknown[] = [undefined, undefined, undefined, 0, -0, 1, 12, 400, 3.5, 1e7, -1, -0.5, Number.NaN, Infinity, -Infinity, '5', null, true, 10n];
		const firstBad = (c: Record<string, unknown>): string | undefined => {
			for (const k of FIELDS) {
				const v = c[k];
				if (v === undefined) continue;
				if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return k;
			}
			return undefined;
		};
		let bad = 0;
		for (let i = 0; i < 20_000; i++) {
			const c: Record<string, unknown> = {};
			for (const k of FIELDS) if (rnd() < 0.4) c[k] = values[Math.floor(rnd() * values.length)];
			const reason = inconsistency(c as CountsToCheck);
			const k = firstBad(c);
			if (k === undefined) {
				// all fields fine: only a cross-field reason, never one of a single field
				expect(reason ?? '').not.toMatch(/not a number|^negative/);
				continue;
			}
			bad++;
			const v = c[k];
			expect(reason).toEqual(typeof v !== 'number' || !Number.isFinite(v) ? expect.stringContaining('not a number') : expect.stringMatching(/^negative /));
			expect(reason).toBe(inconsistency({[k]: v} as CountsToCheck));
		}
		expect(bad).toBeGreaterThan(5000);
	});

	it('-0 passes, as the loop let it', () => {
		expect(inconsistency({promptTokens: -0, decodeMs: 10, generatedTokens: 5})).toBeUndefined();
		expect(inconsistency({decodeMs: -1})).toBe('negative decode time (-1)');
		expect(inconsistency({engineTps: Number.NaN})).toBe('engine tok/s not a number');
	});
});

describe('requestFigures: two literals', () => {
	it('the same fields in the same order, `promptEstimated` third where the engine worked the prompt out', () => {
		const r = {prefillTokens: 12, cachedTokens: 1, prefillMs: 37.2, generatedTokens: 64, decodedTokens: 63, decodeMs: 902.4};
		const keys = ['promptTokens', 'cachedTokens', 'prefillTps', 'decodeTps', 'tokensPerPass', 'acceptance', 'msPerPass', 'passes', 'engineMeanLen'];
		expect(Object.keys(requestFigures(r))).toEqual(keys);
		expect(Object.keys(requestFigures({...r, promptTokens: 13, promptEstimated: true}))).toEqual([...keys.slice(0, 2), 'promptEstimated', ...keys.slice(2)]);
		expect(requestFigures({...r, promptEstimated: false})).not.toHaveProperty('promptEstimated');
		expect(requestFigures({...r, outcome: 'error'})).toEqual({});
		expect(requestFigures(r).decodeTps).toBeCloseTo((63 * 1000) / 902.4, 10);
	});
});

describe('the log ring appended in place', () => {
	it('appendTo a copy gives what appendLog gives, and the ring it was copied from never changes', () => {
		const cap = 5;
		const line = (i: number): LogLine => (i % 7 === 6 ? {t: 1e12 + i / 4, text: `l${i}`, parsed: true, note: true} : {t: 1e12 + i / 4, text: `l${i}`, parsed: i % 3 === 0});
		let plain: LogRing = emptyLog();
		const before: [LogRing, string][] = [];
		const parts = (l: LogLine) => [l.t, l.text, logFlags(l.parsed, l.note)] as const;
		let draft = appendTo({...emptyLog()}, ...parts(line(0)), cap);
		plain = appendLog(plain, line(0), cap);
		for (let i = 1; i < 23; i++) {
			// a new batch every 4 lines: a copy of the last ring, then appended in place
			if (i % 4 === 0) {
				before.push([draft, JSON.stringify(logLines(draft))]);
				draft = {...draft};
			}
			draft = appendTo(draft, ...parts(line(i)), cap);
			plain = appendLog(plain, line(i), cap);
			expect(logLines(draft)).toEqual(logLines(plain));
			expect(draft.length).toBe(Math.min(i + 1, cap));
			// one arena, at its least (64 line slots), reused in a circle
			expect(draft.arena!.at.length).toBe(64);
		}
		for (const [ring, was] of before) expect(JSON.stringify(logLines(ring))).toBe(was);
	});

	it('a line reads back as it was appended (its fields, their order, a note only where there is one)', () => {
		const lines: LogLine[] = [{t: 1796471058405.25, text: 'a', parsed: true}, {t: 0, text: '', parsed: false}, {t: 7, text: 'inconsistent, not used: x', parsed: true, note: true}];
		const ring = lines.reduce((r, l) => appendLog(r, l, 10), emptyLog());
		expect(JSON.stringify(logLines(ring))).toBe(JSON.stringify(lines));
		expect(logTail(ring, 2, 1)).toEqual(lines.slice(0, 2));
		// a ring written out empty (a state made by hand) takes lines as the empty ring does
		const literal: LogRing = {start: 0, end: 0, length: 0};
		expect(logLines(appendLog(literal, lines[0]!, 10))).toEqual([lines[0]]);
	});
});

describe('histograms observed into a batch’s own objects', () => {
	const req = (p: Partial<RequestRecord>): RequestRecord => ({serverId: 's', key: 'k', firstSeen: 0, lastSeen: 0, done: true, ...p}) as RequestRecord;
	const requests = [req({decodeMs: 2000, generatedTokens: 100}), req({prefillMs: 30, decodeMs: 900, decodedTokens: 63, generatedTokens: 64}), req({}), req({decodeMs: 40_000, generatedTokens: 700, accepted: 300, drafted: 500})];

	it('what the drafts hold is written in place; what they do not is copied; the counts are the same as without', () => {
		const plain = requests.reduce<ReturnType<typeof observeRequest>>((h, r) => observeRequest(h, r), undefined);
		// made before the batch: never written
		const published = observeRequest(undefined, requests[0]!);
		const frozen = JSON.stringify(published);
		const drafts = new WeakSet<object>();
		let h = published;
		for (const r of requests.slice(1)) h = observeRequest(h, r, undefined, drafts);
		expect(JSON.stringify(published)).toBe(frozen);
		expect(h).not.toBe(published);
		expect(drafts.has(h!)).toBe(true);
		expect(JSON.stringify(h)).toBe(JSON.stringify(plain));
		// the batch's own map is written in place from then on
		const again = observeRequest(h, requests[1]!, undefined, drafts);
		expect(again).toBe(h);
		expect(again!.infertop_request_decode_duration_seconds!.count).toBe(plain!.infertop_request_decode_duration_seconds!.count + 1);
	});
});
