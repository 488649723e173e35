/**
 * Memory over a long run: infertop (bundled, tmux 120×40) watching the demo engine while this bench
 * sends it one request a second; RSS sampled every 10 s; the slope (least squares, after a warm-up)
 * in MB per hour. Flat means the slope is within the noise, not "it shrank once".
 *
 *   npm run bench -- soak                         30 minutes
 *   INFERTOP_SOAK_MINUTES=5 npm run bench -- soak  a shorter soak (say so beside its numbers)
 *   INFERTOP_SOAK_MINUTES=60 npm run bench -- soak the hour of the "flat over an hour"
 *   INFERTOP_SOAK_CSV=FILE                       also every sample (minutes, RSS, anonymous, file-backed MB)
 *   INFERTOP_SOAK_NODE_OPTIONS='--require F'  node options for the infertop under test (a probe of its own)
 *   INFERTOP_SOAK_HEAP=1                           also two heap snapshots (after the warm-up and at
 *                                                  the end, via --heapsnapshot-signal) and the object
 *                                                  kinds that grew most between them
 * Linux only (RSS from /proc/PID/status).
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {startDemoEngine} from '../source/demo/engine.js';
import {rssBytes, runWhenMain, tmuxStart} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wait = (ms: number) => new Promise<void>(r => setTimeout(r, ms));

/** Where the resident memory is (/proc/PID/smaps_rollup): anonymous (V8 heap, wasm memory, malloc) and file-backed (node's own code). */
function rollup(pid: number): {anonMB: number; fileMB: number} | undefined {
	try {
		const t = readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1');
		const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(t)?.[1]);
		const anon = kb('Anonymous');
		const total = kb('Rss');
		return Number.isFinite(anon) && Number.isFinite(total) ? {anonMB: anon / 1024, fileMB: (total - anon) / 1024} : undefined;
	} catch {
		return undefined;
	}
}

/** Least-squares slope of y over x. */
export function slope(points: readonly {x: number; y: number}[]): number | undefined {
	if (points.length < 2) return undefined;
	const n = points.length;
	const mx = points.reduce((a, p) => a + p.x, 0) / n;
	const my = points.reduce((a, p) => a + p.y, 0) / n;
	let num = 0;
	let den = 0;
	for (const p of points) {
		num += (p.x - mx) * (p.y - my);
		den += (p.x - mx) ** 2;
	}
	return den > 0 ? num / den : undefined;
}

/** Self size by `type:name` of a .heapsnapshot (V8's JSON: nodes flat, fields from the meta). */
function heapByKind(file: string): Map<string, number> {
	const snap = JSON.parse(readFileSync(file, 'utf8')) as {snapshot: {meta: {node_fields: string[]; node_types: [string[]]}}; nodes: number[]; strings: string[]};
	const fields = snap.snapshot.meta.node_fields;
	const types = snap.snapshot.meta.node_types[0];
	const [iType, iName, iSize] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
	const out = new Map<string, number>();
	for (let i = 0; i < snap.nodes.length; i += fields.length) {
		const type = types[snap.nodes[i + iType]!] ?? '?';
		const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '(strings)' : (snap.strings[snap.nodes[i + iName]!] ?? '?').slice(0, 40);
		const key = `${type}:${name}`;
		out.set(key, (out.get(key) ?? 0) + snap.nodes[i + iSize]!);
	}
	return out;
}

export async function run(): Promise<string> {
	if (process.platform !== 'linux') return 'soak: Linux only (RSS from /proc): skipped';
	if (spawnSync('sh', ['-c', 'command -v tmux']).status !== 0) return 'soak: tmux is not installed: skipped';
	const minutes = Number(process.env.INFERTOP_SOAK_MINUTES ?? 30);
	const heap = process.env.INFERTOP_SOAK_HEAP === '1';
	const b = spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: root, encoding: 'utf8'});
	if (b.status !== 0) throw new Error(`build failed:\n${b.stderr}`);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-soak-'));
	const demo = await startDemoEngine({logPath: path.join(dir, 'server.log'), agent: false});
	const session = `ib-soak-${process.pid}`;
	const bin = path.join(root, 'bin', 'infertop.js');
	const extra = process.env.INFERTOP_SOAK_NODE_OPTIONS ?? '';
	const nodeOptions = heap || extra ? `NODE_OPTIONS='${[heap ? '--heapsnapshot-signal=SIGUSR2' : '', extra].filter(Boolean).join(' ')}'` : '';
	const command = `cd ${dir} && PATH=${path.dirname(process.execPath)}:$PATH CI=false NODE_ENV=production ${nodeOptions} exec ${bin} --server ${demo.url} --log ${demo.logPath}`;
	const samples: {x: number; y: number}[] = [];
	const parts: {x: number; anonMB: number; fileMB: number}[] = [];
	let requests = 0;
	let failed = 0;
	const model = demo.models[0]?.name ?? 'demo';
	try {
		const pid = tmuxStart(session, command);
		const t0 = performance.now();
		const end = t0 + minutes * 60_000;
		const warmup = Math.min(120_000, minutes * 60_000 * 0.2);
		let snapped = false;
		let nextSample = t0;
		parts.length = 0;
		while (performance.now() < end) {
			const started = performance.now();
			// one request a second, as an agent would send them
			void fetch(`${demo.url}/api/generate`, {method: 'POST', body: JSON.stringify({model, prompt: `soak ${requests}`, stream: false, options: {num_predict: 16}})})
				.then(r => r.text())
				.catch(() => {
					failed++;
				});
			requests++;
			if (performance.now() >= nextSample) {
				const r = rssBytes(pid);
				if (r === undefined) throw new Error('infertop exited during the soak');
				const at = performance.now() - t0;
				if (at >= warmup) {
					samples.push({x: at / 3_600_000, y: r / 1e6});
					const split = rollup(pid);
					if (split) parts.push({x: at / 3_600_000, ...split});
					if (heap && !snapped) {
						process.kill(pid, 'SIGUSR2');
						snapped = true;
					}
				}
				nextSample += 10_000;
			}
			await wait(Math.max(0, 1000 - (performance.now() - started)));
		}
		if (heap) {
			process.kill(pid, 'SIGUSR2');
			await wait(5000);
		}
	} finally {
		spawnSync('tmux', ['kill-session', '-t', session]);
		await demo.stop();
	}
	const s = slope(samples);
	const anonSlope = slope(parts.map(p => ({x: p.x, y: p.anonMB})));
	const fileSlope = slope(parts.map(p => ({x: p.x, y: p.fileMB})));
	// the rings (requests, history, log) fill in the first minutes; the second half shows what stays
	const late = slope(samples.slice(Math.floor(samples.length / 2)));
	const ys = samples.map(p => p.y);
	const lines = [
		`soak: ${minutes} min (${minutes < 30 ? 'SHORTER than the 30 min default' : minutes >= 60 ? 'an hour or more' : 'shorter than the hour of the goal'}), one request a second to the demo engine (${requests} sent, ${failed} failed), tmux 120×40, ${os.cpus().length} cores, load ${os.loadavg().map(l => l.toFixed(1)).join(' ')}`,
		`  RSS after warm-up: first ${ys[0]?.toFixed(0) ?? '--'} MB, last ${ys.at(-1)?.toFixed(0) ?? '--'} MB, min ${ys.length ? Math.min(...ys).toFixed(0) : '--'} MB, max ${ys.length ? Math.max(...ys).toFixed(0) : '--'} MB (${samples.length} samples, every 10 s)`,
		`  slope: ${s === undefined ? '--' : s.toFixed(1)} MB/hour over the run, ${late === undefined ? '--' : late.toFixed(1)} MB/hour over its second half (least squares; goal: flat, RSS ≤ 80 MB)`,
		`  of which anonymous (V8 heap, wasm, malloc) ${parts[0]?.anonMB.toFixed(0) ?? '--'} → ${parts.at(-1)?.anonMB.toFixed(0) ?? '--'} MB (${anonSlope === undefined ? '--' : anonSlope.toFixed(1)} MB/hour), file-backed (node's code) ${parts[0]?.fileMB.toFixed(0) ?? '--'} → ${parts.at(-1)?.fileMB.toFixed(0) ?? '--'} MB (${fileSlope === undefined ? '--' : fileSlope.toFixed(1)} MB/hour)`,
	];
	if (heap) {
		const snaps = readdirSync(dir).filter(f => f.endsWith('.heapsnapshot')).sort();
		if (snaps.length >= 2) {
			const [a, z] = [heapByKind(path.join(dir, snaps[0]!)), heapByKind(path.join(dir, snaps.at(-1)!))];
			const growth = [...z].map(([k, v]) => [k, v - (a.get(k) ?? 0)] as const).sort((p, q) => q[1] - p[1]).slice(0, 8);
			const total = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0) / 1e6;
			lines.push(`  heap: ${total(a).toFixed(1)} MB after warm-up → ${total(z).toFixed(1)} MB at the end; grew most:`);
			for (const [k, v] of growth) lines.push(`    ${(v / 1e3).toFixed(0).padStart(8)} KB  ${k}`);
		} else lines.push(`  heap: ${snaps.length} snapshot(s) written, need 2`);
	}
	const csv = process.env.INFERTOP_SOAK_CSV;
	if (csv) {
		const rows = samples.map((p, i) => `${(p.x * 60).toFixed(2)},${p.y.toFixed(1)},${parts[i]?.anonMB.toFixed(1) ?? ''},${parts[i]?.fileMB.toFixed(1) ?? ''}`);
		writeFileSync(csv, `minutes,rss_mb,anon_mb,file_mb\n${rows.join('\n')}\n`);
		lines.push(`  samples written to ${csv}`);
	}
	rmSync(dir, {recursive: true, force: true});
	return lines.join('\n');
}

runWhenMain(import.meta.url, run);
