/**
 * The requests table sorted by time takes its order from requestEntries (newest first) instead of
 * sorting again (issue 32: an item a kept request each frame). It must give exactly the rows the
 * table's definition gives: live requests first in the order given, then finished ones newest first
 * (ties in the order given), then those whose time the log does not give (`earlier`); a backlog's
 * open request left out. Entries out of order, or with a time that is not a number, take the
 * general sort; the result is the same.
 */
import {describe, expect, it} from 'vitest';
import {requestEntries, tableEntries, type RequestEntry} from '../../source/ui/view-model/requests.js';
import type {RequestRecord} from '../../source/types/state.js';
import {prng} from '../helpers/fuzz.js';

const TIMES = [1_796_000_000_000, 1_796_000_000_000.5, 1_796_000_001_000, 0, -0, Number.NaN, Infinity, -Infinity];

function entry(i: number, r: () => number, t: number): RequestEntry {
	const done = r() < 0.8;
	const record = {key: `k${i}`, serverId: r() < 0.5 ? 'a' : 'b', firstSeen: t - 5, lastSeen: t, done, earlier: done && r() < 0.1 ? true : undefined, backlog: !done && r() < 0.2 ? true : undefined} as unknown as RequestRecord;
	return {key: `${record.serverId}/k${i}`, record, engine: r() < 0.5 ? 'llama.cpp' : 'vLLM', model: r() < 0.5 ? 'qwen' : 'llama', figures: {}} as RequestEntry;
}

/** The table's definition, written out plainly. */
function reference(entries: readonly RequestEntry[], filter: string): RequestEntry[] {
	const q = filter.trim().toLowerCase();
	const hit = entries.filter(e => q === '' || `${e.engine} ${e.model} ${e.key}`.toLowerCase().includes(q));
	const live = hit.filter(e => !e.record.done && !e.record.backlog);
	const done = hit.map((e, i) => ({e, i})).filter(x => x.e.record.done);
	const v = (e: RequestEntry) => (e.record.earlier ? undefined : e.record.lastSeen);
	done.sort((a, b) => {
		const x = v(a.e);
		const y = v(b.e);
		if (x === undefined || y === undefined) return x === undefined ? (y === undefined ? a.i - b.i : 1) : -1;
		return y - x || a.i - b.i;
	});
	return [...live, ...done.map(x => x.e)];
}

describe('the requests table by time', () => {
	it('gives the rows of its definition, from entries in order and out of it', () => {
		const r = prng(4242);
		let fast = 0;
		for (let round = 0; round < 400; round++) {
			const n = Math.floor(r() * 60);
			let entries = Array.from({length: n}, (_, i) => entry(i, r, r() < 0.15 ? TIMES[Math.floor(r() * TIMES.length)]! : 1_796_000_000_000 + Math.floor(r() * 50) * 250));
			// most rounds as requestEntries gives them (newest first, stable); some shuffled
			if (r() < 0.7) entries = entries.map((e, i) => ({e, i})).sort((a, b) => b.e.record.lastSeen - a.e.record.lastSeen || a.i - b.i).map(x => x.e);
			const filter = r() < 0.2 ? 'QWEN' : r() < 0.1 ? 'b/' : '';
			const want = reference(entries, filter);
			const got = tableEntries(entries, 'time', filter);
			expect(got.map(e => e.key)).toEqual(want.map(e => e.key));
			if (entries.every(e => !Number.isNaN(e.record.lastSeen))) fast++;
		}
		expect(fast).toBeGreaterThan(100);
	});

	it('from two servers\' rings as the screen reads them', () => {
		const rec = (serverId: string, key: string, lastSeen: number, done = true): RequestRecord => ({key, serverId, firstSeen: lastSeen - 100, lastSeen, done}) as unknown as RequestRecord;
		const server = (id: string, requests: RequestRecord[]) => ({id, engine: 'llamacpp', models: [], requests}) as never;
		const servers = {
			a: server('a', [rec('a', '1', 300), rec('a', '2', 100), rec('a', '3', 500, false), rec('a', '4', 400)]),
			b: server('b', [rec('b', '1', 400), rec('b', '2', 200)]),
		};
		const rows = tableEntries(requestEntries(servers, ['a', 'b']), 'time', '');
		expect(rows.map(e => e.key)).toEqual(['a/3', 'a/4', 'b/1', 'a/1', 'b/2', 'a/2']);
	});
});
