/**
 * Bundles test/fixtures/render/incremental-entry.tsx (the App over a store, mounted at a size) with
 * esbuild, with or without the build's Ink patch: the structure test (test/ui/incremental.test.ts)
 * and the frame-cost bench (bench/frame-cost.bench.ts) render the same bundles.
 */
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {build, type Plugin} from 'esbuild';
import {inkIncrementalFix} from '../../scripts/ink-incremental-fix.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Ink imports React DevTools only with DEV=true; not installed, so an empty module stands in (as in the build). */
const noDevtools: Plugin = {
	name: 'no-devtools',
	setup(b) {
		b.onResolve({filter: /^react-devtools-core$/}, () => ({path: 'react-devtools-core', namespace: 'stub'}));
		b.onLoad({filter: /.*/, namespace: 'stub'}, () => ({contents: 'export default undefined;', loader: 'js'}));
	},
};

/** Write the entry's bundle to `outfile` (ESM, production React), with the shipped Ink patch when `patched`. */
export async function bundleIncrementalEntry(outfile: string, patched: boolean): Promise<void> {
	await build({
		entryPoints: [path.join(root, 'test/fixtures/render/incremental-entry.tsx')],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'esm',
		target: 'node20',
		jsx: 'automatic',
		define: {'process.env.NODE_ENV': '"production"'},
		banner: {js: "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);"},
		plugins: [noDevtools, ...(patched ? [inkIncrementalFix()] : [])],
		logLevel: 'error',
	});
}
