import {execFile} from 'node:child_process';
import {mkdtemp, readFile, rm} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {HISTORY_HEADER, HISTORY_READ_BYTES, appendHistory, checkHistoryWritable, csvField, defaultHistoryPath, ensureDir, historyRow, readHistory} from '../../source/probe/history.js';
import type {ProbeResult} from '../../source/types/probe.js';

const run = promisify(execFile);
let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-history-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

const result: ProbeResult = {
	t: Date.UTC(2026, 8, 15, 12, 0, 0),
	engine: 'ollama',
	url: 'http://127.0.0.1:11434',
	model: 'qwen3.8:27b-mlx',
	protocol: 'ollama',
	prompt: 'prose',
	promptKind: 'prose',
	promptTokens: 21,
	ttftMs: 412.345,
	decodeTps: 47.7912,
	reportedTps: 47.57,
	tokensPerPass: 2.2755,
	acceptance: 0.6266,
	ceilingTps: 44.15,
	pctOfCeiling: 1.0825,
};

describe('probe history CSV', () => {
	it('stable header, documented columns', () => {
		expect(HISTORY_HEADER).toBe(
			'time,server,engine,model,prompt_kind,prompt_tokens,cached_tokens,ttft_ms,decode_tps_wall,reported_tps,tokens_per_pass,acceptance,ceiling_tps,pct_of_ceiling,infertop_version,run,run_id',
		);
	});

	it('one row per probe; unknown = empty; header once', async () => {
		const file = path.join(dir, 'sub', 'probes.csv');
		await appendHistory(file, result, '0.1.0');
		await appendHistory(file, {...result, model: undefined, cachedTokens: 0, tokensPerPass: undefined}, '0.1.0');
		const lines = (await readFile(file, 'utf8')).split('\n');
		expect(lines[0]).toBe(HISTORY_HEADER);
		expect(lines[1]).toBe('2026-09-15T12:00:00.000Z,http://127.0.0.1:11434,ollama,qwen3.8:27b-mlx,prose,21,,412.3,47.79,47.57,2.276,0.6266,44.15,1.0825,0.1.0,,');
		expect(lines[2]).toBe('2026-09-15T12:00:00.000Z,http://127.0.0.1:11434,ollama,,prose,21,0,412.3,47.79,47.57,,0.6266,44.15,1.0825,0.1.0,,');
		expect(lines).toHaveLength(4);
		expect(lines[3]).toBe('');
	});

	it('escapes fields', () => {
		expect(csvField('a,b')).toBe('"a,b"');
		expect(csvField('say "hi"')).toBe('"say ""hi"""');
		expect(csvField('two\nlines')).toBe('two lines');
		expect(csvField(undefined)).toBe('');
		expect(csvField(Number.NaN)).toBe('');
		expect(historyRow({...result, model: 'm,1'}, 'v').split(',').length).toBe(18);
	});

	it('default path: XDG_STATE_HOME/infertop/probes.csv', () => {
		expect(defaultHistoryPath({XDG_STATE_HOME: '/tmp/st'})).toBe(path.join('/tmp/st', 'infertop', 'probes.csv'));
		expect(defaultHistoryPath({})).toMatch(/infertop.*probes\.csv$/);
	});

	it('two processes appending at once never interleave rows, header written once', async () => {
		const file = path.join(dir, 'probes.csv');
		const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
		const script = `
			import {appendHistory} from ${JSON.stringify(path.join(repo, 'source/probe/history.ts'))};
			const who = process.argv[1];
			const long = 'x'.repeat(3000);
			await Promise.all(Array.from({length: 150}, (_, i) => appendHistory(${JSON.stringify(file)}, {t: 0, engine: 'e', url: 'u', protocol: 'ollama', prompt: 'code', model: who + '-' + i + '-' + long}, 'v')));
		`;
		const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
		const runOne = (who: string) => run(process.execPath, ['--import', tsx, '--input-type=module', '-e', script, who], {cwd: repo});
		await Promise.all([runOne('A'), runOne('B')]);
		const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l !== '');
		expect(lines[0]).toBe(HISTORY_HEADER);
		expect(lines.filter((l) => l === HISTORY_HEADER)).toHaveLength(1);
		const rows = lines.slice(1);
		expect(rows).toHaveLength(300);
		for (const r of rows) expect(r).toMatch(/^1970-01-01T00:00:00\.000Z,u,e,[AB]-\d+-x{3000},code,,,,,,,,,,v,,$/);
	}, 30_000);
});

describe('readHistory (the screen\'s h)', () => {
	const row = (i: number): ProbeResult => ({t: Date.parse('2026-03-01T12:00:00Z') + i * 1000, engine: 'ollama', url: 'http://127.0.0.1:11434', model: 'qwen3:8b', protocol: 'ollama', prompt: 'code', promptKind: 'code', decodeTps: 40 + (i % 10), ttftMs: 300});

	it('a missing file is no history, not an error', async () => {
		expect(await readHistory(path.join(dir, 'none.csv'))).toEqual({entries: [], skipped: 0, missing: true});
	});

	it('reads back what appendHistory wrote', async () => {
		const file = path.join(dir, 'probes.csv');
		for (let i = 0; i < 3; i++) await appendHistory(file, row(i), '0.1.0');
		const h = await readHistory(file);
		expect(h.skipped).toBe(0);
		expect(h.entries.map(e => [e.t, e.decodeTps, e.ttftMs, e.model])).toEqual([0, 1, 2].map(i => [row(i).t, 40 + i, 300, 'qwen3:8b']));
	});

	it('a large file: only its end is read, the header from its start, no partial row', async () => {
		const file = path.join(dir, 'big.csv');
		const rows = Array.from({length: 6000}, (_, i) => historyRow(row(i), '0.1.0')).join('');
		await import('node:fs/promises').then(fs => fs.writeFile(file, `${HISTORY_HEADER}\n${rows}`));
		expect(rows.length).toBeGreaterThan(HISTORY_READ_BYTES);
		const h = await readHistory(file);
		expect(h.skipped).toBe(0);
		expect(h.entries.at(-1)!.t).toBe(row(5999).t);
		expect(h.entries.length).toBeLessThan(6000);
		expect(h.entries.length).toBeGreaterThan(1000);
	});
});

describe('history folder and errors (issue 14: any history error returns at once)', () => {
	it('creates missing folders level by level, and the header once', async () => {
		const file = path.join(dir, 'a', 'b', 'c', 'probes.csv');
		await checkHistoryWritable(file);
		await appendHistory(file, result, '0.1.0');
		const lines = (await readFile(file, 'utf8')).trim().split('\n');
		expect(lines[0]).toBe(HISTORY_HEADER);
		expect(lines).toHaveLength(2);
	});

	it('/proc/nope is an error, not a spin (Node 20 recursive mkdir never returns there)', async () => {
		await expect(ensureDir('/proc/nope/deeper')).rejects.toMatchObject({code: 'ENOENT'});
		await expect(appendHistory('/proc/nope/x.csv', result, '0.1.0')).rejects.toMatchObject({code: 'ENOENT'});
		await expect(checkHistoryWritable('/proc/nope/x.csv')).rejects.toMatchObject({code: 'ENOENT'});
	});

	it('a file where a folder belongs, or a folder where the file belongs, is refused with the reason', async () => {
		const fs = await import('node:fs/promises');
		await fs.writeFile(path.join(dir, 'plain'), 'x');
		await expect(checkHistoryWritable(path.join(dir, 'plain', 'x.csv'))).rejects.toThrow(`${path.join(dir, 'plain')} is not a folder`);
		await fs.mkdir(path.join(dir, 'folder.csv'));
		await expect(checkHistoryWritable(path.join(dir, 'folder.csv'))).rejects.toThrow(`${path.join(dir, 'folder.csv')} is not a file`);
	});
});
