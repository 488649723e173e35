#!/usr/bin/env -S node --max-semi-space-size=2
// --max-semi-space-size=2: V8's young generation capped at 2 MiB a half (Node 20's default is 16):
// about 20 MB less resident memory for a monitor left open all day, at no measurable CPU cost (its
// objects die young and small; see bench/overhead.bench.ts). `env -S` splits the line (coreutils
// ≥ 8.30, BSD and macOS env); npm's Windows shims read the same line.
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
