/**
 * Many servers (issue 32): the two boxes the issue names, each server at 100 requests a second,
 * beside `tail -F` on their logs and the writers, and beside a second infertop that tails the first
 * of those logs alone, in the same window: the ratio of the two (goal: ≤ 2× one). Both are measured
 * under the same load at the same time: a one-server run minutes later (as this bench did before)
 * met another state of this shared VM (three runs of one build: 1.86×, 3.20×, 2.78×).
 * - eight llama-servers (llama-swap), llama.cpp b10587 request blocks;
 * - four vLLM replicas, `--enable-log-requests` lines.
 *
 *   npm run bench -- servers                      (the two boxes, ≈ 2 min)
 *   npm run bench -- servers 8                    (eight servers of each engine, ≈ 2 min)
 *   npm run bench -- servers 8 --formats=vllm     (one engine)
 *   npm run bench -- servers --same-lines         (also one log carrying all the box's lines, at once:
 *                                                  what the servers cost beyond their lines)
 *   npm run bench -- servers --windows=5          (five windows back to back: each one's ratios, and their median)
 *   npm run bench -- servers --seconds=3 --warmup=1   (a smoke test)
 */
import {runWhenMain} from './lib.js';
import {runTraffic, trafficOptions, type MainThreadCpu, type RunCpu, type WindowCpu} from './traffic-lib.js';

type Format = 'llama.cpp' | 'vllm';
/** How many servers of each engine the issue's boxes have. */
const BOX: Readonly<Record<Format, number>> = {'llama.cpp': 8, vllm: 4};

/** many ÷ other, or undefined where either is unknown (or the other is not above 0). */
const ratio = (a: number | undefined, b: number | undefined): number | undefined => (a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : undefined);

/** `5.6 against 2.2 % of a core (2.55×)`: many against other, `--` for a figure that is unknown (and the ratio then). */
function against(many: number | undefined, other: number | undefined): string {
	const pct = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '--' : v.toFixed(1));
	const r = ratio(many, other);
	return `${pct(many)} against ${pct(other)} % of a core (${r === undefined ? '--' : `${r.toFixed(2)}×`})`;
}

/**
 * `; by window 2.31, 2.45, 2.62× (median 2.45×)`: the ratio of each window (`--` where a figure of
 * it is unknown) and the median of those known; nothing for a single window.
 */
export function byWindow(pairs: readonly {readonly a?: number; readonly b?: number}[]): string {
	if (pairs.length < 2) return '';
	const each = pairs.map(p => ratio(p.a, p.b));
	const known = each.filter((r): r is number => r !== undefined).sort((x, y) => x - y);
	const m = known.length;
	const median = m === 0 ? undefined : m % 2 === 1 ? known[(m - 1) / 2]! : (known[m / 2 - 1]! + known[m / 2]!) / 2;
	return `; by window ${each.map(r => (r === undefined ? '--' : r.toFixed(2))).join(', ')}× (median ${median === undefined ? '--' : `${median.toFixed(2)}×`})`;
}

/** `8 llama.cpp servers against one of them alone (the same window) …: 5.6 against 2.2 % of a core (2.55×)`; `--` where either is unknown. */
export function ratioLine(format: Format, n: number, rate: number, many: number | undefined, one: number | undefined, windows: readonly WindowCpu[] = []): string {
	return `  ratio (issue 32, goal ≤ 2×): ${n} ${format} servers against one of them alone (the same window), ${rate.toLocaleString('en-US')} req/s each: ${against(many, one)}${byWindow(windows.map(w => ({a: w.many, b: w.alone})))}`;
}

/** `  main threads alone (8 servers against one): 3.9 against 2.0 % of a core (1.95×)`: the same two infertops' JavaScript, without V8's helper threads (bench/traffic-lib.ts threadsLine). */
export function mainThreadLine(n: number, main: MainThreadCpu | undefined): string {
	return `  main threads alone (${n} servers against one): ${against(main?.many, main?.alone)}`;
}

/**
 * `8 llama.cpp servers against one log carrying their lines (800 req/s), the same window: 5.6 against
 * 3.5 % of a core (1.60×)`: what the servers cost beyond the lines they carry; `--` where unknown.
 */
export function sameLinesLine(format: Format, n: number, rate: number, many: number | undefined, same: number | undefined, windows: readonly WindowCpu[] = []): string {
	return `  same lines: ${n} ${format} servers against one log carrying their lines (${(n * rate).toLocaleString('en-US')} req/s), the same window: ${against(many, same)}${byWindow(windows.map(w => ({a: w.many, b: w.same})))}`;
}

export async function run(args: readonly string[] = process.argv.slice(2)): Promise<string> {
	const given = args.find(a => /^\d+$/.test(a));
	const at = args.some(a => a.startsWith('--rates=')) ? args : [...args, '--rates=100'];
	const {formats, rates} = trafficOptions(at, 1);
	const out: string[] = [];
	for (const format of formats) {
		const n = given === undefined ? BOX[format] : Number(given);
		// infertop's CPU at each rate: the n servers', and the lone one's beside it
		const runs = new Map<number, RunCpu>();
		const options = trafficOptions(at, n);
		out.push(await runTraffic({...options, formats: [format], alone: n > 1, record: r => runs.set(r.rate, r)}));
		for (const rate of rates) {
			const r = runs.get(rate);
			if (!r) continue;
			out.push(ratioLine(format, n, rate, r.many, r.alone, r.windows));
			if (n > 1) out.push(mainThreadLine(n, r.main));
			if (options.sameLines && n > 1) out.push(sameLinesLine(format, n, rate, r.many, r.same, r.windows));
		}
	}
	return out.join('\n');
}

runWhenMain(import.meta.url, () => run());
