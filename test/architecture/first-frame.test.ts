/**
 * What runs before the first frame (issue 32): the command line (source/cli.tsx) and the monitor
 * (source/commands/monitor.tsx, which it imports before drawing) and everything they import
 * statically. The collectors, the probe and node's HTTP, worker and crypto modules load after the
 * first frame (the runtime is a dynamic import): every module in this closure is read, compiled and
 * run before the screen shows anything. A rule, with a planted violation it must catch.
 */
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {staticImports} from '../helpers/imports.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Folders of source/ (and top-level modules, without extension) nothing before the first frame may load. */
const AFTER_FIRST_FRAME = ['probe', 'system', 'runtime', 'demo'];
/** node's modules nothing before the first frame may load (each costs ~0.4–3 ms with node's own code cache). */
const NODE_AFTER_FIRST_FRAME = ['http', 'https', 'worker_threads', 'crypto'];

/** A relative specifier of `from` as a file of source/ (.ts or .tsx for .js), or undefined. */
function resolve(from: string, spec: string): string | undefined {
	if (!spec.startsWith('.')) return undefined;
	const base = path.join(path.dirname(from), spec).replace(/\.js$/, '');
	for (const ext of ['.ts', '.tsx']) if (existsSync(base + ext)) return base + ext;
	return undefined;
}

/** The static closure of `entries`: its files (relative to source/) and node modules (without `node:`). */
export function closure(entries: readonly string[], read: (file: string) => string = f => readFileSync(f, 'utf8')): {files: Set<string>; node: Map<string, string>} {
	const files = new Set<string>();
	const node = new Map<string, string>();
	const todo = [...entries];
	while (todo.length > 0) {
		const f = todo.pop()!;
		const rel = path.relative(path.join(root, 'source'), f).split(path.sep).join('/');
		if (files.has(rel)) continue;
		files.add(rel);
		for (const spec of staticImports({rel, text: read(f)})) {
			if (spec.startsWith('node:')) {
				if (!node.has(spec.slice(5))) node.set(spec.slice(5), rel);
				continue;
			}
			const next = resolve(f, spec);
			if (next) todo.push(next);
		}
	}
	return {files, node};
}

/** What in the closure breaks the rule, one line each. */
export function lateModules(c: {files: Set<string>; node: Map<string, string>}): string[] {
	const out: string[] = [];
	for (const f of c.files) {
		const top = f.includes('/') ? f.split('/')[0]! : f.replace(/\.tsx?$/, '');
		if (AFTER_FIRST_FRAME.includes(top)) out.push(`source/${f}`);
	}
	for (const [m, by] of c.node) if (NODE_AFTER_FIRST_FRAME.includes(m)) out.push(`node:${m} (source/${by})`);
	return out.sort();
}

const ENTRIES = [path.join(root, 'source/cli.tsx'), path.join(root, 'source/commands/monitor.tsx')];

describe('what runs before the first frame', () => {
	it('loads neither the collectors, the probe, the demo, nor node:http, worker_threads or crypto', () => {
		const c = closure(ENTRIES);
		expect(c.files.has('ui/app.tsx')).toBe(true);
		expect(lateModules(c)).toEqual([]);
	});

	it('the rule catches a planted probe import and a planted node:http import', () => {
		const planted = (f: string) => {
			const text = readFileSync(f, 'utf8');
			return f.endsWith('source/cli.tsx') ? `import {parseDepths} from './probe/depths.js';\nimport http from 'node:http';\n${text}` : text;
		};
		const late = lateModules(closure(ENTRIES, planted));
		expect(late).toContain('source/probe/depths.ts');
		expect(late).toContain('source/probe/run.ts');
		expect(late).toContain('node:http (source/cli.tsx)');
	});

	it('type-only and dynamic imports are not static', () => {
		const text = "import type {A} from './a.js';\nconst m = await import('./b.js');\nimport {c, type D} from './c.js';\nexport {e} from './e.js';\nexport type {G} from './g.js';\nimport './f.js';";
		expect(staticImports({rel: 'x.ts', text})).toEqual(['./c.js', './e.js', './f.js']);
	});
});
