import {afterEach, describe, expect, it} from 'vitest';
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createProcessSampler, parseProcStat, parsePsLines} from '../../source/sources/process-sampler.js';
import {parseMeminfo, parseProcStatCpu} from '../../source/system/proc.js';

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

/** One /proc/PID/stat line as proc(5) lays it out: utime and stime are fields 14 and 15, starttime 22, rss 24. */
function statLine(pid: number, comm: string, ppid: number, utime: number, stime: number, start: number, rssPages: number): string {
	const f = ['S', ppid, pid, pid, 0, -1, 4194560, 100, 0, 0, 0, utime, stime, 0, 0, 20, 0, 1, 0, start, 1000000, rssPages, 0];
	return `${pid} (${comm}) ${f.join(' ')}\n`;
}

interface FakeProc {
	readonly pid: number;
	readonly comm: string;
	readonly ppid: number;
	ticks: number;
	readonly start: number;
	readonly cmdline?: string;
}

function writeProc(root: string, procs: readonly FakeProc[]): void {
	rmSync(root, {recursive: true, force: true});
	mkdirSync(root, {recursive: true});
	mkdirSync(path.join(root, 'self'));
	for (const p of procs) {
		const d = path.join(root, String(p.pid));
		mkdirSync(d);
		writeFileSync(path.join(d, 'stat'), statLine(p.pid, p.comm, p.ppid, p.ticks, 0, p.start, 256));
		writeFileSync(path.join(d, 'cmdline'), p.cmdline === undefined ? '' : `${p.cmdline.split(' ').join('\0')}\0`);
	}
}

describe('/proc parsers', () => {
	it('reads comm with spaces and parentheses, ppid, utime+stime, starttime and rss', () => {
		expect(parseProcStat(statLine(4242, 'tmux: server (1)', 1, 300, 45, 987654, 512))).toEqual({pid: 4242, comm: 'tmux: server (1)', ppid: 1, ticks: 345, start: 987654, rssPages: 512});
		expect(parseProcStat('garbage')).toBeUndefined();
		expect(parseProcStat('12 (x) S 1 a b')).toBeUndefined();
	});

	it('machine CPU times and memory from /proc/stat and /proc/meminfo', () => {
		expect(parseProcStatCpu('cpu  100 5 50 800 20 3 2 1 0 0\ncpu0 1 2 3 4\n')).toEqual({idle: 820, total: 981});
		expect(parseProcStatCpu('intr 1 2 3')).toBeUndefined();
		const m = parseMeminfo('MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    6000000 kB\nSwapTotal:       2000000 kB\nSwapFree:        1500000 kB\nHugePages_Total:       0\n');
		expect(m).toEqual({totalBytes: 16000000 * 1024, usedBytes: 10000000 * 1024, swapTotalBytes: 2000000 * 1024, swapUsedBytes: 500000 * 1024});
		// no swap configured: 0 of 0 is known
		expect(parseMeminfo('MemTotal: 1000 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n')).toEqual({totalBytes: 1024000, swapTotalBytes: 0, swapUsedBytes: 0});
		// available above total is impossible: used stays unknown
		expect(parseMeminfo('MemTotal: 1000 kB\nMemAvailable: 2000 kB\n')).toEqual({totalBytes: 1024000});
	});

	it('macOS ps lines: executable paths with spaces, comma decimals', () => {
		expect(parsePsLines('  101     1   3,5  20480 /Applications/LM Studio.app/Contents/MacOS/LM Studio\n  7 1 0.0 16 /sbin/launchd\nbad line\n')).toEqual([
			{pid: 101, ppid: 1, cpuPct: 3.5, rssKiB: 20480, comm: '/Applications/LM Studio.app/Contents/MacOS/LM Studio'},
			{pid: 7, ppid: 1, cpuPct: 0, rssKiB: 16, comm: '/sbin/launchd'},
		]);
	});
});

describe('lean /proc sampler (fake /proc tree)', () => {
	it('CPU % from tick deltas; keeps only busy rows, engine candidates with their trees, and kept pids', async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'infertop-proc-'));
		dirs.push(dir);
		const root = path.join(dir, 'proc');
		let wall = 0;
		const procs: FakeProc[] = [
			{pid: 1, comm: 'systemd', ppid: 0, ticks: 50, start: 1},
			{pid: 10, comm: 'sshd', ppid: 1, ticks: 5, start: 10},
			{pid: 20, comm: 'blender', ppid: 1, ticks: 1000, start: 20, cmdline: '/opt/blender/blender -b scene.blend'},
			{pid: 30, comm: 'ollama', ppid: 1, ticks: 10, start: 30, cmdline: '/usr/bin/ollama serve'},
			{pid: 31, comm: 'ollama_llama_se', ppid: 30, ticks: 10, start: 31, cmdline: '/usr/lib/ollama/ollama_llama_server runner --model x'},
			{pid: 40, comm: 'bash', ppid: 1, ticks: 0, start: 40},
		];
		writeProc(root, procs);
		const sampler = createProcessSampler({platform: 'linux', procRoot: root, clock: () => wall})!;
		const first = await sampler.sample(new Set([40]));
		// no baseline: every row once, no CPU figure
		expect(first.total).toBe(6);
		expect(first.processes.map(p => p.pid)).toEqual([1, 10, 20, 30, 31, 40]);
		expect(first.processes.every(p => p.cpuPct === undefined)).toBe(true);

		// 2 s later: blender used 300 ticks (150 % of one core), the runner 4 ticks (2 %), sshd 1 tick (0.5 %)
		wall = 2000;
		procs[2]!.ticks += 300;
		procs[4]!.ticks += 4;
		procs[1]!.ticks += 1;
		writeProc(root, procs);
		const second = await sampler.sample(new Set([40]));
		const byPid = new Map(second.processes.map(p => [p.pid, p]));
		// sshd (0.5 %) is below the 1 % floor: left out; systemd stays as the ancestor of what is kept
		expect([...byPid.keys()]).toEqual([1, 20, 30, 31, 40]);
		expect(byPid.get(20)).toEqual({pid: 20, ppid: 1, name: 'blender', command: '/opt/blender/blender -b scene.blend', cpuPct: 150, memRssBytes: 256 * 4096});
		expect(byPid.get(30)!.cpuPct).toBe(0);
		// comm is cut at 15 characters: the executable's name is used
		expect(byPid.get(31)).toMatchObject({name: 'ollama_llama_server', ppid: 30, cpuPct: 2});
		expect(byPid.get(40)).toMatchObject({name: 'bash', cpuPct: 0});
		expect(byPid.get(40)!.command).toBeUndefined();
		expect(sampler.remembered()).toBe(6);

		// a reused pid (new start time) has no baseline: no CPU figure, never a negative one
		wall = 4000;
		procs[2] = {pid: 20, comm: 'blender', ppid: 1, ticks: 3, start: 99, cmdline: '/opt/blender/blender'};
		procs.splice(1, 1); // sshd exited
		writeProc(root, procs);
		const third = await sampler.sample(new Set());
		expect(third.total).toBe(5);
		expect(third.processes.find(p => p.pid === 20)).toBeUndefined();
		expect(sampler.remembered()).toBe(5);

		// the reused pid's new baseline is the one its next figure comes from; sshd stays forgotten
		wall = 6000;
		procs[1]!.ticks += 40; // the new blender: 40 ticks in 2 s
		writeProc(root, procs);
		const fourth = await sampler.sample(new Set());
		expect(fourth.processes.find(p => p.pid === 20)).toMatchObject({name: 'blender', cpuPct: 20});
		expect(sampler.remembered()).toBe(5);
	});

	it('macOS: one ps per sample, command lines asked once for the candidates', async () => {
		const calls: string[][] = [];
		const sampler = createProcessSampler({
			platform: 'darwin',
			ps: async args => {
				calls.push([...args]);
				if (args[0] === '-axo') return '    1     0   0.0  1000 /sbin/launchd\n  500     1  42.0  2048 /usr/local/bin/python3\n  600     1   0.1   512 /usr/bin/login\n';
				return '  500 /usr/local/bin/python3 -m mlx_lm.server --port 8080\n';
			},
		})!;
		const a = await sampler.sample(new Set());
		expect(a.processes.find(p => p.pid === 500)).toEqual({pid: 500, ppid: 1, name: 'python3', command: '/usr/local/bin/python3 -m mlx_lm.server --port 8080', cpuPct: 42, memRssBytes: 2048 * 1024});
		expect(a.processes.map(p => p.pid)).toEqual([1, 500]);
		await sampler.sample(new Set());
		// the second sample knows the command line: one ps, not two
		expect(calls.map(c => c[0])).toEqual(['-axo', '-o', '-axo']);
	});
});
