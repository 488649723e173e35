/**
 * Per-request distributions (Prometheus histograms): prefill and decode time, decode speed, tokens
 * per pass of each finished request. Pure.
 *
 * The reducer observes each request once, when it finishes (beside its counters in `totals`), so a
 * distribution covers every request seen since start. Sampling the request ring at each scrape
 * instead, as the exporter did, missed every request that came and left the 200-request ring
 * between two looks: at 1,000 requests a second, 4 in 5 (issue 32: never drop a request silently).
 */
import type {HistogramCounts, RequestRecord} from '../types/state.js';
import {requestFigures, type EndFigures} from './figures.js';

export type {HistogramCounts};

export interface RequestHistogram {
	readonly name: string;
	readonly help: string;
	readonly bounds: readonly number[];
	/** The value one finished request gives; undefined: not observed (never 0). */
	readonly pick: (r: RequestRecord, f: EndFigures) => number | undefined;
}

const known = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);

// The bounds are frozen: a frozen array holds its numbers as objects, where an array of fractions
// holds them unboxed and every read of one makes a new number object in the app's V8 (no TurboFan).
// Finding a request's bucket read up to 14 bounds for each of 4 histograms: ~0.4 KB of garbage a
// finished request, measured with V8's sampling heap profiler.

/** Durations from a fraction of a second to minutes (prefill of a long prompt, a long answer). */
export const SECONDS_BUCKETS: readonly number[] = Object.freeze([0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]);
/** Tokens per pass: 1 without speculation; 2–5 with good drafts. */
const TOKENS_PER_PASS_BUCKETS: readonly number[] = Object.freeze([1, 1.25, 1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 8]);
const TPS_BUCKETS: readonly number[] = Object.freeze([1, 2.5, 5, 10, 20, 30, 40, 50, 75, 100, 150, 200, 300, 500]);

export const REQUEST_HISTOGRAMS: readonly RequestHistogram[] = [
	{name: 'infertop_request_prefill_duration_seconds', help: 'Time the engine spent on the prompt of each finished request (prompt processing, the server side of time to first token), seconds.', bounds: SECONDS_BUCKETS, pick: (r) => (known(r.prefillMs) ? r.prefillMs / 1000 : undefined)},
	{name: 'infertop_request_decode_duration_seconds', help: 'Time the engine spent generating the answer of each finished request, seconds.', bounds: SECONDS_BUCKETS, pick: (r) => (known(r.decodeMs) ? r.decodeMs / 1000 : undefined)},
	{name: 'infertop_request_decode_tokens_per_second', help: 'Decode speed of each finished request, generated tokens per second of decode time.', bounds: TPS_BUCKETS, pick: (_r, f) => f.decodeTps},
	{name: 'infertop_request_tokens_per_pass', help: 'Tokens generated per forward pass of the target model, per finished request (1 without speculative decoding).', bounds: TOKENS_PER_PASS_BUCKETS, pick: (_r, f) => f.tokensPerPass},
];

/** `h` with `v` observed (a new object; `h` is not changed). */
export function observeValue(h: HistogramCounts | undefined, bounds: readonly number[], v: number): HistogramCounts {
	const buckets = h ? h.buckets.slice() : bounds.map(() => 0);
	return observeInto({buckets, sum: h?.sum ?? 0, count: h?.count ?? 0}, bounds, v);
}

type DraftCounts = {buckets: number[]; sum: number; count: number};

/** `v` observed into `h` itself (one that nobody has seen yet). */
function observeInto(h: DraftCounts, bounds: readonly number[], v: number): HistogramCounts {
	let i = 0;
	while (i < bounds.length && v > bounds[i]!) i++;
	if (i < bounds.length) h.buckets[i]!++;
	h.sum += v;
	h.count++;
	return h;
}

/**
 * The objects a caller made and nobody has seen yet, which may be written in place (the reducer's
 * batch: a WeakSet): observing a busy log's requests one by one copied four histograms a request.
 */
export interface Drafts {
	has(o: object): boolean;
	add(o: object): unknown;
}

/**
 * The histograms of one model's totals with one finished request observed. Returns `prev` itself
 * when the request gives none of the values (an unknown value is not observed, never 0). Without
 * `drafts` a new object (`prev` is not changed); with them, what they hold is written in place and
 * what is made is added to them.
 */
export function observeRequest(prev: Readonly<Record<string, HistogramCounts>> | undefined, r: RequestRecord, f: EndFigures = requestFigures(r), drafts?: Drafts): Readonly<Record<string, HistogramCounts>> | undefined {
	let next: Record<string, HistogramCounts> | undefined;
	// an index loop: a for-of makes an iterator result a step where V8 does not optimize
	for (let k = 0; k < REQUEST_HISTOGRAMS.length; k++) {
		const h = REQUEST_HISTOGRAMS[k]!;
		const v = h.pick(r, f);
		if (!known(v) || v < 0) continue;
		if (next === undefined) {
			if (prev !== undefined && drafts?.has(prev)) next = prev as Record<string, HistogramCounts>;
			else {
				next = {...prev};
				drafts?.add(next);
			}
		}
		const before = next[h.name];
		if (before !== undefined && drafts?.has(before)) observeInto(before as DraftCounts, h.bounds, v);
		else {
			const after = observeValue(before, h.bounds, v);
			drafts?.add(after);
			next[h.name] = after;
		}
	}
	return next ?? prev;
}

/** The `le` series of the exposition format: cumulative counts per bound (then +Inf is `count`). */
export function cumulative(h: HistogramCounts): number[] {
	let n = 0;
	return h.buckets.map((b) => (n += b));
}
