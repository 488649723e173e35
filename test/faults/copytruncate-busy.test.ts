/**
 * A busy log (more lines read than the tail's ledger keeps) cut to 0 by logrotate's copytruncate
 * and regrown, by the next read, to less than where the first remembered line began: the new lines
 * are read from 0, with no error (it resumed past the file's end: a negative read size threw
 * "error reading", and only the read after began at 0). Real files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, expect, it} from 'vitest';
import {createLogTail, LEDGER_LINES} from '../../source/sources/log-tail.js';

const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const s of stops.splice(0)) await s();
	for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true});
});

it('copytruncate of a log busier than the ledger: the new lines read once, from 0, no error', {timeout: 30_000}, async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-copytruncate-'));
	dirs.push(dir);
	const file = path.join(dir, 'server.log');
	const lines: string[] = [];
	const states: string[] = [];
	const tail = createLogTail({path: file, onLine: l => lines.push(l), onState: s => states.push(s), watch: false, pollMs: 3_600_000});
	stops.push(() => tail.stop());
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
