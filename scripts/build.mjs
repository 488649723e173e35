#!/usr/bin/env node
/**
 * Bundle the CLI into one ESM file for Node 20: `node scripts/build.mjs` → dist/cli.js.
 *
 *   INFERTOP_ENTRY=path/to/entry.tsx  bundle another entry (default source/cli.tsx)
 *   INFERTOP_OUTFILE=path             write elsewhere (default dist/cli.js)
 *   --sourcemap                       also write dist/cli.js.map
 *   --minify                          minify (smaller, faster to parse, worse stack traces)
 *   --analyze                         print the biggest inputs
 *
 * Decisions, each checked by building and running:
 * - Everything is bundled, dependencies included: one file loads faster than hundreds of modules
 *   resolved from node_modules (startup is the figure that matters, see bench/startup.bench.ts).
 * - NODE_ENV is defined as "production" so React's development build is dropped at build time;
 *   bin/infertop.js also sets it before anything loads, for code that reads it at run time.
 * - A banner gives CJS dependencies (react, react-reconciler, systeminformation…) a real
 *   `require`, `__filename` and `__dirname` inside the ESM bundle.
 * - Ink imports `./devtools.js` (and through it `react-devtools-core`, not installed) when the
 *   environment has DEV=true. In a bundle an external import would be hoisted and loaded on every
 *   start, so that module is replaced by an empty one, and Ink's isDev() is replaced by `false`:
 *   DEV=true does nothing in the built CLI (it cannot hang Ink 6.8 waiting for a DevTools server,
 *   nor make it read a package.json beside the bundle).
 * - Ink 6.8 is patched as it is bundled (scripts/ink-incremental-fix.mjs): the incremental renderer
 *   fixed (ink#910) and turned on through `__INK_910_FIXED__` (a changed figure rewrites its line,
 *   not the screen); its per-frame output caches shared across frames (an unchanged line is not
 *   measured again); its two never-emptied text caches bounded (they grew for as long as it ran);
 *   a commit that changed no host node (same texts, same props) draws no frame (no layout, no output).
 * - Start-up work the first frame waited for is patched out of dependencies
 *   (scripts/startup-patches.mjs): yoga-layout's fetch of its own base64 wasm (which loads undici),
 *   four Intl.Segmenter constructions (one is shared),
 *   string-width's RGI_Emoji set (built on first use), ansi-tokenize's per-character diff of equal styles.
 */
import {build} from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {inkIncrementalFix} from './ink-incremental-fix.mjs';
import {startupPatches} from './startup-patches.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const entry = path.resolve(root, process.env.INFERTOP_ENTRY || 'source/cli.tsx');
const outfile = path.resolve(root, process.env.INFERTOP_OUTFILE || 'dist/cli.js');

if (!fs.existsSync(entry)) {
	console.error(`build: entry ${path.relative(root, entry)} does not exist`);
	process.exit(1);
}

/** @type {import('esbuild').Plugin} */
const noInkDevtools = {
	name: 'no-ink-devtools',
	setup(b) {
		b.onResolve({filter: /^\.\/devtools\.js$/}, (a) => (a.importer.includes(`${path.sep}ink${path.sep}`) ? {path: 'ink-devtools-stub', namespace: 'infertop-stub'} : undefined));
		b.onResolve({filter: /^react-devtools-core$/}, () => ({path: 'react-devtools-core-stub', namespace: 'infertop-stub'}));
		// Ink's isDev() also makes it read ../package.json next to the bundle and inject into DevTools.
		b.onLoad({filter: /[\\/]ink[\\/]build[\\/]utils\.js$/}, () => ({contents: 'export const isDev = () => false;\n', loader: 'js'}));
		b.onLoad({filter: /.*/, namespace: 'infertop-stub'}, () => ({contents: '// React DevTools are not part of the infertop bundle.\nexport default undefined;\n', loader: 'js'}));
	},
};

const banner = [
	'// infertop: bundled by scripts/build.mjs. Source: https://github.com/ (see package.json).',
	"import {createRequire as __infertopCreateRequire} from 'node:module';",
	"import {fileURLToPath as __infertopFileURLToPath} from 'node:url';",
	"import {dirname as __infertopDirname} from 'node:path';",
	'const require = __infertopCreateRequire(import.meta.url);',
	'const __filename = __infertopFileURLToPath(import.meta.url);',
	'const __dirname = __infertopDirname(__filename);',
].join('\n');

const inkFixState = {applied: false, outputShared: false, textCaches: 0, widths: false, reconciler: false, text: false};
const inkFix = inkIncrementalFix(inkFixState);
const startupState = {yoga: false, segmenters: 0, rgi: false, ansiDiff: false};
const started = performance.now();
const outdir = path.dirname(outfile);
const entryName = path.basename(outfile).replace(/\.m?js$/, '');
// Chunks of an earlier build would pile up: start from an empty chunk folder.
fs.rmSync(path.join(outdir, 'chunks'), {recursive: true, force: true});
const result = await build({
	entryPoints: {[entryName]: entry},
	outdir,
	// Code splitting: what the first frame does not need (the collectors, systeminformation, the
	// probe and snapshot commands, the metrics server) sits in chunks loaded by dynamic import later.
	splitting: true,
	chunkNames: 'chunks/[name]-[hash]',
	bundle: true,
	platform: 'node',
	format: 'esm',
	target: 'node20',
	jsx: 'automatic',
	define: {'process.env.NODE_ENV': '"production"'},
	banner: {js: banner},
	plugins: [noInkDevtools, inkFix, startupPatches(startupState)],
	// Optional native or platform-specific modules some dependencies try at run time.
	external: ['osx-temperature-sensor', 'bufferutil', 'utf-8-validate', 'fsevents'],
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

const outputs = Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js')).map((f) => path.resolve(process.cwd(), f));
const out = outputs.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
const entryBytes = fs.statSync(outfile).size;
// The guarantees above, checked on the output rather than assumed.
if (/from\s*["']react-devtools-core["']|require\(["']react-devtools-core["']\)/.test(out)) {
	console.error('build: react-devtools-core is still imported by the bundle');
	process.exit(1);
}
if (out.includes('node_modules/ink/build/') && !out.includes('isDev = () => false')) {
	console.error("build: Ink's isDev() was not replaced (did ink/build/utils.js move?)");
	process.exit(1);
}
if (out.includes('node_modules/ink/build/') && (!inkFixState.applied || !inkFixState.outputShared || inkFixState.textCaches !== 2 || !inkFixState.widths || !inkFixState.reconciler || !inkFixState.text)) {
	console.error('build: the Ink patches (ink#910, shared output caches, bounded text caches, no frame for an unchanged commit) are not all in the bundle');
	process.exit(1);
}
if ((out.includes('node_modules/yoga-layout/') && !startupState.yoga) || (out.includes('node_modules/ink/') && startupState.segmenters !== 4)) {
	console.error('build: the start-up patches (yoga without fetch, one shared Intl.Segmenter) are not in the bundle');
	process.exit(1);
}
if ((out.includes('node_modules/string-width/index.js') && !startupState.rgi) || (out.includes('node_modules/@alcalzone/ansi-tokenize/') && !startupState.ansiDiff)) {
	console.error("build: the start-up patches (string-width's RGI_Emoji set built on first use, ansi-tokenize's diff of equal styles) are not in the bundle");
	process.exit(1);
}
if (/process\.env\.NODE_ENV\s*[!=]==?\s*["']development["']/.test(out)) {
	console.error('build: the bundle still tests NODE_ENV at run time');
	process.exit(1);
}

const kb = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`build: ${path.relative(root, entry)} → ${path.relative(root, outfile)} (${kb(entryBytes)} entry, ${kb(Buffer.byteLength(out))} with ${outputs.length - 1} chunks, ${Math.round(performance.now() - started)} ms)`);
if (args.has('--analyze')) {
	// What each output holds, biggest inputs first; the entry and the chunks it imports statically load at start.
	for (const [file, info] of Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.js'))) {
		const stat = info.imports.filter((i) => i.kind === 'import-statement').map((i) => path.basename(i.path));
		console.log(`${path.relative(root, path.resolve(process.cwd(), file))}  ${kb(info.bytes)}${stat.length ? `  (imports ${stat.join(', ')})` : ''}`);
		const inputs = Object.entries(info.inputs)
			.map(([f, i]) => [f.replace(/^node_modules\//, ''), i.bytesInOutput])
			.sort((a, b) => b[1] - a[1])
			.slice(0, 6);
		for (const [f, bytes] of inputs) console.log(`  ${kb(bytes).padStart(9)}  ${f}`);
	}
}
