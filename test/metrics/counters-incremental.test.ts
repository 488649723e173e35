/**
 * RequestCounters looks again only at the waiting turns of a server whose sessions did not change
 * (issue 32: 8 busy servers, a look each second). The budgets it counts must be what looking at
 * every turn of every server gives, on a long run of states: servers busy, idle, turns settling
 * only by time passing, rings dropping old turns, probes ending.
 */
import {describe, expect, it} from 'vitest';
import {RequestCounters} from '../../source/metrics/exporter.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import type {MonitorState} from '../../source/types/state.js';
import type {ProbeResult} from '../../source/types/probe.js';
import type {EngineKind} from '../../source/types/events.js';

const T0 = Date.UTC(2026, 11, 1, 10, 0, 0);

function rng(seed: number) {
	return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('RequestCounters: incremental look = full look', () => {
	it('the same budgets and probe histograms over 400 looks at 5 servers', () => {
		const rand = rng(7);
		const engines: EngineKind[] = ['llamacpp', 'llamacpp', 'vllm', 'ollama', 'llamacpp'];
		let st: MonitorState = initialState({now: T0});
		const ids = engines.map((e, i) => `srv${i}`);
		engines.forEach((engine, i) => {
			st = reduce(st, {type: 'server-seen', t: T0, server: {id: ids[i]!, engine, source: 'flag', url: `http://127.0.0.1:${8080 + i}`}});
		});
		const incremental = new RequestCounters(60_000);
		const full = new RequestCounters(60_000, false);
		let now = T0;
		let n = 0;
		let settledByTime = 0;
		const turns = (c: RequestCounters) => c.budgetEntries().reduce((a, e) => a + e.totals.turns, 0);
		for (let step = 0; step < 400; step++) {
			now += Math.floor(rand() * 4000);
			// some servers get requests (an agent's turns: several a look, or a long pause), others none
			const busy = ids.filter(() => rand() < 0.3);
			for (const id of busy) {
				for (let k = Math.floor(rand() * 4); k > 0; k--) {
					n++;
					const prompt = 500 + Math.floor(rand() * 5000);
					st = reduce(st, {
						type: 'engine-event',
						serverId: id,
						t: now - Math.floor(rand() * 500),
						event: {type: 'request', key: `t${n}`, started: true, done: true, promptTokens: prompt, cachedTokens: Math.floor(prompt * rand()), prefillMs: rand() < 0.8 ? 50 + rand() * 900 : undefined, decodeMs: 100 + rand() * 4000, generatedTokens: 1 + Math.floor(rand() * 400), ...(rand() < 0.3 ? {model: `m${Math.floor(rand() * 2)}`} : {})},
					});
				}
			}
			st = reduce(st, {type: 'tick', t: now});
			if (rand() < 0.05) {
				const result: ProbeResult = {t: now, engine: 'llamacpp', url: 'http://127.0.0.1:8080', protocol: 'openai-chat', prompt: 'code', model: 'm0', ttftMs: rand() < 0.8 ? 50 + rand() * 2000 : undefined};
				st = {...st, probe: {...st.probe, results: [...st.probe.results.slice(-4), result]}};
			}
			const before = turns(incremental);
			incremental.observe(st);
			full.observe(st);
			if (busy.length === 0 && turns(incremental) > before) settledByTime++;
			expect(incremental.budgetEntries()).toEqual(full.budgetEntries());
			expect(incremental.probeEntries()).toEqual(full.probeEntries());
		}
		// the run exercised what matters: many turns counted, some settling only as time passed
		expect(turns(full)).toBeGreaterThan(200);
		expect(settledByTime).toBeGreaterThan(5);
		expect(full.probeEntries().length).toBeGreaterThan(0);
	});
});
