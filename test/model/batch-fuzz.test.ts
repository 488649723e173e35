/**
 * A batch writes what it made in place (model/reducer.ts: records, the server, its rings, counter
 * maps, totals entries and histograms made in the batch; issue 32). What must hold, over fuzzed
 * lines of every engine (mutated numbers make requests inconsistent mid-batch, which replaces the
 * server), in batches of any size mixed with single actions, a models list and a probe's
 * attribution between them: the same state as the same lines one action at a time, key order
 * included, and no state a batch started from, or any earlier one, ever changes.
 */
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {logLines} from '../../source/model/log-ring.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {readLine} from '../../source/sources/log-source.js';
import type {EngineKind} from '../../source/types/events.js';
import type {Action, LogBatchLine, ModelInfo, MonitorState} from '../../source/types/state.js';
import {figureLines, logCorpus, mutate, prng} from '../helpers/fuzz.js';

const ENGINES: (EngineKind | undefined)[] = ['ollama', 'llamacpp', 'mlxlm', 'lithos', 'vllm', 'sglang', undefined];
const MODELS: readonly (readonly ModelInfo[])[] = [[], [{name: 'qwen3:8b'}], [{name: 'qwen3:8b'}, {name: 'llama3:70b', runner: 'mlx'}]];

/** The whole state as text (the log ring as its lines), key order included. */
const text = (s: MonitorState): string => JSON.stringify(s, (_k, v: unknown) => (v !== null && typeof v === 'object' && 'buffer' in v && 'start' in v ? logLines(v as never) : v));

/** One action at a time: a log-line and an engine-event per event, as before batches. */
function single(lines: readonly LogBatchLine[], id: string): Action[] {
	return lines.flatMap((l): Action[] => [
		{type: 'log-line', serverId: id, t: l.t, text: l.text, parsed: l.parsed},
		...(l.events ?? []).map((event): Action => ({type: 'engine-event', serverId: id, t: l.t, event, at: l.at})),
	]);
}

describe('a batch written in place (fuzz, seed 32)', () => {
	it('makes the same state as one action at a time, and no earlier state changes', () => {
		const corpus = logCorpus();
		let inconsistent = 0;
		let finished = 0;
		let states = 0;
		for (const engine of ENGINES) {
			const rnd = prng(32 + ENGINES.indexOf(engine));
			const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
			const own = engine ? figureLines(engine) : corpus;
			const parser = createParser(engine);
			const id = `fuzz:${engine ?? 'detect'}`;
			const seen: Action = {type: 'server-seen', t: 0, server: {id, engine: engine ?? 'openai', source: 'log'}};
			let batched = reduce(initialState({now: 0}), seen);
			let oneByOne = reduce(initialState({now: 0}), seen);
			const earlier: [MonitorState, string][] = [];
			let t = 1_000_000;
			for (let step = 0; step < 40; step++) {
				const lines: LogBatchLine[] = [];
				const n = 1 + Math.floor(rnd() * 60);
				for (let i = 0; i < n; i++) {
					const raw = rnd() < 0.5 ? pick(own) : mutate(rnd() < 0.8 ? pick(own) : pick(corpus), rnd);
					const at = rnd() < 0.1 ? pick(['backlog', 'earlier'] as const) : undefined;
					lines.push(readLine(parser, raw, (t += Math.floor(rnd() * 50)), at));
				}
				earlier.push([batched, text(batched)]);
				batched = reduce(batched, {type: 'log-batch', serverId: id, lines});
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
			for (const [state, was] of earlier) expect(text(state)).toBe(was);
			inconsistent += batched.servers[id]!.linesInconsistent;
			finished += batched.servers[id]!.requestsSeen;
		}
		// the fuzz reaches the paths: requests finished, and some were dropped as inconsistent mid-batch
		expect(states).toBe(ENGINES.length * 40);
		expect(finished).toBeGreaterThan(200);
		expect(inconsistent).toBeGreaterThan(20);
	});
});
