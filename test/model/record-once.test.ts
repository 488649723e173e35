/**
 * A busy log's per-request objects made once (issue 32, third round): a request record is made whole,
 * every field in one fixed order (model/reducer.ts newRecord), and written in place within a batch;
 * requestFigures works totalsOf's counts out without its object; the log ring's backing arrays are
 * made at their full size once per `cap` lines. What must hold: the same fields and figures as the
 * spreads and the object gave, on the engines' own sample lines and on fuzzed counts.
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {acceptance, msPerPass, passesFromCounts, rate, requestFigures, tokensPerPassFromPasses, totalsOf, type RequestCounts} from '../../source/model/figures.js';
import {appendTo, emptyLog, logLines, type LogRing} from '../../source/model/log-ring.js';
import {applyBatch, newServer, RECORD_FIELDS} from '../../source/model/reducer.js';
import type {EngineKind} from '../../source/types/events.js';
import type {LogBatchLine, RequestRecord, ServerState} from '../../source/types/state.js';
import {figureLines, prng} from '../helpers/fuzz.js';

const ENGINES: EngineKind[] = ['ollama', 'llamacpp', 'mlxlm', 'lithos', 'vllm', 'sglang'];

/** The event fields a record takes (what applyRequest copies), last write wins, since the request opened. */
function spreadOf(events: readonly Extract<ReturnType<typeof eventsOf>[number], {type: 'request'}>[]): Record<string, unknown> {
	let out: Record<string, unknown> = {};
	for (const ev of events) {
		if (ev.started === true && out['done'] === true) out = {};
		const {type: _t, done, started: _s, ...rest} = ev;
		out = {...out, ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined))};
		if (done === true) out['done'] = true;
	}
	delete out['done'];
	return out;
}

function eventsOf(lines: readonly string[], engine: EngineKind) {
	const parser = createParser(engine);
	return lines.flatMap(l => parser.push(l) ?? []);
}

describe('a request record made once, whole', () => {
	it('every record of every engine is made with the same fields in one order (the rest added after them) and holds the fields its events gave', () => {
		let records = 0;
		for (const engine of ENGINES) {
			const lines = figureLines(engine);
			const parser = createParser(engine);
			const batch: LogBatchLine[] = lines.map((text, i) => ({t: 1_796_000_000_000 + i * 12.5, text, parsed: true, events: parser.push(text) ?? []}));
			let server: ServerState = newServer({id: `log:${engine}`, engine, source: 'log'});
			// batches of 5 lines: requests span batches (a record copied once a batch, then written in place)
			for (let i = 0; i < batch.length; i += 5) {
				server = applyBatch(server, batch.slice(i, i + 5), false);
				for (const r of server.requests) expect(Object.keys(r).slice(0, RECORD_FIELDS.length), `${engine} ${r.key}`).toEqual(RECORD_FIELDS);
			}
			const events = eventsOf(lines, engine).filter((e): e is Extract<typeof e, {type: 'request'}> => e.type === 'request');
			for (const r of server.requests) {
				const mine = events.filter(e => e.key === r.key);
				// the dropped (inconsistent) are not in the ring; a reused key keeps what it had since it opened anew
				const fields = Object.fromEntries(Object.entries(r).filter(([k, v]) => v !== undefined && k in spreadOf(mine)));
				expect(fields, `${engine} ${r.key}`).toEqual(spreadOf(mine));
				records++;
			}
		}
		expect(records).toBeGreaterThan(20);
		// a llama.cpp request (the busy log's) gives no field the record was not made with: nothing added after
		const parser = createParser('llamacpp');
		const s = applyBatch(newServer({id: 'log:l', engine: 'llamacpp', source: 'log'}), figureLines('llamacpp').map((text, i) => ({t: i, text, parsed: true, events: parser.push(text) ?? []})), false);
		expect(s.requests.length).toBeGreaterThan(0);
		for (const r of s.requests) expect(Object.keys(r)).toEqual(RECORD_FIELDS);
	});

	it('a live line of a request not seen yet makes the same record shape, its live figures set', () => {
		const server = newServer({id: 'log:x', engine: 'llamacpp', source: 'log'});
		const s = applyBatch(server, [{t: 5, text: 'a', parsed: true, events: [{type: 'live-rate', key: 's0/t1', generated: 187, tps: 61.83}, {type: 'prefill-progress', key: 's1/t2', processed: 5, total: 20}]}], false);
		const [a, b] = s.requests as [RequestRecord, RequestRecord];
		expect(Object.keys(a)).toEqual(Object.keys(b));
		expect(a).toEqual({serverId: 'log:x', key: 's0/t1', firstLine: 0, lastLine: 0, firstSeen: 5, lastSeen: 5, done: false, liveTps: 61.83, liveGenerated: 187});
		expect(b).toEqual({serverId: 'log:x', key: 's1/t2', firstLine: 0, lastLine: 0, firstSeen: 5, lastSeen: 5, done: false, prefillProgress: 0.25});
	});
});

/** requestFigures as it was: through totalsOf's object. */
function figuresThroughTotals(r: RequestCounts) {
	if (r.outcome !== undefined) return {};
	const t = totalsOf(r);
	const prefill = t.uncached !== undefined && t.uncached > 0 ? rate(t.uncached, r.prefillMs) : undefined;
	const rest = {prefillTps: prefill, decodeTps: rate(t.decoded, r.decodeMs), tokensPerPass: tokensPerPassFromPasses(t.decoded, t.passes), acceptance: acceptance(r.accepted, r.drafted), msPerPass: msPerPass(r.decodeMs, t.passes), passes: t.passes, engineMeanLen: r.engineMeanLen};
	return r.promptEstimated === true ? {promptTokens: t.prompt, cachedTokens: r.cachedTokens, promptEstimated: true, ...rest} : {promptTokens: t.prompt, cachedTokens: r.cachedTokens, ...rest};
}

describe('a record\'s last time: Math.max of its lines\' times, as before', () => {
	it('later, earlier, equal, NaN and -0 times give what Math.max gave', () => {
		const cases: number[][] = [[10, 5, 20, 15], [7, 7, 7], [3, Number.NaN, 9], [Number.NaN, 4], [-0, 0], [0, -0], [-0, -0, 2]];
		for (const times of cases) {
			const lines: LogBatchLine[] = times.map((t, i) => ({t, text: `l${i}`, parsed: true, events: [{type: 'request', key: 'k', ...(i === 0 ? {started: true} : {}), prefillTokens: i + 1}]}));
			const s = applyBatch(newServer({id: 'log:m', engine: 'llamacpp', source: 'log'}), lines, false);
			const want = times.reduce((a, b) => Math.max(a, b));
			expect(Object.is(s.requests[0]!.lastSeen, want), `${times.join()} → ${s.requests[0]!.lastSeen}`).toBe(true);
		}
	});
});

describe('requestFigures without totalsOf\'s object', () => {
	it('the same figures, key order included, over 20,000 fuzzed count sets', () => {
		const rnd = prng(3203);
		const values = [undefined, undefined, 0, 1, 2, 12, 63, 64, 400, 37.2, 902.4, 1e6, -3, Number.NaN, Infinity];
		const fields: (keyof RequestCounts)[] = ['promptTokens', 'cachedTokens', 'prefillTokens', 'prefillMs', 'generatedTokens', 'decodedTokens', 'decodeMs', 'passes', 'drafted', 'accepted', 'engineMeanLen'];
		for (let i = 0; i < 20_000; i++) {
			const c: Record<string, unknown> = {};
			for (const k of fields) if (rnd() < 0.5) c[k] = values[Math.floor(rnd() * values.length)];
			if (rnd() < 0.3) c['promptEstimated'] = rnd() < 0.7;
			if (rnd() < 0.05) c['outcome'] = 'cancelled';
			const r = c as RequestCounts;
			expect(Object.entries(requestFigures(r))).toEqual(Object.entries(figuresThroughTotals(r)));
		}
		// and passesFromCounts is what both read
		expect(requestFigures({generatedTokens: 64, decodedTokens: 63, decodeMs: 900}).passes).toBe(passesFromCounts(63, undefined));
	});
});

describe('the log ring\'s arena reused in a circle', () => {
	it('appending 10 × cap lines in place makes new arrays only while the window grows, and reads back every line', () => {
		const cap = 100;
		let ring = {...emptyLog()} as LogRing;
		const made = new Set<unknown>();
		const arenas = new Set<unknown>();
		const earlier: [LogRing, string][] = [];
		for (let i = 0; i < 10 * cap; i++) {
			if (i % 37 === 0) {
				earlier.push([ring, JSON.stringify(logLines(ring))]);
				ring = {...ring};
			}
			ring = appendTo(ring as never, 1_796_000_000_000 + i / 8, `l${i}`, i % 3, cap);
			made.add(ring.arena!.bytes);
			arenas.add(ring.arena);
		}
		// one arena; its arrays made at the first line, and again when the window outgrew its first 64 line slots
		expect(arenas.size).toBe(1);
		expect(ring.arena!.at.length).toBe(256);
		expect(made.size).toBe(2);
		expect(logLines(ring).map(l => l.t)).toEqual(Array.from({length: cap}, (_, k) => 1_796_000_000_000 + (9 * cap + k) / 8));
		expect(logLines(ring).map(l => l.parsed)).toEqual(Array.from({length: cap}, (_, k) => (9 * cap + k) % 3 === 1));
		// an earlier ring reads what it read, or (its lines reused since) throws; the newest cap's all read
		let read = 0;
		for (const [r, was] of earlier) {
			// (line n is in slot n mod 256 once the window outgrew 64: reused 256 lines on)
			if (r.length > 0 && r.start + ring.arena!.at.length < ring.end) expect(() => logLines(r)).toThrow(RangeError);
			else {
				expect(JSON.stringify(logLines(r))).toBe(was);
				read++;
			}
		}
		expect(read).toBeGreaterThanOrEqual(2);
	});
});
