import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {MAX_FILE_BYTES, loadPrompt, parsePromptArg} from '../../source/probe/prompts.js';

describe('probe prompts', () => {
	it('parses --prompt', () => {
		expect(parsePromptArg('code')).toBe('code');
		expect(parsePromptArg('long')).toBe('long');
		expect(parsePromptArg('@notes.md')).toEqual({file: 'notes.md'});
		expect(parsePromptArg('file')).toBeUndefined();
		expect(parsePromptArg('poem')).toBeUndefined();
		expect(parsePromptArg('@')).toBeUndefined();
	});

	it('short prompts: code asks for a class, prose ~400 words, repeat 40 times, hex', async () => {
		expect((await loadPrompt('code')).text).toMatch(/class/);
		expect((await loadPrompt('prose')).text).toMatch(/400 words/);
		expect((await loadPrompt('repeat')).text).toMatch(/40 times/);
		expect((await loadPrompt('hex')).text).toMatch(/hexadecimal/);
	});

	it('long: ~95 KB of real source (samples/prompts) and then a question', async () => {
		const p = await loadPrompt('long');
		expect(p.text.length).toBeGreaterThan(90_000);
		expect(p.text).toContain('// ===== ink/build/ink.js =====');
		expect(p.text.trimEnd().endsWith('?')).toBe(true);
	});

	it('@file: read, empty and oversized files refused with a reason', async () => {
		const dir = await mkdtemp(path.join(os.tmpdir(), 'infertop-prompt-'));
		try {
			await writeFile(path.join(dir, 'a.txt'), 'Say hi.');
			await writeFile(path.join(dir, 'empty.txt'), '  \n');
			await writeFile(path.join(dir, 'big.txt'), 'x'.repeat(MAX_FILE_BYTES + 1));
			expect(await loadPrompt({file: path.join(dir, 'a.txt')})).toEqual({kind: 'file', label: '@a.txt', text: 'Say hi.'});
			await expect(loadPrompt({file: path.join(dir, 'empty.txt')})).rejects.toThrow(/is empty/);
			await expect(loadPrompt({file: path.join(dir, 'big.txt')})).rejects.toThrow(/limit/);
			await expect(loadPrompt({file: path.join(dir, 'nope.txt')})).rejects.toThrow(/cannot read prompt file/);
		} finally {
			await rm(dir, {recursive: true, force: true});
		}
	});
});
