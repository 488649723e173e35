import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {execFile} from 'node:child_process';
import {PassThrough} from 'node:stream';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {probeCommand, type ProbeCommandOptions} from '../../source/probe/command.js';
import {VERSION} from '../../source/version.js';
import {fixture, ollamaStream, replay, sseEvents, startServer, type TestServer} from './helpers.js';

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

async function cmd(o: Partial<ProbeCommandOptions>): Promise<{code: number; out: string}> {
	const stdout = new PassThrough();
	let out = '';
	stdout.on('data', (c: Buffer) => (out += c.toString()));
	const code = await probeCommand({prompt: 'code', runs: 1, json: false, maxTokens: 64, historyPath: path.join(dir, 'probes.csv'), env: {}, stdout, timeouts: {firstTokenMs: 5000, interTokenMs: 3000}, ...o});
	return {code, out};
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
		expect(csv[1]!.endsWith(`,${VERSION}`)).toBe(true);
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
		const {code, out} = await cmd({discover: async () => []});
		expect(code).toBe(1);
		expect(out).toBe('infertop probe: no inference server found on this machine; give its URL: infertop probe http://127.0.0.1:11434\n');
	});

	it('bad prompt → exit 2; failure → exit 1 with the reason (JSON: {"error"})', async () => {
		expect((await cmd({url: 'http://127.0.0.1:1', prompt: 'poem'})).code).toBe(2);
		server = await startServer({});
		const {code, out} = await cmd({url: server.url, engine: 'llamacpp', model: 'm', json: true});
		expect(code).toBe(1);
		expect(JSON.parse(out).error).toMatch(/HTTP 404 on \/v1\/chat\/completions, \/v1\/completions, \/api\/generate/);
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
