#!/usr/bin/env node
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
