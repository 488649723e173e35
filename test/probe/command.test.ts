import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {execFile} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {probeCommand, type ProbeCommandOptions} from '../../source/probe/command.js';
import {VERSION} from '../../source/version.js';
import {fixture, ollamaStream, replay, sseEvents, startServer, type TestServer} from '../helpers/probe-server.js';
import {captureStreams} from '../helpers/streams.js';

const run = promisify(execFile);
let server: TestServer | undefined;
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-cmd-'));
});
afterEach(async () => {
	await server?.close();
	server = undefined;
	await rm(dir, {recursive: true, force: true});
});

async function cmd(o: Partial<ProbeCommandOptions>): Promise<{code: number; out: string; err: string}> {
	const {stdout, stderr, out, err} = captureStreams();
	const code = await probeCommand({prompt: 'code', runs: 1, json: false, maxTokens: 64, historyPath: path.join(dir, 'probes.csv'), env: {}, stdout, stderr, timeouts: {firstTokenMs: 5000, interTokenMs: 3000}, ...o});
	return {code, out: out(), err: err()};
}

const ollama = () =>
	startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/ps': (_q, res) => res.end('{"models":[]}'),
		'GET /api/tags': (_q, res) => res.end('{"models":[{"name":"llama3.2:latest"}]}'),
		'POST /api/generate': ollamaStream(10, {gapMs: 2, metrics: {eval_count: 10, eval_duration: 50_000_000, prompt_eval_count: 26, prompt_eval_duration: 130_079_000}}),
	});

describe('infertop probe (headless)', () => {
	it('in a bare node process: completes, prints, and the process exits on its own', async () => {
		server = await ollama();
		const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
		const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
		const script = `
			import {probeCommand} from ${JSON.stringify(path.join(repo, 'source/probe/command.ts'))};
			process.exitCode = await probeCommand({url: process.argv[1], prompt: 'code', runs: 1, json: true, maxTokens: 8, historyPath: process.argv[2], env: {}, stdout: process.stdout});
		`;
		const {stdout} = await run(process.execPath, ['--import', tsx, '--input-type=module', '-e', script, server.url, path.join(dir, 'h.csv')], {cwd: repo, timeout: 25_000});
		expect(JSON.parse(stdout)).toMatchObject({engine: 'ollama', model: 'llama3.2:latest', completionTokens: 10});
	}, 30_000);

	it('JSON against a llama.cpp capture: the documented keys, unknown = null', async () => {
		server = await startServer({
			'GET /': (_q, res) => {
				res.writeHead(404, {server: 'llama.cpp', 'content-type': 'application/json'});
				res.end('{"error":{"message":"File Not Found"}}');
			},
			'GET /v1/models': (_q, res) => res.end('{"object":"list","data":[{"id":"models/big-random-llama-8L-1024d-q8_0.gguf","owned_by":"llamacpp"}]}'),
			'POST /v1/chat/completions': replay(sseEvents(fixture('spec-chat-stream.sse')), {gapMs: 1}),
		});
		const {code, out} = await cmd({url: server.url, json: true});
		expect(code).toBe(0);
		const j = JSON.parse(out) as Record<string, unknown>;
		expect(j).toMatchObject({engine: 'llamacpp', url: server.url, model: 'models/big-random-llama-8L-1024d-q8_0.gguf', completionTokens: 64, promptTokens: 25, cachedTokens: 0, acceptance: 50 / 99, ceilingTps: null, pctOfCeiling: null});
		expect((j.tokensPerPass as number).toFixed(2)).toBe('4.85');
		expect(typeof j.ttftMs).toBe('number');
		expect(typeof j.decodeTps).toBe('number');
		expect(j.reportedTps).toBeCloseTo(51.7133537, 5);
		for (const k of ['engine', 'url', 'model', 'ttftMs', 'decodeTps', 'reportedTps', 'tokensPerPass', 'acceptance', 'cachedTokens', 'promptTokens', 'completionTokens']) expect(j).toHaveProperty(k);
		const csv = (await readFile(path.join(dir, 'probes.csv'), 'utf8')).trim().split('\n');
		expect(csv).toHaveLength(2);
		expect(csv[1]!.endsWith(`,${VERSION},,`)).toBe(true);
	});

	it('bare URL answering "Ollama is running" → native API, first model from /api/tags; table shows -- for unknowns', async () => {
		server = await ollama();
		const {code, out} = await cmd({url: server.url.replace('http://', ''), runs: 2});
		expect(code).toBe(0);
		expect(out).toContain('ollama  http://127.0.0.1');
		expect(out).toContain('llama3.2:latest');
		expect(out).toMatch(/run 1\s+run 2/);
		expect(out).toMatch(/reported tok\/s\s+200\.0\s+200\.0/);
		expect(out).toMatch(/tokens\/pass\s+--\s+--/);
		expect(out).toMatch(/prefill tok\/s\s+--/);
		expect(server.requests.filter((r) => r.path === '/api/generate')).toHaveLength(2);
		const csv = (await readFile(path.join(dir, 'probes.csv'), 'utf8')).trim().split('\n');
		expect(csv).toHaveLength(3);
	});

	it('uses discovery when no URL is given, and the engine-specific key env only for that engine', async () => {
		server = await startServer({'POST /v1/chat/completions': replay(sseEvents(fixture('chat-stream.sse')))});
		const url = server.url;
		const {code} = await cmd({discover: async () => [{url, engine: 'lithos', model: 'x'}], env: {LITHOS_METAL_API_KEY: 'lk'}, json: true});
		expect(code).toBe(0);
		expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer lk');
	});

	it('no server found → a clear message, exit 1', async () => {
		const {code, out, err} = await cmd({discover: async () => []});
		expect(code).toBe(1);
		expect(out).toBe('');
		expect(err).toBe('infertop probe: no inference server found on this machine; give its URL: infertop probe http://127.0.0.1:11434\n');
	});

	it('bad prompt → exit 2; failure → exit 1 with the reason on stderr, --json or not: stdout stays empty', async () => {
		const bad = await cmd({url: 'http://127.0.0.1:1', prompt: 'poem', json: true});
		expect(bad).toMatchObject({code: 2, out: ''});
		expect(bad.err).toBe('infertop probe: unknown prompt "poem": use code, prose, repeat, hex, long or @file\n');
		server = await startServer({});
		const {code, out, err} = await cmd({url: server.url, engine: 'llamacpp', model: 'm', json: true});
		expect(code).toBe(1);
		expect(out).toBe('');
		expect(err).toMatch(/^infertop probe: http:\/\/127\.0\.0\.1:\d+: HTTP 404 on \/v1\/chat\/completions, \/v1\/completions, \/api\/generate: no known generation API here/);
	});

	it('a history that cannot be written returns at once with exit 2 (no request sent), stdout empty; /proc included', async () => {
		server = await ollama();
		const fs = await import('node:fs/promises');
		// A folder where the file should be; a regular file where a folder should be.
		await fs.mkdir(path.join(dir, 'folder'));
		await fs.writeFile(path.join(dir, 'plain'), 'x');
		for (const historyPath of ['/proc/nope/x.csv', path.join(dir, 'folder'), path.join(dir, 'plain', 'x.csv')]) {
			const {code, out, err} = await cmd({url: server.url, json: true, historyPath});
			expect(code).toBe(2);
			expect(out).toBe('');
			expect(err).toContain(`infertop probe: cannot write the probe history ${historyPath}: `);
		}
		expect(server.requests.filter((r) => r.path === '/api/generate')).toHaveLength(0);
	});

	it('--json stdout is JSON only, even when the history row fails after the probe (message on stderr)', async () => {
		server = await ollama();
		const historyPath = path.join(dir, 'h.csv');
		// Writable when checked, gone (a folder in its place) when the row is written.
		const fs = await import('node:fs/promises');
		const {code, out, err} = await cmd({
			url: server.url,
			json: true,
			historyPath,
			ceilingInputs: async () => {
				await fs.mkdir(historyPath);
				return {};
			},
		});
		expect(code).toBe(0);
		expect(JSON.parse(out)).toMatchObject({engine: 'ollama', completionTokens: 10});
		expect(err).toMatch(/^infertop probe: history not written: /);
	});

	it('the ceiling and % of ceiling from the machine bandwidth and the model bytes per token; JSON, table and CSV', async () => {
		// Tokens 20 ms apart, so they arrive in reads of their own and the wall decode rate is known (were
		// they all in one read, decode tok/s and so % of ceiling would be unknown: null, never 0).
		server = await startServer({
			'GET /': (_q, res) => res.end('Ollama is running'),
			'GET /api/ps': (_q, res) => res.end('{"models":[]}'),
			'GET /api/tags': (_q, res) => res.end('{"models":[{"name":"llama3.2:latest"}]}'),
			'POST /api/generate': ollamaStream(5, {gapMs: 20, metrics: {eval_count: 5, eval_duration: 50_000_000}}),
		});
		const seen: unknown[] = [];
		const ceilingInputs = async (t: {url: string; engine: string; model?: string}) => {
			seen.push(t);
			return {bandwidthGBs: 273, bytesPerToken: 4.9e9, bytesPerTokenSource: 'ollama /api/show'};
		};
		const {code, out} = await cmd({url: server.url, json: true, ceilingInputs});
		expect(code).toBe(0);
		expect(seen).toEqual([{url: server.url, engine: 'ollama', model: 'llama3.2:latest', apiKey: undefined}]);
		const j = JSON.parse(out) as Record<string, number | null>;
		expect(j.ceilingTps).toBe((273e9 / 4.9e9));
		expect(j.bytesPerToken).toBe(4.9e9);
		const pct = j.decodeTps === null ? null : j.decodeTps! / (273e9 / 4.9e9);
		expect(j.pctOfCeiling).toBe(pct);
		const csv = (await readFile(path.join(dir, 'probes.csv'), 'utf8')).trim().split('\n');
		const head = csv[0]!.split(',');
		const row = csv[1]!.split(',');
		expect(row[head.indexOf('ceiling_tps')]).toBe(String(Number((273e9 / 4.9e9).toFixed(2))));
		expect(row[head.indexOf('pct_of_ceiling')]).toBe(pct === null ? '' : String(Number(pct.toFixed(4))));
		const table = await cmd({url: server.url, ceilingInputs});
		expect(table.out).toMatch(/ceiling tok\/s\s+55\.7 \(273 GB\/s ÷ 4\.90 GB, ollama \/api\/show\)/);
		// Unknown bytes per token: the ceiling stays --, never 0.
		const none = await cmd({url: server.url, ceilingInputs: async () => ({bandwidthGBs: 273})});
		expect(none.out).toMatch(/ceiling tok\/s\s+--\n/);
		expect(none.out).toMatch(/% of ceiling\s+--\n/);
	});

	it('impossible numbers in the answer are unknown, named as inconsistent, and reach neither JSON nor CSV', async () => {
		server = await startServer({
			'GET /': (_q, res) => res.end('Ollama is running'),
			'POST /api/generate': ollamaStream(5, {gapMs: 1, metrics: {eval_count: -5, eval_duration: 1e308, prompt_eval_count: -30, prompt_eval_duration: 130_079_000}}),
		});
		const {code, out} = await cmd({url: server.url, model: 'm', json: true});
		expect(code).toBe(0);
		const j = JSON.parse(out) as Record<string, unknown>;
		expect(j).toMatchObject({completionTokens: null, decodeTps: null, reportedTps: null, promptTokens: null, prefillTps: null});
		expect(j.inconsistent).toEqual(['eval_count -5', 'eval_duration 1e+308', 'prompt_eval_count -30']);
		const row = (await readFile(path.join(dir, 'probes.csv'), 'utf8')).trim().split('\n')[1]!;
		expect(row).not.toMatch(/-5|-30|e\+308/);
		const table = await cmd({url: server.url, model: 'm'});
		expect(table.out).toContain("! the server's answer was inconsistent (eval_count -5, eval_duration 1e+308, prompt_eval_count -30): those figures are --");
	});

	it('@file prompt', async () => {
		server = await ollama();
		const f = path.join(dir, 'p.txt');
		await (await import('node:fs/promises')).writeFile(f, 'Say hi.');
		const {code} = await cmd({url: server.url, prompt: `@${f}`});
		expect(code).toBe(0);
		expect(JSON.parse(server.requests.at(-1)!.body)).toMatchObject({prompt: 'Say hi.'});
		expect((await cmd({url: server.url, prompt: `@${f}.missing`})).code).toBe(2);
	});
});
