/**
 * `infertop snapshot [--json]` and plain `infertop` on a non-TTY stdout: run the same collectors
 * for N seconds, print one snapshot, exit 0.
 */
import {startRuntime, type RuntimeOptions} from '../runtime.js';
import {toSnapshot} from '../model/snapshot.js';
import {renderSnapshotText} from '../ui/app.js';
import {VERSION} from '../version.js';
import {sanitizeDeep} from '../util/sanitize.js';

export interface SnapshotOptions extends RuntimeOptions {
	readonly json: boolean;
	readonly seconds: number;
	readonly stdout?: NodeJS.WritableStream;
}

/** Rows the text snapshot is laid out for (the panes share them as on a 160×40 terminal). */
const SNAPSHOT_ROWS = 40;

/**
 * The screen as text for a pipe or a file: the panes' blank padding (rows a terminal would keep
 * free) is dropped, so only lines with something on them remain. Pure.
 */
export function plainSnapshot(text: string): string {
	return text
		.split('\n')
		.filter((l) => l.trim() !== '')
		.join('\n');
}

export async function runSnapshot(options: SnapshotOptions): Promise<number> {
	const out = options.stdout ?? process.stdout;
	const seconds = Number.isFinite(options.seconds) && options.seconds >= 0 ? options.seconds : 3;
	const runtime = await startRuntime(options);
	try {
		await runtime.ready;
		await new Promise(resolve => setTimeout(resolve, seconds * 1000));
		runtime.dispatch({type: 'tick', t: Date.now()});
		const state = runtime.store.getSnapshot();
		if (options.json) out.write(`${JSON.stringify(sanitizeDeep(toSnapshot(state, VERSION, {sessionGapMs: options.config.sessionGap * 1000})), null, 2)}\n`);
		else {
			const columns = (out as NodeJS.WriteStream).columns || 120;
			out.write(`${plainSnapshot(renderSnapshotText(state, {columns: Math.max(columns, 80), rows: SNAPSHOT_ROWS}, VERSION))}\n`);
		}
		return 0;
	} finally {
		await runtime.stop();
	}
}
