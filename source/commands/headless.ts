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
	// The handlers first: a SIGTERM while it starts (a `cmd:` log is started then) stops it cleanly too.
	// They stay until everything is stopped (lifecycle.ts onStopSignals).
	let releaseSignals: () => void = () => undefined;
	const stopSignal = new Promise<void>((resolve) => {
		releaseSignals = onStopSignals(() => resolve());
	});
	const runtime = await startRuntime(options);
	// Notices (a server down, a log missing) have no screen to go to: one line each on stderr.
	// The notices are a capped ring of immutable entries: print those after the last one printed.
	let last: object | undefined;
	// A log that cannot be read (missing, unreadable, not a file) has no screen either: one line each
	// time its state changes to such a one.
	const logStates = new Map<string, string>();
	const printLogStates = () => {
		const servers = runtime.store.getSnapshot().servers;
		for (const [id, s] of Object.entries(servers)) {
			const st = s.logState;
			if (st === undefined || logStates.get(id) === st) continue;
			logStates.set(id, st);
			if (!st.startsWith('following')) err.write(`infertop: warning: log ${sanitizeName(s.logLabel ?? id)}: ${sanitizeName(st)}\n`);
		}
	};
	const printNotices = () => {
		printLogStates();
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
		releaseSignals();
		err.write(`infertop: ${sanitizeName((error as Error).message)}\n`);
		return 1;
	}
	err.write(`infertop: serving metrics at ${metrics.url} (headless; stop with SIGTERM)\n`);
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
