/**
 * Ink 6.8 as it is published, beside the patched Ink that node_modules holds (patches/*.patch,
 * applied at install): an esbuild plugin that loads every file a patch touches as it was before its
 * patch (scripts/patches.mjs stockSource: the installed file with its hunks undone). The tests that
 * compare the shipped renderer with stock Ink (test/ui/incremental.test.ts, the reconciler's tests)
 * and the frame-cost bench bundle an entry both ways; the patched side runs in-process or bundled.
 */
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {build, type Plugin} from 'esbuild';
import {patchedFiles, stockSource} from '../../scripts/patches.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every patched file loaded as it was published. */
export function stockDependencies(): Plugin {
	const files = new Set(patchedFiles().map((f) => path.join(root, f)));
	return {
		name: 'stock-dependencies',
		setup(b) {
			b.onLoad({filter: /[\\/]node_modules[\\/].*\.js$/}, (a) => (files.has(a.path) ? {contents: stockSource(a.path), loader: 'js'} : undefined));
		},
	};
}

/** Ink imports React DevTools only with DEV=true (stock Ink); not installed, so an empty module stands in. */
const noDevtools: Plugin = {
	name: 'no-devtools',
	setup(b) {
		b.onResolve({filter: /^react-devtools-core$/}, () => ({path: 'react-devtools-core', namespace: 'stub'}));
		b.onLoad({filter: /.*/, namespace: 'stub'}, () => ({contents: 'export default undefined;', loader: 'js'}));
	},
};

/**
 * Bundle `entry` (relative to the repository) into `outfile`: ESM, production React, with stock Ink
 * and dependencies when `stock`, else the installed (patched) ones, as scripts/build.mjs bundles them.
 */
export async function bundleEntry(entry: string, outfile: string, stock: boolean): Promise<void> {
	await build({
		entryPoints: [path.join(root, entry)],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'esm',
		target: 'node20',
		jsx: 'automatic',
		define: {'process.env.NODE_ENV': '"production"'},
		banner: {js: "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);"},
		plugins: [noDevtools, ...(stock ? [stockDependencies()] : [])],
		logLevel: 'error',
	});
}

/** The App on a fake terminal (test/fixtures/render/incremental-entry.tsx), bundled. */
export const INCREMENTAL_ENTRY = 'test/fixtures/render/incremental-entry.tsx';
