import {afterEach, describe, expect, it} from 'vitest';
import type {Action, MonitorState} from '../../../source/types/state.js';
import {initialState, reduce} from '../../../source/model/reducer.js';
import {createDiscovery, discoverOnce, type Discovery} from '../../../source/sources/discovery/discovery.js';
import type {EngineProcess, ProcessFinder} from '../../../source/sources/discovery/processes.js';
import {PROBE_PATHS} from '../../../source/sources/discovery/fingerprint.js';
import {freePort, startFake, startSilent, waitFor, type Fake} from '../../helpers/fake-engines.js';

const noProcesses: ProcessFinder = {find: async () => [], lastError: () => undefined};

function finderOf(list: EngineProcess[]): ProcessFinder {
	return {find: async () => list, lastError: () => undefined};
}

/** Dispatch into the real reducer, keeping every action too. */
function harness() {
	let state: MonitorState = initialState({now: 0});
	const actions: Action[] = [];
	return {
		actions,
		state: () => state,
		dispatch: (a: Action) => {
			actions.push(a);
			state = reduce(state, a);
		},
	};
}

describe('discovery', () => {
	const cleanup: (() => Promise<void>)[] = [];
	let discovery: Discovery | undefined;
	afterEach(async () => {
		await discovery?.stop();
		discovery = undefined;
		for (const c of cleanup.splice(0)) await c();
	});

	async function fake(kind: Parameters<typeof startFake>[0], opts?: Parameters<typeof startFake>[1]): Promise<Fake> {
		const f = await startFake(kind, opts);
		cleanup.push(() => f.close());
		return f;
	}

	it('rounds that find nothing new come less often (quietIntervalMs); a new engine brings the base pace back', async () => {
		let rounds = 0;
		const counting: ProcessFinder = {find: async () => (rounds++, []), lastError: () => undefined};
		const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
		const closed = await freePort();
		const fixed = createDiscovery({dispatch: () => undefined, ports: [closed], hosts: ['127.0.0.1'], processFinder: counting, intervalMs: 20, connectTimeoutMs: 500});
		fixed.start();
		await sleep(1300);
		await fixed.stop();
		const fixedRounds = rounds;
		rounds = 0;
		const h = harness();
		const later = await freePort();
		discovery = createDiscovery({dispatch: h.dispatch, ports: [closed, later], hosts: ['127.0.0.1'], processFinder: counting, intervalMs: 20, quietIntervalMs: 5000, connectTimeoutMs: 500, pollIntervalMs: 50});
		discovery.start();
		await sleep(1300);
		// 20, 40, 80, 160, 320, 640 ms…
		expect(rounds).toBeLessThanOrEqual(9);
		expect(fixedRounds).toBeGreaterThan(2 * rounds);
		// an engine appears on a scanned port: found at the next round (within the grown wait), then the pace is the base again
		await fake('ollama', {port: later});
		await waitFor(() => Object.keys(h.state().servers).length === 1, 'the new engine', 8000);
		const n = rounds;
		await waitFor(() => rounds >= n + 1, 'the next round at the base pace', 500);
	});

	it('finds every engine on the scanned ports, ignores what is not one, and says what it looked for', async () => {
		const ollama = await fake('ollama', {state: {ps: {models: [{name: 'qwen3:8b', size: 6_000_000_000, size_vram: 6_000_000_000, details: {format: 'gguf'}}]}}});
		const llama = await fake('llamacpp');
		const localai = await fake('localai');
		const nginx = await fake('nginx404');
		const silent = await startSilent();
		cleanup.push(() => silent.close());
		const closed = await freePort();
		const ports = [ollama.port, llama.port, localai.port, nginx.port, silent.port, closed];
		const h = harness();
		discovery = createDiscovery({dispatch: h.dispatch, ports, hosts: ['127.0.0.1'], processFinder: noProcesses, intervalMs: 200, pollIntervalMs: 50, fingerprintTimeoutMs: 2000, connectTimeoutMs: 1000});
		discovery.start();
		const s = () => h.state().servers;
		await waitFor(() => Object.keys(s()).length === 3, 'three servers');
		expect(s()[ollama.url]).toMatchObject({engine: 'ollama', state: 'up', source: 'port-scan', version: '0.33.0-rc2'});
		expect(s()[llama.url]).toMatchObject({engine: 'llamacpp', version: 'b10587-3f545be'});
		expect(s()[localai.url]?.engine).toBe('localai');
		await waitFor(() => (s()[ollama.url]?.models.length ?? 0) === 1, 'ollama models');
		expect(s()[ollama.url]?.models[0]).toMatchObject({name: 'qwen3:8b', processor: '100% GPU'});
		await waitFor(() => (s()[llama.url]?.models.length ?? 0) === 1, 'llama models');
		expect(s()[llama.url]?.models[0]).toMatchObject({slots: 2, contextPerSlot: 1024});
		expect(h.state().lookedFor?.ports).toEqual(ports);
		expect(h.state().lookedFor?.processes).toContain('llama-server');
		expect(discovery.servers().map((x) => x.engine).sort()).toEqual(['llamacpp', 'localai', 'ollama']);
		// A known server is not fingerprinted again on the next rounds.
		const rootHits = () => ollama.requests.filter((r) => r.path === '/').length;
		const before = rootHits();
		await discovery.refresh();
		await discovery.refresh();
		expect(rootHits()).toBe(before);
	});

	it('a server that stops is STALE with its last figures; started again on the same port it is up again', async () => {
		let ollama = await fake('ollama', {state: {ps: {models: [{name: 'gemma4:latest', size: 9_600_000_000, size_vram: 9_600_000_000, details: {format: 'gguf'}}]}}});
		const port = ollama.port;
		const h = harness();
		discovery = createDiscovery({dispatch: h.dispatch, ports: [port], hosts: ['127.0.0.1'], processFinder: noProcesses, intervalMs: 100, pollIntervalMs: 40, fingerprintTimeoutMs: 2000, pollTimeoutMs: 2000});
		discovery.start();
		const id = `http://127.0.0.1:${port}`;
		const server = () => h.state().servers[id];
		await waitFor(() => server()?.models.length === 1, 'models');
		await ollama.close();
		await waitFor(() => server()?.state === 'stale', 'stale');
		expect(server()?.models[0]?.name).toBe('gemma4:latest');
		expect(server()?.lastError).toBeTruthy();
		ollama = await fake('ollama', {port, state: {ps: {models: []}}});
		await waitFor(() => server()?.state === 'up' && server()?.models.length === 0, 'back up with new models');
		expect(Object.keys(h.state().servers)).toEqual([id]);
	});

	it('restart with reset counters (new version) shows RESTARTED', async () => {
		let ollama = await fake('ollama');
		const port = ollama.port;
		const h = harness();
		discovery = createDiscovery({dispatch: h.dispatch, ports: [port], hosts: ['127.0.0.1'], processFinder: noProcesses, intervalMs: 100, pollIntervalMs: 40, fingerprintTimeoutMs: 2000, pollTimeoutMs: 2000});
		discovery.start();
		const id = `http://127.0.0.1:${port}`;
		await waitFor(() => h.state().servers[id]?.state === 'up', 'up');
		expect(h.state().servers[id]?.version).toBe('0.33.0-rc2');
		await ollama.close();
		await waitFor(() => h.state().servers[id]?.state === 'stale', 'stale');
		ollama = await fake('ollama', {port, state: {version: '0.34.0'}});
		await waitFor(() => h.state().servers[id]?.state === 'restarted', 'restarted');
		expect(h.state().servers[id]?.version).toBe('0.34.0');
	});

	it('a different engine on a lost server\'s port replaces it', async () => {
		const first = await fake('ollama');
		const port = first.port;
		const h = harness();
		discovery = createDiscovery({dispatch: h.dispatch, ports: [port], hosts: ['127.0.0.1'], processFinder: noProcesses, intervalMs: 60, pollIntervalMs: 40, fingerprintTimeoutMs: 2000, pollTimeoutMs: 2000});
		discovery.start();
		const id = `http://127.0.0.1:${port}`;
		await waitFor(() => h.state().servers[id]?.engine === 'ollama', 'ollama');
		await first.close();
		await waitFor(() => h.state().servers[id]?.state === 'stale', 'stale');
		await fake('vllm', {port});
		await waitFor(() => h.state().servers[id]?.engine === 'vllm', 'vllm on the same port');
		expect(discovery.servers()).toHaveLength(1);
	});

	it('named servers: API key only to that server, named first, not scanned twice; unanswering names give a notice', async () => {
		const named = await fake('vllm');
		const scanned = await fake('ollama');
		const nowhere = await freePort();
		const h = harness();
		discovery = createDiscovery({
			dispatch: h.dispatch,
			servers: [
				{url: `localhost:${named.port}/v1`, apiKey: 'k-123', source: 'flag'},
				{url: `http://127.0.0.1:${nowhere}`, source: 'config'},
			],
			ports: [scanned.port, named.port],
			hosts: ['127.0.0.1'],
			processFinder: noProcesses,
			intervalMs: 5000,
			pollIntervalMs: 50,
			fingerprintTimeoutMs: 2000,
		});
		discovery.start();
		const namedId = `http://127.0.0.1:${named.port}`;
		await waitFor(() => h.state().servers[namedId]?.engine === 'vllm' && h.state().servers[scanned.url] !== undefined, 'both');
		await waitFor(() => named.requests.some((r) => r.path === '/v1/models' && r.authorization !== undefined) && h.state().servers[namedId]!.models.length > 0, 'polled');
		expect(h.state().servers[namedId]).toMatchObject({source: 'flag', url: `http://localhost:${named.port}`});
		expect(named.requests.every((r) => r.authorization === 'Bearer k-123')).toBe(true);
		expect(scanned.requests.every((r) => r.authorization === undefined)).toBe(true);
		expect(discovery.servers()[0]?.id).toBe(namedId);
		await waitFor(() => h.state().notices.some((n) => n.text.includes(String(nowhere))), 'notice');
		expect(h.state().notices.find((n) => n.text.includes(String(nowhere)))?.text).toMatch(/connection refused/);
		// …and the unanswering name is listed, down with its reason, never dropped.
		const downId = `http://127.0.0.1:${nowhere}`;
		expect(h.state().servers[downId]).toMatchObject({state: 'down', lastError: 'connection refused', source: 'config', url: downId});
	});

	it('engine processes: their ports are scanned, the pid attached, a llama-server --log-file reported once', async () => {
		const llama = await fake('llamacpp');
		const proc: EngineProcess = {pid: 4242, engine: 'llamacpp', name: 'llama-server', commandLine: `llama-server -m m.gguf --port ${llama.port} --log-file /tmp/x.log`, ports: [llama.port], logFile: '/tmp/x.log'};
		const h = harness();
		const logs: [string, string][] = [];
		discovery = createDiscovery({dispatch: h.dispatch, ports: [], hosts: ['127.0.0.1'], processFinder: finderOf([proc]), intervalMs: 50, pollIntervalMs: 50, onLogFound: (id, path) => logs.push([id, path])});
		discovery.start();
		await waitFor(() => h.state().servers[llama.url] !== undefined, 'found through its process');
		expect(h.state().servers[llama.url]).toMatchObject({engine: 'llamacpp', source: 'process', pid: 4242});
		await discovery.refresh();
		await discovery.refresh();
		expect(logs).toEqual([[llama.url, '/tmp/x.log']]);
		expect(h.state().lookedFor).toMatchObject({ports: [llama.port], logs: ['/tmp/x.log']});
	});

	it('a port that is no engine is fingerprinted once, not every round (its access log stays quiet)', async () => {
		const nginx = await fake('nginx404');
		const h = harness();
		discovery = createDiscovery({dispatch: h.dispatch, ports: [nginx.port], hosts: ['127.0.0.1'], processFinder: noProcesses, fingerprintTimeoutMs: 2000});
		for (let i = 0; i < 4; i++) await discovery.refresh();
		expect(nginx.requests.length).toBe(PROBE_PATHS.length);
		expect(discovery.servers()).toEqual([]);
	});

	it('excludeUrls are never reported (the embedded demo engine)', async () => {
		const demo = await fake('ollama');
		const h = harness();
		const servers = await discoverOnce({dispatch: h.dispatch, ports: [demo.port], hosts: ['127.0.0.1'], processFinder: noProcesses, excludeUrls: [`http://localhost:${demo.port}/`]});
		expect(servers).toEqual([]);
		expect(demo.requests).toEqual([]);
	});

	it('discoverOnce returns the identified servers without leaving pollers behind', async () => {
		const a = await fake('lithos');
		const b = await fake('sglang');
		const servers = await discoverOnce({ports: [a.port, b.port], hosts: ['127.0.0.1'], processFinder: noProcesses});
		expect(servers.map((s) => [s.id, s.engine])).toEqual([[a.url, 'lithos'], [b.url, 'sglang']]);
		const count = a.requests.length;
		await new Promise((r) => setTimeout(r, 150));
		expect(a.requests.length).toBe(count);
	});

	it('start() returns at once and stop() ends a round stuck on a silent port', async () => {
		const silent = await startSilent();
		cleanup.push(() => silent.close());
		const h = harness();
		discovery = createDiscovery({dispatch: h.dispatch, ports: [silent.port], hosts: ['127.0.0.1'], processFinder: noProcesses, fingerprintTimeoutMs: 5000});
		const started = discovery.start();
		expect(started).toBeUndefined();
		expect(h.actions.some((a) => a.type === 'looked-for')).toBe(true);
		const d = discovery;
		discovery = undefined;
		const outcome = await Promise.race([d.stop().then(() => 'stopped'), new Promise((r) => setTimeout(() => r('stuck'), 3000))]);
		expect(outcome).toBe('stopped');
	});
});
