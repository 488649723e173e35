/**
 * Fault suite (issue 34 item 7): the probe caps a streamed line. An Ollama that sends one token and
 * then a line that never ends (700 MB of it would come, without a newline): the probe stops reading
 * once the line passes MAX_STREAM_LINE (1 MiB), says so on stderr in one line, exits 1, and writes no
 * history row. The server sees the connection closed long before 700 MB (a bound on what was read,
 * not a speed target). An SSE server doing the same gets the same answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {execa} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {MAX_STREAM_LINE} from '../../source/probe/client.js';
import {root} from '../helpers/pty.js';
import {startServer, type TestServer} from '../helpers/probe-server.js';

const HUGE = 700 * 1024 * 1024;
let server: TestServer;
let sse: TestServer;
let dir: string;
const written: Record<string, number> = {};

/** Write `first`, then 'x' in 64 KiB pieces up to 700 MB (no newline), as fast as the socket takes them. */
function endlessLine(name: string, first: string, contentType: string) {
	return (_q: unknown, res: import('node:http').ServerResponse) => {
		res.writeHead(200, {'content-type': contentType});
		res.write(first);
		const piece = 'x'.repeat(64 * 1024);
		written[name] = 0;
		const more = () => {
			while (!res.destroyed && written[name]! < HUGE) {
				written[name]! += piece.length;
				if (!res.write(piece)) return void res.once('drain', more);
			}
			if (!res.destroyed) res.end('\n');
		};
		more();
	};
}

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-linecap-'));
	server = await startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/version': (_q, res) => res.end('{"version":"0.12.0"}'),
		'GET /api/ps': (_q, res) => res.end('{"models":[]}'),
		'GET /api/tags': (_q, res) => res.end('{"models":[]}'),
		'POST /api/show': (_q, res) => res.end('{}'),
		'POST /api/generate': endlessLine('ndjson', '{"model":"m","response":"a","done":false}\n{"model":"m","response":"', 'application/x-ndjson'),
	});
	// An OpenAI-compatible server (nothing else answers): the probe speaks SSE to it.
	sse = await startServer({
		'GET /v1/models': (_q, res) => res.end('{"object":"list","data":[{"id":"m","object":"model"}]}'),
		'POST /v1/chat/completions': endlessLine('sse', 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"', 'text/event-stream'),
	});
});

afterAll(async () => {
	await server?.close();
	await sse?.close();
	if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

describe('the probe caps a streamed line', {timeout: 120_000}, () => {
	for (const name of ['ndjson', 'sse'] as const) {
		it(`${name}: one line on stderr, exit 1, no history row, the stream left well before its end`, async () => {
			const history = path.join(dir, `${name}.csv`);
			const url = name === 'sse' ? sse.url : server.url;
			const r = await execa(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), 'probe', url, '--model', 'm', '--json', '--history', history], {cwd: root, reject: false, timeout: 90_000, env: {XDG_CONFIG_HOME: '/nonexistent-infertop-test'}}).catch(e => e as never);
			expect(r.stdout).toBe('');
			expect(r.stderr).toBe(`infertop probe: ${url}: the answer has a line longer than ${MAX_STREAM_LINE / (1 << 20)} MiB without a newline (not read further)`);
			expect(r.exitCode).toBe(1);
			expect(fs.existsSync(history) ? fs.readFileSync(history, 'utf8').trim().split('\n').length : 1).toBe(1);
			// What the server got out before the connection closed: the cap plus what the sockets buffer.
			expect(written[name]).toBeLessThan(64 * 1024 * 1024);
		});
	}
});
