/**
 * The layers of docs/architecture.md, checked on every import of source/ (static,
 * re-export and dynamic): types/ is the leaf; engines/ and model/ do no I/O and import nothing from
 * sources/, probe/, ui/ (or system/, the runtime, commands, the demo); ui/ does no file, process or
 * network I/O and imports neither sources/ nor probe/. And no engine is switched on by name
 * outside engines/: the registry says what each engine needs.
 */
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {ENGINE_KINDS} from '../../source/types/events.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const source = path.join(root, 'source');

const IO = new Set(['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'execa', 'chokidar', 'systeminformation']);
const UI_IO = new Set(['fs', 'fs/promises', 'child_process', 'net', 'http', 'https', 'execa', 'chokidar']);

interface Rule {
	readonly layer: string;
	/** Folders under source/ (or top-level modules without extension) this layer may not import. */
	readonly forbidden: readonly string[];
	readonly io: ReadonlySet<string>;
	/** Only these folders of ours may be imported (leaf layer). */
	readonly only?: readonly string[];
}

const RULES: readonly Rule[] = [
	{layer: 'types', forbidden: [], io: IO, only: ['types']},
	{layer: 'engines', forbidden: ['sources', 'probe', 'ui', 'system', 'runtime', 'commands', 'demo', 'cli'], io: IO},
	{layer: 'model', forbidden: ['sources', 'probe', 'ui', 'system', 'runtime', 'commands', 'demo', 'cli'], io: IO},
	{layer: 'ui', forbidden: ['sources', 'probe'], io: UI_IO},
];

function files(dir: string): string[] {
	return readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) return files(p);
		return /\.(ts|tsx)$/.test(e.name) ? [p] : [];
	});
}

/** Every module specifier a file imports (static, `export … from`, dynamic `import()`). */
export function importsOf(text: string): string[] {
	const out: string[] = [];
	for (const m of text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
	for (const m of text.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g)) out.push(m[1]!);
	for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
	return out;
}

/** What is wrong with `file` (relative to source/) importing `spec`; undefined when allowed. */
export function violation(file: string, spec: string): string | undefined {
	const layer = file.split('/')[0]!;
	const rule = RULES.find((r) => r.layer === layer);
	if (!rule) return undefined;
	const bare = spec.replace(/^node:/, '');
	if (!spec.startsWith('.')) return rule.io.has(bare) ? `${file}: ${layer}/ does no I/O but imports ${spec}` : undefined;
	const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
	const top = target.split('/')[0]!.replace(/\.(js|ts|tsx)$/, '');
	if (rule.only && !rule.only.includes(top)) return `${file}: ${layer}/ is the leaf and may not import ${target}`;
	if (rule.forbidden.includes(top)) return `${file}: ${layer}/ may not import ${target} (upward)`;
	return undefined;
}

describe('architecture', () => {
	it('the checker itself catches an upward import, I/O in a pure layer, and a leaf that imports', () => {
		expect(violation('model/derive.ts', '../probe/run.js')).toMatch(/upward/);
		expect(violation('engines/ollama.ts', '../sources/log-source.js')).toMatch(/upward/);
		expect(violation('engines/ollama.ts', 'node:fs')).toMatch(/no I\/O/);
		expect(violation('ui/app.tsx', 'node:child_process')).toMatch(/no I\/O/);
		expect(violation('ui/panes/log.tsx', '../../sources/log-tail.js')).toMatch(/upward/);
		expect(violation('types/state.ts', '../model/figures.js')).toMatch(/leaf/);
		expect(violation('model/derive.ts', '../engines/index.js')).toBeUndefined();
		expect(violation('sources/log-source.ts', 'node:fs')).toBeUndefined();
		expect(importsOf("import a from './x.js';\nexport {b} from \"../y.js\";\nconst c = await import('node:fs');\nimport './z.js';")).toEqual(['./x.js', '../y.js', './z.js', 'node:fs']);
	});

	it('no file of source/ imports across its layer', () => {
		const bad: string[] = [];
		for (const f of files(source)) {
			const rel = path.relative(source, f).split(path.sep).join('/');
			for (const spec of importsOf(readFileSync(f, 'utf8'))) {
				const v = violation(rel, spec);
				if (v) bad.push(v);
			}
		}
		expect(bad).toEqual([]);
	});

	it('no engine is switched on by name outside engines/ (the registry says what each needs)', () => {
		// `openai` is the kind of a server not yet identified, so comparing with it is not a per-engine switch.
		const kinds = ENGINE_KINDS.filter((k) => k !== 'openai').join('|');
		// `return 'ollama'` outside engines/ is a name table (a process or answer → engine rule kept elsewhere).
		const pattern = new RegExp(`case '(?:${kinds})':|\\bengine\\)?\\s*[!=]==?\\s*'(?:${kinds})'|'(?:${kinds})'\\s*[!=]==?\\s*\\w*engine\\b|'demo-ollama'|\\breturn '(?:${kinds})'`);
		const bad: string[] = [];
		for (const f of files(source)) {
			const rel = path.relative(source, f).split(path.sep).join('/');
			if (rel.startsWith('engines/') || rel.startsWith('types/')) continue;
			readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
				if (pattern.test(line)) bad.push(`${rel}:${i + 1}: ${line.trim()}`);
			});
		}
		expect(bad).toEqual([]);
	});
});
