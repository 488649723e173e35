import {appendFileSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync, truncateSync} from 'node:fs';
import {statfs} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest';
import {createLogTail, LineSplitter, READ_CHUNK, readsLocally} from '../../source/sources/log-tail.js';
import {waitUntil} from '../helpers/wait.js';

const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const s of stops.splice(0)) await s();
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

function setup(startBytes?: number) {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-tail-'));
	dirs.push(dir);
	const file = path.join(dir, 'server.log');
	const lines: string[] = [];
	const states: string[] = [];
	const tail = createLogTail({path: file, onLine: l => lines.push(l), onState: s => states.push(s), startBytes, pollMs: 50, syncReads: readMode});
	stops.push(() => tail.stop());
	return {dir, file, lines, states, tail};
}

describe('LineSplitter', () => {
	it('buffers partial lines, handles CRLF and UTF-8 split across chunks', () => {
		const out: string[] = [];
		const s = new LineSplitter(l => out.push(l));
		const bytes = Buffer.from('µs line\r\nsecond par', 'utf8');
		s.write(bytes.subarray(0, 1)); // half of µ
		s.write(bytes.subarray(1));
		expect(out).toEqual(['µs line']);
		s.write(Buffer.from('t\n'));
		expect(out).toEqual(['µs line', 'second part']);
	});
	it('cuts a 10 MB line and keeps going', () => {
		const out: string[] = [];
		const s = new LineSplitter(l => out.push(l));
		const big = Buffer.alloc(10 * 1024 * 1024, 0x61);
		s.write(big);
		s.write(Buffer.from('\nnext\n'));
		expect(out).toHaveLength(2);
		expect(out[0]!.length).toBeLessThan(100_000);
		expect(out[1]).toBe('next');
	});
	it('invalid UTF-8 becomes U+FFFD, never a throw', () => {
		const out: string[] = [];
		const s = new LineSplitter(l => out.push(l));
		s.write(Buffer.from([0xff, 0xfe, 0x41, 0x0a]));
		expect(out[0]).toContain('A');
	});
});

/** Whether the tails of the cases read synchronously (set per run of the cases below). */
let readMode = true;

// Every case twice: read with synchronous calls (a local file system, the default here) and with
// asynchronous ones (what a network folder, macOS or any other system gets).
describe.each([{syncReads: true}, {syncReads: false}])('reads: synchronous $syncReads', ({syncReads}) => {
	beforeEach(() => {
		readMode = syncReads;
	});

	describe('createLogTail', () => {
		it('waits for a missing file, then follows appends and partial lines', async () => {
			const {file, lines, states, tail} = setup();
			await tail.start();
			expect(states.at(-1)).toMatch(/waiting for/);
			writeFileSync(file, 'one\ntw');
			await waitUntil(() => lines.length === 1, {what: 'first line'});
			appendFileSync(file, 'o\nthree\n');
			await waitUntil(() => lines.length === 3, {what: 'appended lines'});
			expect(lines).toEqual(['one', 'two', 'three']);
		});

		it('starts from the last ~64 KB of an existing file, dropping the cut line', async () => {
			const {file, lines, tail} = setup(1024);
			const body = Array.from({length: 500}, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n') + '\n';
			writeFileSync(file, body);
			await tail.start();
			await waitUntil(() => lines.length > 0);
			expect(lines.at(-1)).toBe('line 0499');
			expect(lines.length).toBeLessThan(110);
			for (const l of lines) expect(l).toMatch(/^line \d{4}$/);
		});

		it('reads an append into a buffer of its size, and a 3.2 MB append in READ_CHUNK (64 KiB) steps', async () => {
			// Issue 13: a 1 MiB buffer per read was three 1 MiB mallocs a second under traffic.
			const {file, lines, tail} = setup();
			writeFileSync(file, 'start\n');
			await tail.start();
			await waitUntil(() => lines.length === 1, {what: 'first line'});
			const sizes: number[] = [];
			const real = Buffer.allocUnsafe;
			const spy = vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((n: number) => {
				sizes.push(n);
				return real(n);
			});
			try {
				for (let i = 0; i < 5; i++) {
					appendFileSync(file, `request ${i} done in 120 ms\n`);
					await waitUntil(() => lines.length === 2 + i, {what: `line ${i}`});
				}
				expect(sizes.length).toBeGreaterThan(0);
				expect(Math.max(...sizes)).toBeLessThanOrEqual(64);
				sizes.length = 0;
				const big = `${'x'.repeat(99)}\n`.repeat(32_000);
				appendFileSync(file, big);
				await waitUntil(() => lines.length === 6 + 32_000, {what: 'the 3.2 MB append'});
				expect(Math.max(...sizes)).toBe(READ_CHUNK);
			} finally {
				spy.mockRestore();
			}
			expect(lines.at(-1)).toBe('x'.repeat(99));
		});

		it('survives truncation and rotation (rename + new file)', async () => {
			const {file, lines, tail} = setup();
			writeFileSync(file, 'a\n');
			await tail.start();
			await waitUntil(() => lines.includes('a'));
			truncateSync(file, 0);
			appendFileSync(file, 'after truncate\n');
			await waitUntil(() => lines.includes('after truncate'), {what: 'line after truncation'});
			renameSync(file, `${file}.1`);
			writeFileSync(file, 'fresh file\n');
			await waitUntil(() => lines.includes('fresh file'), {what: 'line after rotation'});
			appendFileSync(file, 'more\n');
			await waitUntil(() => lines.includes('more'));
			expect(lines.filter(l => l === 'a')).toHaveLength(1);
		});
	});
});

describe('readsLocally: which files are read with synchronous calls', () => {
	it('a regular file on a local Linux file system: yes; through a symbolic link, missing, or on another system: no', async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'infertop-tail-'));
		dirs.push(dir);
		const file = path.join(dir, 'server.log');
		writeFileSync(file, 'one\n');
		const link = path.join(dir, 'link.log');
		symlinkSync(file, link);
		expect(await readsLocally(file, 'darwin')).toBe(false);
		expect(await readsLocally(file, 'win32')).toBe(false);
		expect(await readsLocally(path.join(dir, 'missing.log'), 'linux')).toBe(false);
		if (process.platform !== 'linux') return;
		expect(await readsLocally(link, 'linux')).toBe(false);
		// ext4, xfs, btrfs, tmpfs, overlayfs: what a temp folder is on the machines we run on
		const type = Number((await statfs(dir)).type) >>> 0;
		if (![0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630].includes(type)) {
			console.warn(`readsLocally: the temp folder is on file system 0x${type.toString(16)}, not checked here`);
			return;
		}
		expect(await readsLocally(file, 'linux')).toBe(true);
	});
});
