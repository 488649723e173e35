import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {parseBtime, parseLstart, processStartMs} from '../../source/sources/process-start.js';

describe('process start time', () => {
	it('reads ps lstart (local time, to the second)', () => {
		expect(parseLstart('Tue Dec  1 10:22:25 2026\n')).toBe(new Date(2026, 11, 1, 10, 22, 25).getTime());
		expect(parseLstart('garbage')).toBeUndefined();
	});

	it.skipIf(process.platform === 'win32')('this process: ps agrees with Node\'s own uptime to the second', async () => {
		const t = await processStartMs(process.pid);
		const fromUptime = Date.now() - process.uptime() * 1000;
		expect(t).toBeDefined();
		expect(Math.abs(t! - fromUptime)).toBeLessThan(2000);
		expect(await processStartMs(-1)).toBeUndefined();
	});

	it('reads /proc: btime of /proc/stat plus the process\'s starttime (clock ticks since boot)', async () => {
		expect(parseBtime('cpu  1 2 3 4\nintr 5\nbtime 1796321464\nprocesses 9\n')).toBe(1796321464);
		expect(parseBtime('cpu  1 2 3 4\n')).toBeUndefined();
		const root = await mkdtemp(path.join(os.tmpdir(), 'infertop-proc-'));
		try {
			await mkdir(path.join(root, '4242'));
			await writeFile(path.join(root, 'stat'), 'cpu  1 2 3 4 5 6 7 8 0 0\nbtime 1796321464\n');
			// proc(5): starttime is the 22nd field; comm may hold spaces and parentheses
			await writeFile(path.join(root, '4242', 'stat'), '4242 (llama (x) srv) S 1 4242 4242 0 -1 4194560 2 0 0 0 5 6 0 0 20 0 3 0 123456 2 3 18446744073709551615\n');
			expect(await processStartMs(4242, {procRoot: root})).toBe(1796321464 * 1000 + 1234560);
			expect(await processStartMs(4243, {procRoot: root})).toBeUndefined();
		} finally {
			await rm(root, {recursive: true, force: true});
		}
	});
});
