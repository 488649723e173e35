/**
 * Start-up time of the bundled build: process start → first frame on a pseudo-terminal.
 *
 *   npx tsx bench/startup.bench.ts            (or import {run} and await run())
 *   INFERTOP_BENCH_RUNS=9                     number of runs (default 7, at least 5)
 *   INFERTOP_BENCH_ENTRY=scripts/smoke-entry.tsx   bundle this entry instead of source/cli.tsx
 *
 * It bundles the CLI (scripts/build.mjs) into a temporary package laid out as npm installs it
 * (bin/, dist/, themes/, samples/, package.json), then runs `bin/infertop.js --demo` under a
 * pseudo-terminal (`script` from util-linux, or BSD `script` on macOS) through its shebang, as npm
 * links it, with CI=false (Ink renders
 * nothing until exit in CI) and INFERTOP_EXIT_AFTER_FIRST_FRAME=1. It measures from spawn to
 *   - first byte: the first bytes on the terminal (escape sequences count: alternate screen…),
 *   - first frame: the first visible character of a frame (escape sequences stripped),
 * and kills the process once the frame is seen if it does not exit by itself.
 * If source/cli.tsx cannot be bundled yet it falls back to scripts/smoke-entry.tsx and says so.
 * The baseline row is `node -e` printing one character under the same terminal: the floor.
 * The "least Ink app" row is bench/floor/hello.tsx (React, Ink and yoga, one box) bundled and started
 * through the same bin (its V8 flags and code cache): what Ink itself costs before a first frame.
 * Two rows for infertop: with its V8 code cache (every start but the first) and without (cold).
 * INFERTOP_BENCH_BASELINE=DIR adds another checkout of infertop (its dependencies installed there),
 * bundled from its own sources and run interleaved with this one: before/after a change, same load.
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import stripAnsi from 'strip-ansi';
import {bundleInto, layOut, ptyCommand} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Timing {
	firstByteMs?: number;
	firstFrameMs?: number;
	exitMs?: number;
	exitedByItself: boolean;
}

function once(command: string, cwd: string, extraEnv: Record<string, string> = {}, timeoutMs = 30_000): Promise<Timing> {
	const {file, args} = ptyCommand(command);
	const env: NodeJS.ProcessEnv = {...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, CI: 'false', INFERTOP_EXIT_AFTER_FIRST_FRAME: '1', TERM: process.env.TERM && process.env.TERM !== 'dumb' ? process.env.TERM : 'xterm-256color', ...extraEnv};
	if (extraEnv.INFERTOP_EXIT_AFTER_FIRST_FRAME === '') delete env.INFERTOP_EXIT_AFTER_FIRST_FRAME;
	delete env.NO_COLOR;
	delete env.DEV;
	return new Promise((resolve) => {
		const t0 = performance.now();
		const child = spawn(file, args, {cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true});
		const timing: Timing = {exitedByItself: false};
		let text = '';
		let killTimer: NodeJS.Timeout | undefined;
		const kill = () => {
			try {
				process.kill(-child.pid!, 'SIGKILL');
			} catch {}
		};
		const deadline = setTimeout(kill, timeoutMs);
		child.stdout.on('data', (chunk: Buffer) => {
			const now = performance.now() - t0;
			timing.firstByteMs ??= now;
			if (timing.firstFrameMs !== undefined) return;
			text += chunk.toString('utf8');
			if (/\S/.test(stripAnsi(text))) {
				timing.firstFrameMs = now;
				// Give it a moment to leave by itself (INFERTOP_EXIT_AFTER_FIRST_FRAME), then stop it.
				killTimer = setTimeout(kill, 3000);
			}
		});
		child.stderr.resume();
		child.on('exit', () => {
			timing.exitMs = performance.now() - t0;
			timing.exitedByItself = killTimer !== undefined && timing.exitMs < (timing.firstFrameMs ?? 0) + 3000;
			clearTimeout(deadline);
			if (killTimer) clearTimeout(killTimer);
			resolve(timing);
		});
	});
}

const median = (xs: number[]): number => {
	const s = [...xs].sort((a, b) => a - b);
	const mid = s.length >> 1;
	return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The median first frame of `xs` over that of `base`, as `1.6×`; `--` where either has none. */
function ratio(xs: readonly Timing[], base: readonly Timing[]): string {
	const a = xs.flatMap((t) => (t.firstFrameMs === undefined ? [] : [t.firstFrameMs]));
	const b = base.flatMap((t) => (t.firstFrameMs === undefined ? [] : [t.firstFrameMs]));
	return a.length === 0 || b.length === 0 || median(b) <= 0 ? '--' : `${(median(a) / median(b)).toFixed(2)}×`;
}

function stats(label: string, xs: (number | undefined)[]): string {
	const known = xs.filter((x): x is number => x !== undefined);
	if (known.length === 0) return `${label.padEnd(26)} --`;
	const f = (x: number) => `${x.toFixed(0)} ms`.padStart(8);
	return `${label.padEnd(26)} median ${f(median(known))}   min ${f(Math.min(...known))}   max ${f(Math.max(...known))}   (n=${known.length}${known.length < xs.length ? ` of ${xs.length}` : ''})`;
}

/** Lay out a package as npm installs it, with the bundle built from `entry`. */
function stage(entry: string | undefined, from = root): {dir: string; entry: string; note?: string} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-startup-'));
	let used = entry ?? 'source/cli.tsx';
	let note: string | undefined;
	let r = bundleInto(from, entry, dir);
	if (r.status !== 0 && entry === undefined) {
		note = `source/cli.tsx did not bundle (${(r.stderr.split('\n').find((l) => l.includes('ERROR')) ?? 'build failed').replace(/^\s*✘\s*/, '').trim()}); measured the smoke entry instead`;
		used = 'scripts/smoke-entry.tsx';
		r = bundleInto(from, used, dir);
	}
	if (r.status !== 0) throw new Error(`build failed:\n${r.stderr}`);
	layOut(from, dir);
	return {dir, entry: used, note};
}

const DEPENDENCIES = ['ink', 'react', 'execa', 'systeminformation', 'eventsource-parser', 'strip-ansi'];

/** What each dependency costs at start: its import time from node_modules (median of 3) and whether the first frame waits for it in the bundle. */
function dependencyCosts(dist: string): string[] {
	const text = fs.readFileSync(path.join(dist, 'cli.cjs'), 'utf8');
	const lines = [`  the bundle: one script of ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB; per dependency, its import from node_modules (unbundled, median of 3):`];
	for (const dep of DEPENDENCIES) {
		const times: number[] = [];
		for (let i = 0; i < 3; i++) {
			const r = spawnSync(process.execPath, ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(dep)}); process.stdout.write(String(performance.now() - t));`], {cwd: root, encoding: 'utf8'});
			const ms = Number(r.stdout);
			if (r.status === 0 && Number.isFinite(ms)) times.push(ms);
		}
		const bundled = text.includes(`// node_modules/${dep}/`);
		lines.push(`    ${dep.padEnd(20)} ${times.length ? `${median(times).toFixed(0)} ms`.padStart(7) : '     --'}   ${bundled ? 'in the bundle' : fs.existsSync(path.join(dist, `${dep}.cjs`)) ? `in dist/${dep}.cjs, required where it is used` : 'not in the bundle'}`);
	}
	return lines;
}

export async function run(): Promise<string> {
	const runs = Math.max(5, Number(process.env.INFERTOP_BENCH_RUNS) || 7);
	const {dir, entry, note} = stage(process.env.INFERTOP_BENCH_ENTRY || undefined);
	const baselineFrom = process.env.INFERTOP_BENCH_BASELINE || undefined;
	const baseline = baselineFrom === undefined ? undefined : stage(undefined, path.resolve(baselineFrom));
	const floor = stage('bench/floor/hello.tsx');
	try {
		const pty = ptyCommand('true').pty;
		const base: Timing[] = [];
		const warm: Timing[] = [];
		const cold: Timing[] = [];
		// The code cache (bin/infertop.js) in a folder of the bench's own: written by one run that stays
		// open past the write (the monitor saves it 2 s after its first frame; the run is stopped 3 s
		// after it), read by every warm run. The cold runs have none: the first start after an install or an upgrade, or
		// a cache folder that cannot be written.
		const cacheDir = path.join(dir, 'code-cache');
		const withCache = {INFERTOP_CODE_CACHE: cacheDir};
		const noCache = {INFERTOP_CODE_CACHE: 'off'};
		await once(`./bin/infertop.js --demo`, dir, {...withCache, INFERTOP_EXIT_AFTER_FIRST_FRAME: ''});
		const cached = fs.existsSync(cacheDir) && fs.readdirSync(cacheDir).some((f) => f.endsWith('.v8cache'));
		// Warm the file cache once; interleave the commands so load spikes hit all of them.
		await once(`./bin/infertop.js --demo`, dir, withCache);
		const bWarm: Timing[] = [];
		const bCold: Timing[] = [];
		const bCache: Record<string, string> = baseline ? {INFERTOP_CODE_CACHE: path.join(baseline.dir, 'code-cache')} : {};
		if (baseline) {
			await once(`./bin/infertop.js --demo`, baseline.dir, {...bCache, INFERTOP_EXIT_AFTER_FIRST_FRAME: ''});
			await once(`./bin/infertop.js --demo`, baseline.dir, bCache);
		}
		const floorCache = {INFERTOP_CODE_CACHE: path.join(floor.dir, 'code-cache')};
		await once(`./bin/infertop.js`, floor.dir, {...floorCache, INFERTOP_EXIT_AFTER_FIRST_FRAME: ''});
		const least: Timing[] = [];
		for (let i = 0; i < runs; i++) {
			base.push(await once(`node -e "process.stdout.write('x')"`, dir));
			least.push(await once(`./bin/infertop.js`, floor.dir, floorCache));
			warm.push(await once(`./bin/infertop.js --demo`, dir, withCache));
			cold.push(await once(`./bin/infertop.js --demo`, dir, noCache));
			if (baseline) {
				bWarm.push(await once(`./bin/infertop.js --demo`, baseline.dir, bCache));
				bCold.push(await once(`./bin/infertop.js --demo`, baseline.dir, noCache));
			}
		}
		const size = fs.statSync(path.join(dir, 'dist', 'cli.cjs')).size;
		const lines = [
			`startup (bundled build, ${entry} → dist/cli.cjs ${(size / 1024).toFixed(0)} KiB, through bin/infertop.js's shebang; node ${process.version}; ${os.cpus().length} cores; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${pty ? 'pseudo-terminal' : 'NO pseudo-terminal: pipes'})`,
			...(note ? [`  note: ${note}`] : []),
			`  ${stats('node -e baseline (frame)', base.map((t) => t.firstFrameMs))}`,
			`  ${stats('least Ink app (frame)', least.map((t) => t.firstFrameMs))}   (bench/floor/hello.tsx through the same bin, code cache warm; ${(fs.statSync(path.join(floor.dir, 'dist', 'cli.cjs')).size / 1024).toFixed(0)} KiB)`,
			...(cached ? [] : ['  note: the warm-up run wrote no code cache: the "warm" rows are cold too']),
			`  ${stats('infertop first byte', warm.map((t) => t.firstByteMs))}   (code cache warm)`,
			`  ${stats('infertop first frame', warm.map((t) => t.firstFrameMs))}   (code cache warm: every start but the first)`,
			`  ${stats('  cold: first frame', cold.map((t) => t.firstFrameMs))}   (no code cache: the first start after an install)`,
			...(baseline
				? [
						`  ${stats('baseline first frame', bWarm.map((t) => t.firstFrameMs))}   (INFERTOP_BENCH_BASELINE, code cache warm; ${(fs.statSync(path.join(baseline.dir, 'dist', 'cli.cjs')).size / 1024).toFixed(0)} KiB)`,
						`  ${stats('  cold: first frame', bCold.map((t) => t.firstFrameMs))}   (baseline, no code cache)`,
					]
				: []),
			`  ${stats('infertop exit', warm.map((t) => (t.exitedByItself ? t.exitMs : undefined)))}${warm.some((t) => !t.exitedByItself) ? '  (runs that did not exit after the first frame were killed: INFERTOP_EXIT_AFTER_FIRST_FRAME not honoured)' : ''}`,
			`  ratios of the medians to node -e: infertop warm ${ratio(warm, base)}, least Ink app ${ratio(least, base)}${baseline ? `, baseline warm ${ratio(bWarm, base)}` : ''} (goal, issue 32: infertop ≤ 1.5×)`,
			...dependencyCosts(path.join(dir, 'dist')),
		];
		return lines.join('\n');
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
		if (baseline) fs.rmSync(baseline.dir, {recursive: true, force: true});
		fs.rmSync(floor.dir, {recursive: true, force: true});
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	run().then(
		(report) => console.log(report),
		(error: unknown) => {
			console.error(error instanceof Error ? error.message : error);
			process.exitCode = 1;
		},
	);
}
