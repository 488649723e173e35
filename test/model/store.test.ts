import {describe, expect, it} from 'vitest';
import {createStore} from '../../source/model/store.js';
import {systemKey} from '../../source/sources/system-collector.js';
import {emptySystem} from '../../source/types/system.js';
import type {Action} from '../../source/types/state.js';

const seen = (t: number, version?: string): Action => ({type: 'server-seen', t, server: {id: 'http://127.0.0.1:11434', engine: 'ollama', url: 'http://127.0.0.1:11434', source: 'port-scan', ...(version ? {version} : {})}});

describe('store: publish only what the screen would show differently', () => {
	it('a tick alone publishes only when the clock key changes; without a key every tick publishes', () => {
		const store = createStore({now: 0});
		store.dispatch(seen(0));
		store.publish();
		expect(store.publishes()).toBe(1);
		store.setClockKey(s => String(Math.floor(s.now / 60_000)));
		for (let t = 1000; t < 60_000; t += 1000) {
			store.dispatch({type: 'tick', t});
			store.publish();
		}
		expect(store.publishes()).toBe(1);
		// the state moved on even though nothing was published
		expect(store.getSnapshot().now).toBe(59_000);
		expect(store.getPublished().now).toBe(0);
		store.dispatch({type: 'tick', t: 60_000});
		store.publish();
		expect(store.publishes()).toBe(2);
		expect(store.getPublished().now).toBe(60_000);
		store.setClockKey(undefined);
		store.dispatch({type: 'tick', t: 61_000});
		store.publish();
		expect(store.publishes()).toBe(3);
	});

	it('a poll that only confirms the same server makes no frame; one that changes what is shown does', () => {
		const store = createStore({now: 0});
		store.dispatch(seen(0));
		store.dispatch({type: 'server-models', t: 0, serverId: 'http://127.0.0.1:11434', models: [{name: 'qwen3:8b', sizeBytes: 5e9}]});
		store.publish();
		const n = store.publishes();
		for (let t = 1; t <= 10; t++) {
			store.dispatch(seen(t * 1000));
			store.dispatch({type: 'server-models', t: t * 1000, serverId: 'http://127.0.0.1:11434', models: [{name: 'qwen3:8b', sizeBytes: 5e9}]});
			store.publish();
		}
		expect(store.publishes()).toBe(n);
		expect(store.getSnapshot().servers['http://127.0.0.1:11434']!.lastSeen).toBe(10_000);
		store.dispatch({type: 'server-models', t: 11_000, serverId: 'http://127.0.0.1:11434', models: [{name: 'qwen3:8b', sizeBytes: 5e9, expiresAt: '2026-12-01T10:04:00Z'}]});
		store.publish();
		expect(store.publishes()).toBe(n + 1);
		store.dispatch(seen(12_000, '0.12.3'));
		store.publish();
		expect(store.publishes()).toBe(n + 2);
	});

	it('the system state is compared at the resolution it is shown', () => {
		const a = {...emptySystem(), cpuLoadPct: 12.34, memory: {usedBytes: 8_123_456_789, totalBytes: 16e9}, self: {cpuPct: 0.81, rssBytes: 101_234_567}, updatedAt: 1};
		const b = {...a, cpuLoadPct: 12.31, memory: {usedBytes: 8_124_000_000, totalBytes: 16e9}, self: {cpuPct: 0.84, rssBytes: 101_299_999}, updatedAt: 2};
		expect(systemKey(b)).toBe(systemKey(a));
		expect(systemKey({...b, self: {...b.self, cpuPct: 0.9}})).not.toBe(systemKey(a));
		expect(systemKey({...b, memory: {...b.memory, usedBytes: 8_200_000_000}})).not.toBe(systemKey(a));
	});

	it('while no log is on screen, a log line (and the GET it logged) publishes nothing; the log coming into view publishes it', () => {
		const id = 'http://127.0.0.1:11434';
		const store = createStore({now: 0});
		store.dispatch(seen(0));
		store.publish();
		const gin = (t: number): Action[] => [
			{type: 'log-line', serverId: id, t, text: `[GIN] 2026/12/01 - 12:00:0${t} | 200 | 300µs | 127.0.0.1 | GET "/api/ps"`, parsed: true},
			{type: 'engine-event', serverId: id, t, event: {type: 'http', method: 'GET', path: '/api/ps', status: 200, client: '127.0.0.1'}},
		];
		store.setLogShown(false);
		const n = store.publishes();
		for (let t = 1; t <= 5; t++) {
			for (const a of gin(t)) store.dispatch(a);
			store.publish();
		}
		expect(store.publishes()).toBe(n);
		// the state has the lines; the screen has not been asked to show them
		expect(store.getSnapshot().servers[id]!.log).toHaveLength(5);
		expect(store.getSnapshot().servers[id]!.httpCount).toBe(5);
		expect(store.getPublished().servers[id]!.log).toHaveLength(0);
		// the log comes into view: published at once, with every line
		store.setLogShown(true);
		expect(store.publishes()).toBe(n + 1);
		expect(store.getPublished().servers[id]!.log).toHaveLength(5);
		// shown: each line publishes
		for (const a of gin(6)) store.dispatch(a);
		store.publish();
		expect(store.publishes()).toBe(n + 2);
		// hidden again: a change beyond the log (its models) still publishes
		store.setLogShown(false);
		store.dispatch({type: 'server-models', t: 7, serverId: id, models: [{name: 'qwen3:8b', sizeBytes: 5e9}]});
		store.publish();
		expect(store.publishes()).toBe(n + 3);
	});
});
