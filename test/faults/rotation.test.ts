/**
 * Issue 14 item 3: no line lost around rotation. Reads happen when the test says (readNow, no
 * watcher, no poll in between), so each case is exactly the race the issue describes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {createLogTail, LEDGER_LINES, TAIL_START_BYTES} from '../../source/sources/log-tail.js';

const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const s of stops.splice(0)) await s();
	for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true});
});

function setup() {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-rotation-'));
	dirs.push(dir);
	const file = path.join(dir, 'server.log');
	const lines: string[] = [];
	const states: string[] = [];
	const tail = createLogTail({path: file, onLine: l => lines.push(l), onState: s => states.push(s), watch: false, pollMs: 3_600_000, syncReads: readMode});
	stops.push(() => tail.stop());
	return {file, lines, states, tail};
}

const numbered = (prefix: string, n: number): string => Array.from({length: n}, (_, i) => `${prefix} ${String(i).padStart(5, '0')}`).join('\n') + '\n';

/** Whether the tails of the cases read synchronously (set per run of the cases below). */
let readMode = true;

// Every case twice: read with synchronous calls (a local file system, the default here) and with
// asynchronous ones (what a network folder, macOS or any other system gets).
describe.each([{syncReads: true}, {syncReads: false}])('reads: synchronous $syncReads', ({syncReads}) => {
	beforeEach(() => {
		readMode = syncReads;
	});

	describe('rotation (on real files)', () => {
		it('(a) lines appended just before a rename are read from the old file before the new one', async () => {
			const {file, lines, states, tail} = setup();
			fs.writeFileSync(file, 'a\n');
			await tail.start();
			expect(lines).toEqual(['a']);
			fs.appendFileSync(file, 'b1\nb2\n');
			fs.renameSync(file, `${file}.1`);
			fs.writeFileSync(file, 'c\n');
			await tail.readNow();
			expect(lines).toEqual(['a', 'b1', 'b2', 'c']);
			expect(states).toContain(`following ${file} (rotated)`);
			fs.appendFileSync(file, 'd\n');
			await tail.readNow();
			expect(lines).toEqual(['a', 'b1', 'b2', 'c', 'd']);
		});

		it('(a) lines written before the old name disappeared, with no new file yet, are read too', async () => {
			const {file, lines, tail} = setup();
			fs.writeFileSync(file, 'a\n');
			await tail.start();
			fs.appendFileSync(file, 'last words\n');
			fs.renameSync(file, `${file}.1`);
			await tail.readNow();
			expect(lines).toEqual(['a', 'last words']);
			fs.writeFileSync(file, 'new\n');
			await tail.readNow();
			expect(lines).toEqual(['a', 'last words', 'new']);
		});

		it('(b) a log that appears after start, already larger than the start-up window, is read from its beginning', async () => {
			const {file, lines, tail} = setup();
			await tail.start();
			expect(lines).toEqual([]);
			const body = numbered('line', 8000);
			expect(body.length).toBeGreaterThan(TAIL_START_BYTES);
			fs.writeFileSync(file, body);
			await tail.readNow();
			expect(lines).toHaveLength(8000);
			expect(lines[0]).toBe('line 00000');
			expect(lines.at(-1)).toBe('line 07999');
		});

		it('(b) a file that existed at start still starts from its last ~64 KB', async () => {
			const {file, lines, tail} = setup();
			fs.writeFileSync(file, numbered('line', 8000));
			await tail.start();
			expect(lines.at(-1)).toBe('line 07999');
			expect(lines.length).toBe(Math.floor(TAIL_START_BYTES / 'line 00000\n'.length));
		});

		it('(c) copytruncate that regrows past the old offset before the next read, with the bytes before the old offset unchanged, is a new file', async () => {
			const {file, lines, states, tail} = setup();
			// Same length head lines, same body: the bytes just before the old offset match.
			fs.writeFileSync(file, 'old head line\n' + 'same\n'.repeat(100));
			await tail.start();
			expect(lines).toHaveLength(101);
			const copy = fs.readFileSync(file);
			fs.writeFileSync(`${file}.1`, copy);
			fs.truncateSync(file, 0);
			fs.appendFileSync(file, 'new head line\n' + 'same\n'.repeat(100) + 'new tail\n');
			await tail.readNow();
			expect(lines.slice(101)).toEqual(['new head line', ...Array.from({length: 100}, () => 'same'), 'new tail']);
			expect(states).toContain(`following ${file} (truncated)`);
		});

		it('(c) delete-and-recreate (the inode may be reused) grown past the old offset is a new file', async () => {
			const {file, lines, tail} = setup();
			// The bytes before the old offset match again (same banner length, same body).
			fs.writeFileSync(file, 'run 1 started\n' + 'same\n'.repeat(100));
			await tail.start();
			fs.unlinkSync(file);
			fs.writeFileSync(file, 'run 2 started\n' + 'same\n'.repeat(100) + 'run 2 line\n');
			await tail.readNow();
			expect(lines).toEqual(['run 1 started', ...Array.from({length: 100}, () => 'same'), 'run 2 started', ...Array.from({length: 100}, () => 'same'), 'run 2 line']);
		});

		it('a file that only grows is never re-read', async () => {
			const {file, lines, tail} = setup();
			fs.writeFileSync(file, 'x\n');
			await tail.start();
			for (let i = 0; i < 50; i++) {
				fs.appendFileSync(file, `y${i}\n`);
				await tail.readNow();
			}
			expect(lines).toEqual(['x', ...Array.from({length: 50}, (_, i) => `y${i}`)]);
		});
	});

	/**
	 * A busy log (more lines read than the tail's ledger keeps) cut to 0 by logrotate's copytruncate
	 * and regrown, by the next read, to less than where the first remembered line began: the new lines
	 * are read from 0, with no error (it resumed past the file's end: a negative read size threw
	 * "error reading", and only the read after began at 0).
	 */
	it('copytruncate of a log busier than the ledger: the new lines read once, from 0, no error', {timeout: 30_000}, async () => {
		const {file, lines, states, tail} = setup();
		await tail.start();
		const n = LEDGER_LINES + 50_000;
		fs.writeFileSync(file, Array.from({length: n}, (_, i) => `srv  log_server_r: request ${i}`).join('\n') + '\n');
		await tail.readNow();
		expect(lines.length).toBe(n);
		fs.truncateSync(file, 0);
		fs.appendFileSync(file, 'after the cut 1\nafter the cut 2\n');
		await tail.readNow();
		expect(lines.slice(n)).toEqual(['after the cut 1', 'after the cut 2']);
		expect(states.filter(s => s.startsWith('error'))).toEqual([]);
		expect(states).toContain(`following ${file} (truncated)`);
		fs.appendFileSync(file, 'after the cut 3\n');
		await tail.readNow();
		expect(lines.slice(n)).toEqual(['after the cut 1', 'after the cut 2', 'after the cut 3']);
	});

	/**
	 * Issue 32: the ledger keeps the last LEDGER_LINES lines only (one per log: logs × ledger). A busy
	 * log cut to 0 and regrown, before the next read, past where the first remembered line began: the
	 * head changed, so the new text began at 0 and is all read, none twice, none lost. (With the head
	 * not consulted it resumed at the first remembered line and said the lines before it were not read.)
	 */
	it.each([
		{regrown: 'past the first remembered line, short of our offset', extra: 0},
		{regrown: 'past our offset', extra: 2},
	])('copytruncate of a log busier than the ledger, regrown $regrown: every new line read once, from 0', {timeout: 30_000}, async ({extra}) => {
		const {file, lines, states, tail} = setup();
		await tail.start();
		const n = LEDGER_LINES * 2;
		const before = Array.from({length: n}, (_, i) => `srv  log_server_r: request ${String(i).padStart(6, '0')}`);
		fs.writeFileSync(file, before.join('\n') + '\n');
		await tail.readNow();
		expect(lines.length).toBe(n);
		const oldSize = fs.statSync(file).size;
		// New lines of another length (their ends never line up with the old ones), to past 3/4 of the
		// old file (the ledger remembers the last half of it) or past its end.
		const line = (i: number) => `new ${i}`;
		const after: string[] = [];
		let bytes = 0;
		const target = extra === 0 ? Math.floor(oldSize * 0.8) : oldSize + 1000;
		for (let i = 0; bytes < target; i++) {
			after.push(line(i));
			bytes += line(i).length + 1;
		}
		fs.truncateSync(file, 0);
		fs.appendFileSync(file, after.join('\n') + '\n');
		await tail.readNow();
		expect(lines.length - n).toBe(after.length);
		expect(lines.slice(n)).toEqual(after);
		expect(states).toContain(`following ${file} (truncated)`);
		expect(states.filter(s => s.includes('not read') || s.startsWith('error'))).toEqual([]);
	});
});
