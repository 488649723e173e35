/**
 * The probe's reader worker is a second isolate (~10 MB of RSS): it is started by a probe and
 * stopped once idle (source/probe/transport.ts, PUMP_IDLE_MS), so a monitor left open all day does
 * not keep it after one probe. A later probe starts a new one and is read the same way.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {streamOnce} from '../../source/probe/client.js';
import {probeDiagnostics, pumpRunning, setPumpIdleMs} from '../../source/probe/transport.js';
import {openaiStream, startServer, until, wait, type TestServer} from '../helpers/probe-server.js';

let server: TestServer | undefined;
afterEach(async () => {
	setPumpIdleMs(undefined);
	probeDiagnostics(undefined);
	await server?.close();
	server = undefined;
});

const sse = {protocol: 'openai-chat', path: '/v1/chat/completions'} as const;
const spec = {model: 'm', prompt: 'x', maxTokens: 4, seed: 1};

describe('the probe reader worker when idle', () => {
	it('is stopped after the idle time, not while a request runs, and a later probe starts a new one that reads every token', async () => {
		setPumpIdleMs(300);
		server = await startServer({'POST /v1/chat/completions': openaiStream(4, {gapMs: 150})});
		// 4 tokens 150 ms apart: the stream outlasts the idle time, and the worker must stay.
		const first = streamOnce({baseUrl: server.url, plan: sse, spec});
		await until(() => pumpRunning());
		await wait(450);
		expect(pumpRunning()).toBe(true);
		const a = await first;
		expect(a.clock.chunks).toBe(4);
		await until(() => !pumpRunning(), 3000);
		expect(pumpRunning()).toBe(false);
		const b = await streamOnce({baseUrl: server.url, plan: sse, spec});
		expect(b.clock.chunks).toBe(4);
		expect(b.clock.tFirst!).toBeGreaterThanOrEqual(b.clock.tSent);
	});

	it('is kept while diagnostics are on', async () => {
		setPumpIdleMs(100);
		server = await startServer({'POST /v1/chat/completions': openaiStream(2, {gapMs: 5})});
		probeDiagnostics(() => undefined);
		await streamOnce({baseUrl: server.url, plan: sse, spec});
		await wait(400);
		expect(pumpRunning()).toBe(true);
		probeDiagnostics(undefined);
		await until(() => !pumpRunning(), 3000);
		expect(pumpRunning()).toBe(false);
	});
});
