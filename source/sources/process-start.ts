/**
 * When a process started (ms epoch), from `ps -o lstart= -p PID` (procps on Linux, BSD ps on
 * macOS: `Tue Dec  1 10:22:25 2026`, local time, to the second). Used to anchor llama.cpp's
 * process-relative log stamps to wall-clock time. Undefined where it cannot be known.
 */
import {loadExeca} from './lazy-execa.js';

/** `Tue Dec  1 10:22:25 2026` (local) → ms epoch; undefined when it is not that shape. */
export function parseLstart(text: string): number | undefined {
	const m = /^\s*\w{3}\s+(\w{3})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2})\s+(\d{4})\s*$/.exec(text);
	if (!m) return undefined;
	const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].indexOf(m[1]!);
	if (month < 0) return undefined;
	const t = new Date(+m[6]!, month, +m[2]!, +m[3]!, +m[4]!, +m[5]!).getTime();
	return Number.isFinite(t) ? t : undefined;
}

export async function processStartMs(pid: number): Promise<number | undefined> {
	if (process.platform === 'win32' || !Number.isInteger(pid) || pid <= 0) return undefined;
	const r = await (await loadExeca())('ps', ['-o', 'lstart=', '-p', String(pid)], {timeout: 2000, reject: false, stdin: 'ignore', env: {LC_ALL: 'C'}});
	return r.exitCode === 0 && typeof r.stdout === 'string' ? parseLstart(r.stdout) : undefined;
}
