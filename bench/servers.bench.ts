/**
 * Many servers (issue 32): eight logs (a llama-swap box, vLLM replicas), each at 100 requests a
 * second, beside `tail -F` on the eight and the eight writers; then one server at the same rate in
 * the same run, for the ratio (goal: eight cost ≤ 2× one).
 *
 *   npm run bench -- servers 8                    (≈ 2 min)
 *   npm run bench -- servers 8 --seconds=3 --warmup=1   (a smoke test)
 */
import {runWhenMain} from './lib.js';
import {runTraffic, trafficOptions} from './traffic-lib.js';

export async function run(args: readonly string[] = process.argv.slice(2)): Promise<string> {
	const n = Number(args.find(a => /^\d+$/.test(a)) ?? 8);
	const at = args.some(a => a.startsWith('--rates=')) ? args : [...args, '--rates=100'];
	const many = await runTraffic(trafficOptions(at, n));
	const one = await runTraffic(trafficOptions(at, 1));
	return `${many}\n${one}`;
}

runWhenMain(import.meta.url, () => run());
