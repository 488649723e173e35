/**
 * bench/traffic-writer.mjs's status file, which the traffic benches read at the start and end of
 * their window to count the lines written in it: read at any moment, it is a whole count. It was
 * rewritten in place, and a read in between saw it empty: the bench took 0 for the start and
 * reported every line since the writer began as written in its window (3× the real rate).
 */
import {spawn} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, it} from 'vitest';

const WRITER = new URL('../../bench/traffic-writer.mjs', import.meta.url).pathname;
const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

it('is never seen half written, and its count only grows', async () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-writer-'));
	dirs.push(dir);
	const status = path.join(dir, 'status.json');
	// 1,000 requests a second for 2 s: a status every 250 ms, read here as often as the loop turns
	const writer = spawn(process.execPath, [WRITER, path.join(dir, 'server.log'), 'llama.cpp', '1000', '2', status], {stdio: 'ignore'});
	const exited = new Promise(resolve => writer.once('exit', resolve));
	let reads = 0;
	let last = 0;
	const bad: string[] = [];
	let done = false;
	void exited.then(() => (done = true));
	while (!done) {
		let text: string | undefined;
		try {
			text = readFileSync(status, 'utf8');
		} catch {
			// not written yet
		}
		if (text !== undefined) {
			reads++;
			try {
				const {lines} = JSON.parse(text) as {lines: number};
				if (!(lines >= last)) bad.push(`lines ${lines} after ${last}`);
				last = lines;
			} catch {
				bad.push(`not JSON: ${JSON.stringify(text)}`);
			}
		}
		await new Promise(r => setImmediate(r));
	}
	expect(bad).toEqual([]);
	expect(reads).toBeGreaterThan(100);
	// 2 s of 1,000 requests of 7 or 9 lines
	expect(last).toBeGreaterThan(10_000);
}, 20_000);
