/**
 * infertop's own cost beside htop's, measured side by side in one run: each in its own tmux
 * session at 120×40, at the same time, for 30 s after a 5 s warm-up.
 *
 *   npm run bench -- overhead
 *   INFERTOP_BENCH_SECONDS=60 INFERTOP_BENCH_REPEAT=3 npm run bench -- overhead
 *
 * Rows: CPU (% of one core, from /proc/PID/stat utime + stime; children reaped by it separately),
 * RSS at the end and its peak (/proc/PID/status VmRSS), bytes written to the terminal per second
 * (tmux pipe-pane). Columns:
 *  - infertop watching an idle Ollama: the built-in demo engine, started here without its agent
 *    (an Ollama API on 127.0.0.1, nothing asked of it), given as `--server URL --log PATH`: its log
 *    tailed, its API polled, processes scanned, like a real idle Ollama;
 *  - infertop --demo (the demo's agent sends requests);
 *  - `htop -d 10` (refresh each second), when installed; the bench says so when it is not. It never
 *    installs anything.
 * Linux only for the CPU and RSS rows (they read /proc); elsewhere the bench says what it skipped.
 * The machine's load is printed: on a shared machine compare the ratio, not the absolute figures.
 * INFERTOP_BENCH_BASELINE=DIR adds another checkout of infertop (built there first), watching the
 * same idle Ollama in the same run: before/after a change, under the same load.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {startDemoEngine} from '../source/demo/engine.js';
import {BENCH_ENV, rssBytes, runWhenMain, tmuxStart} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLK_TCK = 100;

const wait = (ms: number) => new Promise<void>(r => setTimeout(r, ms));

function has(bin: string): boolean {
	return spawnSync('sh', ['-c', `command -v ${bin}`], {encoding: 'utf8'}).status === 0;
}

function tmux(...args: string[]): string {
	return execFileSync('tmux', args, {encoding: 'utf8'}).trim();
}

/** utime + stime and cutime + cstime of a pid, seconds (Linux). */
function cpuSeconds(pid: number): {self: number; children: number} | undefined {
	try {
		const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
		const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
		return {self: (Number(f[11]) + Number(f[12])) / CLK_TCK, children: (Number(f[13]) + Number(f[14])) / CLK_TCK};
	} catch {
		return undefined;
	}
}

interface Subject {
	readonly label: string;
	readonly session: string;
	readonly command: string;
	/** Where infertop writes the frames it drew, at exit (INFERTOP_RENDER_STATS). */
	readonly stats?: string;
	frames?: number;
	pid?: number;
	bytesFile?: string;
	cpu0?: {self: number; children: number};
	cpu1?: {self: number; children: number};
	peakRss?: number;
	endRss?: number;
	bytes?: number;
}

const f1 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '--' : v.toFixed(2));
const mb = (v: number | undefined) => (v === undefined ? '--' : `${(v / 1e6).toFixed(0)} MB`);

async function once(seconds: number, dir: string, logPath: string, url: string): Promise<{subjects: Subject[]; notes: string[]}> {
	const notes: string[] = [];
	// the bin runs through its own shebang (its V8 flags apply), with this node first on PATH
	const env = BENCH_ENV;
	const bin = path.join(root, 'bin', 'infertop.js');
	const stats = (name: string) => `INFERTOP_RENDER_STATS=${path.join(dir, `${name}.stats.json`)}`;
	const subjects: Subject[] = [
		{label: 'infertop, idle Ollama', session: `ib-idle-${process.pid}`, command: `${env} ${stats('idle')} exec ${bin} --server ${url} --log ${logPath}`, stats: path.join(dir, 'idle.stats.json')},
		{label: 'infertop --demo', session: `ib-demo-${process.pid}`, command: `${env} ${stats('demo')} exec ${bin} --demo`, stats: path.join(dir, 'demo.stats.json')},
	];
	const baseline = process.env.INFERTOP_BENCH_BASELINE;
	if (baseline) subjects.push({label: 'baseline, idle Ollama', session: `ib-base-${process.pid}`, command: `${env} exec ${process.execPath} ${path.join(baseline, 'bin', 'infertop.js')} --server ${url} --log ${logPath}`});
	if (has('htop')) subjects.push({label: 'htop -d 10', session: `ib-htop-${process.pid}`, command: 'exec htop -d 10'});
	else notes.push('htop is not installed: its column is empty (install it to compare, e.g. apt-get install htop; the bench never installs it)');
	try {
		for (const s of subjects) {
			s.pid = tmuxStart(s.session, s.command);
		}
		await wait(5000); // warm-up: start-up and the first scans are not the steady state
		for (const s of subjects) {
			s.bytesFile = path.join(dir, `${s.session}.bytes`);
			tmux('pipe-pane', '-o', '-t', s.session, `cat > ${s.bytesFile}`);
			s.cpu0 = cpuSeconds(s.pid!);
		}
		const t0 = performance.now();
		const sampler = setInterval(() => {
			for (const s of subjects) {
				const r = rssBytes(s.pid!);
				if (r !== undefined) s.peakRss = Math.max(s.peakRss ?? 0, r);
			}
		}, 1000);
		await wait(seconds * 1000);
		clearInterval(sampler);
		const dt = (performance.now() - t0) / 1000;
		for (const s of subjects) {
			s.cpu1 = cpuSeconds(s.pid!);
			s.endRss = rssBytes(s.pid!);
			tmux('pipe-pane', '-t', s.session);
		}
		await wait(200);
		for (const s of subjects) s.bytes = existsSync(s.bytesFile!) ? statSync(s.bytesFile!).size / dt : undefined;
		for (const s of subjects) {
			if (s.cpu0 && s.cpu1) {
				(s as {cpuPct?: number}).cpuPct = ((s.cpu1.self - s.cpu0.self) / dt) * 100;
				(s as {childPct?: number}).childPct = ((s.cpu1.children - s.cpu0.children) / dt) * 100;
			}
		}
		if (process.platform !== 'linux') notes.push('not Linux: CPU and RSS rows need /proc and are empty');
		// quit infertop (q) so it writes the frames it drew
		for (const s of subjects) if (s.stats) tmux('send-keys', '-t', s.session, 'q');
		const read = (f: string): {frames: number; seconds: number} | undefined => {
			try {
				return JSON.parse(readFileSync(f, 'utf8')) as {frames: number; seconds: number};
			} catch {
				return undefined; // not written yet, or being written
			}
		};
		for (let i = 0; i < 50 && subjects.some(s => s.stats && !read(s.stats)); i++) await wait(100);
		for (const s of subjects) {
			const j = s.stats ? read(s.stats) : undefined;
			if (j) s.frames = (j.frames / j.seconds) * 60;
		}
	} finally {
		for (const s of subjects) spawnSync('tmux', ['kill-session', '-t', s.session]);
	}
	return {subjects, notes};
}

export async function run(): Promise<string> {
	if (!has('tmux')) return 'overhead: tmux is not installed (needed to run each side at 120×40): skipped';
	const seconds = Number(process.env.INFERTOP_BENCH_SECONDS ?? 30);
	const repeat = Math.max(1, Number(process.env.INFERTOP_BENCH_REPEAT ?? 1));
	for (const dir of [root, ...(process.env.INFERTOP_BENCH_BASELINE ? [process.env.INFERTOP_BENCH_BASELINE] : [])]) {
		const b = spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: dir, encoding: 'utf8'});
		if (b.status !== 0) throw new Error(`build failed in ${dir}:\n${b.stderr}`);
	}
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-overhead-'));
	const demo = await startDemoEngine({logPath: path.join(dir, 'server.log'), agent: false});
	const lines: string[] = [];
	try {
		for (let i = 0; i < repeat; i++) {
			const load = os.loadavg().map(l => l.toFixed(1)).join(' ');
			const {subjects, notes} = await once(seconds, dir, demo.logPath, demo.url);
			const cell = (s: Subject | undefined, pick: (s: Subject) => string) => (s ? pick(s) : '--').padStart(22);
			const [idle, withDemo, htop] = [subjects[0], subjects[1], subjects.find(s => s.label.startsWith('htop'))];
			const cpu = (s: Subject) => f1((s as {cpuPct?: number}).cpuPct);
			const ratio = (a: number | undefined, c: number | undefined) => (a !== undefined && c !== undefined && c > 0 ? `${(a / c).toFixed(1)}×` : '--');
			lines.push(
				`overhead run ${i + 1}/${repeat}: ${seconds} s side by side after 5 s warm-up, tmux 120×40, ${os.cpus().length} cores, load ${load}, node ${process.version}`,
				`  ${'figure'.padEnd(26)}${'infertop, idle Ollama'.padStart(22)}${'infertop --demo'.padStart(22)}${'htop -d 10'.padStart(22)}${'ratio idle/htop'.padStart(18)}`,
				`  ${'CPU, % of one core'.padEnd(26)}${cell(idle, cpu)}${cell(withDemo, cpu)}${cell(htop, cpu)}${ratio((idle as {cpuPct?: number})?.cpuPct, (htop as {cpuPct?: number} | undefined)?.cpuPct).padStart(18)}`,
				`  ${'  children it reaped, %'.padEnd(26)}${cell(idle, s => f1((s as {childPct?: number}).childPct))}${cell(withDemo, s => f1((s as {childPct?: number}).childPct))}${cell(htop, s => f1((s as {childPct?: number}).childPct))}`,
				`  ${'RSS at end (peak)'.padEnd(26)}${cell(idle, s => `${mb(s.endRss)} (${mb(s.peakRss)})`)}${cell(withDemo, s => `${mb(s.endRss)} (${mb(s.peakRss)})`)}${cell(htop, s => `${mb(s.endRss)} (${mb(s.peakRss)})`)}${ratio(idle?.endRss, htop?.endRss).padStart(18)}`,
				`  ${'frames drawn per minute'.padEnd(26)}${cell(idle, s => (s.frames === undefined ? '--' : s.frames.toFixed(0)))}${cell(withDemo, s => (s.frames === undefined ? '--' : s.frames.toFixed(0)))}${cell(htop, () => '--')}`,
				`  ${'terminal bytes/s'.padEnd(26)}${cell(idle, s => (s.bytes === undefined ? '--' : s.bytes.toFixed(0)))}${cell(withDemo, s => (s.bytes === undefined ? '--' : s.bytes.toFixed(0)))}${cell(htop, s => (s.bytes === undefined ? '--' : s.bytes.toFixed(0)))}${ratio(idle?.bytes, htop?.bytes).padStart(18)}`,
				...subjects.filter(s => s.label.startsWith('baseline')).map(s => `  ${'baseline (INFERTOP_BENCH_BASELINE)'.padEnd(26)} CPU ${cpu(s)} %, RSS ${mb(s.endRss)} (peak ${mb(s.peakRss)}), ${s.bytes === undefined ? '--' : s.bytes.toFixed(0)} terminal bytes/s; ratio to htop ${ratio((s as {cpuPct?: number}).cpuPct, (htop as {cpuPct?: number} | undefined)?.cpuPct)}`),
				...notes.map(n => `  note: ${n}`),
			);
		}
		lines.push('  goals (issue 13): CPU ≤ 2× htop in the same run; RSS ≤ 80 MB and flat; ≤ 500 terminal bytes/s idle');
	} finally {
		await demo.stop();
		rmSync(dir, {recursive: true, force: true});
	}
	return lines.join('\n');
}

runWhenMain(import.meta.url, run);
