/**
 * When a process started (ms epoch). Used to anchor llama.cpp's process-relative log stamps to
 * wall-clock time. Undefined where it cannot be known.
 *
 * Linux reads it from /proc, as ps does: the boot time (`btime` of /proc/stat, seconds since the
 * epoch) plus the process's `starttime` (field 22 of /proc/PID/stat, clock ticks since boot; proc(5)).
 * Elsewhere (macOS), or where /proc cannot be read, `ps -o lstart= -p PID` (procps on Linux, BSD ps
 * on macOS: `Tue Dec  1 10:22:25 2026`, local time, to the second).
 */
import {readFile} from 'node:fs/promises';
import {loadExeca} from './lazy-execa.js';
import {parseProcStat} from './process-sampler.js';

/** USER_HZ: fixed at 100 by the Linux ABI (times(2), proc(5)). */
const CLK_TCK = 100;

/** `Tue Dec  1 10:22:25 2026` (local) → ms epoch; undefined when it is not that shape. */
export function parseLstart(text: string): number | undefined {
	const m = /^\s*\w{3}\s+(\w{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})\s*$/.exec(text);
	if (!m) return undefined;
	const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].indexOf(m[1]!);
	if (month < 0) return undefined;
	const t = new Date(+m[6]!, month, +m[2]!, +m[3]!, +m[4]!, +m[5]!).getTime();
	return Number.isFinite(t) ? t : undefined;
}

/** `btime N` of /proc/stat (seconds since the epoch), or undefined. */
export function parseBtime(text: string): number | undefined {
	const m = /^btime\s+(\d+)\s*$/m.exec(text);
	const v = m ? Number(m[1]) : NaN;
	return Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

export interface ProcessStartOptions {
	/** A Linux /proc tree to read instead of this machine's (tests); no ps fallback then. */
	readonly procRoot?: string;
}

async function fromProc(pid: number, root: string): Promise<number | undefined> {
	const [stat, own] = await Promise.all([readFile(`${root}/stat`, 'latin1'), readFile(`${root}/${pid}/stat`, 'latin1')].map((p) => p.catch(() => undefined)));
	const btime = stat === undefined ? undefined : parseBtime(stat);
	const s = own === undefined ? undefined : parseProcStat(own);
	if (btime === undefined || s === undefined || s.pid !== pid || !Number.isFinite(s.start) || s.start < 0) return undefined;
	return btime * 1000 + (s.start / CLK_TCK) * 1000;
}

export async function processStartMs(pid: number, options: ProcessStartOptions = {}): Promise<number | undefined> {
	if (process.platform === 'win32' || !Number.isInteger(pid) || pid <= 0) return undefined;
	if (options.procRoot !== undefined) return fromProc(pid, options.procRoot);
	if (process.platform === 'linux') {
		const t = await fromProc(pid, '/proc');
		if (t !== undefined) return t;
	}
	const r = await (await loadExeca())('ps', ['-o', 'lstart=', '-p', String(pid)], {timeout: 2000, reject: false, stdin: 'ignore', env: {LC_ALL: 'C'}});
	return r.exitCode === 0 && typeof r.stdout === 'string' ? parseLstart(r.stdout) : undefined;
}
