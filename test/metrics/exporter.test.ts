import net from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {RequestCounters, escapeLabelValue, renderMetrics, startMetricsServer, type MetricsServer} from '../../source/metrics/exporter.js';
import {deriveModels} from '../../source/model/derive.js';
import {newServer, reduce} from '../../source/model/reducer.js';
import type {ModelFigures} from '../../source/model/figure-table.js';
import type {MonitorState, RequestRecord, ServerState} from '../../source/types/state.js';
import {emptySystem} from '../../source/types/system.js';
import {emptyProbe, type ProbeResult} from '../../source/types/probe.js';

// ---------------------------------------------------------------------------------------------
// A small parser for the text exposition format 0.0.4, independent of the exporter's writer.

interface ParsedSample {
	name: string;
	labels: Record<string, string>;
	value: number;
}
interface Exposition {
	help: Map<string, string>;
	type: Map<string, string>;
	samples: ParsedSample[];
}

function parseExposition(text: string): Exposition {
	const out: Exposition = {help: new Map(), type: new Map(), samples: []};
	expect(text.endsWith('\n')).toBe(true);
	for (const line of text.split('\n')) {
		if (line === '') continue;
		const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
		if (meta) {
			const [, kind, name, rest] = meta;
			if (kind === 'HELP') out.help.set(name!, rest!.replace(/\\n/g, '\n').replace(/\\\\/g, '\\'));
			else {
				expect(['gauge', 'counter', 'untyped', 'histogram', 'summary']).toContain(rest);
				out.type.set(name!, rest!);
			}
			continue;
		}
		expect(line.startsWith('#')).toBe(false);
		const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$/.exec(line);
		if (!m) throw new Error(`bad sample line: ${JSON.stringify(line)}`);
		const labels: Record<string, string> = {};
		if (m[2]) {
			const body = m[2].slice(1, -1);
			let i = 0;
			while (i < body.length) {
				const key = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(body.slice(i));
				if (!key) throw new Error(`bad label at ${i} in ${body}`);
				i += key[0].length;
				let value = '';
				for (;;) {
					const ch = body[i];
					if (ch === undefined) throw new Error('unterminated label value');
					if (ch === '\\') {
						const next = body[i + 1];
						if (next === 'n') value += '\n';
						else if (next === '\\' || next === '"') value += next;
						else throw new Error(`bad escape \\${next}`);
						i += 2;
					} else if (ch === '"') {
						i++;
						break;
					} else {
						expect(ch).not.toBe('\n');
						value += ch;
						i++;
					}
				}
				labels[key[1]!] = value;
				if (body[i] === ',') i++;
			}
		}
		// A histogram's samples are its name plus _bucket, _sum or _count.
		const base = m[1]!.replace(/_(bucket|sum|count)$/, '');
		const family = out.type.has(m[1]!) ? m[1]! : out.type.get(base) === 'histogram' ? base : m[1]!;
		expect(out.type.has(family), `TYPE before ${m[1]}`).toBe(true);
		out.samples.push({name: m[1]!, labels, value: Number(m[3])});
	}
	return out;
}

const find = (e: Exposition, name: string, labels: Record<string, string> = {}): ParsedSample[] =>
	e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

// ---------------------------------------------------------------------------------------------
// Hand-built state

function server(id: string, over: Partial<ServerState> = {}): ServerState {
	return {...newServer({id, engine: 'llamacpp', source: 'flag'}), ...over};
}

function request(key: string, over: Partial<RequestRecord> = {}): RequestRecord {
	return {key, serverId: 's1', firstSeen: 1000, lastSeen: 2000, done: true, ...over};
}

function state(over: Partial<MonitorState> = {}): MonitorState {
	return {
		startedAt: 0,
		now: 10_000,
		host: 'test',
		demo: false,
		servers: {},
		order: [],
		bandwidth: {},
		system: emptySystem(),
		probe: emptyProbe(),
		refreshMs: 1000,
		notices: [],
		...over,
	};
}

const WEIRD_MODEL = 'qwen "3" \\ coder\nv2';

function sampleState(requests: RequestRecord[] = []): MonitorState {
	const probe = (over: Partial<ProbeResult>): ProbeResult => ({t: 1, engine: 'llamacpp', url: 'http://127.0.0.1:8080', protocol: 'openai-chat', prompt: 'code', ...over});
	return state({
		order: ['s1', 's2', 's3'],
		servers: {
			s1: server('s1', {url: 'http://127.0.0.1:8080', models: [{name: 'gemma-3-4b'}], requests}),
			s2: server('s2', {engine: 'ollama', url: 'http://127.0.0.1:11434', state: 'stale'}),
			s3: server('s3', {engine: 'vllm', source: 'log', state: 'log-only'}),
		},
		probe: {
			...emptyProbe(),
			results: [
				probe({model: 'gemma-3-4b', ttftMs: 900, decodeTps: 10}),
				probe({model: 'gemma-3-4b', ttftMs: 250, decodeTps: 47.6}),
				probe({engine: 'ollama', url: 'http://127.0.0.1:11434', model: WEIRD_MODEL, ttftMs: undefined, decodeTps: 12.5}),
			],
		},
	});
}

const FIGURES: ModelFigures[] = [
	{
		serverId: 's1',
		engine: 'llamacpp',
		model: 'gemma-3-4b',
		decodeTps: 50.6,
		reportedTps: 51,
		tokensPerPass: 2.28,
		acceptance: 0.63,
		msPerPass: 45,
		passesPerSec: 22.2,
		bytesPerToken: 14.45e9,
		ceilingTps: 44.15,
		pctOfCeiling: 1.146,
		effectiveBandwidthGBs: 320.8,
		gpuResidency: 1,
		requestCount: 3,
	},
	// Nothing known but the engine and model: every gauge must be absent for it.
	{serverId: 's2', engine: 'ollama', model: WEIRD_MODEL, decodeTps: Number.NaN, requestCount: 0},
];

// ---------------------------------------------------------------------------------------------

describe('renderMetrics', () => {
	it('writes HELP/TYPE for every family and the known figures with engine/server/model labels', () => {
		const e = parseExposition(renderMetrics(sampleState(), FIGURES));
		const labels = {engine: 'llamacpp', server: 'http://127.0.0.1:8080', model: 'gemma-3-4b'};
		const expected: Record<string, number> = {
			infertop_decode_tokens_per_second: 50.6,
			infertop_reported_tokens_per_second: 51,
			infertop_tokens_per_pass: 2.28,
			infertop_draft_acceptance_ratio: 0.63,
			infertop_seconds_per_pass: 0.045,
			infertop_passes_per_second: 22.2,
			infertop_bytes_per_token: 14.45e9,
			infertop_ceiling_tokens_per_second: 44.15,
			infertop_ceiling_ratio: 1.146,
			infertop_effective_bandwidth_bytes_per_second: 320.8e9,
			infertop_gpu_residency_ratio: 1,
		};
		for (const [name, value] of Object.entries(expected)) {
			expect(e.type.get(name)).toBe('gauge');
			expect(e.help.get(name)).toBeTruthy();
			const s = find(e, name);
			expect(s, name).toHaveLength(1);
			expect(s[0]).toEqual({name, labels, value});
		}
		for (const name of ['infertop_requests_total', 'infertop_generated_tokens_total', 'infertop_prompt_tokens_total', 'infertop_draft_tokens_total', 'infertop_accepted_tokens_total']) {
			expect(e.type.get(name)).toBe('counter');
		}
	});

	it('omits unknown figures (never 0), including NaN', () => {
		const e = parseExposition(renderMetrics(sampleState(), FIGURES));
		expect(e.samples.filter((s) => s.labels.server === 'http://127.0.0.1:11434' && s.name !== 'infertop_server_up' && !s.name.startsWith('infertop_last_probe_'))).toEqual([]);
		expect(e.samples.some((s) => Number.isNaN(s.value))).toBe(false);
		// No system sample yet: contention and self figures are unknown.
		for (const name of ['infertop_contention_active', 'infertop_contention_cpu_cores', 'infertop_swap_used_bytes', 'infertop_self_cpu_cores', 'infertop_self_rss_bytes']) {
			expect(e.type.has(name)).toBe(true);
			expect(find(e, name)).toEqual([]);
		}
		// No counters passed: no counter samples.
		expect(find(e, 'infertop_requests_total')).toEqual([]);
	});

	it('escapes label values so they parse back exactly', () => {
		expect(escapeLabelValue('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
		const e = parseExposition(renderMetrics(sampleState(), FIGURES));
		const s = find(e, 'infertop_last_probe_decode_tokens_per_second', {engine: 'ollama'});
		expect(s).toEqual([{name: 'infertop_last_probe_decode_tokens_per_second', labels: {engine: 'ollama', server: 'http://127.0.0.1:11434', model: WEIRD_MODEL}, value: 12.5}]);
	});

	it('exports the last probe per server and model; TTFT in seconds', () => {
		const e = parseExposition(renderMetrics(sampleState(), FIGURES));
		expect(find(e, 'infertop_last_probe_ttft_seconds')).toEqual([
			{name: 'infertop_last_probe_ttft_seconds', labels: {engine: 'llamacpp', server: 'http://127.0.0.1:8080', model: 'gemma-3-4b'}, value: 0.25},
		]);
		expect(find(e, 'infertop_last_probe_decode_tokens_per_second', {engine: 'llamacpp'})[0]?.value).toBe(47.6);
	});

	it('server_up: 1 up, 0 stale, absent for log-only sources', () => {
		const e = parseExposition(renderMetrics(sampleState(), FIGURES));
		expect(find(e, 'infertop_server_up')).toEqual([
			{name: 'infertop_server_up', labels: {server: 'http://127.0.0.1:8080', engine: 'llamacpp'}, value: 1},
			{name: 'infertop_server_up', labels: {server: 'http://127.0.0.1:11434', engine: 'ollama'}, value: 0},
		]);
	});

	it('contention, swap and self cost once the system collector has reported', () => {
		const sys = emptySystem();
		const s = {
			...sampleState(),
			system: {
				...sys,
				updatedAt: 5,
				contention: {
					...sys.contention,
					active: true,
					swapUsedBytes: 2.1e9,
					hot: [
						{pid: 4242, name: 'blender', cpuPct: 110, hotForMs: 180_000},
						{pid: 4243, name: 'blender', cpuPct: 35.5, hotForMs: 60_000},
					],
				},
				self: {cpuPct: 1.5, rssBytes: 80e6},
			},
		};
		const e = parseExposition(renderMetrics(s, FIGURES));
		expect(find(e, 'infertop_contention_active')).toEqual([{name: 'infertop_contention_active', labels: {}, value: 1}]);
		expect(find(e, 'infertop_contention_cpu_cores').map((x) => [x.labels, x.value])).toEqual([
			[{process: 'blender', pid: '4242'}, 1.1],
			[{process: 'blender', pid: '4243'}, 0.355],
		]);
		expect(find(e, 'infertop_swap_used_bytes')[0]?.value).toBe(2.1e9);
		expect(find(e, 'infertop_self_cpu_cores')[0]?.value).toBe(0.015);
		expect(find(e, 'infertop_self_rss_bytes')[0]?.value).toBe(80e6);
	});

	it('accepts the figures of the real derive step', () => {
		const s = sampleState([request('s0/t1', {model: 'gemma-3-4b', generatedTokens: 128, decodedTokens: 127, decodeMs: 2540, accepted: 99, drafted: 120, firstSeen: 9000, lastSeen: 9500})]);
		const e = parseExposition(renderMetrics(s, deriveModels(s)));
		// 127 decoded, 99 accepted → 28 passes, 4.54 tokens per pass (DESIGN §1 worked example).
		expect(find(e, 'infertop_tokens_per_pass', {server: 'http://127.0.0.1:8080'})[0]?.value).toBeCloseTo(127 / 28, 10);
		expect(find(e, 'infertop_draft_acceptance_ratio', {server: 'http://127.0.0.1:8080'})[0]?.value).toBeCloseTo(99 / 120, 10);
	});
});

/** Finished requests on s1, through the real reducer (which keeps the counters since start). */
function finish(st: MonitorState, ...patches: Array<{key: string} & Partial<RequestRecord>>): MonitorState {
	return patches.reduce(
		(acc, {key, firstSeen, lastSeen: _l, serverId: _s, done: _d, ...counts}) =>
			reduce(acc, {type: 'engine-event', serverId: 's1', t: firstSeen ?? 1000, event: {type: 'request', key, started: true, done: true, ...counts}}),
		st,
	);
}

describe('RequestCounters', () => {
	it('per-request histograms: prefill and decode duration, decode speed, tokens per pass; probe TTFT', () => {
		const counters = new RequestCounters();
		const s = finish(
			sampleState(),
			// 127 decoded, 99 accepted → 28 passes → 4.5357 tokens per pass; 2.54 s decode; 0.3 s prefill.
			{key: 's0/t1', model: 'gemma-3-4b', generatedTokens: 128, decodedTokens: 127, decodeMs: 2540, prefillMs: 300, accepted: 99, drafted: 120},
			// No speculation: one token per pass; 12 s decode; prefill unknown (not observed, never 0).
			{key: 's0/t2', model: 'gemma-3-4b', generatedTokens: 240, decodeMs: 12_000, firstSeen: 3000},
		);
		counters.observe(s);
		counters.observe(s); // seen twice, counted once
		const e = parseExposition(renderMetrics(s, FIGURES, counters));
		const labels = {engine: 'llamacpp', server: 'http://127.0.0.1:8080', model: 'gemma-3-4b'};
		const buckets = (name: string) => Object.fromEntries(find(e, `${name}_bucket`).map((x) => [x.labels.le, x.value]));
		expect(e.type.get('infertop_request_decode_duration_seconds')).toBe('histogram');
		expect(buckets('infertop_request_decode_duration_seconds')).toMatchObject({'2.5': 0, '5': 1, '10': 1, '30': 2, '+Inf': 2});
		expect(find(e, 'infertop_request_decode_duration_seconds_sum')).toEqual([{name: 'infertop_request_decode_duration_seconds_sum', labels, value: 14.54}]);
		expect(find(e, 'infertop_request_decode_duration_seconds_count')[0]?.value).toBe(2);
		expect(buckets('infertop_request_prefill_duration_seconds')).toMatchObject({'0.25': 0, '0.5': 1, '+Inf': 1});
		expect(find(e, 'infertop_request_prefill_duration_seconds_count')[0]?.value).toBe(1);
		expect(buckets('infertop_request_tokens_per_pass')).toMatchObject({'1': 1, '4': 1, '5': 2, '+Inf': 2});
		expect(find(e, 'infertop_request_tokens_per_pass_sum')[0]?.value).toBeCloseTo(1 + 127 / 28, 12);
		// 240 tokens / 12 s = 20 tok/s; 127 / 2.54 s = 50 tok/s.
		expect(buckets('infertop_request_decode_tokens_per_second')).toMatchObject({'10': 0, '20': 1, '40': 1, '50': 2});
		// Probes: two with a TTFT (0.9 s, 0.25 s), one without (not observed).
		const ttft = Object.fromEntries(find(e, 'infertop_probe_ttft_seconds_bucket', {engine: 'llamacpp'}).map((x) => [x.labels.le, x.value]));
		expect(ttft).toMatchObject({'0.1': 0, '0.25': 1, '0.5': 1, '1': 2, '+Inf': 2});
		expect(find(e, 'infertop_probe_ttft_seconds_count', {engine: 'ollama'})).toEqual([]);
		// Every bucket series is cumulative (never decreasing with le).
		const tpp = find(e, 'infertop_request_tokens_per_pass_bucket').map((x) => x.value);
		expect(tpp).toEqual([...tpp].sort((a, b) => a - b));
	});

	it('counts each finished request once, keeps totals after the ring drops it, skips unknown counts', () => {
		const c = new RequestCounters();
		let st = finish(sampleState(), {key: 's0/t1', generatedTokens: 128, promptTokens: 1000, cachedTokens: 900, drafted: 120, accepted: 99});
		st = reduce(st, {type: 'engine-event', serverId: 's1', t: 4000, event: {type: 'request', key: 's0/t3', started: true, generatedTokens: 7}});
		c.observe(st);
		st = finish(st, {key: 's0/t2', generatedTokens: 50, prefillTokens: 20, cachedTokens: 10, firstSeen: 3000});
		c.observe(st);
		const e = parseExposition(renderMetrics(st, [], c));
		const labels = {engine: 'llamacpp', server: 'http://127.0.0.1:8080', model: 'gemma-3-4b'};
		const value = (name: string) => find(e, name, labels).map((x) => x.value);
		expect(value('infertop_requests_total')).toEqual([2]);
		expect(value('infertop_generated_tokens_total')).toEqual([178]);
		expect(value('infertop_prompt_tokens_total')).toEqual([1030]);
		expect(value('infertop_draft_tokens_total')).toEqual([120]);
		expect(value('infertop_accepted_tokens_total')).toEqual([99]);
	});

	it('a burst of 1,450 requests between two scrapes counts 1,450 (the ring holds 200)', () => {
		const c = new RequestCounters();
		let st = sampleState();
		for (let i = 0; i < 1450; i++) st = finish(st, {key: `s0/t${i}`, generatedTokens: 2, firstSeen: 1000 + i});
		expect(st.servers.s1!.requests).toHaveLength(200);
		c.observe(st);
		const e = parseExposition(renderMetrics(st, [], c));
		expect(find(e, 'infertop_requests_total').map((x) => [x.labels.model, x.value])).toEqual([['gemma-3-4b', 1450]]);
		expect(find(e, 'infertop_generated_tokens_total')[0]?.value).toBe(2900);
	});

	it('histograms see every request of a burst, not the ring\'s 200 at each look (issue 32)', () => {
		const c = new RequestCounters();
		let st = sampleState();
		// 1,450 requests between two scrapes: decode 1.5 s (the 2.5 s bucket) for even ones, 20 s (the 30 s bucket) for odd ones.
		for (let i = 0; i < 1450; i++) st = finish(st, {key: `s0/t${i}`, generatedTokens: 30, decodeMs: i % 2 === 0 ? 1500 : 20_000, firstSeen: 1000 + i});
		expect(st.servers.s1!.requests).toHaveLength(200);
		c.observe(st);
		const e = parseExposition(renderMetrics(st, [], c));
		const buckets = Object.fromEntries(find(e, 'infertop_request_decode_duration_seconds_bucket').map((x) => [x.labels.le, x.value]));
		expect(buckets).toMatchObject({'1': 0, '2.5': 725, '10': 725, '30': 1450, '300': 1450, '+Inf': 1450});
		expect(find(e, 'infertop_request_decode_duration_seconds_count')[0]?.value).toBe(1450);
		expect(find(e, 'infertop_request_decode_duration_seconds_sum')[0]?.value).toBeCloseTo(725 * 1.5 + 725 * 20, 9);
		// 30 tokens in 1.5 s = 20 tok/s; in 20 s = 1.5 tok/s
		const tps = Object.fromEntries(find(e, 'infertop_request_decode_tokens_per_second_bucket').map((x) => [x.labels.le, x.value]));
		expect(tps).toMatchObject({'1': 0, '2.5': 725, '10': 725, '20': 1450, '+Inf': 1450});
		// prefill never stated: no prefill series at all (unknown, never 0)
		expect(find(e, 'infertop_request_prefill_duration_seconds_count')).toEqual([]);
		expect(find(e, 'infertop_requests_total')[0]?.value).toBe(1450);
	});

	it('counters carry the model as the user knows it (never a blob path); no evidence → model="unknown"', () => {
		const c = new RequestCounters();
		let st = reduce(sampleState(), {type: 'server-models', t: 1, serverId: 's1', models: [{name: 'qwen3.8:latest', runner: 'gguf'}, {name: 'qwen3.8:27b-mlx', runner: 'mlx'}]});
		st = finish(st, {key: 'a', model: '/usr/share/ollama/.ollama/models/blobs/sha256-6f3c1a2b', runner: 'gguf', generatedTokens: 3}, {key: 'b', generatedTokens: 4});
		c.observe(st);
		const e = parseExposition(renderMetrics(st, [], c));
		expect(find(e, 'infertop_requests_total').map((x) => [x.labels.model, x.value])).toEqual([['qwen3.8:latest', 1], ['unknown', 1]]);
	});

	it('the same slot/task key after a restart is a new request', () => {
		const c = new RequestCounters();
		const st = finish(sampleState(), {key: 's0/t1', generatedTokens: 10}, {key: 's0/t1', generatedTokens: 5, firstSeen: 50_000});
		c.observe(st);
		const e = parseExposition(renderMetrics(st, [], c));
		expect(find(e, 'infertop_requests_total')[0]?.value).toBe(2);
		expect(find(e, 'infertop_generated_tokens_total')[0]?.value).toBe(15);
		expect(find(e, 'infertop_draft_tokens_total')).toEqual([]);
	});
});

describe('startMetricsServer', () => {
	let running: MetricsServer | undefined;
	let blocker: net.Server | undefined;
	afterEach(async () => {
		await running?.close();
		running = undefined;
		await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
		blocker = undefined;
	});

	it('serves /metrics on loopback, in format 0.0.4, and counts requests between scrapes', async () => {
		let current = finish(sampleState(), {key: 's0/t1', model: 'gemma-3-4b', generatedTokens: 64});
		running = await startMetricsServer({addr: '127.0.0.1:0', getState: () => current, derive: () => FIGURES});
		expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
		const res = await fetch(running.url);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
		const e = parseExposition(await res.text());
		expect(find(e, 'infertop_decode_tokens_per_second')[0]?.value).toBe(50.6);
		expect(find(e, 'infertop_requests_total')[0]?.value).toBe(1);

		current = finish(current, {key: 's0/t2', model: 'gemma-3-4b', generatedTokens: 36, firstSeen: 5000});
		const e2 = parseExposition(await (await fetch(running.url)).text());
		expect(find(e2, 'infertop_requests_total')[0]?.value).toBe(2);
		expect(find(e2, 'infertop_generated_tokens_total')[0]?.value).toBe(100);
	});

	it('answers 404, 405 and 500 without dying', async () => {
		let fail = false;
		running = await startMetricsServer({
			addr: '127.0.0.1:0',
			getState: () => {
				if (fail) throw new Error('store gone');
				return sampleState();
			},
			derive: () => [],
		});
		const base = running.url.replace(/\/metrics$/, '');
		expect((await fetch(`${base}/nope`)).status).toBe(404);
		expect((await fetch(running.url, {method: 'POST'})).status).toBe(405);
		fail = true;
		const res = await fetch(running.url);
		expect(res.status).toBe(500);
		expect(await res.text()).toContain('store gone');
		fail = false;
		expect((await fetch(running.url)).status).toBe(200);
	});

	it('a port in use or a bad address is a clear error', async () => {
		blocker = net.createServer();
		await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', () => resolve()));
		const port = (blocker.address() as net.AddressInfo).port;
		await expect(startMetricsServer({addr: `127.0.0.1:${port}`, getState: () => sampleState(), derive: () => []})).rejects.toThrow(
			`--serve-metrics 127.0.0.1:${port}: address already in use`,
		);
		await expect(startMetricsServer({addr: 'nonsense', getState: () => sampleState(), derive: () => []})).rejects.toThrow('--serve-metrics:');
	});
});
