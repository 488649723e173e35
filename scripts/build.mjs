#!/usr/bin/env node
/**
 * Bundle the CLI into one CommonJS script for Node 20: `node scripts/build.mjs` → dist/cli.cjs.
 *
 *   INFERTOP_ENTRY=path/to/entry.tsx  bundle another entry (default source/cli.tsx)
 *   INFERTOP_OUTFILE=path             write elsewhere (default dist/cli.cjs)
 *   --sourcemap                       also write dist/cli.cjs.map
 *   --minify                          minify (smaller, faster to parse, worse stack traces)
 *   --analyze                         print the biggest inputs
 *
 * Decisions, each checked by building and running:
 * - Everything is bundled, dependencies included: one file loads faster than hundreds of modules
 *   resolved from node_modules (startup is the figure that matters, see bench/startup.bench.ts).
 *   systeminformation and execa are bundled into files of their own beside it, required only
 *   where they are used: see APART.
 * - One CommonJS script, not ES modules: Node 20 has no code cache for ES modules (module.
 *   enableCompileCache is Node 22), but a script compiled with vm.Script takes V8's cached data.
 *   bin/infertop.js compiles this file with the cache it saved on an earlier run: the parse and the
 *   lazy compiles of everything the first frame runs are skipped (~60 ms of a 2-core machine's
 *   ~300 ms). What is loaded later (the collectors, systeminformation, execa, the probe) is only
 *   evaluated when its dynamic import() runs (esbuild wraps those modules lazily). The first line
 *   names the build (a hash of the rest): the cache is keyed on it, since V8 checks only the length.
 *   ESM-only dependencies need no top-level await for this: Ink's two (under isDev()) and yoga's
 *   (its wasm, instantiated synchronously) are patched out (patches/).
 * - NODE_ENV is defined as "production" so React's development build is dropped at build time;
 *   bin/infertop.js also sets it before anything loads, for code that reads it at run time.
 * - A banner makes the script strict (the ES modules it is made of were) and gives `import.meta.url`
 *   (where themes/ and samples/ are looked for) this file's URL.
 * - Ink 6.8 and five of its dependencies are patched in node_modules at install (patches/*.patch,
 *   applied by scripts/patches.mjs; why each, its win and what retires it: docs/dependencies.md),
 *   so `npm run dev`, the tests, the benches and this bundle run the same renderer.
 *   The build only checks: every patch applied (it stops otherwise, before bundling), and each
 *   patched module in the bundle with its patch's mark (PATCH_MARKS). Among them: Ink's isDev()
 *   is false and its two top-level awaits (under isDev()) are gone, so DEV=true does nothing (it
 *   cannot hang Ink 6.8 waiting for a DevTools server, nor make it read a package.json beside the
 *   bundle) and the build fails if react-devtools-core is still imported; yoga-layout instantiates
 *   its wasm synchronously (no top-level await, no fetch).
 */
import {build} from 'esbuild';
import {createHash} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {PATCH_MARKS, bundledModule, patchState, readPatches} from './patches.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const entry = path.resolve(root, process.env.INFERTOP_ENTRY || 'source/cli.tsx');
const outfile = path.resolve(root, process.env.INFERTOP_OUTFILE || 'dist/cli.cjs');

if (!fs.existsSync(entry)) {
	console.error(`build: entry ${path.relative(root, entry)} does not exist`);
	process.exit(1);
}

// The renderer that ships is the one in node_modules: bundling an unpatched one would ship another.
const unapplied = readPatches().flatMap((p) => patchState(p).filter((s) => s.state !== 'applied').map((s) => `patches/${p.patch}: ${s.file} is ${s.state}`));
if (unapplied.length > 0) {
	console.error(`build: the patches are not all applied (run npm ci, or node scripts/patches.mjs):\n  ${unapplied.join('\n  ')}`);
	process.exit(1);
}

const OPTIONAL_NATIVE = ['osx-temperature-sensor', 'bufferutil', 'utf-8-validate', 'fsevents'];

/**
 * Two dependencies go in files of their own beside the bundle (dist/systeminformation.cjs,
 * dist/execa.cjs), which the bundle requires where it uses them: systeminformation on macOS and
 * Windows only, after the first frame (never on Linux); execa only to run a command (macOS `ps`,
 * `nvidia-smi`, `ollama ps`, a `cmd:` log). Inside the bundle their 720 and 300 KiB of source (execa
 * with its own dependencies) were more than a third of the script's text, which V8 keeps resident
 * for the whole run, used or not (2.7 → 1.7 MB). Their
 * import() becomes a require of that file (import() is not there in a script compiled from V8's
 * code cache).
 */
const APART = ['systeminformation', 'execa'];
/** @type {import('esbuild').Plugin} */
const apart = {
	name: 'dependencies-apart',
	setup(b) {
		b.onResolve({filter: new RegExp(`^(${APART.join('|')})$`)}, (args) => ({path: `./${args.path}.cjs`, external: true}));
	},
};

/** Replaced by the build's hash once the output is known (bin/infertop.js keys the code cache on it). */
const BUILD_ID = 'XXXXXXXXXXXXXXXX';
const banner = [
	`// infertop build ${BUILD_ID}: bundled by scripts/build.mjs. Source: https://github.com/ (see package.json).`,
	// strict, as the ES modules it is made of were (the directive must come before any statement)
	"'use strict';",
	// import.meta.url (where themes/ and samples/ are looked for) is this file's URL
	"const __infertopUrl = require('node:url').pathToFileURL(__filename).href;",
].join('\n');

const started = performance.now();
const outdir = path.dirname(outfile);
// What builds before this one wrote (ES modules: dist/cli.js and its chunks) would ship stale.
if (!process.env.INFERTOP_OUTFILE) for (const old of ['chunks', 'cli.js', 'cli.js.map']) fs.rmSync(path.join(outdir, old), {recursive: true, force: true});
const result = await build({
	entryPoints: [entry],
	outfile,
	write: false,
	bundle: true,
	platform: 'node',
	format: 'cjs',
	target: 'node20',
	jsx: 'automatic',
	define: {'process.env.NODE_ENV': '"production"', 'import.meta.url': '__infertopUrl'},
	banner: {js: banner},
	plugins: [apart],
	// Optional native or platform-specific modules some dependencies try at run time.
	external: OPTIONAL_NATIVE,
	// import() of the files apart becomes a require: see APART
	supported: {'dynamic-import': false},
	minify: args.has('--minify'),
	sourcemap: args.has('--sourcemap') ? 'linked' : false,
	legalComments: 'eof',
	metafile: true,
	logLevel: 'warning',
}).catch(() => {
	// esbuild has already printed the errors with their locations.
	console.error(`build: failed (${path.relative(root, entry)})`);
	process.exit(1);
});

const script = result.outputFiles.find((f) => path.resolve(f.path) === outfile);
if (!script) {
	console.error(`build: esbuild wrote no ${path.relative(root, outfile)}`);
	process.exit(1);
}
// ASCII only, so bin/infertop.js can read it as bytes (latin1) in small pieces. esbuild escapes
// string literals but leaves non-ASCII in comments and regular expression literals (`[├└]─`, `µs`):
// \uXXXX there means the same character (an astral one becomes its surrogate pair, which a regex
// reads as the same code point, with or without the u flag), and in a comment it is only text.
if (/\\[^\x00-\x7f]/.test(script.text)) {
	console.error('build: a backslash before a non-ASCII character: escaping it as \\uXXXX would change its meaning');
	process.exit(1);
}
const ascii = script.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
// The build's name: a hash of everything after its first line (same length as the placeholder).
const body = ascii.slice(ascii.indexOf('\n') + 1);
const out = ascii.replace(BUILD_ID, createHash('sha256').update(body).digest('hex').slice(0, BUILD_ID.length));
if (!/^\/\/ infertop build [0-9a-f]{16}:/.test(out)) {
	console.error('build: the build id is not on the first line');
	process.exit(1);
}
// import() of what is not bundled (a node: module, an external) would stay an import() call: a
// script compiled from V8's code cache loses the host options import() needs (Node 20: "A dynamic
// import callback was not specified"). Everything the bundle loads is bundled or required.
const dynamicImports = out.match(/[^\w$.]import\s*\(\s*["'`][^"'`]*/g);
if (dynamicImports) {
	console.error(`build: the bundle calls import() (${dynamicImports.map((m) => m.slice(1).trim()).join(', ')}): use a static import or require`);
	process.exit(1);
}
fs.mkdirSync(outdir, {recursive: true});
fs.writeFileSync(outfile, out);
// the files apart, where the bundle requires them (APART)
for (const name of APART) {
	const file = path.join(outdir, `${name}.cjs`);
	if (!out.includes(`require("./${name}.cjs")`)) {
		fs.rmSync(file, {force: true});
		continue;
	}
	await build({
		// the package's own entry, as esbuild resolves it from node_modules
		entryPoints: [name],
		absWorkingDir: root,
		outfile: file,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		external: OPTIONAL_NATIVE,
		legalComments: 'eof',
		logLevel: 'warning',
	}).catch(() => {
		console.error(`build: failed (${name}.cjs)`);
		process.exit(1);
	});
}
for (const f of result.outputFiles) if (f !== script) fs.writeFileSync(f.path, f.contents);
const entryBytes = Buffer.byteLength(out);
// The guarantees above, checked on the output rather than assumed.
if (/from\s*["']react-devtools-core["']|require\(["']react-devtools-core["']\)/.test(out)) {
	console.error('build: react-devtools-core is still imported by the bundle');
	process.exit(1);
}
// Each patched module in the bundle holds its patch's mark (a minified build keeps no module
// comments: there the check before bundling stands alone).
if (!args.has('--minify')) {
	const unmarked = PATCH_MARKS.filter((m) => !(bundledModule(out, m.file)?.includes(m.bundled ?? m.mark) ?? true)).map((m) => `${m.file} (patches/${m.patch})`);
	if (unmarked.length > 0) {
		console.error(`build: a patched module is in the bundle without its patch: ${unmarked.join(', ')}`);
		process.exit(1);
	}
}
// the patched diffAnsiCodes answers equal styles with one frozen array: only styledCharsToString may call it (twice)
if (out.includes('node_modules/@alcalzone/ansi-tokenize/') && (out.match(/\bdiffAnsiCodes\d*\(/g) ?? []).length !== 3) {
	console.error("build: ansi-tokenize's diffAnsiCodes has a caller other than styledCharsToString: check that it never writes to the frozen empty answer (patches/render/ansi-tokenize.js)");
	process.exit(1);
}
if (/process\.env\.NODE_ENV\s*[!=]==?\s*["']development["']/.test(out)) {
	console.error('build: the bundle still tests NODE_ENV at run time');
	process.exit(1);
}

const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
// On stderr: stdout is the command's result (`npm start -- snapshot --json | jq`).
console.error(`build: ${path.relative(root, entry)} → ${path.relative(root, outfile)} (${kb(entryBytes)}, ${out.slice(3, out.indexOf(':'))}, ${Math.round(performance.now() - started)} ms)`);
if (args.has('--analyze')) {
	// The biggest inputs of the bundle.
	for (const info of Object.values(result.metafile.outputs).filter((o) => o.entryPoint)) {
		const inputs = Object.entries(info.inputs)
			.map(([f, i]) => [f.replace(/^node_modules\//, ''), i.bytesInOutput])
			.sort((a, b) => b[1] - a[1])
			.slice(0, 20);
		for (const [f, bytes] of inputs) console.error(`  ${kb(bytes).padStart(9)}  ${f}`);
	}
}
