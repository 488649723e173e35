/**
 * The reader thread's diagnostics (transport.ts probeDiagnostics, INFERTOP_PROBE_DIAG): what the
 * probe bench attributes its outliers with. Every socket read is recorded with the stamp the probe
 * itself uses, its byte count adds up to what the server wrote, and the first and last token times
 * are read stamps. No times are asserted (speed and accuracy live in `npm run bench -- probe`).
 */
import {execFile} from 'node:child_process';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import type {Socket} from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, describe, expect, it} from 'vitest';
import {streamOnce} from '../../source/probe/client.js';
import {probeDiagnostics, type ReadDiagnostics} from '../../source/probe/transport.js';
import {ollamaStream, openaiStream, startServer, until, type Handler, type TestServer} from '../helpers/probe-server.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

let server: TestServer | undefined;
afterEach(async () => {
	probeDiagnostics(undefined);
	await server?.close();
	server = undefined;
});

/** The handler, plus the exact number of bytes the server's socket wrote for each answer. */
function counted(h: Handler, written: number[]): Handler {
	return async (req, res, body) => {
		const sock = res.socket as Socket;
		sock.once('close', () => written.push(sock.bytesWritten));
		await h(req, res, body);
	};
}

const sse = {protocol: 'openai-chat', path: '/v1/chat/completions'} as const;

describe('probeDiagnostics', () => {
	it('records every socket read of a probe: the bytes add up, tFirst and tLast are read stamps, the reader scavenged before the clock started', async () => {
		const written: number[] = [];
		server = await startServer({'POST /v1/chat/completions': counted(openaiStream(6, {gapMs: 3, firstDelayMs: 5}), written)});
		const got: ReadDiagnostics[] = [];
		probeDiagnostics((d) => got.push(d));
		const out = await streamOnce({baseUrl: server.url, plan: sse, spec: {model: 'm', prompt: 'x', maxTokens: 6, seed: 1}});
		await until(() => got.length === 1 && written.length === 1);
		const d = got[0]!;
		expect(d.tSent).toBe(out.clock.tSent);
		expect(d.reads.reduce((a, r) => a + r.bytes, 0)).toBe(written[0]);
		const times = d.reads.map((r) => r.t);
		expect(times).toContain(out.clock.tFirst);
		expect(times).toContain(out.clock.tLast);
		for (let i = 0; i < times.length; i++) expect(times[i]! >= (i === 0 ? d.tSent : times[i - 1]!)).toBe(true);
		expect(d.tEnd >= times.at(-1)!).toBe(true);
		expect(d.scavenged).toBe(true);
		for (const g of d.gc) expect(Number.isFinite(g.ms) && g.ms >= 0).toBe(true);
		expect(Number.isFinite(d.eldMaxMs) && d.eldMaxMs >= 0).toBe(true);
		// On CLOCK_MONOTONIC the request left before now.
		expect(d.tSent + d.hrMinusLocal <= Number(process.hrtime.bigint()) / 1e6).toBe(true);
	});

	it('reports nothing while off: only the probe made after it is turned on again', async () => {
		server = await startServer({'POST /v1/chat/completions': openaiStream(3)});
		const got: ReadDiagnostics[] = [];
		probeDiagnostics((d) => got.push(d));
		probeDiagnostics(undefined);
		await streamOnce({baseUrl: server.url, plan: sse, spec: {model: 'm', prompt: 'x', maxTokens: 3, seed: 1}});
		probeDiagnostics((d) => got.push(d));
		const second = await streamOnce({baseUrl: server.url, plan: sse, spec: {model: 'm', prompt: 'x', maxTokens: 3, seed: 1}});
		await until(() => got.length >= 1);
		expect(got.map((d) => d.tSent)).toEqual([second.clock.tSent]);
	});

	it('INFERTOP_PROBE_DIAG=FILE: a fresh `infertop probe` writes one raw line per request, bytes adding up to what the server wrote', async () => {
		const written: number[] = [];
		server = await startServer({
			'GET /': (_q, res) => res.end('Ollama is running'),
			'POST /api/generate': counted(ollamaStream(4, {gapMs: 5, metrics: {eval_count: 4, eval_duration: 15_000_000}}), written),
		});
		const dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-probe-diag-'));
		try {
			const file = path.join(dir, 'diag.jsonl');
			const {code, stdout} = await new Promise<{code: number; stdout: string}>((resolve) =>
				execFile(
					process.execPath,
					['--import', tsx, path.join(repo, 'source', 'cli.tsx'), 'probe', server!.url, '--json', '--model', 'm', '--history', path.join(dir, 'h.csv'), '--no-scan'],
					{cwd: repo, timeout: 60_000, env: {PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg'), XDG_STATE_HOME: path.join(dir, 'state'), NO_COLOR: '1', INFERTOP_PROBE_DIAG: file}},
					(error, out) => resolve({code: error ? ((error as {code?: number}).code ?? 1) : 0, stdout: out}),
				),
			);
			expect(code).toBe(0);
			expect(JSON.parse(stdout).completionTokens).toBe(4);
			await until(() => written.length === 1);
			const lines = (await readFile(file, 'utf8')).trim().split('\n');
			expect(lines).toHaveLength(1);
			const d = JSON.parse(lines[0]!) as {tSent: number; reads: number[]; gc: unknown[]; hrMinusAbs: number; scavenged: boolean};
			expect(d.reads.length % 2).toBe(0);
			expect(d.reads.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0)).toBe(written[0]);
			expect(d.reads[0]! >= d.tSent).toBe(true);
			expect(Array.isArray(d.gc)).toBe(true);
			expect(Number.isFinite(d.hrMinusAbs)).toBe(true);
			expect(d.scavenged).toBe(true);
		} finally {
			await rm(dir, {recursive: true, force: true});
		}
	}, 60_000);
});
