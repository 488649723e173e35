/**
 * What the monitor (commands/monitor.tsx) and `--headless` (commands/headless.ts) share: the signals
 * that stop them, and the metrics endpoint (`--serve-metrics`) over their store.
 */
import type {EffectiveConfig} from '../config/config.js';
import type {MetricsServer} from '../metrics/exporter.js';
import type {MonitorStore} from '../model/store.js';

export type StopSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP';

/**
 * `stop` on SIGTERM, SIGINT or SIGHUP. The handlers stay until the returned function removes them,
 * after the cleanup: a second signal (a hangup comes with more; a wrapper such as tsx or npm forwards
 * the one its process group got) must not end the process half-way through it, and Ink's exit hook,
 * seeing no other listener, would re-raise it. `secondInterruptExits`: a second SIGINT leaves at
 * once (exit status 130), as a second Ctrl+C does in a shell.
 */
export function onStopSignals(stop: (signal: StopSignal) => void, options: {readonly secondInterruptExits?: boolean} = {}): () => void {
	let interrupts = 0;
	const handlers: Record<StopSignal, () => void> = {
		SIGTERM: () => stop('SIGTERM'),
		SIGINT: () => {
			interrupts += 1;
			if (interrupts > 1 && options.secondInterruptExits === true) process.exit(130);
			stop('SIGINT');
		},
		SIGHUP: () => stop('SIGHUP'),
	};
	const signals = Object.keys(handlers) as StopSignal[];
	for (const s of signals) process.on(s, handlers[s]);
	return () => {
		for (const s of signals) process.off(s, handlers[s]);
	};
}

/**
 * `--serve-metrics ADDR`: the store's live figures as Prometheus metrics. The exporter loads only
 * when asked. Rejects with a one-line reason when it cannot listen.
 */
export async function serveMetrics(store: Pick<MonitorStore, 'getSnapshot'>, addr: string, config: Pick<EffectiveConfig, 'sessionGap'>): Promise<MetricsServer> {
	const [{startMetricsServer}, {deriveModels}] = await Promise.all([import('../metrics/exporter.js'), import('../model/derive.js')]);
	return startMetricsServer({addr, getState: store.getSnapshot, derive: deriveModels, sessionGapMs: config.sessionGap * 1000});
}
