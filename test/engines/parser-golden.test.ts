/**
 * Issue 32: the vLLM and SGLang log parsers were made cheaper for busy `--log-requests` logs; their
 * output must not change by a single field. test/fixtures/engines/golden/<engine>.json holds what
 * the parsers of main at 48848bc made of each line (the samples, the tests' lines, the shared
 * reference's, request traffic with multi-KB prompts and token ids, prompts quoting other lines'
 * phrases, 1,500 fuzzed lines, and the messages alone); see parser-golden.gen.ts. A golden file
 * rather than a copy of the old parsers: it pins the output main really gave, with no second
 * implementation to keep in step.
 */
import fs from 'node:fs';
import {describe, expect, it} from 'vitest';
import {generated, GOLDEN_ENGINES, goldenFile, runGroup, sha256, type Golden} from './parser-golden.gen.js';

for (const engine of GOLDEN_ENGINES) {
	describe(`${engine} parser: the same output as main at 48848bc (golden file)`, () => {
		const golden = JSON.parse(fs.readFileSync(goldenFile(engine), 'utf8')) as Golden;
		const stored = golden.groups.filter(g => g.lines !== undefined);
		const made = generated(engine, stored.flatMap(g => g.lines!));

		it('holds every group, each with lines that carry events', () => {
			expect(golden.groups.map(g => g.name).slice(-5)).toEqual(['tests', 'reference', 'requests', 'fuzz', 'messages']);
			for (const g of golden.groups) expect(g.out.some(o => Array.isArray(o) && o.length > 0), g.name).toBe(true);
		});

		for (const g of golden.groups) {
			it(`${g.name}: line by line, to the last field`, () => {
				const lines = g.lines ?? made.find(m => m.name === g.name)!.lines;
				// The generated lines are the ones the golden file was made from.
				if (g.linesSha256 !== undefined) expect(sha256(lines), 'generated lines changed: regenerate only for a deliberate change').toBe(g.linesSha256);
				expect(lines.length).toBe(g.out.length);
				const out = runGroup(engine, lines, g.via);
				const differ: string[] = [];
				for (let i = 0; i < lines.length; i++) {
					// JSON text, so the order of the fields counts too.
					const now = JSON.stringify(out[i]);
					const then = JSON.stringify(g.out[i]);
					if (now !== then && differ.length < 5) differ.push(`#${i} ${JSON.stringify(lines[i]!.slice(0, 160))}: ${then} → ${now}`);
				}
				expect(differ).toEqual([]);
			});
		}
	});
}
