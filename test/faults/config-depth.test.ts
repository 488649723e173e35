import {describe, expect, it} from 'vitest';
import {loadConfig} from '../../source/config/config.js';
import {MAX_JSONC_DEPTH, parseJsonc, plain} from '../../source/config/jsonc.js';

const nested = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth);

describe('JSONC depth bound (issue 14 item 9)', () => {
	it('a config nested 4,000 levels deep is a clear syntax error, not a stack overflow', () => {
		// The top-level object is level 1, so the 64th bracket is the first too deep.
		const r = parseJsonc(`{"theme": ${nested(4000)}}`);
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.error).toEqual({message: `nested more than ${MAX_JSONC_DEPTH} levels deep`, line: 1, col: 10 + MAX_JSONC_DEPTH});
		const objects = parseJsonc('{"a":'.repeat(4000) + '1' + '}'.repeat(4000));
		expect(!objects.ok && objects.error.message).toBe(`nested more than ${MAX_JSONC_DEPTH} levels deep`);
	});

	it('loadConfig reports it with file:line:col and falls back to the defaults', () => {
		const r = loadConfig({platform: 'linux', homedir: '/home/ada', env: {}, path: '/etc/infertop.json', readFile: () => `{\n"theme": ${nested(4000)}\n}`});
		expect(r.problems).toEqual([`/etc/infertop.json:2:${9 + MAX_JSONC_DEPTH}: nested more than ${MAX_JSONC_DEPTH} levels deep; the file is ignored, using the defaults`]);
	});

	it('nesting up to the bound still parses', () => {
		const r = parseJsonc(nested(MAX_JSONC_DEPTH));
		expect(r.ok).toBe(true);
		let v = r.ok ? plain(r.node) : undefined;
		let depth = 0;
		while (Array.isArray(v)) {
			depth += 1;
			v = v[0];
		}
		expect(depth).toBe(MAX_JSONC_DEPTH);
		expect(parseJsonc(nested(MAX_JSONC_DEPTH + 1)).ok).toBe(false);
	});
});
