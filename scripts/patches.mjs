#!/usr/bin/env node
// @ts-check
/**
 * The patches of Ink and five of its dependencies (patches/*.patch, unified diffs against
 * node_modules, one per package and version; docs/patches.md says how to make and change one).
 *
 *   node scripts/patches.mjs           apply them (npm runs this after every install that changed
 *                                      node_modules: the "dependencies" script of package.json)
 *   node scripts/patches.mjs --check   exit 1 unless every patch is applied (scripts/build.mjs checks
 *                                      the same before it bundles)
 *
 * Applying: first each patched package's installed version is checked against the one its patch
 * file names (package.json "overrides" pins them; a mismatch fails the install with a message that
 * names the patch), then patch-package applies the files (and skips one already applied), failing
 * on any error or warning.
 *
 * The rest is for tests, benches and the build: the patch files read as data, and a patched file's
 * original text (the installed file with its hunks reversed), so that a test can compare a patched
 * module with the one it replaces, and a bench can bundle stock Ink beside the patched one.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PATCH_DIR = 'patches';

/**
 * @typedef {{a: [number, number], b: [number, number], lines: {op: ' ' | '-' | '+', text: string}[]}} Hunk
 *   a, b: where the hunk starts on each side (a the old, b the new) and how many lines it covers there (its header line)
 * @typedef {{file: string, hunks: Hunk[]}} FileDiff  file: relative to the repository (node_modules/…)
 * @typedef {{patch: string, name: string, version: string, dir: string, files: FileDiff[]}} Patch
 *   patch: its file under patches/; dir: the package's folder relative to the repository
 */

/**
 * What a patch file's name says: `ink+6.8.0.patch`, `@alcalzone+ansi-tokenize+0.2.5.patch`,
 * `wrap-ansi++string-width+7.2.0.patch` (string-width inside wrap-ansi's node_modules), as
 * patch-package names them.
 * @param {string} patch file name
 * @returns {{name: string, version: string, dir: string}}
 */
export function parsePatchName(patch) {
	const m = /^(.+)\+([^+]+)\.patch$/.exec(patch);
	if (!m) throw new Error(`${PATCH_DIR}/${patch}: not named <package>+<version>.patch`);
	const names = /** @type {string} */ (m[1]).split('++').map((s) => (s.startsWith('@') ? s.replace('+', '/') : s));
	return {name: /** @type {string} */ (names.at(-1)), version: /** @type {string} */ (m[2]), dir: `node_modules/${names.join('/node_modules/')}`};
}

/**
 * The files and hunks of a unified diff as patch-package writes it (`diff --git a/node_modules/…`).
 * @param {string} text
 * @param {string} where for messages
 * @returns {FileDiff[]}
 */
export function parseDiff(text, where) {
	/** @type {FileDiff[]} */
	const files = [];
	/** @type {FileDiff | undefined} */
	let file;
	/** @type {Hunk | undefined} */
	let hunk;
	const lines = text.split('\n');
	for (let i = 0; i < lines.length; i++) {
		const line = /** @type {string} */ (lines[i]);
		if (line.startsWith('diff --git ')) {
			hunk = undefined;
			file = undefined;
			continue;
		}
		if (line.startsWith('+++ ')) {
			if (!line.startsWith('+++ b/')) throw new Error(`${where}: only changes to existing files are supported (${line})`);
			file = {file: line.slice(6), hunks: []};
			files.push(file);
			continue;
		}
		if (line.startsWith('--- ') || line.startsWith('index ')) continue;
		const h = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
		if (h) {
			if (!file) throw new Error(`${where}: a hunk before its file`);
			hunk = {a: [Number(h[1]), Number(h[2] ?? 1)], b: [Number(h[3]), Number(h[4] ?? 1)], lines: []};
			file.hunks.push(hunk);
			continue;
		}
		if (line === '\\ No newline at end of file') continue;
		if (hunk && (line.startsWith(' ') || line.startsWith('-') || line.startsWith('+'))) {
			hunk.lines.push({op: /** @type {' ' | '-' | '+'} */ (line[0]), text: line.slice(1)});
			continue;
		}
		// (a context line is ' ' and its text: an empty line is the end of the file, or a damaged patch)
		if (hunk && line === '' && i !== lines.length - 1) throw new Error(`${where}: an empty line inside a hunk (a context line lost its leading space?)`);
	}
	return files;
}

/** @returns {Patch[]} every patch under patches/, as data */
export function readPatches(dir = root) {
	return fs
		.readdirSync(path.join(dir, PATCH_DIR))
		.filter((f) => f.endsWith('.patch'))
		.sort()
		.map((patch) => ({patch, ...parsePatchName(patch), files: parseDiff(fs.readFileSync(path.join(dir, PATCH_DIR, patch), 'utf8'), `${PATCH_DIR}/${patch}`)}));
}

/**
 * A file's text with hunks applied (forward), or undone (reverse), or undefined when one does not
 * fit exactly (no fuzz: a context or removed line that differs is a file that changed).
 * @param {string} text
 * @param {Hunk[]} hunks
 * @param {boolean} reverse
 * @returns {string | undefined}
 */
export function applyHunks(text, hunks, reverse) {
	const lines = text.split('\n');
	const drop = reverse ? '+' : '-';
	const add = reverse ? '-' : '+';
	let shift = 0;
	for (const hunk of hunks) {
		const before = hunk.lines.filter((l) => l.op !== add).map((l) => l.text);
		const after = hunk.lines.filter((l) => l.op !== drop).map((l) => l.text);
		const [start, length] = reverse ? hunk.b : hunk.a;
		if (before.length !== length) return undefined;
		// a side of no lines names the line it comes after, as diff counts
		const at = start - 1 + (length === 0 ? 1 : 0) + shift;
		for (let i = 0; i < before.length; i++) if (lines[at + i] !== before[i]) return undefined;
		lines.splice(at, before.length, ...after);
		shift += after.length - before.length;
	}
	return lines.join('\n');
}

/**
 * Each file of a patch in the state its text is in: 'applied' (its hunks undo cleanly), 'stock'
 * (they apply cleanly), or 'changed' (neither: another version, or edited by hand).
 * @param {Patch} p
 * @param {string} [dir] the repository
 * @returns {{file: string, state: 'applied' | 'stock' | 'changed' | 'missing'}[]}
 */
export function patchState(p, dir = root) {
	return p.files.map(({file, hunks}) => {
		const abs = path.join(dir, file);
		if (!fs.existsSync(abs)) return {file, state: 'missing'};
		const text = fs.readFileSync(abs, 'utf8');
		if (applyHunks(text, hunks, true) !== undefined) return {file, state: 'applied'};
		if (applyHunks(text, hunks, false) !== undefined) return {file, state: 'stock'};
		return {file, state: 'changed'};
	});
}

/** @type {Map<string, {patch: Patch, diff: FileDiff}> | undefined} */
let byFile;

/**
 * The text a patched file had before its patch: the installed (patched) file with its hunks undone.
 * `file` is relative to the repository (node_modules/ink/build/output.js) or absolute. Throws for a
 * file no patch touches, and for one whose hunks do not undo (the patch is not applied).
 * @param {string} file
 * @returns {string}
 */
export function stockSource(file) {
	const rel = path.isAbsolute(file) ? path.relative(root, file).split(path.sep).join('/') : file;
	byFile ??= new Map(readPatches().flatMap((patch) => patch.files.map((diff) => /** @type {const} */ ([diff.file, {patch, diff}]))));
	const hit = byFile.get(rel);
	if (!hit) throw new Error(`no patch touches ${rel}`);
	const text = applyHunks(fs.readFileSync(path.join(root, rel), 'utf8'), hit.diff.hunks, true);
	if (text === undefined) throw new Error(`${rel} is not as ${PATCH_DIR}/${hit.patch.patch} leaves it (run npm ci, or node scripts/patches.mjs)`);
	return text;
}

/** The files the patches touch, relative to the repository. */
export function patchedFiles() {
	return readPatches().flatMap((p) => p.files.map((f) => f.file));
}

/**
 * Each patched package whose installed version is not its patch's, as a message naming the patch.
 * @param {string} [dir]
 * @returns {string[]}
 */
export function versionProblems(dir = root) {
	/** @type {string[]} */
	const problems = [];
	for (const p of readPatches(dir)) {
		const json = path.join(dir, p.dir, 'package.json');
		if (!fs.existsSync(json)) {
			problems.push(`${PATCH_DIR}/${p.patch}: ${p.name} ${p.version} is not installed at ${p.dir}. Pin it with package.json "overrides" (see docs/patches.md).`);
			continue;
		}
		const installed = /** @type {{version?: string}} */ (JSON.parse(fs.readFileSync(json, 'utf8'))).version;
		if (installed !== p.version)
			problems.push(`${PATCH_DIR}/${p.patch}: made for ${p.name} ${p.version}, but ${p.dir} is ${installed}. Pin ${p.name} to ${p.version} in package.json "overrides", or remake the patch for ${installed} (docs/patches.md).`);
	}
	return problems;
}

/**
 * One mark per patched file: text its patch puts there, as it reads in node_modules (`mark`) and
 * as esbuild prints it in the bundle (`bundled`, where that differs). The build and
 * test/platform/patches.test.ts look for them: in node_modules, and in each patched module's part
 * of the bundle.
 * @type {readonly {patch: string, file: string, mark: string, bundled?: string}[]}
 */
export const PATCH_MARKS = [
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/utils.js', mark: 'isDev = () => false'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/reconciler.js', mark: '(trackHostChanges({'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/log-update.js', mark: 'previousVisible - (previousOutput.endsWith("\\n") ? 0 : 1)'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/output.js', mark: 'rowsToText(this.caches, output, styledCharsToString)'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/render-node-to-output.js', mark: '= cachedWidestLine('},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/measure-text.js', mark: '.size > 4000) cache.clear()', bundled: '.size > 4e3) cache'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/wrap-text.js', mark: '.set(cacheKey, wrappedText)'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/components/Text.js', mark: 'strikethrough, inverse]);'},
	{patch: 'ink+6.8.0.patch', file: 'node_modules/ink/build/ansi-tokenizer.js', mark: 'c1ControlCharacter.test('},
	{patch: 'yoga-layout+3.2.1.patch', file: 'node_modules/yoga-layout/dist/binaries/yoga-wasm-base64-esm.js', mark: 'new WebAssembly.Module(Buffer.from(H.slice(37)'},
	{patch: 'yoga-layout+3.2.1.patch', file: 'node_modules/yoga-layout/dist/src/index.js', mark: 'yoga-layout did not start synchronously'},
	{patch: 'string-width+8.3.0.patch', file: 'node_modules/string-width/index.js', mark: 'narrowText.test('},
	{patch: 'wrap-ansi++string-width+7.2.0.patch', file: 'node_modules/wrap-ansi/node_modules/string-width/index.js', mark: '= widthV7('},
	{patch: 'slice-ansi+8.0.0.patch', file: 'node_modules/slice-ansi/tokenize-ansi.js', mark: 'GRAPHEME_SEGMENTER = graphemeSegmenter;'},
	{patch: '@alcalzone+ansi-tokenize+0.2.5.patch', file: 'node_modules/@alcalzone/ansi-tokenize/build/tokenize.js', mark: 'of graphemesOf('},
	{patch: '@alcalzone+ansi-tokenize+0.2.5.patch', file: 'node_modules/@alcalzone/ansi-tokenize/build/diff.js', mark: 'if (sameCodes(from, to))'},
	{patch: '@alcalzone+ansi-tokenize+0.2.5.patch', file: 'node_modules/@alcalzone/ansi-tokenize/build/styledChars.js', mark: 'return sharedStyledChars(tokens, reduceAnsiCodesIncremental)'},
	{patch: '@alcalzone+ansi-tokenize+0.2.5.patch', file: 'node_modules/@alcalzone/ansi-tokenize/build/undo.js', mark: '({ type: code.type, code: code.endCode, endCode: code.endCode })'},
	{patch: '@alcalzone+ansi-tokenize+0.2.5.patch', file: 'node_modules/@alcalzone/ansi-tokenize/build/ansiCodes.js', mark: 'if (codes.length < 2)'},
	{patch: 'restore-cursor+4.0.0.patch', file: 'node_modules/restore-cursor/index.js', mark: '.stderr.isTTY ?'},
];

/**
 * A module's parts of a (non-minified) esbuild bundle, joined: each runs from its `// path` comment
 * to the next module's (esbuild may split a module around the ones it imports), or undefined when
 * it is not in the bundle.
 * @param {string} bundle
 * @param {string} file as the comment names it (node_modules/…)
 */
export function bundledModule(bundle, file) {
	const head = `\n// ${file}\n`;
	/** @type {string[]} */
	const parts = [];
	for (let at = bundle.indexOf(head); at >= 0; at = bundle.indexOf(head, at + head.length)) {
		const rest = bundle.slice(at + head.length);
		const next = rest.search(/\n\/\/ (?:node_modules|patches|source|bin|scripts|test)\/[^\n]*\n/);
		parts.push(next < 0 ? rest : rest.slice(0, next));
	}
	return parts.length > 0 ? parts.join('\n') : undefined;
}

/** Apply every patch: versions first, then patch-package. Returns the exit status. */
function apply() {
	const problems = versionProblems();
	if (problems.length > 0) {
		for (const line of problems) console.error(`infertop patches: ${line}`);
		return 1;
	}
	const bin = path.join(path.dirname(createRequire(import.meta.url).resolve('patch-package/package.json')), 'index.js');
	const r = spawnSync(process.execPath, [bin, '--error-on-fail', '--error-on-warn'], {cwd: root, stdio: 'inherit'});
	if (r.status !== 0) {
		console.error('infertop patches: patch-package failed (above); the renderer in node_modules is not the one that ships');
		return r.status || 1;
	}
	return check(false);
}

/** Exit status 1 and a line per file unless every patch is applied. */
function check(verbose = true) {
	const bad = readPatches().flatMap((p) => patchState(p).filter((s) => s.state !== 'applied').map((s) => `${PATCH_DIR}/${p.patch}: ${s.file} is ${s.state}`));
	for (const line of bad) console.error(`infertop patches: ${line}`);
	if (bad.length === 0 && verbose) console.log(`infertop patches: all ${readPatches().length} applied`);
	return bad.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	process.exitCode = process.argv.includes('--check') ? check() : apply();
}
