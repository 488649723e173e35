/**
 * The long fuzz run (issue 14): `npm run bench -- fuzz`. The same checks as test/faults/fuzz.test.ts
 * (no exception; no negative or non-finite figure in events, state, snapshot or stream counts) over
 * many more lines; then hostile paths, process arguments and model names (test/helpers/fuzz.ts
 * fuzzNames). FUZZ_SEED, FUZZ_LINES (per parser) and FUZZ_NAMES change the run; a failure names its seed.
 */
import {fuzz, fuzzNames} from '../test/helpers/fuzz.js';

export async function run(): Promise<string> {
	const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
	const perParser = Number(process.env.FUZZ_LINES ?? 60_000);
	const started = performance.now();
	const r = fuzz(seed, perParser, Math.round(perParser / 5));
	const s = (performance.now() - started) / 1000;
	const line = `seed ${seed}: ${r.lines} lines (${r.events} events, ${r.inconsistent} counted inconsistent), ${r.streamChunks} stream chunks in ${s.toFixed(1)} s`;
	if (r.failures.length > 0) throw new Error(`${line}\n${r.failures.join('\n')}`);
	// Paths, process arguments and model names (issue 34): FUZZ_NAMES of them, default a tenth of the lines.
	const namesStarted = performance.now();
	const n = await fuzzNames(seed, Number(process.env.FUZZ_NAMES ?? Math.round(perParser / 10)));
	const names = `${n.names} hostile paths, process arguments and model names in ${((performance.now() - namesStarted) / 1000).toFixed(1)} s`;
	if (n.failures.length > 0) throw new Error(`seed ${seed}: ${names}\n${n.failures.join('\n')}`);
	return `${line}: no exception, no negative or non-finite figure; ${names}: nothing unsafe on screen, stderr, JSON or CSV`;
}
