/**
 * requestEntries keeps each server's entries by the identity of its request ring, and the entries of
 * the records a changed ring still holds (issue 32: 8 busy servers), and sorts the servers' lists
 * together. The result must be what the full recompute gives:
 * every record of every server, one stable sort newest first. Checked on many random states, each
 * changing only some servers' rings from the one before (as the reducer does under traffic).
 */
import {describe, expect, it, vi} from 'vitest';
import {modelLabel} from '../../source/model/derive.js';

// Counts the model labels made: one per record walked (the work requestEntries does per record).
const labels = vi.hoisted(() => ({count: 0}));
vi.mock('../../source/model/derive.js', async importOriginal => (await import('../helpers/count-calls.js')).counting(await importOriginal<typeof import('../../source/model/derive.js')>(), 'modelLabel', labels));
import {requestFigures} from '../../source/model/figures.js';
import {engineName} from '../../source/engines/index.js';
import type {MonitorState, RequestRecord, ServerState} from '../../source/types/state.js';
import {requestEntries} from '../../source/ui/view-model/requests.js';
import {richState} from '../helpers/ui-state.js';

/** The full recompute, as requestEntries was before the per-server memo. */
function reference(servers: Readonly<Record<string, ServerState>>, order: readonly string[]) {
	const all: {key: string; record: RequestRecord; engine: string; model: string}[] = [];
	for (const id of order) {
		const s = servers[id];
		if (!s) continue;
		for (const r of s.requests) all.push({key: `${r.serverId}/${r.key}`, record: r, engine: engineName(s), model: modelLabel(r, s)});
	}
	return all.sort((a, b) => b.record.lastSeen - a.record.lastSeen);
}

function rng(seed: number) {
	return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('requestEntries: per-server memo', () => {
	it('equals the full recompute on 300 states of 1–8 servers whose rings change a few at a time', () => {
		const base = richState();
		const templates = base.order.map(id => base.servers[id]!);
		const rand = rng(42);
		const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
		let n = 0;
		const record = (serverId: string): RequestRecord => {
			n++;
			// few distinct times: many ties, which must keep server then ring order
			const t = 1000 + Math.floor(rand() * 20);
			const r: RequestRecord = {serverId, key: `r${n}`, firstSeen: t - 5, lastSeen: t, done: rand() < 0.8, promptTokens: Math.floor(rand() * 500), generatedTokens: Math.floor(rand() * 200), decodeMs: 100 + Math.floor(rand() * 900)};
			const m = rand();
			return m < 0.3 ? {...r, model: `org/model-${Math.floor(rand() * 3)}`} : m < 0.5 ? {...r, attribution: {model: `att-${Math.floor(rand() * 2)}`, by: 'log'} as RequestRecord['attribution']} : r;
		};
		for (let trial = 0; trial < 10; trial++) {
			const count = 1 + Math.floor(rand() * 8);
			const order = Array.from({length: count}, (_, i) => `srv${trial}-${i}`);
			let servers: Record<string, ServerState> = {};
			for (const id of order) {
				const t = pick(templates);
				servers[id] = {...t, id, models: rand() < 0.5 ? [] : t.models, demo: rand() < 0.2, requests: Array.from({length: Math.floor(rand() * 40)}, () => record(id))};
			}
			for (let step = 0; step < 30; step++) {
				const state = {servers, order} as Pick<MonitorState, 'servers' | 'order'>;
				const got = requestEntries(state.servers, state.order);
				const want = reference(state.servers, state.order);
				const same = got.every((e, i) => e.key === want[i]!.key && e.record === want[i]!.record && e.engine === want[i]!.engine && e.model === want[i]!.model);
				expect(got.length).toBe(want.length);
				if (!same) expect(got.map(e => [e.key, e.engine, e.model])).toEqual(want.map(e => [e.key, e.engine, e.model]));
				expect(same).toBe(true);
				if (step % 10 === 0) for (const e of got) expect(e.figures).toEqual(requestFigures(e.record));
				// the next state: some servers' rings change (records added, the oldest dropped, one
				// replaced by a newer version), some servers change without their ring (a label), the rest stay
				const next: Record<string, ServerState> = {...servers};
				for (const id of order) {
					const s = servers[id]!;
					const roll = rand();
					if (roll < 0.4) {
						let ring = [...s.requests, ...Array.from({length: Math.floor(rand() * 6)}, () => record(id))];
						if (ring.length > 30) ring = ring.slice(ring.length - 30);
						if (ring.length > 0 && rand() < 0.5) {
							const i = Math.floor(rand() * ring.length);
							ring[i] = {...ring[i]!, lastSeen: ring[i]!.lastSeen + Math.floor(rand() * 10), done: true};
						}
						next[id] = {...s, requests: ring};
					} else if (roll < 0.5) next[id] = {...s, demo: !s.demo};
					else if (roll < 0.55) next[id] = {...s, models: s.models.length === 0 ? templates[0]!.models : []};
				}
				servers = next;
			}
		}
	});

	it('hands out a new array each call (the cached lists are never changed by a caller)', () => {
		const s = richState();
		const one = requestEntries(s.servers, [s.order[0]!]);
		one.length = 0;
		expect(requestEntries(s.servers, [s.order[0]!]).length).toBe(s.servers[s.order[0]!]!.requests.length);
		const a = requestEntries(s.servers, s.order);
		const b = requestEntries(s.servers, s.order);
		expect(a).not.toBe(b);
		expect(a).toEqual(b);
	});

	it('labels only what is new: 8 servers of 200 requests, one new request on one server, then one replaced', () => {
		const base = richState();
		const t = base.servers[base.order[0]!]!;
		const ids = Array.from({length: 8}, (_, i) => `busy${i}`);
		let k = 0;
		const rec = (id: string): RequestRecord => ({serverId: id, key: `q${k++}`, firstSeen: k, lastSeen: k, done: true, generatedTokens: 10, decodeMs: 200});
		const servers: Record<string, ServerState> = Object.fromEntries(ids.map(id => [id, {...t, id, requests: Array.from({length: 200}, () => rec(id))}]));
		// the reference itself makes labels: count only requestEntries' own
		labels.count = 0;
		const first = requestEntries(servers, ids);
		expect(first).toHaveLength(1600);
		expect(labels.count).toBe(1600);
		// the oldest dropped, one added: only the new record is labelled; the 199 kept keep their entries
		const s3 = servers[ids[3]!]!;
		const next = {...servers, [ids[3]!]: {...s3, requests: [...s3.requests.slice(1), rec(ids[3]!)]}};
		labels.count = 0;
		const second = requestEntries(next, ids);
		expect(labels.count).toBe(1);
		expect(second[0]!.record.serverId).toBe(ids[3]);
		expect(second.map(e => e.key)).toEqual(reference(next, ids).map(e => e.key));
		const before = new Map(first.map(e => [e.record, e]));
		expect(second.filter(e => before.get(e.record) === e)).toHaveLength(1599);
		// nothing changed: no ring walked
		labels.count = 0;
		requestEntries(next, ids);
		expect(labels.count).toBe(0);
		// a record replaced by a newer version (the reducer writes it in its place), three dropped, two added
		const r3 = next[ids[3]!]!.requests;
		const changed = [...r3.slice(3)];
		changed[150] = {...changed[150]!, lastSeen: 10_000, done: true};
		changed.push(rec(ids[3]!), rec(ids[3]!));
		const third = {...next, [ids[3]!]: {...next[ids[3]!]!, requests: changed}};
		labels.count = 0;
		const got = requestEntries(third, ids);
		expect(labels.count).toBe(3);
		expect(got[0]!.record).toBe(changed[150]);
		expect(got.map(e => e.key)).toEqual(reference(third, ids).map(e => e.key));
		// a ring whose records are all new (it turned over between two frames): every one labelled
		const fresh = {...third, [ids[5]!]: {...third[ids[5]!]!, requests: Array.from({length: 200}, () => rec(ids[5]!))}};
		labels.count = 0;
		const turned = requestEntries(fresh, ids);
		expect(labels.count).toBe(200);
		expect(turned.map(e => e.key)).toEqual(reference(fresh, ids).map(e => e.key));
		// the model labels change with the models listed: every record of that server labelled again
		const listed = {...fresh, [ids[1]!]: {...fresh[ids[1]!]!, models: fresh[ids[1]!]!.models.length === 0 ? base.servers[base.order[0]!]!.models : []}};
		labels.count = 0;
		const relabelled = requestEntries(listed, ids);
		expect(labels.count).toBe(200);
		expect(relabelled.map(e => [e.key, e.model])).toEqual(reference(listed, ids).map(e => [e.key, e.model]));
	});
});
