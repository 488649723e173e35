/**
 * Run infertop (from source, one node process) on a pseudo-terminal through test/helpers/pty-run.py
 * (Python's pty module: no npm pty package installs without a native build script). The raw bytes
 * the program sent to the terminal come back as a Buffer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {execa, execaSync} from 'execa';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const script = fileURLToPath(new URL('./pty-run.py', import.meta.url));

/** Python 3 with its pty module, where the fault suite's terminal tests can run. */
export const hasPty: boolean = (() => {
	if (process.platform === 'win32') return false;
	try {
		return execaSync('python3', ['-c', 'import pty, termios'], {reject: false}).exitCode === 0;
	} catch {
		return false;
	}
})();

export interface PtyResult {
	readonly exit: number | null;
	readonly signal: number | null;
	readonly timedOut: boolean;
	readonly stepFailed: string | null;
	readonly ms: number;
	readonly raw: Buffer;
}

/** The node command line that runs infertop's CLI from source in this one process. */
export const infertopArgv = (args: readonly string[]): string[] => [process.execPath, '--import', 'tsx', path.join(root, 'source', 'cli.tsx'), ...args];

export async function runOnPty(argv: readonly string[], steps: readonly string[], options: {env?: Record<string, string>; timeoutS?: number; cols?: number; rows?: number} = {}): Promise<PtyResult> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-pty-'));
	const out = path.join(dir, 'raw.bin');
	try {
		const timeoutS = options.timeoutS ?? 60;
		const r = await execa('python3', [script, '--out', out, '--cols', String(options.cols ?? 120), '--rows', String(options.rows ?? 40), '--timeout', String(timeoutS), ...steps, '--', ...argv], {
			cwd: root,
			reject: false,
			timeout: (timeoutS + 30) * 1000,
			env: {TERM: 'xterm-256color', XDG_CONFIG_HOME: '/nonexistent-infertop-test', ...options.env},
		});
		if (r.exitCode !== 0) throw new Error(`pty-run failed: ${r.stderr}`);
		const result = JSON.parse(r.stdout) as Omit<PtyResult, 'raw'>;
		return {...result, raw: fs.readFileSync(out)};
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
	}
}

/** Processes whose command line contains `needle` (a unique marker a test gave its command). */
export function processesWith(needle: string): string[] {
	const r = execaSync('ps', ['-eo', 'pid=,args='], {reject: false});
	return r.stdout.split('\n').filter(l => l.includes(needle) && !l.includes('ps -eo'));
}
