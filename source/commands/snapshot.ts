/**
 * `infertop snapshot [--json]` and plain `infertop` on a non-TTY stdout: run the same collectors
 * for N seconds, print one snapshot, exit 0.
 */
import {startRuntime, type RuntimeOptions} from '../runtime.js';
import {toSnapshot} from '../model/snapshot.js';
import {renderSnapshotText} from '../ui/app.js';
import {VERSION} from '../version.js';

export interface SnapshotOptions extends RuntimeOptions {
	readonly json: boolean;
	readonly seconds: number;
	readonly stdout?: NodeJS.WritableStream;
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
		if (options.json) out.write(`${JSON.stringify(toSnapshot(state, VERSION), null, 2)}\n`);
		else {
			const columns = (out as NodeJS.WriteStream).columns || 120;
			out.write(`${renderSnapshotText(state, {columns: Math.max(columns, 80), rows: 60})}\n`);
		}
		return 0;
	} finally {
		await runtime.stop();
	}
}
