/**
 * A busy server (issue 32): infertop beside `tail -F` and the writer, one server at 100, 1,000 and
 * 5,000 requests a second, llama.cpp and vLLM lines (bench/traffic-lib.ts says what is measured).
 *
 *   npm run bench -- traffic                      (≈ 6 min: each rate after 30 s of traffic)
 *   npm run bench -- traffic --seconds=3 --warmup=1   (a smoke test, ≈ 1 min)
 *   INFERTOP_BENCH_BASELINE=DIR npm run bench -- traffic --rates=1000 --formats=llama.cpp
 */
import {runWhenMain} from './lib.js';
import {runTraffic, trafficOptions} from './traffic-lib.js';

export function run(args: readonly string[] = process.argv.slice(2)): Promise<string> {
	return runTraffic(trafficOptions(args, 1));
}

runWhenMain(import.meta.url, () => run());
