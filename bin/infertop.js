#!/usr/bin/env node
// No V8 flags on this line: any heap-size flag (--max-semi-space-size, --max-old-space-size) makes
// node itself start ~25 ms slower (measured: `node -e` 112 → 137 ms on a 2-core machine), and
// --max-semi-space-size=2, here until 0.1.0's cost work, cost ~35 ms before the first frame for
// 2 MB less idle memory (bench/overhead.bench.ts: 74 vs 76 MB at the end of a 30 s idle run).
// infertop's executable. The environment must be set before React and Ink are evaluated, and ESM
// hoists static imports, so the bundle is loaded with a dynamic import after these lines.
process.env.NODE_ENV ??= 'production';

try {
	await import('../dist/cli.js');
} catch (error) {
	const missing =
		error?.code === 'ERR_MODULE_NOT_FOUND' && typeof error.message === 'string' && /dist[\\/]cli\.js/.test(error.message);
	if (!missing) throw error;
	process.stderr.write('infertop: dist/cli.js is missing: run `npm run build` first (or `npm run dev` to run from source)\n');
	process.exitCode = 1;
}
