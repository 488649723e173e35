/**
 * Fault suite (issue 34 item 11): a new probe history on a full disk leaves no `.tmp` file behind.
 * The disk is simulated: the header's write creates the temp file, writes part of it, and fails with
 * ENOSPC, as a full disk does. The error reaches the caller; the folder holds nothing of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it, vi} from 'vitest';

vi.mock('node:fs/promises', async (importOriginal) => {
	const real = await importOriginal<typeof import('node:fs/promises')>();
	return {
		...real,
		writeFile: async (file: string, data: string, options: {flag?: string}) => {
			if (!String(file).endsWith('.tmp')) return real.writeFile(file, data, options);
			await real.writeFile(file, String(data).slice(0, 10), options);
			throw Object.assign(new Error('ENOSPC: no space left on device, write'), {code: 'ENOSPC'});
		},
	};
});

const {appendHistory} = await import('../../source/probe/history.js');

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true});
});

describe('history on a full disk', () => {
	it('the write fails with ENOSPC and no .tmp file is left', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-full-'));
		dirs.push(dir);
		const file = path.join(dir, 'probes.csv');
		await expect(appendHistory(file, {t: 0, url: 'http://127.0.0.1:1', engine: 'ollama', prompt: 'code', protocol: 'ollama'} as never, '0.1.0')).rejects.toMatchObject({code: 'ENOSPC'});
		expect(fs.readdirSync(dir)).toEqual([]);
	});
});
