/**
 * Fault suite (issue 34 item 11), the smaller ones:
 * - `--serve-metrics` on an address reachable from the network is warned about, once, on stderr;
 * - `--headless` says on stderr that a log it was given is missing;
 * - a config file is read up to 1 MiB (`--config /dev/zero` is refused with one line, not read forever);
 * - a gzip (or deflate, br) answer is decoded; an encoding infertop cannot decode says so;
 * - a probe whose stream goes silent shows "stalled", not the rate of its last token.
 * 127.0.0.1 only, real processes and sockets; bytes of stderr and stdout checked.
 */
import {spawn} from 'node:child_process';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import {execa} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runningLine, STALL_MS} from '../../source/ui/panes/probe.js';
import {root} from '../helpers/pty.js';
import {waitUntil} from '../helpers/wait.js';

const env = {XDG_CONFIG_HOME: '/nonexistent-infertop-test', NO_COLOR: '1'};
const cli = (args: string[]) => execa(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), ...args], {cwd: root, reject: false, timeout: 60_000, env});

describe('--serve-metrics beyond this machine', {timeout: 60_000}, () => {
	it('0.0.0.0 is warned about in one line; 127.0.0.1 is not', async () => {
		const open = await cli(['--serve-metrics', '0.0.0.0:0', '--print-config']);
		expect(open.stderr).toBe('');
		const r = await cli(['snapshot', '--seconds', '0', '--no-scan', '--no-demo', '--history', '/dev/null', '--serve-metrics', '0.0.0.0:9']);
		expect(r.exitCode).toBe(0);
		expect(r.stderr.split('\n').filter(l => l.includes('reachable from the network'))).toEqual([
			'infertop: warning: --serve-metrics 0.0.0.0:9 is reachable from the network, without authentication (model names, servers and traffic can be read by anyone who connects); use 127.0.0.1:9 to keep it on this machine',
		]);
		const local = await cli(['snapshot', '--seconds', '0', '--no-scan', '--no-demo', '--history', '/dev/null', '--serve-metrics', '127.0.0.1:9']);
		expect(local.stderr).not.toContain('reachable from the network');
	});
});

describe('--headless with a missing log', {timeout: 60_000}, () => {
	it('says so on stderr, keeps serving, stops on SIGTERM', async () => {
		const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), '--headless', '--serve-metrics', '127.0.0.1:0', '--no-scan', '--no-demo', '--history', '/dev/null', '--log', 'llamacpp=/nonexistent-infertop/server.log'], {cwd: root, env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']});
		let stderr = '';
		child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
		const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)));
		try {
			await waitUntil(() => stderr.includes('serving metrics') && stderr.includes('no such file'), {timeoutMs: 40_000, what: 'the headless lines'});
			expect(stderr).toContain('infertop: warning: log /nonexistent-infertop/server.log: no such file: /nonexistent-infertop/server.log (waiting for it)\n');
		} finally {
			child.kill('SIGTERM');
		}
		expect(await exited).toBe(0);
	});
});

describe('config size', {timeout: 60_000}, () => {
	it('--config /dev/zero: one line, the defaults, at once', async () => {
		const r = await cli(['--config', '/dev/zero', '--print-config']);
		expect(r.exitCode).toBe(0);
		expect(r.stderr).toBe('infertop: /dev/zero: cannot read the config file (larger than 1 MiB, not a config file); using the defaults');
		expect(r.stdout).toContain('"servers": []');
	});
});

describe('compressed answers', {timeout: 60_000}, () => {
	let server: http.Server;
	let base = '';
	/** What the server compresses its answers with (each test sets it). */
	let encoding = 'gzip';
	const ps = JSON.stringify({models: [{name: 'gz-model:8b', model: 'gz-model:8b', size: 5e9, size_vram: 5e9, details: {format: 'gguf'}}]});
	beforeAll(async () => {
		server = http.createServer((req, res) => {
			const send = (body: string) => {
				const raw = Buffer.from(body);
				const data = encoding === 'gzip' ? zlib.gzipSync(raw) : encoding === 'br' ? zlib.brotliCompressSync(raw) : raw;
				res.writeHead(200, {'content-type': 'application/json', 'content-encoding': encoding});
				res.end(data);
			};
			if (req.url === '/') return send('Ollama is running');
			if (req.url === '/api/version') return send('{"version":"0.12.0"}');
			if (req.url === '/api/ps' || req.url === '/api/tags') return send(ps);
			res.writeHead(404);
			res.end();
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		server.closeAllConnections();
		await new Promise(resolve => server.close(resolve));
	});

	for (const enc of ['gzip', 'br']) {
		it(`${enc}: decoded; the server is up with its model`, async () => {
			encoding = enc;
			const r = await cli(['snapshot', '--json', '--seconds', '1', '--no-scan', '--no-demo', '--history', '/dev/null', '--server', base]);
			expect(r.exitCode).toBe(0);
			const snap = JSON.parse(r.stdout) as {servers: {url: string; state: string; engine: string; models: string[]}[]};
			expect(snap.servers[0]).toMatchObject({url: base, state: 'up', engine: 'ollama', models: ['gz-model:8b']});
		});
	}

	it('a compressed probe stream is refused with the reason, not taken for "not SSE"', async () => {
		const gz = http.createServer((req, res) => {
			if (req.url === '/v1/models') return res.end('{"object":"list","data":[{"id":"m","object":"model"}]}');
			res.writeHead(200, {'content-type': 'text/event-stream', 'content-encoding': 'gzip'});
			res.end(zlib.gzipSync('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: [DONE]\n\n'));
		});
		await new Promise<void>(resolve => gz.listen(0, '127.0.0.1', resolve));
		try {
			const url = `http://127.0.0.1:${(gz.address() as AddressInfo).port}`;
			const history = path.join(os.tmpdir(), `infertop-gz-${process.pid}.csv`);
			const r = await cli(['probe', url, '--model', 'm', '--history', history]);
			fs.rmSync(history, {force: true});
			expect(r.exitCode).toBe(1);
			expect(r.stderr).toBe(`infertop probe: ${url}: compressed answer not supported (content-encoding gzip): the probe times the stream as it arrives`);
		} finally {
			gz.closeAllConnections();
			await new Promise(resolve => gz.close(resolve));
		}
	});

	it('an encoding it cannot decode: down, with "compressed answer not supported"', async () => {
		encoding = 'zstd';
		const r = await cli(['snapshot', '--json', '--seconds', '1', '--no-scan', '--no-demo', '--history', '/dev/null', '--server', base]);
		expect(r.exitCode).toBe(0);
		const snap = JSON.parse(r.stdout) as {servers: {state: string; lastError: string | null}[]};
		expect(snap.servers[0]!.state).toBe('down');
		expect(snap.servers[0]!.lastError).toContain('compressed answer not supported (content-encoding zstd)');
	});
});

describe('a probe stream that stalls', () => {
	const run = {serverId: 's1', startedAt: 1000, prompt: 'code', tokens: 120, liveTps: 50.8, ttftMs: 150, elapsedMs: 4000};
	it(`shows the live rate while tokens come, "stalled" once ${STALL_MS} ms pass without one`, () => {
		expect(runningLine(run, 1000 + 4000 + 500)).toBe('▶ 120 tokens · 50.8 tok/s live · TTFT 150 ms · 4.5 s elapsed   Esc cancels');
		expect(runningLine(run, 1000 + 4000 + 7000)).toBe('▶ 120 tokens · -- tok/s live (stalled 7.0 s) · TTFT 150 ms · 11.0 s elapsed   Esc cancels');
	});
});
