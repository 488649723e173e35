/**
 * `infertop probe` as a user runs it (a child process through the real CLI): the ceiling from the
 * model's bytes per token (Ollama /api/show) and --bandwidth; errors on stderr, stdout JSON only.
 */
import {execFile} from 'node:child_process';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {ollamaStream, startServer, type TestServer} from '../helpers/probe-server.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

let server: TestServer | undefined;
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-probe-cli-'));
});
afterEach(async () => {
	await server?.close();
	server = undefined;
	await rm(dir, {recursive: true, force: true});
});

function cli(args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			['--import', tsx, path.join(repo, 'source', 'cli.tsx'), ...args],
			{cwd: repo, timeout: 60_000, env: {PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'cfg'), XDG_STATE_HOME: path.join(dir, 'state'), NO_COLOR: '1'}},
			(error, stdout, stderr) => resolve({code: error ? ((error as {code?: number}).code ?? 1) : 0, stdout, stderr}),
		);
	});
}

const show = {
	model_info: {'general.architecture': 'qwen3moe', 'qwen3moe.expert_count': 128, 'qwen3moe.expert_used_count': 8},
	tensors: [
		{name: 'token_embd.weight', type: 'Q4_K', shape: [2048, 151936]},
		{name: 'output.weight', type: 14, shape: [2048, 151936]},
		{name: 'blk.0.attn_q.weight', type: 'BF16', shape: [2048, 4096]},
		{name: 'blk.0.ffn_up_exps.weight', type: 'Q4_K', shape: [2048, 768, 128]},
	],
};
// As test/sources/model-bytes.test.ts works it out: embedding row, output, attention, experts at 8/128.
const BYTES = 8 * 144 + 151936 * 8 * 210 + 2048 * 4096 * 2 + 768 * 8 * 144 * 8;

describe('infertop probe (the CLI)', () => {
	it('--json: the ceiling and % of ceiling from --bandwidth and /api/show, in JSON and in the CSV row', async () => {
		server = await startServer({
			'GET /': (_q, res) => res.end('Ollama is running'),
			'POST /api/show': (_q, res) => res.end(JSON.stringify(show)),
			'POST /api/generate': ollamaStream(5, {gapMs: 20, metrics: {eval_count: 5, eval_duration: 50_000_000}}),
		});
		const history = path.join(dir, 'h.csv');
		const {code, stdout, stderr} = await cli(['probe', server.url, '--json', '--model', 'qwen3moe:test', '--bandwidth', '273', '--history', history, '--no-scan']);
		expect(stderr).toBe('');
		expect(code).toBe(0);
		const j = JSON.parse(stdout) as Record<string, number | null>;
		expect(j.bytesPerToken).toBe(BYTES);
		expect(j.ceilingTps).toBe(273e9 / BYTES);
		// Unknown wall decode rate (every token in one read, on a loaded machine) → unknown %, never 0.
		expect(j.pctOfCeiling).toBe(j.decodeTps === null ? null : j.decodeTps! / (273e9 / BYTES));
		const [head, row] = (await readFile(history, 'utf8')).trim().split('\n').map((l) => l.split(','));
		expect(row![head!.indexOf('ceiling_tps')]).toBe(String(Number((273e9 / BYTES).toFixed(2))));
	}, 60_000);

	it('--json failure: nothing on stdout, the reason on stderr, exit 1; --timeout out of range is exit 2', async () => {
		server = await startServer({});
		const failed = await cli(['probe', server.url, '--json', '--model', 'm', '--history', path.join(dir, 'h.csv'), '--no-scan']);
		expect(failed.code).toBe(1);
		expect(failed.stdout).toBe('');
		expect(failed.stderr).toMatch(/^infertop probe: http:\/\/127\.0\.0\.1:\d+: HTTP 404 on /);
		const bad = await cli(['probe', server.url, '--timeout', '0']);
		expect(bad).toMatchObject({code: 2, stdout: '', stderr: 'infertop: --timeout: expected a number in 1..86400 seconds, got "0"\n'});
	}, 60_000);
});
