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
 * Then the key alone, without tmux: infertop in a pseudo-terminal of the bench's own (script(1)),
 * `?` written to it and timed until the help's text comes out of it, at rest, while a second burst
 * is written, and after. tmux's send-keys and capture-pane, each a process, are most of the first
 * figure (~120 ms at rest against ~10 ms here).
 *
 *   npm run bench -- burst                 (≈ 40 s)
 *   npm run bench -- burst --lines=200000  (a smaller burst)
 */
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {BENCH_ENV, cpuSeconds, ptyCommand, rssBytes, runWhenMain, tmuxStart} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wait = (ms: number) => new Promise<void>(r => setTimeout(r, ms));
const tmux = (...args: string[]) => execFileSync('tmux', args, {encoding: 'utf8'});

const ms = (xs: readonly number[]): string => {
	if (xs.length === 0) return '--';
	const s = [...xs].sort((a, b) => a - b);
	const worst = s.at(-1)!;
	return `median ${s[s.length >> 1]!.toFixed(0)} ms, worst ${Number.isFinite(worst) ? `${worst.toFixed(0)} ms` : 'no answer in 10 s'} (n=${s.length})`;
};

/**
 * `?` to the help on screen, infertop in a pseudo-terminal of its own (no tmux between): at rest,
 * while `burstRequests` request blocks are appended at once to the log it tails, and after. Undefined
 * where there is no script(1).
 */
async function ptyKeys(dir: string, burstRequests: number): Promise<{rest: number[]; during: number[]; after: number[]; writeS: number} | undefined> {
	const file = path.join(dir, 'pty.log');
	writeFileSync(file, '');
	const {file: cmd, args, pty} = ptyCommand(`${process.execPath} ${path.join(root, 'bin', 'infertop.js')} --log ${file} --no-scan`);
	if (!pty) return undefined;
	const child = spawn(cmd, args, {stdio: ['pipe', 'pipe', 'ignore'], detached: true, env: {...process.env, CI: 'false', NODE_ENV: 'production', TERM: 'xterm-256color'}});
	let out = '';
	let woke: (() => void) | undefined;
	child.stdout.on('data', (b: Buffer) => {
		out += b.toString('latin1');
		// only what came after the key is searched: keep the end
		if (out.length > 4_000_000) out = out.slice(-1_000_000);
		woke?.();
	});
	const press = async (): Promise<number> => {
		const from = out.length;
		const t = performance.now();
		child.stdin.write('?');
		const shown = await new Promise<boolean>(resolve => {
			const timer = setTimeout(() => resolve(false), 10_000);
			const check = () => {
				if (out.indexOf('Show all keys', Math.min(from, out.length)) < 0) return;
				woke = undefined;
				clearTimeout(timer);
				resolve(true);
			};
			woke = check;
			check();
		});
		const d = performance.now() - t;
		child.stdin.write('\u001b');
		await wait(400);
		return shown ? d : Infinity;
	};
	try {
		await wait(3000);
		const rest: number[] = [];
		for (let i = 0; i < 8; i++) rest.push(await press());
		const t0 = performance.now();
		const writer = spawn(process.execPath, [path.join(root, 'bench', 'traffic-writer.mjs'), file, 'llama.cpp', '--burst', String(burstRequests)], {stdio: 'ignore'});
		const during: number[] = [];
		await wait(200);
		while (writer.exitCode === null && during.length < 100) during.push(await press());
		const writeS = (performance.now() - t0) / 1000;
		const after: number[] = [];
		for (let i = 0; i < 8; i++) after.push(await press());
		return {rest, during, after, writeS};
	} finally {
		child.stdin.write('q');
		await wait(500);
		try {
			if (child.pid !== undefined) process.kill(-child.pid);
		} catch {
			// gone
		}
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
	const env = `${BENCH_ENV} INFERTOP_RENDER_STATS=${stats}`;
	try {
		const pid = tmuxStart(session, `${env} exec ${process.execPath} ${path.join(root, 'bin', 'infertop.js')} --log ${file} --no-scan`);
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
		const keys = await ptyKeys(dir, Math.round(lines / 8));
		const mb = (v: number | undefined) => (v === undefined ? '--' : `${(v / 1e6).toFixed(0)} MB`);
		return [
			`burst: ${written.toLocaleString('en-US')} llama.cpp lines appended at once (${writeS.toFixed(1)} s to write), ${os.cpus().length} cores, load ${os.loadavg().map(l => l.toFixed(1)).join(' ')}, node ${process.version}`,
			`  key to screen while catching up (? and Esc, 8 presses, tmux polled each 10 ms): median ${sorted[4]!.toFixed(0)} ms, worst ${sorted.at(-1)!.toFixed(0)} ms (at rest before: median ${atRest[4]!.toFixed(0)} ms, worst ${atRest.at(-1)!.toFixed(0)} ms)`,
			`  the screen said as the burst was written: ${header0.trim() || '--'}`,
			`  RSS before ${mb(rss0)}, peak ${mb(peak)}; CPU ${cpu0 !== undefined && cpu1 !== undefined ? `${(cpu1 - cpu0).toFixed(1)} s` : '--'} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
			`  read ${log ? log.lines.toLocaleString('en-US') : '--'} lines, skipped ${log ? log.linesSkipped.toLocaleString('en-US') : '--'} (counted), unaccounted ${log ? (written - log.lines - log.linesSkipped).toLocaleString('en-US') : '--'}`,
			`  the screen said: ${header.trim()}`,
			keys
				? `  key to screen in a pseudo-terminal of its own (no tmux; \`?\` timed until the help is written): at rest ${ms(keys.rest)}; while another ${lines.toLocaleString('en-US')} lines are written (${keys.writeS.toFixed(1)} s) ${ms(keys.during)}; after ${ms(keys.after)}`
				: '  key to screen in a pseudo-terminal of its own: -- (no script(1))',
			'  goals (issue 32): memory bounded (RSS ≤ 80 MB), a key answers within 100 ms, every line read or counted as skipped',
		].join('\n');
	} finally {
		spawnSync('tmux', ['kill-session', '-t', session]);
		rmSync(dir, {recursive: true, force: true});
	}
}

runWhenMain(import.meta.url, () => run());
