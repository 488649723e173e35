/**
 * Log parsing throughput: a mixed log of ≥ 1,000,000 lines built from samples/ (every engine),
 * pushed through the pipeline's path — sanitize() then the engine's parser from createParser() —
 * one parser per engine as one log source per server would have. Prints lines/s.
 *
 *   npx tsx bench/parse.bench.ts
 *   INFERTOP_BENCH_LINES=2000000 npx tsx bench/parse.bench.ts
 *
 * Target: ≥ 1,000,000 lines/s on a 2-core machine.
 */
import {readFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {performance} from 'node:perf_hooks';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {createParser} from '../source/engines/index.js';
import type {EngineKind} from '../source/types/events.js';
import {sanitize} from '../source/util/sanitize.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const SAMPLES: Array<[string, EngineKind]> = [
	['ollama-gguf.log', 'ollama'],
	['ollama-mlx.log', 'ollama'],
	['llama-server.log', 'llamacpp'],
	['vllm.log', 'vllm'],
	['sglang.log', 'sglang'],
	['mlxlm.log', 'mlxlm'],
	['lithos.log', 'lithos'],
];

interface Result {
	lines: number;
	ms: number;
	/** CPU time of this process over the run (user + system): robust when other processes share the cores. */
	cpuMs: number;
	linesPerSec: number;
	events: number;
	unparsed: number;
}

function build(target: number): Array<{engine: EngineKind; lines: string[]}> {
	const sources = SAMPLES.map(([file, engine]) => ({engine, lines: readFileSync(path.join(root, 'samples', file), 'utf8').split('\n').filter(l => l.length > 0)}));
	const total = sources.reduce((n, s) => n + s.lines.length, 0);
	const reps = Math.ceil(target / total);
	return sources.map(s => {
		const out: string[] = [];
		for (let i = 0; i < reps; i++) for (const l of s.lines) out.push(l);
		return {engine: s.engine, lines: out};
	});
}

function once(mix: Array<{engine: EngineKind; lines: string[]}>): Result {
	// Interleave the engines line by line, as several tailed logs arrive at once.
	const parsers = mix.map(m => createParser(m.engine));
	let events = 0;
	let unparsed = 0;
	let lines = 0;
	const longest = Math.max(...mix.map(m => m.lines.length));
	const t0 = performance.now();
	const c0 = process.cpuUsage();
	for (let i = 0; i < longest; i++) {
		for (let k = 0; k < mix.length; k++) {
			const l = mix[k]!.lines[i];
			if (l === undefined) continue;
			const ev = parsers[k]!.push(sanitize(l));
			lines++;
			if (ev === null) unparsed++;
			else events += ev.length;
		}
	}
	const ms = performance.now() - t0;
	const c = process.cpuUsage(c0);
	return {lines, ms, cpuMs: (c.user + c.system) / 1000, linesPerSec: (lines * 1000) / ms, events, unparsed};
}

export async function run(): Promise<string> {
	const target = Number(process.env.INFERTOP_BENCH_LINES ?? 1_000_000);
	const mix = build(target);
	once(build(50_000)); // warm up the JIT
	const runs = [once(mix), once(mix), once(mix)];
	const best = runs.reduce((a, b) => (b.linesPerSec > a.linesPerSec ? b : a));
	const verdict = best.linesPerSec >= 1_000_000 ? 'meets' : 'below';
	const perCpu = Math.round((best.lines * 1000) / Math.max(1, best.cpuMs));
	const load = os.loadavg()[0]!.toFixed(1);
	return `parse: ${best.lines.toLocaleString('en-US')} lines in ${best.ms.toFixed(0)} ms = ${Math.round(best.linesPerSec).toLocaleString('en-US')} lines/s wall, ${perCpu.toLocaleString('en-US')} lines per CPU-second (best of 3; load ${load} on ${os.cpus().length} cores; ${best.events.toLocaleString('en-US')} events, ${best.unparsed.toLocaleString('en-US')} unparsed; wall rate ${verdict} the 1,000,000 lines/s target)`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	console.log(await run());
}
