import {describe, expect, it} from 'vitest';
import {initialState, reduce, MAX_LOG_LINES} from '../../source/model/reducer.js';
import {deriveServer} from '../../source/model/derive.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import {appendLog, emptyLog, logLines, logTail, type LogRing} from '../../source/model/log-ring.js';

const run = (actions: Action[], s: MonitorState = initialState({now: 1000})) => actions.reduce(reduce, s);
const seen = (id: string, t = 1000): Action => ({type: 'server-seen', t, server: {id, engine: 'llamacpp', url: id, source: 'flag'}});

describe('reducer', () => {
	it('merges the lines of one request by key and keeps interleaved slots apart', () => {
		const id = 'http://127.0.0.1:8080';
		const s = run([
			seen(id),
			{type: 'engine-event', serverId: id, t: 1001, event: {type: 'request', key: 's0/t1', started: true}},
			{type: 'engine-event', serverId: id, t: 1002, event: {type: 'request', key: 's1/t2', started: true}},
			{type: 'engine-event', serverId: id, t: 1003, event: {type: 'request', key: 's0/t1', generatedTokens: 128, decodedTokens: 127, decodeMs: 2888.32}},
			{type: 'engine-event', serverId: id, t: 1004, event: {type: 'request', key: 's1/t2', generatedTokens: 64, decodedTokens: 63, decodeMs: 1218.25}},
			{type: 'engine-event', serverId: id, t: 1005, event: {type: 'request', key: 's0/t1', accepted: 99, drafted: 221, engineMeanLen: 4.54}},
			{type: 'engine-event', serverId: id, t: 1006, event: {type: 'request', key: 's0/t1', done: true}},
			{type: 'engine-event', serverId: id, t: 1007, event: {type: 'request', key: 's1/t2', accepted: 50, drafted: 99, done: true}},
			{type: 'tick', t: 2000},
		]);
		const reqs = s.servers[id]!.requests;
		expect(reqs.map(r => [r.key, r.decodedTokens, r.accepted, r.done])).toEqual([['s0/t1', 127, 99, true], ['s1/t2', 63, 50, true]]);
		expect(s.servers[id]!.history).toHaveLength(2);
		const [fig] = deriveServer(s, id);
		// Σdecoded / Σpasses = (127 + 63) / (28 + 13)
		expect(fig!.tokensPerPass).toBeCloseTo(190 / 41, 10);
		expect(fig!.acceptance).toBeCloseTo(149 / 320, 10);
	});

	it('STALE keeps the last figures; RESTARTED is a state, not a negative rate', () => {
		const id = 'http://127.0.0.1:11434';
		let s = run([seen(id), {type: 'server-models', t: 1100, serverId: id, models: [{name: 'm', sizeBytes: 100, sizeVramBytes: 100, processor: '100% GPU'}]}]);
		s = reduce(s, {type: 'server-lost', t: 1200, serverId: id, error: 'connection refused'});
		expect(s.servers[id]!.state).toBe('stale');
		expect(s.servers[id]!.models).toHaveLength(1);
		s = reduce(s, {type: 'server-restarted', t: 1300, serverId: id});
		expect(s.servers[id]!.state).toBe('restarted');
		s = reduce(s, {type: 'server-lost', t: 1400, serverId: id, error: 'x'});
		s = reduce(s, seen(id, 1500));
		expect(s.servers[id]!.state).toBe('up');
	});

	it('the log ring is capped and counts parsed and unparsed lines', () => {
		const id = 'log:x';
		let s = initialState();
		for (let i = 0; i < MAX_LOG_LINES + 50; i++) s = reduce(s, {type: 'log-line', serverId: id, t: i, text: `l${i}`, parsed: i % 2 === 0});
		expect(s.servers[id]!.log).toHaveLength(MAX_LOG_LINES);
		expect(logLines(s.servers[id]!.log).at(-1)!.text).toBe(`l${MAX_LOG_LINES + 49}`);
		expect(s.servers[id]!.linesParsed + s.servers[id]!.linesUnparsed).toBe(MAX_LOG_LINES + 50);
	});

	it('the log ring: earlier states never change, one arena for all of them, no copy per line', () => {
		const cap = 4;
		const line = (i: number) => ({t: i, text: `l${i}`, parsed: false});
		const states: LogRing[] = [emptyLog()];
		for (let i = 0; i < 20; i++) states.push(appendLog(states.at(-1)!, line(i), cap));
		// every state still reads what it read when it was made
		states.forEach((r, n) => expect(logLines(r).map(l => l.t)).toEqual(Array.from({length: Math.min(n, cap)}, (_, k) => n - Math.min(n, cap) + k)));
		// consecutive states share one arena (appended to, not copied): 20 appends, one arena made by the first
		const shared = states.slice(1).filter((r, i) => r.arena === states[i]!.arena).length;
		expect(shared).toBe(19);
		expect(states[20]!.arena!.at.length).toBe(64);
		// a branch from an older state copies instead of writing over the newer state's line
		const old = states[10]!;
		const branch = appendLog(old, line(99), cap);
		expect(logLines(branch).map(l => l.t)).toEqual([7, 8, 9, 99]);
		expect(logLines(states[11]!).map(l => l.t)).toEqual([7, 8, 9, 10]);
		expect(logTail(states[20]!, 2, 1).map(l => l.t)).toEqual([17, 18]);
		expect(logLines(emptyLog())).toEqual([]);
	});

	it('the demo keeps its label when discovery sees it as an Ollama', () => {
		const id = 'http://127.0.0.1:5555';
		const s = run([
			{type: 'server-seen', t: 1, server: {id, engine: 'ollama', url: id, source: 'demo', demo: true}},
			{type: 'server-seen', t: 2, server: {id, engine: 'ollama', url: id, source: 'port-scan'}},
		]);
		expect(s.servers[id]!.engine).toBe('ollama');
		expect(s.servers[id]!.demo).toBe(true);
	});

	it('snapshot: unknown figures are null, never 0', () => {
		const id = 'http://127.0.0.1:8080';
		const s = run([seen(id), {type: 'server-models', t: 1100, serverId: id, models: [{name: 'm'}]}]);
		const snap = toSnapshot(s, '0.0.0');
		expect(snap.models[0]).toMatchObject({decodeTps: null, tokensPerPass: null, acceptance: null, ceilingTps: null, gpuResidency: null, engine: 'llamacpp'});
		expect(snap.servers[0]).toMatchObject({engine: 'llamacpp', url: id, state: 'up', source: 'flag'});
	});

	it('a named server that never answered is down with its reason; its log does not bring it up, the server does', () => {
		const id = 'http://127.0.0.1:9';
		const down: Action = {type: 'server-down', t: 1000, server: {id, engine: 'openai', url: id, source: 'flag'}, error: 'connection refused'};
		let s = run([down]);
		expect(s.order).toEqual([id]);
		expect(s.servers[id]).toMatchObject({state: 'down', lastError: 'connection refused', url: id, source: 'flag'});
		// The log's engine detection: still down, reason kept.
		s = reduce(s, {type: 'server-seen', t: 1001, server: {id, engine: 'ollama', source: 'log'}});
		expect(s.servers[id]).toMatchObject({state: 'down', lastError: 'connection refused', engine: 'ollama'});
		// Another reason replaces the first.
		s = reduce(s, {...down, t: 1002, error: 'no answer within 800 ms'});
		expect(s.servers[id]!.lastError).toBe('no answer within 800 ms');
		// Discovery identifies it: up, reason gone.
		s = reduce(s, {type: 'server-seen', t: 1003, server: {id, engine: 'ollama', url: id, source: 'flag'}});
		expect(s.servers[id]).toMatchObject({state: 'up', lastError: undefined});
		// A later server-down (a stale entry is the poller's business) changes nothing once it answered and went stale.
		s = reduce(s, {type: 'server-lost', t: 1004, serverId: id, error: 'connection reset'});
		s = reduce(s, {...down, t: 1005});
		expect(s.servers[id]).toMatchObject({state: 'stale', lastError: 'connection reset'});
		expect(toSnapshot(run([down]), '0.0.0').servers[0]).toMatchObject({state: 'down', lastError: 'connection refused'});
	});

	it('server-removed drops an entry with all it counted (a named log that was a found server\'s own), and nothing else', () => {
		const log = 'log:server.log';
		const srv = 'http://127.0.0.1:18280';
		let s = run([
			{type: 'server-seen', t: 1000, server: {id: log, engine: 'llamacpp', source: 'log', logLabel: 'server.log'}},
			{type: 'engine-event', serverId: log, t: 1000, event: {type: 'request', key: 'task 0', generatedTokens: 32, done: true}},
			seen(srv),
		]);
		expect(s.servers[log]!.requestsSeen).toBe(1);
		s = reduce(s, {type: 'server-removed', serverId: log});
		expect(s.order).toEqual([srv]);
		expect(Object.keys(s.servers)).toEqual([srv]);
		expect(toSnapshot(s, '0.0.0').requests).toEqual([]);
		expect(reduce(s, {type: 'server-removed', serverId: log})).toBe(s);
	});
});

describe('the demo is one engine name', () => {
	it('a demo server is engine ollama with demo: true, and the state says demo once it is seen', () => {
		let s = initialState({host: 'h', now: 1});
		expect(s.demo).toBe(false);
		s = reduce(s, {type: 'server-seen', t: 2, server: {id: 'http://127.0.0.1:1', engine: 'ollama', url: 'http://127.0.0.1:1', source: 'demo', demo: true}});
		expect(s.demo).toBe(true);
		expect(s.servers['http://127.0.0.1:1']).toMatchObject({engine: 'ollama', demo: true});
	});
});
