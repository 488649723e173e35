/**
 * Fault suite, hostile text (issue 14): control sequences and bidi controls from a server's answers
 * and from its log never reach the terminal, the JSON or the CSV. Checked on the raw bytes: the
 * monitor runs on a real pseudo-terminal (Python's pty module, test/helpers/pty-run.py) against a
 * scripted Ollama whose model name, version and generated text, and whose log lines, carry OSC 52
 * (clipboard), OSC 0 (title), OSC 8 (hyperlink), CSI (device status report, media copy, clear),
 * DCS, 8-bit C1 controls, BEL, and bidi overrides/isolates/marks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {execa} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {sanitize} from '../../source/util/sanitize.js';
import {hasPty, infertopArgv, root, runOnPty} from '../helpers/pty.js';
import {startServer, type TestServer} from '../helpers/probe-server.js';

const ATTACKS = [
	'\u001b]52;c;cHduZWQ=\u0007', // OSC 52: write the clipboard
	'\u001b]0;pwned-title\u0007', // OSC 0: window title
	'\u001b]8;;http://evil.example/\u001b\\link\u001b]8;;\u001b\\', // OSC 8 hyperlink
	'\u001b[6n', // CSI DSR: makes the terminal type a reply
	'\u001b[5i', // CSI media copy (printer on)
	'\u001b[2J', // CSI clear screen
	'\u001bP1$qm\u001b\\', // DCS request status string
	'\u009b6n', // 8-bit CSI
	'\u009d0;c1-title\u0007', // 8-bit OSC
	'\u0090c1-dcs\u009c', // 8-bit DCS … ST
	'\u0007', // BEL
	'\u202e', '\u202a', '\u202b', '\u202c', '\u202d', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', // bidi
].join('');

const hostile = (marker: string): string => `${marker}${ATTACKS}-end`;
const MODEL = hostile('evil-MODEL');

/** What must never appear in bytes infertop sends anywhere. */
function forbidden(raw: Buffer): string[] {
	const text = raw.toString('utf8');
	const found: string[] = [];
	if (text.includes('\u001b]')) found.push('OSC (ESC ])');
	if (text.includes('\u001bP')) found.push('DCS (ESC P)');
	if (text.includes('\u001b[6n')) found.push('CSI 6n');
	if (text.includes('\u001b[5i')) found.push('CSI 5i');
	if (/[\u0080-\u009f]/.test(text)) found.push('C1 control');
	if (raw.includes(0x07)) found.push('BEL');
	if (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(text)) found.push('bidi control');
	return found;
}

let server: TestServer;
let dir: string;
let log: string;

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-hostile-'));
	log = path.join(dir, 'ollama.log');
	// Ollama slog lines (engines.md §1e) and a raw line, each with the attacks in them.
	fs.writeFileSync(log, [
		`time=2026-08-21T18:47:50.000-07:00 level=INFO source=server.go:1 msg="starting mlx runner subprocess" model="${hostile('evil-LOGMODEL').replace(/"/g, '')}"`,
		`time=2026-08-21T18:47:55.657-07:00 level=INFO source=prefix_cache.go:131 msg="cache miss" total=5321 left=5321`,
		`time=2026-08-21T18:48:18.623-07:00 level=INFO source=speculate_stats.go:62 msg="speculative decode stats" iterations=225 drafted=458 accepted=287`,
		hostile('evil-LOGLINE'),
		`time=2026-08-21T18:48:19.000-07:00 level=WARN source=x.go:1 msg="${hostile('evil-SLOG').replace(/"/g, '')}"`,
	].join('\n') + '\n');
	const models = {models: [{name: MODEL, model: MODEL, size: 5e9, size_vram: 5e9, digest: hostile('d'), expires_at: '2099-01-01T00:00:00Z', details: {format: 'gguf', family: hostile('fam'), parameter_size: '8B', quantization_level: hostile('Q')}}]};
	server = await startServer({
		'GET /': (_q, res) => res.end('Ollama is running'),
		'GET /api/version': (_q, res) => res.end(JSON.stringify({version: hostile('0.1')})),
		'GET /api/ps': (_q, res) => res.end(JSON.stringify(models)),
		'GET /api/tags': (_q, res) => res.end(JSON.stringify(models)),
		'POST /api/generate': (_q, res) => {
			res.writeHead(200, {'content-type': 'application/x-ndjson'});
			for (let i = 0; i < 8; i++) res.write(JSON.stringify({model: MODEL, response: hostile(`t${i}`), done: false}) + '\n');
			res.end(JSON.stringify({model: MODEL, response: '', done: true, done_reason: 'length', eval_count: 8, eval_duration: 80_000_000, prompt_eval_count: 20, prompt_eval_duration: 10_000_000}) + '\n');
		},
	});
});

afterAll(async () => {
	await server?.close();
	if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

describe('the sanitizer itself', () => {
	it('strips every attack and keeps the text around it', () => {
		expect(sanitize(MODEL)).toBe('evil-MODELlink-end');
		expect(forbidden(Buffer.from(sanitize(MODEL)))).toEqual([]);
		expect(forbidden(Buffer.from(MODEL)).sort()).toEqual(['BEL', 'C1 control', 'CSI 5i', 'CSI 6n', 'DCS (ESC P)', 'OSC (ESC ])', 'bidi control'].sort());
	});
});

describe.skipIf(!hasPty)('to the screen (raw bytes on a pseudo-terminal)', {timeout: 120_000}, () => {
	it('model name, version, log lines, a probe: shown without their control sequences', async () => {
		const r = await runOnPty(
			infertopArgv(['--no-scan', '--no-demo', '--server', server.url, '--log', `ollama=${log}`, '--history', '/dev/null']),
			// p: a probe of the server, whose streamed text and model name carry the attacks too.
			['wait:evil-MODELlink-end', 'wait:evil-LOGLINElink-end', 'send:p', 'wait:reported', 'sleep:1', 'send:q'],
			{cols: 180, rows: 50, timeoutS: 60},
		);
		expect(r.stepFailed).toBeNull();
		expect(r.exit).toBe(0);
		expect(forbidden(r.raw)).toEqual([]);
	});
});

describe('to JSON and CSV (raw bytes)', {timeout: 120_000}, () => {
	const cli = (args: string[]) => execa(process.execPath, ['--import', 'tsx', path.join(root, 'source', 'cli.tsx'), ...args], {cwd: root, reject: false, timeout: 60_000, env: {XDG_CONFIG_HOME: '/nonexistent-infertop-test', NO_COLOR: '1'}, encoding: 'buffer'});

	it('snapshot --json: parses, carries the names without their control sequences', async () => {
		const r = await cli(['snapshot', '--json', '--seconds', '5', '--no-scan', '--no-demo', '--server', server.url, '--log', `ollama=${log}`, '--history', '/dev/null']);
		expect(r.exitCode).toBe(0);
		const raw = Buffer.from(r.stdout);
		expect(forbidden(raw)).toEqual([]);
		// JSON escapes (\u001b) would hide a control character from the byte check: none may be there either.
		expect(raw.toString('utf8')).not.toMatch(/\\u00[01][0-9a-f]|\\u00[89][0-9a-f]|\\u20(?:0[ef]|2[a-e]|6[6-9])|\\u061c/i);
		const snap = JSON.parse(raw.toString('utf8')) as {models: {model: string}[]; servers: {version: string | null}[]};
		expect(snap.models.map(m => m.model)).toContain('evil-MODELlink-end');
	});

	it('probe --json and the history CSV row: names and the model text without control sequences', async () => {
		const history = path.join(dir, 'probes.csv');
		const r = await cli(['probe', server.url, '--json', '--max-tokens', '8', '--history', history]);
		expect(Buffer.from(r.stderr).toString('utf8')).toBe('');
		expect(r.exitCode).toBe(0);
		const out = Buffer.from(r.stdout);
		expect(forbidden(out)).toEqual([]);
		expect(out.toString('utf8')).not.toMatch(/\\u00[01][0-9a-f]|\\u00[89][0-9a-f]|\\u20(?:0[ef]|2[a-e]|6[6-9])|\\u061c/i);
		const csv = fs.readFileSync(history);
		expect(forbidden(csv)).toEqual([]);
		expect(csv.toString('utf8')).toContain('evil-MODELlink-end');
	});
});
