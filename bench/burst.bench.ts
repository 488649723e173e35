/**
 * A burst (issue 32): a million lines appended to a watched llama-server log at once (125,000
 * real b10587 request blocks, bench/traffic-writer.mjs --burst). infertop (bundled, tmux 120×40,
 * `--log FILE --no-scan`) must keep its memory bounded and answer a key while it catches up.
 *
 * Measured: how long `?` (help) and Esc take to show on the screen while it catches up (tmux
 * capture-pane polled every 10 ms: the figure includes tmux's own delay), peak RSS, CPU, and at the
 * end the lines read and skipped (skipped: the tail was more than SKIP_BEHIND_BYTES behind and
 * jumped ahead, counting them) against the lines written.
 *
 *   npm run bench -- burst                 (≈ 40 s)
 *   npm run bench -- burst --lines=200000  (a smaller burst)
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {rssBytes, runWhenMain} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wait = (ms: number) => new Promise<void>(r => setTimeout(r, ms));
const tmux = (...args: string[]) => execFileSync('tmux', args, {encoding: 'utf8'});

function cpuSeconds(pid: number): number | undefined {
	try {
		const s = readFileSync(`/proc/${pid}/stat`, 'latin1');
		const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
		return (Number(f[11]) + Number(f[12])) / 100;
	} catch {
		return undefined;
	}
}

export async function run(args: readonly string[] = process.argv.slice(2)): Promise<string> {
	if (process.platform !== 'linux' || spawnSync('sh', ['-c', 'command -v tmux']).status !== 0) return 'burst: needs Linux and tmux: skipped';
	const lines = Number(args.find(a => a.startsWith('--lines='))?.slice(8) ?? 1_000_000);
	const b = spawnSync(process.execPath, ['scripts/build.mjs'], {cwd: root, encoding: 'utf8'});
	if (b.status !== 0) throw new Error(`build failed:\n${b.stderr}`);
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-burst-'));
	const file = path.join(dir, 'server.log');
	const stats = path.join(dir, 'stats.json');
	writeFileSync(file, '');
	const session = `ib-burst-${process.pid}`;
	const env = `PATH=${path.dirname(process.execPath)}:$PATH CI=false NODE_ENV=production TERM=xterm-256color INFERTOP_RENDER_STATS=${stats}`;
	try {
		tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', `${env} exec ${process.execPath} ${path.join(root, 'bin', 'infertop.js')} --log ${file} --no-scan`);
		const pid = Number(tmux('display-message', '-p', '-t', session, '#{pane_pid}').trim());
		await wait(3000);
		const screen = () => tmux('capture-pane', '-p', '-t', session);
		const keyLatency = async (key: string, shown: boolean): Promise<number> => {
			const k0 = performance.now();
			tmux('send-keys', '-t', session, key);
			while (screen().includes('Show all keys') !== shown) {
				if (performance.now() - k0 > 10_000) return Infinity;
				await wait(10);
			}
			return performance.now() - k0;
		};
		const presses = async (): Promise<number[]> => {
			const l: number[] = [];
			for (let i = 0; i < 4; i++) {
				l.push(await keyLatency('?', true));
				l.push(await keyLatency('Escape', false));
			}
			return l.sort((a, c) => a - c);
		};
		// the same presses at rest first: tmux's and the loaded machine's share of the figure
		const atRest = await presses();
		const rss0 = rssBytes(pid);
		const cpu0 = cpuSeconds(pid);
		let peak = 0;
		const sampler = setInterval(() => {
			peak = Math.max(peak, rssBytes(pid) ?? 0);
		}, 100);
		const t0 = performance.now();
		execFileSync(process.execPath, [path.join(root, 'bench', 'traffic-writer.mjs'), file, 'llama.cpp', '--burst', String(Math.round(lines / 8))]);
		const written = readFileSync(file, 'latin1').split('\n').length - 1;
		const writeS = (performance.now() - t0) / 1000;
		// a key while it catches up: ? shows the help, Esc hides it
		const header0 = screen().split('\n').find(l => l.startsWith('REQUESTS')) ?? '';
		const sorted = await presses();
		await wait(15_000);
		clearInterval(sampler);
		const cpu1 = cpuSeconds(pid);
		const header = screen().split('\n').find(l => l.startsWith('REQUESTS')) ?? '';
		tmux('send-keys', '-t', session, 'q');
		for (let i = 0; i < 100 && !existsSync(stats); i++) await wait(100);
		const j = existsSync(stats) ? (JSON.parse(readFileSync(stats, 'utf8')) as {logs?: Record<string, {lines: number; linesSkipped: number}>}) : undefined;
		const log = j?.logs ? Object.values(j.logs)[0] : undefined;
		const mb = (v: number | undefined) => (v === undefined ? '--' : `${(v / 1e6).toFixed(0)} MB`);
		return [
			`burst: ${written.toLocaleString('en-US')} llama.cpp lines appended at once (${writeS.toFixed(1)} s to write), ${os.cpus().length} cores, load ${os.loadavg().map(l => l.toFixed(1)).join(' ')}, node ${process.version}`,
			`  key to screen while catching up (? and Esc, 8 presses, tmux polled each 10 ms): median ${sorted[4]!.toFixed(0)} ms, worst ${sorted.at(-1)!.toFixed(0)} ms (at rest before: median ${atRest[4]!.toFixed(0)} ms, worst ${atRest.at(-1)!.toFixed(0)} ms)`,
			`  the screen said as the burst was written: ${header0.trim() || '--'}`,
			`  RSS before ${mb(rss0)}, peak ${mb(peak)}; CPU ${cpu0 !== undefined && cpu1 !== undefined ? `${(cpu1 - cpu0).toFixed(1)} s` : '--'} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
			`  read ${log ? log.lines.toLocaleString('en-US') : '--'} lines, skipped ${log ? log.linesSkipped.toLocaleString('en-US') : '--'} (counted), unaccounted ${log ? (written - log.lines - log.linesSkipped).toLocaleString('en-US') : '--'}`,
			`  the screen said: ${header.trim()}`,
			'  goals (issue 32): memory bounded (RSS ≤ 80 MB), a key answers within 100 ms, every line read or counted as skipped',
		].join('\n');
	} finally {
		spawnSync('tmux', ['kill-session', '-t', session]);
		rmSync(dir, {recursive: true, force: true});
	}
}

runWhenMain(import.meta.url, () => run());
