import {describe, expect, it} from 'vitest';
import {parseLstart, processStartMs} from '../../source/sources/process-start.js';

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
});
