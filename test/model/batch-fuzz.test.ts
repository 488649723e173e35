/**
 * A batch writes what it made in place (model/reducer.ts: records, the server, its rings, counter
 * maps, totals entries and histograms made in the batch; issue 32). What must hold, over fuzzed
 * lines of every engine (mutated numbers make requests inconsistent mid-batch, which replaces the
 * server), in batches of any size mixed with single actions, a models list and a probe's
 * attribution between them: the same state as the same lines one action at a time, key order
 * included, and no state a batch started from, or any earlier one, ever changes (its log reads the
 * lines it read, or, once its arena reused them, throws: model/log-ring.ts).
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {isLogRing, logLines, pinLogs} from '../../source/model/log-ring.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {readLine} from '../../source/sources/log-source.js';
import type {EngineKind} from '../../source/types/events.js';
import type {Action, LogBatchLine, ModelInfo, MonitorState} from '../../source/types/state.js';
import {figureLines, logCorpus, mutate, prng} from '../helpers/fuzz.js';

const ENGINES: (EngineKind | undefined)[] = ['ollama', 'llamacpp', 'mlxlm', 'lithos', 'vllm', 'sglang', undefined];
const MODELS: readonly (readonly ModelInfo[])[] = [[], [{name: 'qwen3:8b'}], [{name: 'qwen3:8b'}, {name: 'llama3:70b', runner: 'mlx'}]];

/** The whole state as text (the log ring as its lines, or `lines` false: as its window), key order included. */
const text = (s: MonitorState, lines = true): string =>
	JSON.stringify(s, (_k, v: unknown) => (isLogRing(v) && 'arena' in v ? (lines ? logLines(v) : [v.start, v.end]) : v));

/** The state as text, or undefined where its log's lines were reused since (a RangeError). */
function readable(s: MonitorState): string | undefined {
	try {
		return text(s);
	} catch (error) {
		if (error instanceof RangeError) return undefined;
		throw error;
	}
}

/** One action at a time: a log-line and an engine-event per event, as before batches. */
function single(lines: readonly LogBatchLine[], id: string): Action[] {
	return lines.flatMap((l): Action[] => [
		{type: 'log-line', serverId: id, t: l.t, text: l.text, parsed: l.parsed, at: l.at},
		...(l.events ?? []).map((event): Action => ({type: 'engine-event', serverId: id, t: l.t, event, at: l.at})),
	]);
}

describe('a batch written in place (fuzz, seed 32)', () => {
	it('makes the same state as one action at a time, and no earlier state changes', () => {
		const corpus = logCorpus();
		let inconsistent = 0;
		let finished = 0;
		let states = 0;
		let reused = 0;
		for (const engine of ENGINES) {
			const rnd = prng(32 + ENGINES.indexOf(engine));
			const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
			const own = engine ? figureLines(engine) : corpus;
			const parser = createParser(engine);
			const id = `fuzz:${engine ?? 'detect'}`;
			const seen: Action = {type: 'server-seen', t: 0, server: {id, engine: engine ?? 'openai', source: 'log'}};
			let batched = reduce(initialState({now: 0}), seen);
			let oneByOne = reduce(initialState({now: 0}), seen);
			const earlier: [MonitorState, string, string][] = [];
			let t = 1_000_000;
			for (let step = 0; step < 40; step++) {
				const lines: LogBatchLine[] = [];
				const n = 1 + Math.floor(rnd() * 60);
				for (let i = 0; i < n; i++) {
					const raw = rnd() < 0.5 ? pick(own) : mutate(rnd() < 0.8 ? pick(own) : pick(corpus), rnd);
					const at = rnd() < 0.1 ? pick(['backlog', 'earlier'] as const) : undefined;
					lines.push(readLine(parser, raw, (t += Math.floor(rnd() * 50)), at));
				}
				earlier.push([batched, text(batched, false), text(batched)]);
				// pinned, as the store pins the state it publishes: it reads as it did after the batch, always
				pinLogs(batched);
				const pinned = earlier.at(-1)!;
				batched = reduce(batched, {type: 'log-batch', serverId: id, lines});
				expect(text(pinned[0])).toBe(pinned[2]);
				oneByOne = single(lines, id).reduce(reduce, oneByOne);
				const between: Action[] = [];
				if (rnd() < 0.2) between.push({type: 'server-models', serverId: id, t, models: pick(MODELS)});
				const requests = batched.servers[id]!.requests;
				if (rnd() < 0.15 && requests.length > 0) between.push({type: 'request-attributed', serverId: id, key: pick(requests).key, model: 'probed', by: 'probe'});
				batched = between.reduce(reduce, batched);
				oneByOne = between.reduce(reduce, oneByOne);
				expect(text(batched)).toBe(text(oneByOne));
				states++;
			}
			for (const [state, bare, was] of earlier) {
				expect(text(state, false)).toBe(bare);
				const now = readable(state);
				if (now === undefined) reused++;
				else expect(now).toBe(was);
			}
			inconsistent += batched.servers[id]!.linesInconsistent;
			finished += batched.servers[id]!.requestsSeen;
		}
		// the fuzz reaches the paths: requests finished, and some were dropped as inconsistent mid-batch
		expect(states).toBe(ENGINES.length * 40);
		// older states whose lines were reused since happen (a window holding line 0 after ~1.3 × 1,000 lines)
		expect(reused).toBeGreaterThan(0);
		expect(finished).toBeGreaterThan(200);
		expect(inconsistent).toBeGreaterThan(20);
	});
});
