/**
 * Issue 32 against a real llama-server (docs/real-servers.md), where the machine has one: a busy
 * server (4 slots, batches of 12 requests at once, 240 in all — more than the 200-request ring)
 * read live from its `--log-file`, as a user names it. The server's own answers are the truth:
 * infertop counts every request (none dropped silently, none twice), its generated tokens are the
 * sum of the answers' `timings.predicted_n`, and the Prometheus histograms hold every request,
 * not the 200 the ring keeps. Skipped with one line where no llama-server is set up.
 */
import {rm} from 'node:fs/promises';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import {RequestCounters, renderMetrics} from '../../source/metrics/exporter.js';
import {MAX_REQUESTS} from '../../source/model/reducer.js';
import {waitUntil} from '../helpers/wait.js';
import {realLlamaServer, sayWhySkipped, startLlamaServer, type StartedLlamaServer} from '../helpers/llama-server.js';

if (!realLlamaServer.available) sayWhySkipped('live llama-server busy-log test', realLlamaServer.reason);

interface Answer {
	readonly status: number;
	readonly predicted: number;
}

async function complete(url: string, i: number): Promise<Answer> {
	const res = await fetch(`${url}/completion`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({prompt: `request ${i}: list the files of the repository and say which one changed`, n_predict: 3 + (i % 5), temperature: 0, cache_prompt: false})});
	const body = (await res.json()) as {timings?: {predicted_n?: number}};
	return {status: res.status, predicted: body.timings?.predicted_n ?? Number.NaN};
}

/**
 * One sample's value from the exposition text (`name{labels} value`), or undefined: the series of
 * `server` (the runtime scans, so another llama-server on the machine, such as another live test's,
 * has series of its own).
 */
const sample = (text: string, name: string, server: string): number | undefined => {
	const line = text.split('\n').find(l => l.startsWith(`${name}{`) && l.includes(`server="${server}"`));
	return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe.skipIf(!realLlamaServer.available)('a real llama-server, busy: every request counted, none twice', () => {
	let server: StartedLlamaServer | undefined;
	let rt: Runtime | undefined;
	const answers: Answer[] = [];
	const TOTAL = 240;
	beforeAll(async () => {
		server = await startLlamaServer({args: ['--parallel', '4', '-c', '2048', '-t', '1'], logFile: 'server.log'});
		const config = mergeConfig(DEFAULTS, {}, {logs: [`llamacpp=${server.logPath}`], demo: false, history: '/dev/null'});
		rt = await startRuntime({config, scan: true, system: false, scanPorts: []});
		await rt.ready;
		const url = server.url;
		await waitUntil(() => rt!.store.getSnapshot().servers[url]?.logLabel !== undefined, {timeoutMs: 20_000, what: 'the log tied to the server'});
		for (let b = 0; b < TOTAL / 12; b++) answers.push(...(await Promise.all(Array.from({length: 12}, (_, k) => complete(url, b * 12 + k)))));
		await waitUntil(() => (rt!.store.getSnapshot().servers[url]?.requestsSeen ?? 0) >= TOTAL, {timeoutMs: 30_000, what: 'every request read from the log'});
		// a moment more: a request counted twice would show now
		await new Promise(resolve => setTimeout(resolve, 500));
	}, 300_000);
	afterAll(async () => {
		await rt?.stop();
		await server?.stop();
		if (server) await rm(server.cwd, {recursive: true, force: true});
	});

	it('the server answered all 240 (the truth)', () => {
		expect(answers).toHaveLength(TOTAL);
		expect(answers.every(a => a.status === 200 && Number.isInteger(a.predicted) && a.predicted > 0)).toBe(true);
	});

	it('requestsSeen is 240 exactly, the ring keeps the newest 200, no line skipped', () => {
		const s = rt!.store.getSnapshot().servers[server!.url]!;
		expect(s.requestsSeen).toBe(TOTAL);
		expect(s.requests).toHaveLength(MAX_REQUESTS);
		expect(s.requests.every(r => r.done)).toBe(true);
		expect(s.logLag?.linesSkipped ?? 0).toBe(0);
	});

	it('Prometheus: 240 requests, the generated tokens the server reported, and every request in the histograms', () => {
		const state = rt!.store.getSnapshot();
		const counters = new RequestCounters();
		counters.observe(state);
		const text = renderMetrics(state, [], counters);
		expect(sample(text, 'infertop_requests_total', server!.url)).toBe(TOTAL);
		expect(sample(text, 'infertop_generated_tokens_total', server!.url)).toBe(answers.reduce((a, x) => a + x.predicted, 0));
		expect(sample(text, 'infertop_request_decode_duration_seconds_count', server!.url)).toBe(TOTAL);
		expect(sample(text, 'infertop_request_prefill_duration_seconds_count', server!.url)).toBe(TOTAL);
	});
});
