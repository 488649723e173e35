/**
 * infertop's own cost with the system collector at 1 s refresh: CPU % (100 = one core) and RSS in
 * steady state, like htop lists itself. Also, on Linux, the CPU of the short-lived children the
 * scans spawn (ps through systeminformation, nvidia-smi…), read from /proc/self/stat.
 *
 *   npx tsx bench/self-cost.bench.ts            (≈ 25 s)
 *   INFERTOP_BENCH_SECONDS=60 npx tsx bench/self-cost.bench.ts
 */
import {readFileSync} from 'node:fs';
import os from 'node:os';
import {createSystemCollector} from '../source/sources/system-collector.js';
import type {SystemState} from '../source/types/system.js';
import {runWhenMain} from './lib.js';

const CLK_TCK = 100;

/** Reaped children's CPU seconds (cutime + cstime), Linux only. */
function childrenCpuSeconds(): number | undefined {
	try {
		const stat = readFileSync('/proc/self/stat', 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// after the comm: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
		return (Number(fields[13]) + Number(fields[14])) / CLK_TCK;
	} catch {
		return undefined;
	}
}

function wait(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

interface Window {
	readonly cpuPct: number;
	readonly childrenPct?: number;
	readonly seconds: number;
}

async function measure(ms: number): Promise<Window> {
	const c0 = process.cpuUsage();
	const k0 = childrenCpuSeconds();
	const t0 = performance.now();
	await wait(ms);
	const dt = (performance.now() - t0) / 1000;
	const c = process.cpuUsage(c0);
	const k1 = childrenCpuSeconds();
	return {
		cpuPct: ((c.user + c.system) / 1e6 / dt) * 100,
		...(k0 !== undefined && k1 !== undefined ? {childrenPct: ((k1 - k0) / dt) * 100} : {}),
		seconds: dt,
	};
}

const f1 = (v: number | undefined): string => (v === undefined ? '--' : v.toFixed(1));
const mib = (b: number | undefined): string => (b === undefined ? '--' : `${(b / 1048576).toFixed(0)} MiB`);

export async function run(): Promise<string> {
	const seconds = Number(process.env.INFERTOP_BENCH_SECONDS ?? 20);
	const idle = await measure(3000);
	let dispatches = 0;
	let last: SystemState | undefined;
	const collector = createSystemCollector({
		dispatch: (a) => {
			if (a.type !== 'system') return;
			dispatches++;
			last = a.system;
		},
		intervalMs: 1000,
	});
	collector.start();
	await wait(3000); // warm-up: module loading, priming scan, graphics probe
	const d0 = dispatches;
	let peakRss = 0;
	const sampler = setInterval(() => {
		peakRss = Math.max(peakRss, process.memoryUsage.rss());
	}, 250);
	const steady = await measure(seconds * 1000);
	clearInterval(sampler);
	const rss = process.memoryUsage.rss();
	await collector.stop();
	const s = last?.self;
	const lines = [
		`self-cost: system collector at 1 s refresh, ${steady.seconds.toFixed(0)} s steady state (after 3 s warm-up), ${os.cpus().length} cores, ${process.platform}, node ${process.version}`,
		`  infertop process CPU: ${f1(steady.cpuPct)} % of one core (idle baseline of the same process without collector: ${f1(idle.cpuPct)} %)`,
		`  spawned children CPU (ps, nvidia-smi…; Linux /proc cutime): ${f1(steady.childrenPct)} % of one core`,
		`  collector's own view of self: ${f1(s?.cpuPct)} % (since its previous scan), RSS ${mib(s?.rssBytes)}`,
		`  RSS: ${mib(rss)} at end, ${mib(peakRss)} peak`,
		`  process table: scan ${s?.processScanMs ?? '--'} ms (smoothed), every ${s?.processEveryMs ?? '--'} ms; ${dispatches - d0} dispatches in ${steady.seconds.toFixed(0)} s`,
		`  machine: load ${os.loadavg().map((v) => v.toFixed(1)).join(' ')} (a busy machine slows the scans)`,
	];
	return lines.join('\n');
}

runWhenMain(import.meta.url, run);
