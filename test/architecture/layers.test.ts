/**
 * The layers of docs/architecture.md, checked on every import of source/ (static,
 * re-export and dynamic): types/ is the leaf; engines/ and model/ do no I/O and import nothing from
 * sources/, probe/, ui/ (or system/, the runtime, commands, the demo), and engines/ nothing from
 * model/ either; ui/ does no file, process or network I/O and imports neither sources/ nor probe/.
 * And one engine is one file: an engine takes its helpers from engines/answers.ts, never from
 * another engine's file (only a whole parser, where it writes that engine's log); no engine is
 * named outside engines/ (the registry says what each engine needs): neither as a string equal to
 * its kind nor as a word of a name or a string (`lithosDecodeSteps`, `llamaBuildNumber`), beyond
 * the places listed with their reasons. Every rule has a planted violation below that it must catch.
 */
import {readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import ts from 'typescript';
import {describe, expect, it} from 'vitest';
import {ENGINE_KINDS, ENGINE_LABELS} from '../../source/engines/index.js';
import {parse, type SourceFile} from '../helpers/imports.js';

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
	{layer: 'engines', forbidden: ['model', 'sources', 'probe', 'ui', 'system', 'runtime', 'commands', 'demo', 'cli'], io: IO},
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

function sourceFiles(): SourceFile[] {
	return files(source).map((f) => ({rel: path.relative(source, f).split(path.sep).join('/'), text: readFileSync(f, 'utf8')}));
}

/** The modules of engines/ that are no engine: the shared leaf, the descriptor and evidence types, detection, log times, the registry. */
const ENGINE_INFRA: ReadonlySet<string> = new Set(['answers', 'descriptor', 'fingerprint', 'detect', 'log-time', 'index', 'registry']);

/** A whole log parser of an engine: what another engine that writes its log may import from it. */
const WHOLE_PARSER = /^create\w*Parser$/;

/** Every `import … from` / `export … from` of a file: the module and the names it takes (`*` for a namespace, none for a side effect). */
export function importNames(file: SourceFile): {readonly spec: string; readonly names: readonly string[]}[] {
	const out: {spec: string; names: string[]}[] = [];
	for (const st of parse(file).statements) {
		if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
			const c = st.importClause;
			const names: string[] = [];
			if (c?.name) names.push('default');
			if (c?.namedBindings) {
				if (ts.isNamespaceImport(c.namedBindings)) names.push('*');
				else for (const e of c.namedBindings.elements) names.push((e.propertyName ?? e.name).text);
			}
			out.push({spec: st.moduleSpecifier.text, names});
		} else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
			const c = st.exportClause;
			out.push({spec: st.moduleSpecifier.text, names: c && ts.isNamedExports(c) ? c.elements.map((e) => (e.propertyName ?? e.name).text) : ['*']});
		}
	}
	return out;
}

/**
 * What is wrong with `file` (relative to source/) of engines/ importing `names` from `spec`:
 * answers.ts is the leaf (nothing of engines/); the shared modules import no engine (only the
 * registry lists them); an engine imports another engine's file only for its whole parser.
 */
export function engineImportViolation(file: string, spec: string, names: readonly string[]): string | undefined {
	if (!file.startsWith('engines/') || !spec.startsWith('./')) return undefined;
	const from = path.posix.basename(file).replace(/\.tsx?$/, '');
	const to = spec.slice(2).replace(/\.(js|ts)$/, '');
	if (from === 'answers') return `${file}: engines/answers.ts is the shared leaf and may not import ./${to}`;
	if (ENGINE_INFRA.has(to) || from === 'registry') return undefined;
	if (ENGINE_INFRA.has(from)) return `${file}: ${from} is shared by every engine and may not import the engine ./${to} (only the registry lists them)`;
	const helpers = names.filter((n) => !WHOLE_PARSER.test(n));
	if (names.length > 0 && helpers.length === 0) return undefined;
	return `${file}: an engine imports another engine's file only for its whole parser (create…Parser), not ${helpers.join(', ') || 'for a side effect'} from ./${to}: shared helpers live in engines/answers.ts`;
}

/** Every engine-to-engine import of `files` that engineImportViolation refuses. */
export function engineImportViolations(files: readonly SourceFile[]): string[] {
	return files.flatMap((f) => importNames(f).flatMap(({spec, names}) => engineImportViolation(f.rel, spec, names) ?? []));
}

/** Quoted strings (string literals and plain template literals, never comments) of `file` that are exactly an engine's kind. */
export function engineNameLiterals(file: SourceFile, kinds: readonly string[]): {readonly line: number; readonly kind: string}[] {
	const sf = parse(file);
	const out: {line: number; kind: string}[] = [];
	const visit = (n: ts.Node): void => {
		if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && kinds.includes(n.text)) {
			out.push({line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, kind: n.text});
		}
		ts.forEachChild(n, visit);
	};
	visit(sf);
	return out;
}

/**
 * The engine names written outside engines/ on purpose, each with its reason and its exact number
 * of places (one more, or one fewer, fails: the list stays true).
 */
const NAMED_OUTSIDE: readonly {readonly file: string; readonly kind: string; readonly count: number; readonly why: string}[] = [
	{file: 'types/probe.ts', kind: 'ollama', count: 1, why: "OLLAMA_PROTOCOL: the wire protocol of Ollama's /api/generate (other servers speak it too), a JSON value"},
	{file: 'sources/ollama-ps-cli.ts', kind: 'ollama', count: 1, why: 'the `ollama` executable that `--ollama-ps cli` runs'},
	{file: 'runtime.ts', kind: 'ollama', count: 2, why: '`--ollama-ps cli` (Ollama\'s own command) and the demo engine, an Ollama by design'},
];

/** Engine names outside engines/ beyond NAMED_OUTSIDE: one line each. */
export function engineNameViolations(files: readonly SourceFile[], kinds: readonly string[]): string[] {
	const bad: string[] = [];
	for (const f of files) {
		if (f.rel.startsWith('engines/')) continue;
		const found = engineNameLiterals(f, kinds);
		for (const kind of new Set([...found.map((x) => x.kind), ...NAMED_OUTSIDE.filter((n) => n.file === f.rel).map((n) => n.kind)])) {
			const lines = found.filter((x) => x.kind === kind).map((x) => x.line);
			const allowed = NAMED_OUTSIDE.find((n) => n.file === f.rel && n.kind === kind)?.count ?? 0;
			if (lines.length !== allowed) bad.push(`${f.rel}:${lines.join(',') || '-'}: '${kind}' written ${lines.length} times outside engines/ (allowed ${allowed}): read it from the registry`);
		}
	}
	return bad;
}

/**
 * An engine's name as a word: its kind and the first word of its label (llama.cpp → `llama`,
 * lithos-metal → `lithos`), except `openai` (the protocol every server speaks) and label words
 * shorter than four letters (`lm`, `mlx`: also names of formats).
 */
export function engineWords(): string[] {
	const words = new Set<string>();
	for (const k of ENGINE_KINDS) {
		if (k === 'openai') continue;
		words.add(k);
		const first = ENGINE_LABELS[k].toLowerCase().split(/[^a-z0-9]+/)[0] ?? '';
		if (first.length >= 4) words.add(first);
	}
	return [...words];
}

/** The words of a name or a string: camelCase, snake_case, kebab-case and dotted parts, and each two neighbours joined (`lmStudio` → lm, studio, lmstudio). */
export function wordsOf(text: string): string[] {
	const parts = text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
	return [...parts, ...parts.slice(1).map((p, i) => parts[i]! + p)];
}

/** Identifiers and strings of `file` (never comments, never the module an import names) with an engine's name as a word. */
export function engineWordUses(file: SourceFile, words: readonly string[]): {readonly line: number; readonly word: string; readonly text: string}[] {
	const sf = parse(file);
	const out: {line: number; word: string; text: string}[] = [];
	const visit = (n: ts.Node): void => {
		if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
			// the module path is the import rules' business; the names taken are checked
			if (ts.isImportDeclaration(n) && n.importClause) visit(n.importClause);
			if (ts.isExportDeclaration(n) && n.exportClause) visit(n.exportClause);
			return;
		}
		if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) return;
		const text = ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n) ? n.text : undefined;
		if (text !== undefined) {
			const ws = wordsOf(text);
			for (const w of words) if (ws.includes(w)) out.push({line: sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1, word: w, text: text.slice(0, 40)});
		}
		ts.forEachChild(n, visit);
	};
	visit(sf);
	return out;
}

/**
 * Where an engine's name may be a word of code outside engines/ (a folder ends in `/`), each with
 * its reason. Any other file that names an engine in an identifier or a string fails: engine
 * knowledge belongs in its descriptor.
 */
const ENGINE_WORDS_OUTSIDE: readonly {readonly word: string; readonly files: readonly string[]; readonly why: string}[] = [
	{word: 'ollama', files: ['demo/'], why: 'the demo engine is an Ollama by design'},
	{word: 'llama', files: ['demo/'], why: "the demo's GGUF runner writes llama-server's lines, as Ollama's does"},
	{word: 'ollama', files: ['types/probe.ts', 'probe/client.ts', 'probe/protocols.ts', 'probe/timing.ts'], why: "OLLAMA_PROTOCOL: Ollama's /api/generate wire protocol (other servers speak it too) and its NDJSON stream reader"},
	{word: 'ollama', files: ['types/events.ts', 'types/state.ts', 'types/figures.ts'], why: "OllamaRunner: the two runners of an Ollama ≥ 0.30 (gguf, mlx), part of the shared vocabulary"},
	{word: 'ollama', files: ['sources/ollama-ps-cli.ts', 'system/ollama-ps.ts', 'config/config.ts', 'config/flags.ts', 'runtime.ts', 'cli.tsx'], why: "`--ollama-ps cli`: Ollama's own `ollama ps` command, run and parsed (and the demo started by the runtime)"},
	{word: 'vllm', files: ['cli.tsx', 'config/config.ts'], why: 'help and error text that gives an example (`VLLM_API_KEY`, a vLLM URL)'},
	{word: 'ollama', files: ['sources/model-bytes.ts'], why: "Ollama's blob store and /api/show, read where the descriptor's modelBytes hints (ollamaBlobs, ollamaShow) say: file I/O, which engines/ may not do"},
	{word: 'lmstudio', files: ['sources/model-bytes.ts'], why: "LM Studio's models folder among the local model folders: file I/O, which engines/ may not do"},
	{word: 'llama', files: ['sources/replay.ts', 'types/probe.ts'], why: "replay paces any log by every stamp format engines write (llama.cpp's process-relative one); ServerCounts.llamaBuild, filled by llama.cpp's answer stamp"},
	{word: 'vllm', files: ['sources/replay.ts'], why: "replay paces any log by every stamp format engines write (vLLM's mm-dd)"},
];

function wordAllowed(file: string, word: string): boolean {
	return ENGINE_WORDS_OUTSIDE.some((a) => a.word === word && a.files.some((f) => (f.endsWith('/') ? file.startsWith(f) : file === f)));
}

/** Engine names as words of code outside engines/ beyond ENGINE_WORDS_OUTSIDE: one line per file and word. */
export function engineWordViolations(files: readonly SourceFile[], words: readonly string[]): string[] {
	const bad: string[] = [];
	for (const f of files) {
		if (f.rel.startsWith('engines/')) continue;
		const uses = engineWordUses(f, words).filter((u) => !wordAllowed(f.rel, u.word));
		for (const word of new Set(uses.map((u) => u.word))) {
			const mine = uses.filter((u) => u.word === word);
			bad.push(`${f.rel}:${mine.map((u) => u.line).join(',')}: '${word}' in ${mine.map((u) => u.text).join(', ')}: engine knowledge belongs in its descriptor`);
		}
	}
	return bad;
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
		// engines/ imports nothing up into model/ (an engine's own formulas live in its file).
		expect(violation('engines/ollama.ts', '../model/figures.js')).toMatch(/upward/);
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

	it('the engine rules catch their planted violations', () => {
		// An engine importing another engine's module for a helper; a whole parser is allowed.
		expect(engineImportViolation('engines/sglang.ts', './lithos.js', ['dictNumber'])).toMatch(/whole parser/);
		expect(engineImportViolation('engines/mlxlm.ts', './llamacpp.js', ['MAX_PARSE_CHARS'])).toMatch(/whole parser/);
		expect(engineImportViolation('engines/koboldcpp.ts', './llamacpp.js', ['createLlamaCppParser'])).toBeUndefined();
		expect(engineImportViolation('engines/vllm.ts', './answers.js', ['clean', 'withCheck'])).toBeUndefined();
		expect(engineImportViolation('engines/fingerprint.ts', './descriptor.js', ['isRecord'])).toBeUndefined();
		expect(engineImportViolation('engines/answers.ts', './descriptor.js', ['CHAT'])).toMatch(/leaf/);
		expect(engineImportViolation('engines/fingerprint.ts', './llamacpp.js', ['createLlamaCppParser'])).toMatch(/shared by every engine/);
		expect(engineImportViolation('engines/registry.ts', './vllm.js', ['vllm'])).toBeUndefined();
		const planted: SourceFile = {rel: 'engines/acme.ts', text: "import {createLlamaCppParser} from './llamacpp.js';\nimport {notWorker} from './vllm.js';\n"};
		expect(engineImportViolations([planted])).toEqual([expect.stringMatching(/^engines\/acme\.ts: .*notWorker from \.\/vllm/)]);
		// An engine name outside engines/: in code (not in a comment), and in an allowed file beyond its count.
		const inUi: SourceFile = {rel: 'ui/panes/acme.tsx', text: "// 'vllm' in a comment is fine\nexport const x = (s: {engine: string}) => s.engine === 'vllm' ? `sglang` : 'vllm-ish';\n"};
		expect(engineNameViolations([inUi], ENGINE_KINDS)).toEqual([
			"ui/panes/acme.tsx:2: 'vllm' written 1 times outside engines/ (allowed 0): read it from the registry",
			"ui/panes/acme.tsx:2: 'sglang' written 1 times outside engines/ (allowed 0): read it from the registry",
		]);
		const oneMore: SourceFile = {rel: 'sources/ollama-ps-cli.ts', text: "const a = 'ollama';\nconst b = 'ollama';\n"};
		expect(engineNameViolations([oneMore], ENGINE_KINDS)).toEqual(["sources/ollama-ps-cli.ts:1,2: 'ollama' written 2 times outside engines/ (allowed 1): read it from the registry"]);
		expect(engineNameViolations([{rel: 'engines/acme.ts', text: "const k = 'vllm';"}], ENGINE_KINDS)).toEqual([]);
		// The names it imports, by kind of import.
		expect(importNames({rel: 'x.ts', text: "import a, {b as c} from './m.js';\nimport * as d from './n.js';\nimport './o.js';\nexport {e} from './p.js';\nimport type {F} from './q.js';"})).toEqual([
			{spec: './m.js', names: ['default', 'b']},
			{spec: './n.js', names: ['*']},
			{spec: './o.js', names: []},
			{spec: './p.js', names: ['e']},
			{spec: './q.js', names: ['F']},
		]);
	});

	it('an engine takes its helpers from engines/answers.ts, never from another engine', () => {
		expect(engineImportViolations(sourceFiles())).toEqual([]);
	});

	it('no engine is named outside engines/ beyond the listed reasons', () => {
		expect(engineNameViolations(sourceFiles(), ENGINE_KINDS)).toEqual([]);
	});

	it('the engine-word rule catches its planted violations', () => {
		const words = engineWords();
		expect(words).toEqual(expect.arrayContaining(['lithos', 'llama', 'llamacpp', 'vllm', 'lmstudio', 'ollama']));
		expect(words).not.toContain('openai');
		// A reader of one engine's header and its label, in the probe: caught by name and by string.
		const probe: SourceFile = {rel: 'probe/acme.ts', text: "// lithos in a comment is fine\nimport {x} from '../engines/lithos.js';\nexport function lithosDecodeSteps(): string { return 'lithos header'; }\n"};
		expect(engineWordViolations([probe], words)).toEqual([
			"probe/acme.ts:3,3: 'lithos' in lithosDecodeSteps, lithos header: engine knowledge belongs in its descriptor",
		]);
		// A build-number parser named for llama.cpp, and LM Studio and vLLM by their written names.
		const more: SourceFile = {rel: 'sources/acme.ts', text: 'export const llamaBuildNumber = 1;\nconst a = lmStudioModels;\nconst b = "vLLM";\n'};
		expect(engineWordViolations([more], words)).toEqual([
			"sources/acme.ts:1: 'llama' in llamaBuildNumber: engine knowledge belongs in its descriptor",
			"sources/acme.ts:2: 'lmstudio' in lmStudioModels: engine knowledge belongs in its descriptor",
			"sources/acme.ts:3: 'vllm' in vLLM: engine knowledge belongs in its descriptor",
		]);
		// A file allowed one engine's name is not allowed another's.
		expect(engineWordViolations([{rel: 'probe/protocols.ts', text: 'const OLLAMA_PROTOCOL = 1;\nconst lithosSteps = 2;\n'}], words)).toEqual([
			"probe/protocols.ts:2: 'lithos' in lithosSteps: engine knowledge belongs in its descriptor",
		]);
		expect(engineWordViolations([{rel: 'engines/acme.ts', text: 'const lithosSteps = 2;'}], words)).toEqual([]);
		// model/ asks the registry: an engine's own formula or source name taken there by name is caught.
		expect(engineWordViolations([{rel: 'model/derive.ts', text: "import {ollamaProcessor} from '../engines/ollama.js';\nconst from = 'ollama ps size_vram';\n"}], words)).toEqual([
			"model/derive.ts:1,2: 'ollama' in ollamaProcessor, ollama ps size_vram: engine knowledge belongs in its descriptor",
		]);
	});

	it('no engine is a word of code outside engines/ beyond the listed reasons', () => {
		expect(engineWordViolations(sourceFiles(), engineWords())).toEqual([]);
	});
});
