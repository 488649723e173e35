/**
 * The probe bench's scripted server (bench/probe-truth-server.mjs) keeps working: it answers both
 * protocols, reports one write per token and the request's arrival, and keep-alives between tokens
 * are not counted as tokens by the probe. No times are asserted (speed lives in `npm run bench`).
 */
import {fork, type ChildProcess} from 'node:child_process';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, describe, expect, it} from 'vitest';
import {streamOnce} from '../../source/probe/client.js';
import {until} from '../helpers/probe-server.js';

const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'probe-truth-server.mjs');
let child: ChildProcess | undefined;
afterEach(() => {
	child?.kill('SIGKILL');
	child = undefined;
});

interface Truth {
	id: number;
	reqInMs: number;
	reqReads: number;
	writesMs: number[];
	preMs: number[];
	queued: number;
	hrMinusPerf: number;
	slipMs: number;
}

async function start(): Promise<{url: string; truths: Truth[]}> {
	child = fork(server, [], {stdio: ['ignore', 'ignore', 'inherit', 'ipc']});
	const truths: Truth[] = [];
	let port = 0;
	await new Promise<void>((resolve) =>
		child!.on('message', (m: {port?: number} & Truth) => {
			if (m.port !== undefined) {
				port = m.port;
				resolve();
			} else truths.push(m);
		}),
	);
	return {url: `http://127.0.0.1:${port}`, truths};
}

const model = (o: Record<string, unknown>): string => `bench:${Buffer.from(JSON.stringify(o)).toString('base64url')}`;

describe('the probe bench server', () => {
	it('SSE and NDJSON, with keep-alives between tokens: one write per token, bracketed before and after, n tokens counted, keep-alives not', async () => {
		const {url, truths} = await start();
		const sse = await streamOnce({baseUrl: url, plan: {protocol: 'openai-chat', path: '/v1/chat/completions'}, spec: {model: model({id: 1, ttftMs: 5, gapMs: 1, n: 12, keepAlive: true}), prompt: 'x', maxTokens: 12, seed: 1}});
		const nd = await streamOnce({baseUrl: `${url}/ollama`, plan: {protocol: 'ollama', path: '/api/generate'}, spec: {model: model({id: 2, ttftMs: 5, gapMs: 1, n: 7, keepAlive: true}), prompt: 'x', maxTokens: 7, seed: 1}});
		expect(sse.counts.completionTokens).toBe(12);
		expect(sse.clock.chunks).toBe(12);
		expect(nd.counts.completionTokens).toBe(7);
		expect(nd.clock.chunks).toBe(7);
		await until(() => truths.length === 2);
		const t = truths;
		expect(t.map((x) => [x.id, x.writesMs.length])).toEqual([
			[1, 12],
			[2, 7],
		]);
		for (const x of t) {
			expect(x.preMs).toHaveLength(x.writesMs.length);
			expect(x.preMs[0]! >= x.reqInMs).toBe(true);
			// Each write is bracketed: stamped before it, stamped after it, and the next starts after.
			for (let i = 0; i < x.writesMs.length; i++) {
				expect(x.writesMs[i]! >= x.preMs[i]!).toBe(true);
				if (i > 0) expect(x.preMs[i]! >= x.writesMs[i - 1]!).toBe(true);
			}
			// The probe's request (headers and body) left in one write, so it came in one read.
			expect(x.reqReads).toBe(1);
			// Every token went to the kernel synchronously (nothing left queued in the socket).
			expect(x.queued).toBe(0);
			expect(x.slipMs).toBe(x.preMs[0]! - x.reqInMs - 5);
			expect(Number.isFinite(x.hrMinusPerf)).toBe(true);
		}
	});
});
