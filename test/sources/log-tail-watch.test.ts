/**
 * The tail's own file watch (fs.watch on the file; issue 32: chokidar stat'ed the file on every
 * event). With the stat poll off, the watch alone: follows appends, coalesces a burst of events
 * into at most a read per MIN_READ_GAP_MS, misses no write, and follows a rotation (rename + new
 * file) by re-arming on the new file. Real files.
 */
import {appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {PUBLISH_INTERVAL_MS} from '../../source/model/store.js';
import {createLogTail, MIN_READ_GAP_MS} from '../../source/sources/log-tail.js';
import {waitUntil} from '../helpers/wait.js';

const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const s of stops.splice(0)) await s();
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

function setup(syncReads?: boolean) {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-watch-'));
	dirs.push(dir);
	const file = path.join(dir, 'server.log');
	writeFileSync(file, '');
	const lines: string[] = [];
	// Lines delivered in one turn of the event loop came from one read.
	let reads = 0;
	let inRead = false;
	const onLine = (line: string) => {
		lines.push(line);
		if (!inRead) {
			inRead = true;
			reads++;
			setImmediate(() => (inRead = false));
		}
	};
	const tail = createLogTail({path: file, onLine, pollMs: 3_600_000, syncReads});
	stops.push(() => tail.stop());
	return {dir, file, lines, reads: () => reads, tail};
}

describe('the file watch alone (no poll)', {timeout: 30_000}, () => {
	it('a busy log is read no more often than the screen can show it (issue 32: each read costs its checks and a store update)', () => {
		expect(MIN_READ_GAP_MS).toBeGreaterThanOrEqual(PUBLISH_INTERVAL_MS);
	});

	it('300 appends a few ms apart: every line read once, in order, in a read per gap at most', async () => {
		const {file, lines, reads, tail} = setup();
		await tail.start();
		const t0 = performance.now();
		for (let i = 0; i < 300; i++) {
			appendFileSync(file, `request ${i}\n`);
			await new Promise(r => setTimeout(r, 3));
		}
		await waitUntil(() => lines.length === 300, {what: 'all 300 lines'});
		const elapsed = performance.now() - t0;
		expect(lines).toEqual(Array.from({length: 300}, (_, i) => `request ${i}`));
		expect(reads()).toBeLessThanOrEqual(Math.ceil(elapsed / MIN_READ_GAP_MS) + 2);
	});

	it.each([
		['synchronous reads (a local disk on Linux)', undefined],
		['asynchronous reads (macOS, a network folder)', false],
	])('a busy log (an engine writes each line on its own) is read by the clock, not by its events; when it quiets down the watch is open again: %s', async (_, syncReads) => {
		const {file, lines, tail} = setup(syncReads);
		await tail.start();
		expect(tail.watching()).toBe(true);
		for (let i = 0; i < 300; i++) {
			appendFileSync(file, `line ${i}\n`);
			await new Promise(r => setTimeout(r, 3));
		}
		await waitUntil(() => lines.length === 300, {what: 'all 300 lines'});
		expect(lines).toEqual(Array.from({length: 300}, (_, i) => `line ${i}`));
		// One event opens a busy spell (a spell ends only when a read finds nothing: not while lines
		// come every few ms); before, each of the 300 writes was an event taken.
		expect(tail.fileEvents()).toBeLessThan(30);
		// Quiet again: the watch is open, and the next line comes through it (no poll in this test).
		await waitUntil(() => tail.watching(), {what: 'the watch open again'});
		const before = tail.fileEvents();
		appendFileSync(file, 'after\n');
		await waitUntil(() => lines.length === 301, {what: 'the line after, through the watch'});
		expect(lines.at(-1)).toBe('after');
		expect(tail.fileEvents()).toBeGreaterThan(before);
	});

	it('a rotation in the middle of a busy spell (the watch closed, reads by the clock): the old file drained, the new one followed, no line lost or read twice', async () => {
		const {dir, file, lines, tail} = setup();
		await tail.start();
		for (let i = 0; i < 150; i++) {
			appendFileSync(file, `old ${i}\n`);
			await new Promise(r => setTimeout(r, 3));
		}
		// renamed while lines still come (logrotate's default, or an engine restarted under the same name)
		renameSync(file, path.join(dir, 'server.log.1'));
		for (let i = 0; i < 150; i++) {
			appendFileSync(file, `new ${i}\n`);
			await new Promise(r => setTimeout(r, 3));
		}
		await waitUntil(() => lines.length === 300, {what: 'all 300 lines, across the rotation'});
		expect(lines).toEqual([...Array.from({length: 150}, (_, i) => `old ${i}`), ...Array.from({length: 150}, (_, i) => `new ${i}`)]);
		expect(tail.fileEvents()).toBeLessThan(60);
		await waitUntil(() => tail.watching(), {what: 'the new file watched once it is quiet'});
		appendFileSync(file, 'new after\n');
		await waitUntil(() => lines.length === 301, {what: 'a line of the new file, through its watch'});
	});

	it('a copytruncate in the middle of a busy spell: every line written after the cut is read, none twice', async () => {
		const {file, lines, tail} = setup();
		await tail.start();
		for (let i = 0; i < 150; i++) {
			appendFileSync(file, `old ${i}\n`);
			await new Promise(r => setTimeout(r, 3));
		}
		// logrotate's copytruncate: the file cut to nothing under the writer, which goes on appending
		// (lines written since the last read and before the cut are gone from the file: tail -F loses them too)
		truncateSync(file, 0);
		for (let i = 0; i < 150; i++) {
			appendFileSync(file, `new ${i}\n`);
			await new Promise(r => setTimeout(r, 3));
		}
		await waitUntil(() => lines.at(-1) === 'new 149', {what: 'the last line after the cut'});
		const old = lines.filter(l => l.startsWith('old '));
		expect(old).toEqual(Array.from({length: old.length}, (_, i) => `old ${i}`));
		expect(lines.slice(old.length)).toEqual(Array.from({length: 150}, (_, i) => `new ${i}`));
		expect(tail.fileEvents()).toBeLessThan(60);
	});

	it('a rotation (rename, new file under the name): the old one drained, the new one followed and watched', async () => {
		const {dir, file, lines, tail} = setup();
		await tail.start();
		appendFileSync(file, 'old 1\n');
		await waitUntil(() => lines.length === 1, {what: 'old 1'});
		appendFileSync(file, 'old 2\n');
		renameSync(file, path.join(dir, 'server.log.1'));
		writeFileSync(file, 'new 1\n');
		await waitUntil(() => lines.length === 3, {what: 'old 2 and new 1'});
		appendFileSync(file, 'new 2\n');
		await waitUntil(() => lines.length === 4, {what: 'new 2, through the watch of the new file'});
		expect(lines).toEqual(['old 1', 'old 2', 'new 1', 'new 2']);
	});
});
