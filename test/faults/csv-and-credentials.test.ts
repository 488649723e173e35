/**
 * Fault suite (issue 34 items 2 and 3):
 * - CSV formula injection: model names from a server that start with `=`, `+`, `-` or `@` reach
 *   probes.csv neutralised with a leading `'` (OWASP), and read back as they were;
 * - a password in a server URL (`http://alice:PW@host`) is sent (Basic auth, as the user asked) and
 *   never printed or stored: not in probes.csv, the probe's JSON or text, stderr, --print-config,
 *   the snapshot, nor in the warning against credentials in URLs.
 * A scripted Ollama on 127.0.0.1; the bytes of stdout, stderr and the CSV are checked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {execa} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {parseCsvLine, readHistory} from '../../source/probe/history.js';
import {root} from '../helpers/pty.js';
import {startServer, type TestServer} from '../helpers/probe-server.js';
import {freePort} from '../helpers/fake-engines.js';

const FORMULAS = [
	"=cmd|' /C calc'!A0",
	'=HYPERLINK("http://evil.example/","click")',
	'+1+2',
	'-2+3',
	'@SUM(A1:A2)',
	' =1+1',
];
const PASSWORD = 'S3cr3t-PW';

let server: TestServer;
let dir: string;

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-csv-'));
	const models = {models: FORMULAS.map(name => ({name, model: name, size: 1e9, size_vram: 1e9, details: {}}))};
	server = await startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/version': (_q, res) => res.end('{"version":"0.12.0"}'),
		'GET /api/ps': (_q, res) => res.end(JSON.stringify(models)),
		'GET /api/tags': (_q, res) => res.end(JSON.stringify(models)),
		'POST /api/show': (_q, res) => res.end('{}'),
		'POST /api/generate': (_q, res, body) => {
			const model = (JSON.parse(body) as {model: string}).model;
			res.writeHead(200, {'content-type': 'application/x-ndjson'});
			res.write(JSON.stringify({model, response: 'a', done: false}) + '\n');
			res.end(JSON.stringify({model, response: '', done: true, done_reason: 'length', eval_count: 2, eval_duration: 20_000_000, prompt_eval_count: 3, prompt_eval_duration: 10_000_000}) + '\n');
		},
	});
});

afterAll(async () => {
	await server?.close();
	if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

const cli = (args: string[], env: Record<string, string> = {}) =>
	execa(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), ...args], {cwd: root, reject: false, timeout: 60_000, env: {XDG_CONFIG_HOME: '/nonexistent-infertop-test', NO_COLOR: '1', ...env}});

describe('CSV formula injection', {timeout: 120_000}, () => {
	it("model names starting =, +, -, @ are written with a leading ' and read back as they were", async () => {
		const history = path.join(dir, 'probes.csv');
		for (const name of FORMULAS) {
			const r = await cli(['probe', server.url, '--model', name, '--max-tokens', '2', '--history', history, '--json']);
			expect(r.stderr).toBe('');
			expect(r.exitCode).toBe(0);
		}
		const lines = fs.readFileSync(history, 'utf8').trimEnd().split('\n');
		expect(lines).toHaveLength(1 + FORMULAS.length);
		const models = lines.slice(1).map(l => parseCsvLine(l)[3]);
		expect(models).toEqual(FORMULAS.map(n => `'${n}`));
		// No cell of any row, as a spreadsheet unquotes it, starts a formula.
		for (const l of lines.slice(1)) for (const cell of parseCsvLine(l)) expect(cell).not.toMatch(/^\s*[=+@]|^-(?!\d+(?:\.\d+)?$)|^[\t\r]/);
		const back = await readHistory(history);
		expect(back.entries.map(e => e.model)).toEqual(FORMULAS);
	});
});

describe('a password in a server URL', {timeout: 120_000}, () => {
	const withPassword = () => server.url.replace('http://', `http://alice:${PASSWORD}@`);
	const redacted = () => server.url.replace('http://', 'http://***@');

	it('probe --json and text: sent as Basic auth, never in stdout, stderr or probes.csv', async () => {
		const history = path.join(dir, 'cred.csv');
		const before = server.requests.length;
		const j = await cli(['probe', withPassword(), '--model', 'm', '--max-tokens', '2', '--history', history, '--json']);
		expect(j.exitCode).toBe(0);
		expect(server.requests.slice(before).find(q => q.path === '/api/generate')?.headers.authorization).toBe(`Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`);
		expect((JSON.parse(j.stdout) as {url: string}).url).toBe(redacted());
		const t = await cli(['probe', withPassword(), '--model', 'm', '--max-tokens', '2', '--history', history]);
		expect(t.exitCode).toBe(0);
		expect(t.stdout).toContain(redacted());
		const csv = fs.readFileSync(history, 'utf8');
		expect(parseCsvLine(csv.split('\n')[1]!)[1]).toBe(redacted());
		for (const out of [j.stdout, j.stderr, t.stdout, t.stderr, csv]) expect(out).not.toContain(PASSWORD);
	});

	it('a probe that fails says so without the password', async () => {
		const port = await freePort();
		const r = await cli(['probe', `http://alice:${PASSWORD}@127.0.0.1:${port}`, '--model', 'm', '--history', path.join(dir, 'fail.csv')]);
		expect(r.exitCode).not.toBe(0);
		expect(r.stderr).toMatch(/^infertop probe: /);
		expect(r.stderr + r.stdout).not.toContain(PASSWORD);
	});

	it('--server with a password: the warning against it does not repeat it; nor --print-config', async () => {
		const r = await cli(['snapshot', '--seconds', '1', '--no-scan', '--no-demo', '--server', withPassword(), '--history', '/dev/null']);
		expect(r.exitCode).toBe(2);
		expect(r.stderr).toContain('put credentials in apiKeyEnv, not in the URL');
		expect(r.stderr).toContain(redacted());
		expect(r.stderr + r.stdout).not.toContain(PASSWORD);
		const c = await cli(['--print-config', '--server', withPassword()]);
		expect(c.stderr + c.stdout).not.toContain(PASSWORD);
	});

	it('a config file with a password in a server URL: warned without it; the snapshot and --print-config never show it', async () => {
		const xdg = path.join(dir, 'xdg');
		fs.mkdirSync(path.join(xdg, 'infertop'), {recursive: true});
		fs.writeFileSync(path.join(xdg, 'infertop', 'config.json'), JSON.stringify({servers: [withPassword()]}));
		for (const args of [['snapshot', '--seconds', '1', '--no-scan', '--no-demo', '--history', '/dev/null'], ['snapshot', '--json', '--seconds', '1', '--no-scan', '--no-demo', '--history', '/dev/null'], ['--print-config']]) {
			const r = await cli(args, {XDG_CONFIG_HOME: xdg});
			expect(r.exitCode).toBe(0);
			expect(r.stderr).toContain('put credentials in apiKeyEnv');
			expect(r.stderr + r.stdout).not.toContain(PASSWORD);
		}
	});
});
