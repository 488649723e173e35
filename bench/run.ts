/**
 * `npm run bench`: every benchmark in this folder, one after another (they measure time, so never
 * in parallel), each printing one result line. Speed targets live here, never in timed tests.
 *   npm run bench            all of them
 *   npm run bench -- parse   only those whose name contains "parse"
 *   npm run bench -- servers 8 --seconds=5   numbers and --options are given to the benches chosen
 */
import {readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Words choose benches by name; numbers and --options go to them (`npm run bench -- servers 8 --seconds=5`).
const args = process.argv.slice(2);
const only = args.filter(a => !a.startsWith('--') && !/^\d+$/.test(a));
const options = args.filter(a => a.startsWith('--') || /^\d+$/.test(a));
const files = readdirSync(here)
	.filter(f => f.endsWith('.bench.ts'))
	.filter(f => only.length === 0 || only.some(o => f.includes(o)))
	.sort();

let failed = 0;
for (const file of files) {
	const started = Date.now();
	process.stdout.write(`▶ ${file}\n`);
	try {
		const mod = (await import(pathToFileURL(path.join(here, file)).href)) as {run?: (options: readonly string[]) => Promise<string>};
		if (typeof mod.run !== 'function') throw new Error('exports no run()');
		const result = await mod.run(options);
		process.stdout.write(`  ${result.split('\n').join('\n  ')}\n  (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
	} catch (error) {
		failed++;
		process.stdout.write(`  failed: ${error instanceof Error ? error.message : String(error)}\n`);
	}
}
process.exitCode = failed > 0 ? 1 : 0;
