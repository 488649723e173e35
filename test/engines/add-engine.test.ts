/**
 * Adding an engine is one file and one registry line (docs/architecture.md, "Adding an engine"):
 * a made-up engine, Acme (test/fixtures/engines/acme.ts), gets its line in the registry this test
 * loads — and is then discovered (fingerprint and process rule), parsed (its log lines, found by
 * detection too), polled (its poll plan) and probed (its protocol and its own answer block) by the
 * code every real engine goes through, against a scripted server on 127.0.0.1. No other file knows it.
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest';
import type {EngineKind} from '../../source/types/events.js';
import {createParser, engineOf, ENGINE_KINDS, ENGINE_LABELS, ENGINE_PROCESS_NAMES, engineProcessKind, FINGERPRINT_PATHS, isEngineCandidate} from '../../source/engines/index.js';
import {fingerprint} from '../../source/sources/discovery/fingerprint.js';
import {engineOfProcess, findEngineProcesses} from '../../source/sources/discovery/processes.js';
import {pollServer} from '../../source/sources/discovery/pollers.js';
import {loadPrompt} from '../../source/probe/prompts.js';
import {runProbe} from '../../source/probe/run.js';
import {openaiStream, startServer, type TestServer} from '../helpers/probe-server.js';

// The one registry line (engines/registry.ts), added before the catch-all `openai` as that file says.
vi.mock('../../source/engines/registry.js', async (importOriginal) => {
	const {REGISTRY} = await importOriginal<typeof import('../../source/engines/registry.js')>();
	const {acme} = await import('../fixtures/engines/acme.js');
	return {REGISTRY: [...REGISTRY.slice(0, -1), acme, REGISTRY[REGISTRY.length - 1]]};
});

const ACME = 'acme' as EngineKind;
const STATUS = {engine: 'acme', version: '1.2.3', models: [{name: 'acme-7b', context: 8192}]};

let server: TestServer;
beforeAll(async () => {
	server = await startServer({
		'GET /acme/status': (_req, res) => {
			res.writeHead(200, {'content-type': 'application/json'});
			res.end(JSON.stringify(STATUS));
		},
		'POST /acme/chat': openaiStream(64, {
			usage: {prompt_tokens: 120, completion_tokens: 64, total_tokens: 184},
			final: {acme_stats: {drafted: 60, accepted: 44, tokens_per_second: 80}},
		}),
	});
});
afterAll(async () => {
	await server.close();
});

describe('a made-up engine added in one file and one registry line', () => {
	it('is in the registry: its kind (before the catch-all), label, process name and fingerprint path', () => {
		expect(ENGINE_KINDS).toContain(ACME);
		expect(ENGINE_KINDS[ENGINE_KINDS.length - 1]).toBe('openai');
		expect(ENGINE_LABELS[ACME]).toBe('Acme');
		expect(engineOf(ACME).label).toBe('Acme');
		expect(ENGINE_PROCESS_NAMES).toContain('acme-server');
		expect(FINGERPRINT_PATHS).toContain('/acme/status');
	});

	it('is discovered: its fingerprint rule identifies the server; its process rule finds its process', async () => {
		const r = await fingerprint(server.url, {timeoutMs: 5000});
		expect(r.identity).toEqual({engine: 'acme', version: '1.2.3', models: ['acme-7b']});
		expect(server.requests.some((q) => q.method === 'GET' && q.path === '/acme/status')).toBe(true);

		expect(isEngineCandidate('acme-server')).toBe(true);
		expect(engineProcessKind('acme-server', '/opt/acme/bin/acme-server --port 7777')).toBe('acme');
		expect(engineOfProcess('acme-server', '/opt/acme/bin/acme-server --port 7777')).toBe('acme');
		expect(engineProcessKind('vim', 'vim acme-notes.md')).toBeUndefined();
		expect(findEngineProcesses([{pid: 4242, name: 'acme-server', command: '/opt/acme/bin/acme-server', params: '--port 7777'}])).toEqual([
			{pid: 4242, engine: 'acme', name: 'acme-server', commandLine: '/opt/acme/bin/acme-server --port 7777', ports: [7777]},
		]);
	});

	it('is parsed: its lines become events, and a log nobody named is detected as its own', () => {
		const lines = [
			'acme 2026-08-21 10:00:00 listening on http://127.0.0.1:7777 (acme 1.2.3)',
			'acme 2026-08-21 10:00:01 request 7: prompt=120 cached=100 generated=64 passes=20 decode_ms=800',
			'acme 2026-08-21 10:00:02 request 8: prompt=-5 cached=0 generated=3 passes=3 decode_ms=40',
		];
		const parser = createParser(ACME);
		expect(parser.engine).toBe('acme');
		expect(lines.map((l) => parser.push(l))).toEqual([
			[{type: 'server-start', listen: 'http://127.0.0.1:7777', version: '1.2.3'}],
			[{type: 'request', key: 'acme#7', started: true, done: true, promptTokens: 120, cachedTokens: 100, generatedTokens: 64, passes: 20, decodeMs: 800}],
			[
				{type: 'request', key: 'acme#8', started: true, done: true, cachedTokens: 0, generatedTokens: 3, passes: 3, decodeMs: 40},
				{type: 'inconsistent', reason: 'prompt=-5 is negative'},
			],
		]);
		const detecting = createParser();
		expect(detecting.push(lines[0]!)).toEqual([]);
		expect(detecting.push(lines[1]!)).toEqual([]);
		const all = detecting.push(lines[2]!);
		expect(detecting.detected).toBe('acme');
		expect(all?.filter((e) => e.type === 'request').map((e) => (e.type === 'request' ? e.key : ''))).toEqual(['acme#7', 'acme#8']);
	});

	it('is polled: its poll plan asks its own path and reads models and version', async () => {
		const r = await pollServer(ACME, {url: server.url, timeoutMs: 5000, checkIdentity: true});
		expect(r).toEqual({ok: true, models: [{name: 'acme-7b', contextLength: 8192}], version: '1.2.3', marker: {version: '1.2.3'}});
	});

	it('is probed: its protocol and path, and its own answer block gives tokens per pass', async () => {
		const {result, plan} = await runProbe({
			target: {url: server.url, engine: ACME, model: 'acme-7b'},
			prompt: await loadPrompt('code'),
			maxTokens: 64,
			timeouts: {firstTokenMs: 5000, interTokenMs: 3000},
		});
		expect(plan).toEqual({protocol: 'openai-chat', path: '/acme/chat'});
		const sent = server.requests.find((q) => q.method === 'POST');
		expect(sent?.path).toBe('/acme/chat');
		expect(result).toMatchObject({
			engine: 'acme',
			protocol: 'openai-chat',
			completionTokens: 64,
			promptTokens: 120,
			reportedTps: 80,
			drafted: 60,
			accepted: 44,
			passes: 20,
			tokensPerPass: 3.2,
			tokensPerPassSource: 'acme stats',
		});
		expect(result.acceptance).toBeCloseTo(44 / 60, 10);
	});
});
