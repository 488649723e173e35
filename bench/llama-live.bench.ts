/**
 * A real llama-server under load (issue 32), where the machine has one (docs/real-servers.md): 8
 * slots, its `--log-file` named with `--log` as a user does, 8 clients sending short completions
 * back to back. infertop (bundled, tmux 120×40) beside `tail -F` on the same log, and beside
 * another checkout with INFERTOP_BENCH_BASELINE=DIR, in one run. The server writes each line on its
 * own (common/log.cpp flushes every entry), so this is where file events cost what they cost.
 *
 * Per subject: CPU (% of one core, /proc utime + stime over the window), CPU per 1,000 lines the
 * server wrote, the main thread's wake-ups a second (voluntary context switches), RSS at the end.
 * Also the server's and the clients' CPU (they share the machine's cores).
 *
 *   npm run bench -- llama-live                 (≈ 1 min; --seconds=N window, --warmup=N)
 *
 * Without INFERTOP_LLAMA_SERVER and INFERTOP_LLAMA_MODEL it prints why it did not run.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {closeSync, openSync, readFileSync, readSync, rmSync, statSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {realLlamaServer, startLlamaServer} from '../test/helpers/llama-server.js';
import {BENCH_ENV, cpuSeconds, rssBytes, runWhenMain, tmuxStart} from './lib.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wait = (ms: number) => new Promise<void>(r => setTimeout(r, ms));

/** The main thread's voluntary context switches (each a wake-up from a wait). */
function wakeups(pid: number): number | undefined {
	try {
		const m = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
		return m ? Number(m[1]) : undefined;
	} catch {
		return undefined;
	}
}

/** Newlines in the file's bytes [from, to). */
function linesBetween(file: string, from: number, to: number): number {
	const buf = Buffer.alloc(Math.max(0, to - from));
	const fd = openSync(file, 'r');
	try {
		readSync(fd, buf, 0, buf.length, from);
	} finally {
		closeSync(fd);
	}
	let n = 0;
	for (let i = 0; i < buf.length; i++) if (buf[i] === 0x0a) n++;
	return n;
}

/** Clients sending short completions back to back until `stop()`; how many were answered. */
function clients(url: string, n: number): {stop: () => Promise<number>} {
	let running = true;
	let answered = 0;
	const one = async (k: number) => {
		for (let i = 0; running; i++) {
			try {
				const r = await fetch(`${url}/completion`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({prompt: `client ${k} turn ${i % 50}: say which file changed`, n_predict: 8, cache_prompt: true})});
				await r.arrayBuffer();
				answered++;
			} catch {
				await wait(50);
			}
		}
	};
	const all = Promise.all(Array.from({length: n}, (_, k) => one(k)));
	return {
		stop: async () => {
			running = false;
			await all;
			return answered;
		},
	};
}

export async function run(args: readonly string[] = process.argv.slice(2)): Promise<string> {
	if (!realLlamaServer.available) return `llama-live: not run: ${realLlamaServer.reason}`;
	if (process.platform !== 'linux') return 'llama-live: not run: it reads /proc (Linux only)';
	const opt = (name: string) => args.find(a => a.startsWith(`--${name}=`))?.slice(name.length + 3);
	const seconds = Number(opt('seconds') ?? 15);
	const warmup = Number(opt('warmup') ?? 15);
	if (!Number.isFinite(seconds) || seconds <= 0 || !Number.isFinite(warmup) || warmup < 0) throw new Error('options: --seconds=N --warmup=N');
	const baseline = process.env.INFERTOP_BENCH_BASELINE;
	const server = await startLlamaServer({args: ['-np', '8', '-c', '4096'], logFile: 'server.log'});
	const sessions: string[] = [];
	const children: ChildProcess[] = [];
	try {
		const subjects: {label: string; pid: number; cpu0?: number; cpu1?: number; w0?: number; w1?: number; rss?: number}[] = [];
		const infertop = (label: string, checkout: string) => {
			const session = `il-${label}-${process.pid}`;
			sessions.push(session);
			subjects.push({label, pid: tmuxStart(session, `${BENCH_ENV} exec ${process.execPath} ${path.join(checkout, 'bin', 'infertop.js')} --log ${server.logPath} --no-scan`)});
		};
		infertop('infertop', root);
		if (baseline) infertop('baseline', baseline);
		const tail = spawn('tail', ['-q', '-F', server.logPath], {stdio: 'ignore'});
		children.push(tail);
		if (tail.pid !== undefined) subjects.push({label: 'tail -F', pid: tail.pid});
		subjects.push({label: 'llama-server', pid: server.pid});
		subjects.push({label: 'clients (8)', pid: process.pid});
		await wait(3000);
		const load = clients(server.url, 8);
		await wait(warmup * 1000);
		const size0 = statSync(server.logPath).size;
		for (const s of subjects) {
			s.cpu0 = cpuSeconds(s.pid);
			s.w0 = wakeups(s.pid);
		}
		const t0 = performance.now();
		await wait(seconds * 1000);
		for (const s of subjects) {
			s.cpu1 = cpuSeconds(s.pid);
			s.w1 = wakeups(s.pid);
			s.rss = rssBytes(s.pid);
		}
		const dt = (performance.now() - t0) / 1000;
		const size1 = statSync(server.logPath).size;
		const answered = await load.stop();
		const lines = linesBetween(server.logPath, size0, size1);
		const f = (v: number | undefined, d = 1) => (v === undefined || !Number.isFinite(v) ? '--' : v.toFixed(d));
		const out = [
			`llama-live: a real llama-server (8 slots, --log-file), 8 clients, ${(lines / dt).toFixed(0)} log lines/s, ${answered} requests answered in all; ${dt.toFixed(0)} s window after ${warmup} s, ${os.cpus().length} cores, load ${os.loadavg().map(l => l.toFixed(1)).join(' ')}, node ${process.version}`,
			`  ${'subject'.padEnd(14)}${'CPU %'.padStart(8)}${'ms CPU / 1k lines'.padStart(19)}${'wake-ups/s'.padStart(12)}${'RSS end'.padStart(10)}`,
		];
		for (const s of subjects) {
			const cpu = s.cpu0 !== undefined && s.cpu1 !== undefined ? s.cpu1 - s.cpu0 : undefined;
			const w = s.w0 !== undefined && s.w1 !== undefined && !s.label.startsWith('clients') ? (s.w1 - s.w0) / dt : undefined;
			out.push(`  ${s.label.padEnd(14)}${f(cpu === undefined ? undefined : (cpu / dt) * 100).padStart(8)}${f(cpu === undefined || lines === 0 ? undefined : (cpu * 1e6) / lines, 2).padStart(19)}${f(w, 0).padStart(12)}${(s.rss === undefined ? '--' : `${(s.rss / 1e6).toFixed(0)} MB`).padStart(10)}`);
		}
		out.push('  (clients: this bench process, which also samples; wake-ups: the main thread\'s voluntary context switches)');
		return out.join('\n');
	} finally {
		for (const s of sessions) spawnSync('tmux', ['kill-session', '-t', s]);
		for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
		await server.stop();
		rmSync(server.cwd, {recursive: true, force: true});
	}
}

runWhenMain(import.meta.url, () => run());
