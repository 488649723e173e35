/**
 * The agent view's derivation runs every second on a busy ring (the exporter's look, the footer's
 * findings, --notify). It keeps the timelines of the records still in the ring since the last look
 * and answers the free-slot test from an index built once per derivation (issue 32): the sessions
 * must be exactly those of working everything out anew with the linear scan, and the work of one
 * derivation must be bounded by what changed and the ring, whatever number of requests came before.
 */
import {describe, expect, it} from 'vitest';
import {reduce} from '../../source/model/reducer.js';
import {serverSessions, sessionsOfServer, sessionsWork} from '../../source/model/sessions.js';
import type {MonitorState} from '../../source/types/state.js';
import {agentTraffic, applyUntil, rng, T0, trafficState} from '../helpers/agent-traffic.js';

describe('kept timelines and the free-slot index = everything worked out anew', () => {
	for (const [name, options, every] of [
		['two agents on two models at once, 20 growing turns each, a batch of 12 on 4 slots, a restart that reuses keys', {}, 1500],
		['three sessions an agent, 40 turns each: the ring (200) drops the oldest turns', {sessions: 3, turns: 40, seed: 5}, 6000],
	] as const) {
		it(name, {timeout: 120_000}, () => {
			const events = agentTraffic(options);
			const st = {state: trafficState()};
			let i = 0;
			let compared = 0;
			let freeSlot = 0;
			let retries = 0;
			const kinds = new Set<string>();
			for (let now = T0; i < events.length; now += every) {
				i = applyUntil(st, events, i, now);
				for (const id of ['llama', 'ollama']) {
					const server = st.state.servers[id]!;
					for (const gap of [60_000, 5000]) {
						const kept = serverSessions(server, gap);
						const anew = serverSessions(server, gap, false);
						expect(kept).toStrictEqual(anew);
						expect(sessionsOfServer(server, gap)).toStrictEqual(anew);
						for (const s of kept.sessions) {
							for (const t of s.turns) {
								compared++;
								retries += t.retries;
								if (t.queueMs === 0 && t.retries === 0 && server.engine === 'llamacpp') freeSlot++;
								for (const f of t.findings) kinds.add(f.kind);
							}
						}
					}
				}
			}
			// what the comparison covered: slot waits known 0 by the free-slot test, refused tries, the findings
			expect(compared).toBeGreaterThan(1000);
			expect(freeSlot).toBeGreaterThan(100);
			expect(retries).toBeGreaterThan(10);
			for (const k of ['cache-miss', 'truncated', 'context-shifted', 'queued', 'spilled-to-cpu']) expect(kinds).toContain(k);
		});
	}
});

describe('kept = anew on rough input', () => {
	it('ends at the same millisecond, requests without a start line, keys reused, backlog and earlier lines, refused tries, two models', {timeout: 60_000}, () => {
		const rand = rng(29);
		const st = {state: trafficState()};
		let now = T0;
		let compared = 0;
		for (let step = 0; step < 150; step++) {
			now += Math.floor(rand() * 3000);
			for (let k = Math.floor(rand() * 5); k > 0; k--) {
				const key = `s${Math.floor(rand() * 3)}/t${Math.floor(rand() * 40)}`;
				const at = rand() < 0.05 ? 'earlier' : rand() < 0.1 ? 'backlog' : undefined;
				// whole seconds now and then: several requests end at the same millisecond
				const end = rand() < 0.3 ? Math.floor(now / 1000) * 1000 : now - Math.floor(rand() * 800);
				if (rand() < 0.7) st.state = reduce(st.state, {type: 'engine-event', serverId: 'llama', t: end - 200 - Math.floor(rand() * 2000), event: {type: 'request', key, started: true}, ...(at ? {at} : {})});
				const prompt = 500 + Math.floor(rand() * 8000);
				st.state = reduce(st.state, {type: 'engine-event', serverId: 'llama', t: end, event: {type: 'request', key, done: true, model: rand() < 0.5 ? 'qwen' : 'gemma', promptTokens: prompt, cachedTokens: Math.floor(prompt * rand()), prefillMs: rand() < 0.8 ? 20 + rand() * 900 : undefined, decodeMs: 50 + rand() * 3000, generatedTokens: 1 + Math.floor(rand() * 300), ...(rand() < 0.2 ? {queueMs: Math.floor(rand() * 500)} : {})}, ...(at ? {at} : {})});
				if (rand() < 0.1) st.state = reduce(st.state, {type: 'engine-event', serverId: 'ollama', t: end, event: {type: 'busy', status: 429, reason: 'busy', client: rand() < 0.5 ? '10.0.0.7' : undefined}});
				if (rand() < 0.3) st.state = reduce(st.state, {type: 'engine-event', serverId: 'ollama', t: end, event: {type: 'request', key: `o${step}-${k}`, done: true, model: 'llama3.2', client: rand() < 0.5 ? '10.0.0.7' : undefined, promptTokens: prompt, cachedTokens: 0, prefillMs: 100, decodeMs: 900, accessMs: rand() < 0.7 ? 1000 + Math.floor(rand() * 900) : undefined}});
			}
			st.state = reduce(st.state, {type: 'tick', t: now});
			for (const id of ['llama', 'ollama']) {
				const server = st.state.servers[id]!;
				const kept = serverSessions(server, 20_000);
				expect(kept).toStrictEqual(serverSessions(server, 20_000, false));
				compared += kept.sessions.length;
			}
		}
		expect(compared).toBeGreaterThan(300);
	});
});

/**
 * llama-server with 4 slots, one agent's growing turns one after the other (a slot free between
 * them: the free-slot test looks at every other request) and, every fifth, a side request beside
 * it: `perTick` requests finish between two looks. Returns, per look, the derivation's work.
 */
function steadyTraffic(total: number, perTick: number, reuse: boolean): {finished: number; turns: number; ring: number; timelines: number; slotSteps: number; held: number}[] {
	const rand = rng(3);
	let state: MonitorState = trafficState();
	const slotFree = [T0, T0, T0, T0];
	let now = T0;
	let prompt = 1000;
	const looks: {finished: number; turns: number; ring: number; timelines: number; slotSteps: number; held: number}[] = [];
	for (let n = 0; n < total;) {
		let finished = 0;
		for (let k = 0; k < perTick && n < total; k++, n++) {
			const side = n % 5 === 4;
			const slot = side ? 1 + (n % 3) : 0;
			const start = side ? Math.max(now, slotFree[slot]!) : Math.max(now, slotFree[0]!) + 20 + Math.floor(rand() * 100);
			const prefillMs = 50 + Math.floor(rand() * 200);
			const decodeMs = 100 + Math.floor(rand() * 500);
			const end = start + prefillMs + decodeMs;
			slotFree[slot] = end;
			if (side) slotFree[0] = Math.max(slotFree[0]!, end);
			const key = `s${slot}/t${n}`;
			state = reduce(state, {type: 'engine-event', serverId: 'llama', t: start, event: {type: 'request', key, started: true, slot}});
			state = reduce(state, {type: 'engine-event', serverId: 'llama', t: end, event: {type: 'request', key, done: true, promptTokens: prompt + 300, cachedTokens: prompt, prefillTokens: 300, prefillMs, decodeMs, generatedTokens: 50}});
			prompt += 300;
			finished++;
		}
		now = Math.max(now + 1000, ...slotFree);
		state = reduce(state, {type: 'tick', t: now});
		const server = state.servers.llama!;
		const before = {...sessionsWork};
		const view = reuse ? sessionsOfServer(server) : serverSessions(server, undefined, false);
		const turns = view.sessions.reduce((a, s) => a + s.turns.length, 0);
		looks.push({finished, turns, ring: server.requests.length, timelines: sessionsWork.timelines - before.timelines, slotSteps: sessionsWork.slotSteps - before.slotSteps, held: sessionsWork.held});
		// a second look at the same ring derives nothing
		if (reuse) {
			const derives = sessionsWork.derives;
			expect(sessionsOfServer(server)).toBe(view);
			expect(sessionsWork.derives).toBe(derives);
		}
	}
	return looks;
}

describe('the work of a derivation is bounded by what changed, whatever came before (structure, not time)', () => {
	// ⌈log2(ring + 1)⌉ binary-search steps per turn at most: 8 for a ring of 200.
	const steps = (ring: number) => Math.ceil(Math.log2(ring + 1));

	it('after 300 or 3,000 requests: a timeline per request that finished since the last look, a binary search per turn', () => {
		for (const total of [300, 3000]) {
			const looks = steadyTraffic(total, 10, true);
			expect(looks.length).toBe(total / 10);
			for (const l of looks) {
				// every request that finished since the last look, never the whole ring again
				expect(l.timelines).toBe(l.finished);
				expect(l.slotSteps).toBeLessThanOrEqual(l.turns * steps(l.ring));
			}
			const last = looks.at(-1)!;
			// the ring is full (200 kept of `total`) and a session holds its last 100 turns
			expect(last.ring).toBe(200);
			expect(last.turns).toBe(100);
		}
	});

	it('keeps for the next derivation only the timelines of records the ring will still hold then', () => {
		// 10 a look into a full ring of 200: the 190 newest are kept (the 10 oldest will be gone)
		const slow = steadyTraffic(300, 10, true);
		expect(slow.at(-1)!.held).toBe(190);
		// 250 a look (a busy log: the ring turns over between looks): none is kept, so none outlives
		// the young generation waiting for a look that will not use it; every one is worked out once
		const busy = steadyTraffic(1000, 250, true);
		for (const l of busy.slice(1)) {
			expect(l.held).toBe(0);
			expect(l.timelines).toBe(l.ring);
		}
		// 100 a look: the 100 newest of the 200 are kept, and the next look works out only its 100
		const half = steadyTraffic(1000, 100, true);
		for (const l of half.slice(2)) {
			expect(l.held).toBe(100);
			expect(l.timelines).toBe(l.finished);
		}
	});

	it('working everything out anew (the scan) costs turns × ring, which the bound above would catch', () => {
		const looks = steadyTraffic(300, 10, false);
		const last = looks.at(-1)!;
		expect(last.timelines).toBe(last.ring);
		expect(last.slotSteps).toBeGreaterThan(last.turns * steps(last.ring) * 5);
	});
});
