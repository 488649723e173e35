/**
 * Fault suite, hostile names (issue 34 items 1 and 9): a path, a process argument, a command name
 * or a model name is untrusted text. A log file named `x<ESC>]0;PWNED<BEL>…` with a newline, a
 * right-to-left override and a zero-width space in it, given by `--log` or named by any local
 * process called `llama-server` on its `--log-file`, and a model name with zero-width and filler
 * characters: none of those characters reaches the terminal, stderr, the JSON or the CSV. Names
 * are shown as `ls` shows them (`?` for each); log text and model names lose them.
 * Real files, a real process named llama-server, a real pseudo-terminal; 127.0.0.1 only.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {execa} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {sanitize, sanitizeDeep, sanitizeName} from '../../source/util/sanitize.js';
import {hasPty, infertopArgv, root, runOnPty} from '../helpers/pty.js';
import {startServer, type TestServer} from '../helpers/probe-server.js';
import {freePort} from '../helpers/fake-engines.js';
import {waitUntil} from '../helpers/wait.js';

/** A file name with a terminal title sequence, a newline, an RLO, a zero-width space and a filler. */
const EVIL = 'x\u001b]0;PWNED\u0007\u202ey\nz\u200b\u115f.log';
/** How a name shows it. */
const EVIL_SHOWN = 'x?]0;PWNED??y?z??.log';
/** A model name with zero-width and filler characters (they would shift the columns). */
const ZW_MODEL = 'zw\u200bmo\u115fdel\u3164-\ufeffq\u2060';

/** What must never appear in bytes infertop sends anywhere. */
function forbidden(raw: Buffer): string[] {
	const text = raw.toString('utf8');
	const found: string[] = [];
	if (text.includes('\u001b]')) found.push('OSC (ESC ])');
	if (text.includes('PWNED\u0007') || raw.includes(0x07)) found.push('BEL');
	if (/[\u0080-\u009f]/.test(text)) found.push('C1 control');
	if (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text)) found.push('bidi control');
	if (/\u034f|\u17b4|\u17b5|\u200d|[\u00ad\u115f\u1160\u180e\u200b\u200c\u2060-\u2064\u3164\ufeff\uffa0]/.test(text)) found.push('zero-width or filler');
	if (/\\u00[01][0-9a-f]|\\u00[89][0-9a-f]|\\u20(?:0[b-f]|2[a-e]|6[0-9])|\\u061c|\\u115f|\\u3164|\\ufeff/i.test(text)) found.push('JSON-escaped control');
	return found;
}

let dir: string;
let evilLog: string;
let server: TestServer;

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-names-'));
	evilLog = path.join(dir, EVIL);
	// A real llama-server line (log.cpp's `slot launch_slot_` … is not needed: any text will do for a name test).
	fs.writeFileSync(evilLog, 'srv  log_server_r: request: GET /health 127.0.0.1 200\n');
	const models = {models: [{name: ZW_MODEL, model: ZW_MODEL, size: 5e9, size_vram: 5e9, digest: 'd', expires_at: '2099-01-01T00:00:00Z', details: {format: 'gguf', family: 'f', parameter_size: '8B', quantization_level: 'Q4'}}]};
	server = await startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/version': (_q, res) => res.end(JSON.stringify({version: '0.12.0'})),
		'GET /api/ps': (_q, res) => res.end(JSON.stringify(models)),
		'GET /api/tags': (_q, res) => res.end(JSON.stringify(models)),
	});
});

afterAll(async () => {
	await server?.close();
	if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

const cli = (args: string[], env: Record<string, string> = {}) =>
	execa(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), ...args], {cwd: root, reject: false, timeout: 60_000, env: {XDG_CONFIG_HOME: '/nonexistent-infertop-test', NO_COLOR: '1', ...env}, encoding: 'buffer'});

describe('the sanitizer', () => {
	it('strips zero-width and filler characters from text, as it strips bidi controls', () => {
		expect(sanitize(ZW_MODEL)).toBe('zwmodel-q');
		expect(sanitize('a\u00adb\u034fc\u1160d\u17b4e\u180ef\u200cg\u200dh\u2064i\uffa0j\u2028k')).toBe('abcdefghijk');
	});
	it('shows a name as ls does: each unshowable character a ?', () => {
		expect(sanitizeName(EVIL)).toBe(EVIL_SHOWN);
		expect(sanitizeName('a\tb\u009bc\ud800d')).toBe('a?b?c\ufffdd');
	});
	it('cleans every string and key of a value about to become JSON', () => {
		expect(sanitizeDeep({[EVIL]: [EVIL, 1, null, {m: ZW_MODEL}]})).toEqual({[EVIL_SHOWN]: [EVIL_SHOWN, 1, null, {m: 'zw?mo?del?-?q?'}]});
	});
});

describe('a hostile log path given by --log', {timeout: 120_000}, () => {
	it('snapshot text: the ENGINES row is one line, the name shown with ?, no escape reaches stdout', async () => {
		const r = await cli(['snapshot', '--seconds', '1', '--no-scan', '--no-demo', '--log', `llamacpp=${evilLog}`, '--history', '/dev/null']);
		expect(Buffer.from(r.stderr).toString('utf8')).toBe('');
		expect(r.exitCode).toBe(0);
		const out = Buffer.from(r.stdout);
		expect(forbidden(out)).toEqual([]);
		const text = out.toString('utf8');
		const row = text.split('\n').find(l => l.includes(`log:${dir}`));
		expect(row).toContain(EVIL_SHOWN);
		expect(text).not.toMatch(/^z.*\.log/m); // the newline in the name split no row
	});

	it('snapshot --json: the path and the server id carry the name as shown, escaped nowhere', async () => {
		const r = await cli(['snapshot', '--json', '--seconds', '1', '--no-scan', '--no-demo', '--log', `llamacpp=${evilLog}`, '--history', '/dev/null']);
		expect(r.exitCode).toBe(0);
		const out = Buffer.from(r.stdout);
		expect(forbidden(out)).toEqual([]);
		const snap = JSON.parse(out.toString('utf8')) as {servers: {id: string; log: {path: string; state: string} | null}[]};
		const s = snap.servers.find(x => x.id.startsWith('log:'))!;
		expect(s.id).toBe(`log:${path.join(dir, EVIL_SHOWN)}`);
		expect(s.log).toMatchObject({path: path.join(dir, EVIL_SHOWN), state: `following ${path.join(dir, EVIL_SHOWN)}`});
	});

	it('stderr: a missing log named so is reported in one line, the name shown with ?', async () => {
		const r = await cli(['snapshot', '--seconds', '1', '--no-scan', '--no-demo', '--log', `llamacpp=${path.join(dir, 'gone-' + EVIL)}`, '--history', '/dev/null']);
		expect(r.exitCode).toBe(2);
		const err = Buffer.from(r.stderr);
		expect(forbidden(err)).toEqual([]);
		// (execa drops the final newline: one line, nothing after it)
		expect(err.toString('utf8')).toBe(`infertop: --log ${path.join(dir, 'gone-' + EVIL_SHOWN)}: no such file`);
	});

	it('--print-config: the log path printed as shown', async () => {
		const r = await cli(['--print-config', '--log', `llamacpp=${evilLog}`]);
		expect(r.exitCode).toBe(0);
		expect(forbidden(Buffer.from(r.stdout))).toEqual([]);
	});

	it.skipIf(!hasPty)('the monitor on a pseudo-terminal: no title set, no reordering, no zero-width; a model name with fillers lines up', async () => {
		const r = await runOnPty(
			infertopArgv(['--no-scan', '--no-demo', '--server', server.url, '--log', `ollama=${evilLog}`, '--history', '/dev/null']),
			['wait:zwmodel-q', 'sleep:1', 'send:q'],
			{cols: 160, rows: 45, timeoutS: 60},
		);
		expect(r.stepFailed).toBeNull();
		expect(r.exit).toBe(0);
		expect(forbidden(r.raw)).toEqual([]);
	});
});

describe('a hostile log path named by a local process called llama-server (discovery)', {timeout: 120_000}, () => {
	let child: ChildProcess | undefined;
	afterAll(() => {
		if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
	});

	it('infertop merely starting: the found --log-file reaches stdout, JSON and stderr only as shown', async () => {
		const port = await freePort();
		const bin = path.join(dir, 'bin');
		fs.mkdirSync(bin, {recursive: true});
		fs.symlinkSync(process.execPath, path.join(bin, 'llama-server'));
		// No newline in this one: a command line read from the process table is cut at white space
		// (discovery splits it), so a name with a newline would name another (missing) file.
		const foundLog = path.join(dir, `found-${EVIL.replace('\n', '')}`);
		fs.writeFileSync(foundLog, 'srv  log_server_r: request: GET /health 127.0.0.1 200\n');
		child = spawn(path.join(bin, 'llama-server'), ['--import', 'tsx', path.join(root, 'test', 'helpers', 'fake-llama-process.ts'), '--port', String(port), '--log-file', foundLog], {cwd: root, stdio: ['ignore', 'pipe', 'inherit']});
		let said = '';
		child.stdout!.on('data', (c: Buffer) => (said += String(c)));
		await waitUntil(() => said.includes('listening'), {timeoutMs: 30_000, what: 'the imitation llama-server'});
		expect(fs.readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim()).toBe('llama-server');

		for (const json of [false, true]) {
			const r = await cli(['snapshot', ...(json ? ['--json'] : []), '--seconds', '4', '--no-demo', '--history', '/dev/null']);
			expect(r.exitCode).toBe(0);
			expect(forbidden(Buffer.from(r.stdout))).toEqual([]);
			expect(forbidden(Buffer.from(r.stderr))).toEqual([]);
			const text = Buffer.from(r.stdout).toString('utf8');
			if (json) {
				const snap = JSON.parse(text) as {servers: {url: string | null; log: {path: string} | null}[]};
				const mine = snap.servers.find(s => s.url === `http://127.0.0.1:${port}`);
				expect(mine?.log?.path).toBe(path.join(dir, `found-${EVIL_SHOWN.replace('y?z', 'yz')}`));
			} else {
				expect(text).toContain(`127.0.0.1:${port}`);
			}
		}
	});
});
