/**
 * Issue 30: `infertop probe URL --model A --log ollama=server.log` while an agent keeps model B busy
 * on the same Ollama. The probe tails the log for its own request, as the TUI does: its 64 tokens
 * match exactly one `speculative decode stats` line (iterations + accepted = 64). Where no line (or
 * more than one) matches, the JSON says why. Lines from ollama/ollama @ fb3076099 (x/mlxrunner:
 * prefix_cache.go `cache miss`, speculate_stats.go `speculative decode stats`, server.go `ServeHTTP`).
 */
import {appendFileSync, writeFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {probeCommand} from '../../source/probe/command.js';
import {followProbeLogs} from '../../source/commands/probe-log.js';
import {ollamaStream, startServer, type TestServer} from '../helpers/probe-server.js';

const slog = (msg: string, attrs: string) => `time=${new Date().toISOString()} level=INFO source=x msg="${msg}" ${attrs}`;
const mlxLines = (iterations: number, accepted: number): string[] => [
	slog('cache miss', 'total=40 left=40'),
	slog('speculative decode stats', `iterations=${iterations} drafted=${accepted + 20} accepted=${accepted}`),
	slog('ServeHTTP', 'method=POST path=/v1/completions took=300ms status="200 OK"'),
];

let server: TestServer | undefined;
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-probe-log-'));
});
afterEach(async () => {
	await server?.close();
	server = undefined;
	await rm(dir, {recursive: true, force: true});
});

async function probeWithLog(linesDuringProbe: string[]): Promise<Record<string, unknown>> {
	const log = path.join(dir, 'server.log');
	writeFileSync(log, [
		slog('Listening on 127.0.0.1:11434 (version 0.33.0)', ''),
		slog('starting mlx runner subprocess', 'model=qwen3.8:27b-mlx port=51234'),
		slog('starting mlx runner subprocess', 'model=gemma4:12b-mlx port=51235'),
		// An earlier request of the agent's (the backlog): never the probe's.
		...mlxLines(30, 34),
	].join('\n') + '\n');
	const stream = ollamaStream(64, {gapMs: 1, metrics: {eval_count: 64, eval_duration: 600_000_000, prompt_eval_count: 40, prompt_eval_duration: 50_000_000}});
	server = await startServer({
		'POST /api/generate': (req, res, body) => {
			appendFileSync(log, linesDuringProbe.join('\n') + '\n');
			return stream(req, res, body);
		},
	});
	const follow = await followProbeLogs([`ollama=${log}`]);
	if ('error' in follow) throw new Error(follow.error);
	const stdout = new PassThrough();
	let out = '';
	stdout.on('data', (c: Buffer) => (out += c.toString()));
	try {
		const code = await probeCommand({url: server.url, engine: 'ollama', model: 'qwen3.8:27b-mlx', prompt: 'code', runs: 1, json: true, maxTokens: 64, historyPath: path.join(dir, 'probes.csv'), env: {}, stdout, stderr: new PassThrough(), logFigures: follow.logFigures});
		expect(code).toBe(0);
	} finally {
		await follow.stop();
	}
	return JSON.parse(out) as Record<string, unknown>;
}

describe('infertop probe --log: the probe reads its own request in the log', () => {
	it('the agent\'s request (90 tokens) beside the probe\'s (30 passes + 34 accepted = 64): tokens per pass 2.13 from the log', async () => {
		const j = await probeWithLog([...mlxLines(40, 50), ...mlxLines(30, 34)]);
		expect(j).toMatchObject({tokensPerPass: 64 / 30, tokensPerPassSource: 'log', acceptance: 34 / 54, passes: 30});
		expect(j.unknownBecause).toBeNull();
	});

	it('two lines of 64 tokens: no figure, and the JSON says why', async () => {
		const j = await probeWithLog([...mlxLines(30, 34), ...mlxLines(32, 32)]);
		expect(j).toMatchObject({tokensPerPass: null, tokensPerPassSource: null, unknownBecause: '2 candidates'});
	});

	it('no line of the probe in the log: `no log line for this request`', async () => {
		const j = await probeWithLog(mlxLines(40, 50));
		expect(j).toMatchObject({tokensPerPass: null, unknownBecause: 'no log line for this request'});
	});
});

describe('infertop probe without --log on an engine whose answer has no draft counts', () => {
	it('says what would tell it', async () => {
		server = await startServer({'POST /api/generate': ollamaStream(16, {gapMs: 1, metrics: {eval_count: 16, eval_duration: 100_000_000}})});
		const stdout = new PassThrough();
		let out = '';
		stdout.on('data', (c: Buffer) => (out += c.toString()));
		await probeCommand({url: server.url, engine: 'ollama', model: 'qwen3.8:27b-mlx', prompt: 'code', runs: 1, json: true, maxTokens: 16, historyPath: path.join(dir, 'probes.csv'), env: {}, stdout, stderr: new PassThrough()});
		expect(JSON.parse(out)).toMatchObject({tokensPerPass: null, unknownBecause: 'the answer has no draft counts: give the engine\'s log (--log ollama=PATH)'});
	});
});

describe('compare (c) reads each server\'s log for its runs, as the probe does', () => {
	it('an Ollama MLX run whose answer has no draft counts gets tokens per pass from its log line; another server\'s log is not asked', async () => {
		const {runCompare} = await import('../../source/probe/compare.js');
		server = await startServer({'POST /api/generate': ollamaStream(12, {gapMs: 1, metrics: {eval_count: 12, eval_duration: 100_000_000}})});
		const asked: string[] = [];
		const out = await runCompare({
			targets: [{serverId: 'ollama@x', url: server.url, engine: 'ollama', model: 'qwen3.8:27b-mlx'}],
			kinds: ['code'],
			runs: 1,
			historyPath: null,
			version: 't',
			logWaitMs: 0,
			logFiguresFor: (id) => {
				asked.push(id);
				// The log's own line for this request: 12 tokens over 4 passes (8 accepted of 10 drafted).
				return (q) => (q.completionTokens === 12 ? {key: 'mlx#1', decoded: 12, accepted: 8, drafted: 10} : {reason: 'no log line for this request'});
			},
		});
		expect(asked).toEqual(['ollama@x']);
		expect(out.rows.map(r => [r.result?.tokensPerPass, r.result?.tokensPerPassSource])).toEqual([[3, 'log']]);
	});
});
