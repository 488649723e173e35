/**
 * The interactive monitor: alternate screen, one Ink render, one exit path (q / Ctrl+C / SIGTERM →
 * stop collectors → leave the alternate screen).
 */
import React from 'react';
import {render} from 'ink';
import {startRuntime, type RuntimeOptions} from '../runtime.js';
import {App} from '../ui/app.js';
import {VERSION} from '../version.js';
import {startMetricsServer} from '../metrics/exporter.js';
import {deriveModels} from '../model/derive.js';

export async function runMonitor(options: RuntimeOptions): Promise<number> {
	const runtime = await startRuntime(options);
	const {config} = options;
	let metrics: {close(): Promise<void>} | undefined;
	if (config.serveMetrics) {
		try {
			metrics = await startMetricsServer({addr: config.serveMetrics, getState: runtime.store.getSnapshot, derive: deriveModels});
		} catch (error) {
			runtime.dispatch({type: 'notice', t: Date.now(), level: 'error', text: `--serve-metrics ${config.serveMetrics}: ${(error as Error).message}`});
		}
	}
	// Alternate screen: resizing never wipes the user's scrollback (ink 6.8 has no option for it).
	const alt = process.stdout.isTTY === true;
	if (alt) process.stdout.write('\u001b[?1049h');
	let restored = false;
	const restore = () => {
		if (!restored && alt) process.stdout.write('\u001b[?1049l');
		restored = true;
	};
	process.once('exit', restore);
	const app = render(<App store={runtime.store} controller={runtime.controller} theme={config.theme} noColor={config.noColor} version={VERSION} />, {
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: 10,
	});
	runtime.onQuit(() => app.unmount());
	const onSignal = () => app.unmount();
	process.once('SIGTERM', onSignal);
	process.once('SIGHUP', onSignal);
	process.once('SIGINT', onSignal);
	try {
		await app.waitUntilExit();
	} finally {
		process.off('SIGTERM', onSignal);
		process.off('SIGHUP', onSignal);
		process.off('SIGINT', onSignal);
		await metrics?.close().catch(() => undefined);
		await runtime.stop();
		restore();
	}
	return 0;
}
