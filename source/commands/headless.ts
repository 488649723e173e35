/**
 * `infertop --serve-metrics ADDR --headless`: the collectors and the Prometheus endpoint, no
 * screen and no terminal needed (a systemd service, a container). Runs until SIGTERM, SIGINT or
 * SIGHUP; one line on stderr when it is listening, errors on stderr, nothing on stdout.
 */
import {startRuntime, type RuntimeOptions} from '../runtime.js';
import type {MetricsServer} from '../metrics/exporter.js';
import {onStopSignals, serveMetrics} from './lifecycle.js';
import {sanitizeName} from '../util/sanitize.js';

export interface HeadlessOptions extends RuntimeOptions {
	readonly stderr?: NodeJS.WritableStream;
	/** Resolves to stop (tests); default: the first of SIGTERM, SIGINT, SIGHUP. */
	readonly until?: Promise<unknown>;
}

export async function runHeadless(options: HeadlessOptions): Promise<number> {
	const err = options.stderr ?? process.stderr;
	const addr = options.config.serveMetrics;
	if (!addr) {
		err.write('infertop: --headless needs --serve-metrics ADDR\n');
		return 2;
	}
	const runtime = await startRuntime(options);
	// Notices (a server down, a log missing) have no screen to go to: one line each on stderr.
	// The notices are a capped ring of immutable entries: print those after the last one printed.
	let last: object | undefined;
	const printNotices = () => {
		const notices = runtime.store.getSnapshot().notices;
		if (notices.length === 0 || notices[notices.length - 1] === last) return;
		for (const n of notices.slice(notices.indexOf(last as never) + 1)) err.write(`infertop: ${n.level}: ${sanitizeName(n.text)}\n`);
		last = notices[notices.length - 1];
	};
	printNotices();
	const unsubscribe = runtime.store.subscribe(printNotices);
	let metrics: MetricsServer;
	try {
		metrics = await serveMetrics(runtime.store, addr, options.config);
	} catch (error) {
		unsubscribe();
		await runtime.stop();
		err.write(`infertop: ${sanitizeName((error as Error).message)}\n`);
		return 1;
	}
	err.write(`infertop: serving metrics at ${metrics.url} (headless; stop with SIGTERM)\n`);
	// The handlers stay until everything is stopped (lifecycle.ts onStopSignals).
	let releaseSignals: () => void = () => undefined;
	const stopSignal = new Promise<void>((resolve) => {
		releaseSignals = onStopSignals(() => resolve());
	});
	try {
		await (options.until ? Promise.race([options.until, stopSignal]) : stopSignal);
	} finally {
		unsubscribe();
		await metrics.close().catch(() => undefined);
		await runtime.stop();
		releaseSignals();
	}
	return 0;
}
