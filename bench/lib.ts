/** What the benches share: reading a process's memory, and running one bench file on its own. */
import {readFileSync} from 'node:fs';
import {pathToFileURL} from 'node:url';

/** Resident memory of a pid, bytes (/proc/PID/status VmRSS; Linux), or undefined. */
export function rssBytes(pid: number): number | undefined {
	try {
		const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
		return m ? Number(m[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

/**
 * `tsx bench/NAME.bench.ts` runs that one bench (bench/run.ts runs them all): print its result and
 * exit (its servers and tmux sessions are stopped by then), 1 on failure.
 */
export function runWhenMain(moduleUrl: string, run: () => Promise<string>): void {
	if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
	run().then(
		text => {
			console.log(text);
			process.exit(0);
		},
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
