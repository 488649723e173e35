import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {parseHumanBytes, parseOllamaPsTable, parseUntil, residencyFromProcessor} from '../../source/system/ollama-ps.js';
import {readOllamaPs} from '../../source/sources/ollama-ps-cli.js';
import {gpuResidency, ollamaHumanBytes, ollamaProcessor} from '../../source/engines/ollama.js';

const fixtures = fileURLToPath(new URL('../fixtures/system/ollama-ps/', import.meta.url));
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');
const NOW = new Date('2026-11-29T12:00:00.000Z');
const at = (ms: number): string => new Date(NOW.getTime() + ms).toISOString();

describe('parseOllamaPsTable', () => {
	it('reads the documented table with CONTEXT', () => {
		const t = parseOllamaPsTable(fixture('context-docs.txt'), NOW);
		expect(t.columns).toEqual(['NAME', 'ID', 'SIZE', 'PROCESSOR', 'CONTEXT', 'UNTIL']);
		expect(t.models).toEqual([{
			name: 'gemma4:latest', digest: 'c6eb396dbd59', sizeText: '9.6 GB', sizeBytes: 9.6e9, sizeApprox: true,
			processor: '100% GPU', gpuResidency: 1, contextLength: 131072,
			until: '2 minutes from now', expiresAt: at(150_000), expiresApprox: true,
		}]);
	});

	it('reads the documented table without CONTEXT (before v0.10)', () => {
		const t = parseOllamaPsTable(fixture('no-context-docs.txt'), NOW);
		expect(t.columns).toEqual(['NAME', 'ID', 'SIZE', 'PROCESSOR', 'UNTIL']);
		expect(t.models).toHaveLength(1);
		const m = t.models[0]!;
		expect(m.name).toBe('llama3:70b');
		expect(m.sizeBytes).toBe(42e9);
		expect(m.contextLength).toBeUndefined();
		expect(m.expiresAt).toBe(at(4.5 * 60_000));
	});

	it('reads every PROCESSOR and UNTIL form', () => {
		const t = parseOllamaPsTable(fixture('every-processor.txt'), NOW);
		const by = Object.fromEntries(t.models.map((m) => [m.name, m]));
		expect(t.models.map((m) => m.name)).toEqual(['qwen3.8:27b', 'qwen3-coder:30b', 'llama3.2:3b', 'gemma3:1b', 'nomic-embed-text:latest', 'mistral:latest']);
		expect(by['qwen3.8:27b']).toMatchObject({processor: '100% GPU', gpuResidency: 1, keepAlive: 'Forever', sizeBytes: 19e9, contextLength: 65536});
		expect(by['qwen3.8:27b']!.expiresAt).toBeUndefined();
		expect(by['qwen3-coder:30b']).toMatchObject({processor: '48%/52% CPU/GPU', gpuResidency: 0.52, expiresAt: at(270_000)});
		expect(by['llama3.2:3b']).toMatchObject({processor: '100% CPU', gpuResidency: 0, expiresAt: at(90_000), sizeBytes: 3.4e9});
		expect(by['gemma3:1b']!.processor).toBe('Unknown');
		expect(by['gemma3:1b']!.gpuResidency).toBeUndefined();
		expect(by['gemma3:1b']!.expiresAt).toBe(at(500));
		expect(by['nomic-embed-text:latest']).toMatchObject({keepAlive: 'Stopping...', sizeBytes: 849e6, processor: '100% GPU'});
		expect(by['mistral:latest']).toMatchObject({keepAlive: 'Never', gpuResidency: 0.97, processor: '3%/97% CPU/GPU'});
	});

	it('reads an older table (no CONTEXT) with hours and seconds', () => {
		const t = parseOllamaPsTable(fixture('old-no-context.txt'), NOW);
		expect(t.models.map((m) => [m.name, m.gpuResidency, m.expiresAt])).toEqual([
			['llama3:8b', 1, at(3.5 * 60_000)],
			['mixtral:8x7b', 0.65, at(3_600_000)],
			['phi3:mini', 0, at(59_500)],
		]);
		expect(t.models.every((m) => m.contextLength === undefined)).toBe(true);
	});

	it('agrees with the figures module: what ollamaProcessor prints, residency reads back', () => {
		const size = 21_000_000_000;
		for (const vram of [0, size, 10_920_000_000, 13_230_000_000]) {
			const proc = ollamaProcessor(size, vram)!;
			const back = residencyFromProcessor(proc)!;
			// PROCESSOR rounds to whole percents
			expect(Math.abs(back - gpuResidency(size, vram)!)).toBeLessThanOrEqual(0.005);
		}
		for (const b of [849e6, 3.4e9, 9.6e9, 42e9, 512]) expect(parseHumanBytes(ollamaHumanBytes(b))).toBe(b);
	});

	it('tolerates headers only, junk, warnings before the header, missing and extra columns', () => {
		expect(parseOllamaPsTable(fixture('empty.txt'), NOW)).toEqual({models: [], columns: ['NAME', 'ID', 'SIZE', 'PROCESSOR', 'CONTEXT', 'UNTIL']});
		expect(parseOllamaPsTable('', NOW)).toEqual({models: [], columns: []});
		expect(parseOllamaPsTable('Error: could not connect to ollama app, is it running?\n', NOW).models).toEqual([]);
		const odd = 'WARNING: client version is 0.9.0\nNAME    SIZE     FOO    PROCESSOR\nx:1     2 GB     bar    weird\n\u001b[31mevil\u001b[0m:1    1 GB    b    100% GPU\n';
		const t = parseOllamaPsTable(odd, NOW);
		expect(t.columns).toEqual(['NAME', 'SIZE', 'FOO', 'PROCESSOR']);
		expect(t.models[0]).toEqual({name: 'x:1', sizeText: '2 GB', sizeBytes: 2e9, sizeApprox: true, processor: 'weird'});
		expect(t.models[1]!.name).toBe('evil:1');
		expect(t.models[1]!.gpuResidency).toBe(1);
	});

	it('understands every humanDuration and rejects the rest', () => {
		expect(parseUntil('1 second from now', NOW).expiresAt).toBe(at(1500));
		expect(parseUntil('3 hours from now', NOW).expiresAt).toBe(at(3 * 3_600_000));
		expect(parseUntil('2 days from now', NOW).expiresAt).toBe(at(2.5 * 86_400_000));
		expect(parseUntil('3 weeks from now', NOW).expiresAt).toBe(at(24.5 * 86_400_000));
		expect(parseUntil('4 months from now', NOW).expiresAt).toBe(at(135 * 86_400_000));
		expect(parseUntil('5 years from now', NOW).expiresAt).toBe(at((5 * 365 + 182) * 86_400_000));
		expect(parseUntil('2 minutes ago', NOW).expiresAt).toBe(at(-150_000));
		expect(parseUntil('soon', NOW)).toEqual({});
	});
});

describe('readOllamaPs (a fake ollama executable through execa)', () => {
	let dir: string;
	const env = (): Record<string, string> => ({PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`});
	const fake = (body: string): void => {
		const file = path.join(dir, 'ollama');
		writeFileSync(file, `#!/bin/sh\n${body}\n`);
		chmodSync(file, 0o755);
	};

	beforeAll(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'infertop-ollama-'));
	});
	afterAll(() => {
		rmSync(dir, {recursive: true, force: true});
	});

	it('runs `ollama ps` and parses its table (both column sets)', async () => {
		for (const name of ['every-processor.txt', 'old-no-context.txt']) {
			writeFileSync(path.join(dir, 'table.txt'), fixture(name));
			fake(`[ "$1" = "ps" ] || exit 3\ncat "${path.join(dir, 'table.txt')}"`);
			const r = await readOllamaPs({env: env(), now: () => NOW});
			expect(r.reason).toBeUndefined();
			expect(r.models).toEqual(parseOllamaPsTable(fixture(name), NOW).models);
			expect(r.models.length).toBeGreaterThanOrEqual(3);
		}
	});

	it('says why when the server is down (exit 1, message on stderr)', async () => {
		fake('echo "Error: could not connect to ollama app, is it running?" >&2\nexit 1');
		const r = await readOllamaPs({env: env()});
		expect(r).toEqual({models: [], reason: 'ollama ps: could not connect to ollama app, is it running?'});
	});

	it('kills a hanging ollama after the timeout', async () => {
		fake('exec sleep 30');
		const t0 = Date.now();
		const r = await readOllamaPs({env: env(), timeoutMs: 300});
		expect(r.reason).toBe('ollama: timed out after 0.3 s');
		expect(Date.now() - t0).toBeLessThan(5000);
	});

	it('reports a missing ollama, never throws', async () => {
		const r = await readOllamaPs({bin: path.join(dir, 'no-such-ollama')});
		expect(r).toEqual({models: [], reason: 'ollama: not installed'});
		const r2 = await readOllamaPs({env: {PATH: dir + '-nothing-here'}});
		expect(r2.reason).toBe('ollama: not installed');
	});
});
