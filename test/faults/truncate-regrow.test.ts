/**
 * Fault suite (issue 34 item 8): a log cut to a third, then regrown past its old size in one write,
 * between two reads. The tail resumes at the first line that changed: no new line is skipped, no
 * old one read twice, and the state says "truncated" (GNU `tail -F` says "file truncated").
 * Also when the bytes just before the old offset happen to read the same (a repeated idle line),
 * and when the file watch (not the test) triggers the read. Real files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {createLogTail} from '../../source/sources/log-tail.js';
import {waitUntil} from '../helpers/wait.js';

const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const s of stops.splice(0)) await s();
	for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true});
});

function setup(watch = false) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-regrow-'));
	dirs.push(dir);
	const file = path.join(dir, 'server.log');
	const lines: string[] = [];
	const states: string[] = [];
	const tail = createLogTail({path: file, onLine: l => lines.push(l), onState: s => states.push(s), watch, pollMs: watch ? 200 : 3_600_000});
	stops.push(() => tail.stop());
	return {file, lines, states, tail};
}

/** A request's lines, as a llama-server prints them: a distinct one, then the same idle line. */
const request = (i: number) => `slot release: id  0 | task ${1000 + i} | stop processing: n_tokens = ${200 + i}, truncated = 0\nsrv  update_slots: all slots are idle\n`;
const requests = (from: number, n: number) => Array.from({length: n}, (_, k) => request(from + k)).join('');
const tasks = (lines: readonly string[]) => lines.filter(l => l.startsWith('slot release')).map(l => Number(/task (\d+)/.exec(l)![1]) - 1000);

describe('a log cut and regrown past its old size in one write', {timeout: 30_000}, () => {
	it('cut at a line boundary: the 16 new requests read, none of the 5 kept read again', async () => {
		const {file, lines, states, tail} = setup();
		fs.writeFileSync(file, requests(1, 15));
		await tail.start();
		expect(tasks(lines)).toEqual(Array.from({length: 15}, (_, k) => k + 1));
		const size = fs.statSync(file).size;
		fs.truncateSync(file, Buffer.byteLength(requests(1, 5)));
		fs.appendFileSync(file, requests(16, 16));
		expect(fs.statSync(file).size).toBeGreaterThan(size);
		await tail.readNow();
		expect(tasks(lines)).toEqual(Array.from({length: 30}, (_, k) => k + 1).concat(31));
		expect(states).toContain(`following ${file} (truncated)`);
	});

	it('cut to a third in mid-line: every new request read once, no old complete line again', async () => {
		const {file, lines, states, tail} = setup();
		fs.writeFileSync(file, requests(1, 15));
		await tail.start();
		const size = fs.statSync(file).size;
		fs.truncateSync(file, Math.floor(size / 3));
		fs.appendFileSync(file, '\n' + requests(16, 16));
		await tail.readNow();
		const after = lines.slice(30);
		expect(tasks(after)).toEqual(Array.from({length: 16}, (_, k) => k + 16));
		// The one cut line comes back as the fragment the file now holds, nothing else of the old.
		expect(after.filter(l => !/task 10(1[6-9]|2\d|3[01]) /.test(l) && l !== 'srv  update_slots: all slots are idle')).toHaveLength(1);
		expect(states).toContain(`following ${file} (truncated)`);
	});

	it('the bytes just before the old offset read the same after the regrowth: still seen', async () => {
		const {file, lines, states, tail} = setup();
		const idle = 'srv  update_slots: all slots are idle\n'.repeat(2);
		const old = requests(1, 15) + idle;
		fs.writeFileSync(file, old);
		await tail.start();
		// New text laid out so the old offset falls right after the same two idle lines (lines of one length).
		// Cut past the first KB (the file's head unchanged), so only the lines further back can tell.
		const kept = requests(1, 10);
		expect(Buffer.byteLength(kept)).toBeGreaterThan(1024);
		const grown = kept + requests(21, 5) + idle + requests(31, 6);
		expect(grown.slice(old.length - 64, old.length)).toBe(old.slice(-64));
		fs.truncateSync(file, Buffer.byteLength(kept));
		fs.appendFileSync(file, grown.slice(kept.length));
		await tail.readNow();
		expect(tasks(lines.slice(32))).toEqual([21, 22, 23, 24, 25, 31, 32, 33, 34, 35, 36]);
		expect(states).toContain(`following ${file} (truncated)`);
	});

	it('with the file watched (the watch and its poll trigger the reads)', async () => {
		const {file, lines, states, tail} = setup(true);
		fs.writeFileSync(file, requests(1, 15));
		await tail.start();
		await waitUntil(() => tasks(lines).length === 15, {what: 'the first 15'});
		fs.truncateSync(file, Buffer.byteLength(requests(1, 5)));
		fs.appendFileSync(file, requests(16, 16));
		await waitUntil(() => tasks(lines).length >= 31, {timeoutMs: 10_000, what: 'the new requests'});
		await new Promise(r => setTimeout(r, 500));
		expect(tasks(lines)).toEqual(Array.from({length: 31}, (_, k) => k + 1));
		expect(states).toContain(`following ${file} (truncated)`);
	});
});
