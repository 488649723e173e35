import {describe, expect, it} from 'vitest';
import {defaultLogLocations, findExistingLogs} from '../../source/sources/log-locations.js';

describe('defaultLogLocations', () => {
	it('macOS: app log and Homebrew prefixes', () => {
		const l = defaultLogLocations('darwin', {}, '/Users/me');
		expect(l.map(x => x.path)).toEqual([
			'/Users/me/.ollama/logs/server.log', '/opt/homebrew/var/log/ollama.log', '/usr/local/var/log/ollama.log',
			'/Users/me/.omlx/logs/server.log', '/opt/homebrew/var/log/omlx.log', '/usr/local/var/log/omlx.log',
		]);
		expect(l.every(x => (x.engine === 'ollama' || x.engine === 'omlx') && x.kind === 'file')).toBe(true);
	});
	it('Linux: journalctl when systemd has the unit', () => {
		const l = defaultLogLocations('linux', {HOMEBREW_PREFIX: '/opt/hb'}, '/home/me');
		const cmd = l.find(x => x.kind === 'cmd')!;
		expect(cmd.argv).toEqual(['journalctl', '-u', 'ollama', '-f', '-o', 'cat']);
		expect(l.filter(x => x.kind === 'file').map(x => x.path)).toContain('/opt/hb/var/log/ollama.log');
	});
	it('Windows: LOCALAPPDATA', () => {
		expect(defaultLogLocations('win32', {LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local'}, 'C:\\Users\\me')[0]!.path).toBe('C:\\Users\\me\\AppData\\Local\\Ollama\\server.log');
	});
});

describe('findExistingLogs', () => {
	it('keeps only what exists', async () => {
		const present = new Set(['/usr/local/var/log/ollama.log', '/lib/systemd/system/ollama.service']);
		const fs = {exists: async (p: string) => present.has(p)};
		expect((await findExistingLogs('darwin', {}, '/Users/me', fs)).map(x => x.path)).toEqual(['/usr/local/var/log/ollama.log']);
		const linux = await findExistingLogs('linux', {}, '/home/me', fs);
		expect(linux.map(x => x.kind)).toEqual(['file', 'cmd']);
		expect(await findExistingLogs('linux', {}, '/home/me', {exists: async () => false})).toEqual([]);
	});
});
