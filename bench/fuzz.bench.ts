/**
 * The long fuzz run (issue 14): `npm run bench -- fuzz`. The same checks as test/faults/fuzz.test.ts
 * (no exception; no negative or non-finite figure in events, state, snapshot or stream counts) over
 * many more lines. FUZZ_SEED and FUZZ_LINES (per parser) change the run; a failure names its seed.
 */
import {fuzz} from '../test/helpers/fuzz.js';

export async function run(): Promise<string> {
	const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
	const perParser = Number(process.env.FUZZ_LINES ?? 60_000);
	const started = performance.now();
	const r = fuzz(seed, perParser, Math.round(perParser / 5));
	const s = (performance.now() - started) / 1000;
	const line = `seed ${seed}: ${r.lines} lines (${r.events} events, ${r.inconsistent} counted inconsistent), ${r.streamChunks} stream chunks in ${s.toFixed(1)} s`;
	if (r.failures.length > 0) throw new Error(`${line}\n${r.failures.join('\n')}`);
	return `${line}: no exception, no negative or non-finite figure`;
}
