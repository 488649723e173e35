/**
 * CPU per frame of the renderer the CLI ships: the App (the rich fixture state at 120×40) bundled on
 * the installed, patched Ink (patches/*.patch, applied at install), driven through its store on a
 * fake terminal, against the same App on Ink 6.8 as published (test/helpers/stock-ink.ts) in the
 * same run.
 *
 *   npm run bench -- frame
 *   INFERTOP_BENCH_FRAMES=400 npm run bench -- frame     publishes per case (default 200)
 *
 * Two cases, each N publishes 40 ms apart (longer than Ink's render throttle), CPU from
 * process.cpuUsage() less the same N idle waits:
 *  - one changed figure (infertop's own CPU in the footer): a frame that rewrites one line;
 *  - the same figures in a new object: React renders, no text changes (the patched Ink draws nothing).
 * Each bundle runs in its own node process (the two Inks must not share module state).
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {INCREMENTAL_ENTRY, bundleEntry} from '../test/helpers/stock-ink.js';
import {runWhenMain} from './lib.js';



const DRIVER = (entry: string, n: number) => `
process.env.CI = 'false';
const {mount, busySystem} = await import(${JSON.stringify(entry)});
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
const m = mount(120, 40, true);
await wait(500);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const c0 = cpu(); for (let i = 0; i < ${n}; i++) await wait(40); const idle = cpu() - c0;
let r0 = m.renders(); const c1 = cpu();
for (let i = 0; i < ${n}; i++) { m.dispatch({type: 'system', system: {...busySystem, self: {...busySystem.self, cpuPct: 1 + i / 10}}}); m.publish(); await wait(40); }
const changed = {ms: (cpu() - c1 - idle) / ${n}, frames: m.renders() - r0};
r0 = m.renders(); const c2 = cpu();
for (let i = 0; i < ${n}; i++) { m.dispatch({type: 'system', system: {...busySystem, self: {...busySystem.self, cpuPct: 1 + (${n} - 1) / 10}, updatedAt: i}}); m.publish(); await wait(40); }
const same = {ms: (cpu() - c2 - idle) / ${n}, frames: m.renders() - r0};
m.unmount();
process.stdout.write(JSON.stringify({changed, same}));
process.exit(0);
`;

export async function run(): Promise<string> {
	const n = Math.max(20, Number(process.env.INFERTOP_BENCH_FRAMES) || 200);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-frame-'));
	try {
		const rows: string[] = [];
		for (const [label, patched] of [['shipped (patched Ink)', true], ['Ink 6.8 unpatched', false]] as const) {
			const outfile = path.join(dir, `${patched ? 'patched' : 'plain'}.mjs`);
			await bundleEntry(INCREMENTAL_ENTRY, outfile, !patched);
			const driver = path.join(dir, `${patched ? 'patched' : 'plain'}-driver.mjs`);
			writeFileSync(driver, DRIVER(pathToFileURL(outfile).href, n));
			const r = spawnSync(process.execPath, [driver], {encoding: 'utf8', env: {...process.env, CI: 'false', NODE_ENV: 'production'}});
			const json = /\{"changed".*\}$/.exec(r.stdout.trim())?.[0];
			if (r.status !== 0 || !json) throw new Error(`${label}: ${r.stderr.trim().split('\n').at(-1) ?? `exit ${r.status}`}`);
			const x = JSON.parse(json) as {changed: {ms: number; frames: number}; same: {ms: number; frames: number}};
			rows.push(`  ${label.padEnd(24)} one changed line: ${x.changed.ms.toFixed(2)} ms CPU per publish (${x.changed.frames} frames); no text changed: ${x.same.ms.toFixed(2)} ms (${x.same.frames} frames)`);
		}
		return [`frame cost (App at 120×40, ${n} publishes per case, 40 ms apart; ${os.cpus().length} cores, load ${os.loadavg().map(l => l.toFixed(1)).join(' ')}, node ${process.version})`, ...rows].join('\n');
	} finally {
		rmSync(dir, {recursive: true, force: true});
	}
}

runWhenMain(import.meta.url, run);
