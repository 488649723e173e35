/**
 * The llama.cpp log parser alone, on a busy llama-server's request lines (bench/traffic-writer.mjs:
 * the real b10587 request blocks, 8 slots), under the V8 flags the app runs with (bin/infertop.js
 * START_FLAGS: no TurboFan, a young generation that does not grow), where every temporary object,
 * slice and call costs several times what it costs optimized (issue 32). Prints CPU per line (best
 * of 5 passes over 96,000 lines, one fresh parser each) and the young-generation collections per
 * 100,000 lines: what the parser allocates.
 *
 *   npm run bench -- parse-llama
 *   npx tsx bench/parse-llama-busy.bench.ts
 *
 * Measured on the shared 2-core dev machine (load 12), issue 32's parser work: main 48848bc
 * 2.71 µs a line and 20.6 collections per 100,000 lines; after it 1.75–1.84 µs and 8.5. Counted
 * under valgrind (instructions, robust to the load): ~29,900 → ~17,700 a line.
 * Later (a 2-core VM, load 1.8): the slot-line matcher with no call a character and its digits read
 * in one pass: 3.18–3.20 → 2.47–2.52 µs a line, two runs of each build.
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {build} from 'esbuild';
import {runWhenMain} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** bin/infertop.js START_FLAGS. */
const APP_FLAGS = ['--semi-space-growth-factor=1', '--no-opt'];
const REQUESTS = 12_000;
const PASSES = 5;

const DRIVER = (lines: string) => `
const {readFileSync} = require('node:fs');
const {PerformanceObserver} = require('node:perf_hooks');
const {createLlamaCppParser} = require('./parser.cjs');
const lines = readFileSync(${JSON.stringify(lines)}, 'utf8').split('\\n').filter(l => l.length > 0);
let minor = 0;
new PerformanceObserver(list => { for (const e of list.getEntries()) if (e.detail?.kind === 1) minor++; }).observe({entryTypes: ['gc']});
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const perLine = [];
let events = 0;
for (let r = 0; r < ${PASSES}; r++) {
	const p = createLlamaCppParser();
	const c0 = cpu();
	for (let i = 0; i < lines.length; i++) { const e = p.push(lines[i]); if (e) events += e.length; }
	perLine.push(((cpu() - c0) / lines.length) * 1000);
}
// gc entries arrive after the work that caused them
setTimeout(() => process.stdout.write(JSON.stringify({lines: lines.length, best: Math.min(...perLine), minor, events})), 200);
`;

export async function run(): Promise<string> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-parse-llama-'));
	try {
		const log = path.join(dir, 'server.log');
		const w = spawnSync(process.execPath, [path.join(root, 'bench', 'traffic-writer.mjs'), log, 'llama.cpp', '--burst', String(REQUESTS)], {encoding: 'utf8'});
		if (w.status !== 0) throw new Error(`traffic-writer: ${w.stderr.trim()}`);
		await build({entryPoints: [path.join(root, 'source', 'engines', 'llamacpp.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: path.join(dir, 'parser.cjs'), logLevel: 'error'});
		const driver = path.join(dir, 'driver.cjs');
		writeFileSync(driver, DRIVER(log));
		const r = spawnSync(process.execPath, [...APP_FLAGS, driver], {encoding: 'utf8', cwd: dir});
		const json = /\{"lines".*\}$/.exec(r.stdout.trim())?.[0];
		if (r.status !== 0 || !json) throw new Error(r.stderr.trim().split('\n').at(-1) ?? `exit ${r.status}`);
		const x = JSON.parse(json) as {lines: number; best: number; minor: number; events: number};
		const scavenges = (x.minor / (x.lines * PASSES)) * 100_000;
		return `parse-llama-busy: ${x.best.toFixed(2)} µs CPU per line (best of ${PASSES} passes over ${x.lines.toLocaleString('en-US')} busy llama-server lines, node ${APP_FLAGS.join(' ')}), ${scavenges.toFixed(1)} young-generation collections per 100,000 lines; ${x.events.toLocaleString('en-US')} events; load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`;
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}

runWhenMain(import.meta.url, run);
