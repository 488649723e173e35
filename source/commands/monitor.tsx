/**
 * The interactive monitor: alternate screen, one Ink render, one exit path (q / Ctrl+C / SIGTERM →
 * stop collectors → leave the alternate screen).
 */
import React from 'react';
import {render} from 'ink';
import os from 'node:os';
import {startRuntime, type Controller, type Runtime, type RuntimeOptions} from '../runtime.js';
import {createStore} from '../model/store.js';
import {App} from '../ui/app.js';
import {VERSION} from '../version.js';
import {startMetricsServer} from '../metrics/exporter.js';
import {deriveModels} from '../model/derive.js';

export async function runMonitor(options: RuntimeOptions): Promise<number> {
	const {config} = options;
	// The first frame comes before the collectors start: discovery and log reading fill it in.
	const store = createStore({host: os.hostname(), demo: config.demo === true, refreshMs: config.refresh});
	let runtime: Runtime | undefined;
	let quitRequested = false;
	const controller: Controller = {
		probe: (id, prompt, runs) => runtime?.controller.probe(id, prompt, runs),
		cancelProbe: () => runtime?.controller.cancelProbe(),
		compare: () => runtime?.controller.compare?.(),
		cancelCompare: () => runtime?.controller.cancelCompare?.(),
		startDemo: () => runtime?.controller.startDemo(),
		quit: () => {
			quitRequested = true;
			app.unmount();
		},
		setRefresh: ms => store.dispatch({type: 'refresh', refreshMs: ms}),
	};
	// Alternate screen: resizing never wipes the user's scrollback (ink 6.8 has no option for it).
	const alt = process.stdout.isTTY === true;
	if (alt) process.stdout.write('\u001b[?1049h');
	let restored = false;
	const restore = () => {
		if (!restored && alt) process.stdout.write('\u001b[?1049l');
		restored = true;
	};
	process.once('exit', restore);
	const app = render(<App store={store} controller={controller} theme={config.theme} noColor={config.noColor} version={VERSION} />, {
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: 10,
	});
	// Node's warnings go to stderr, which would scribble over the screen: show them as notices.
	process.removeAllListeners('warning');
	process.on('warning', warning => store.dispatch({type: 'notice', t: Date.now(), level: 'warn', text: `${warning.name}: ${warning.message}`}));
	// For start-up benchmarks: leave right after the first frame.
	if (process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') setImmediate(() => app.unmount());
	let metrics: {close(): Promise<void>} | undefined;
	const starting = (async () => {
		if (quitRequested || process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') return;
		runtime = await startRuntime({...options, store});
		if (config.serveMetrics) {
			try {
				metrics = await startMetricsServer({addr: config.serveMetrics, getState: store.getSnapshot, derive: deriveModels});
			} catch (error) {
				store.dispatch({type: 'notice', t: Date.now(), level: 'error', text: (error as Error).message});
			}
		}
	})().catch(error => store.dispatch({type: 'notice', t: Date.now(), level: 'error', text: String(error)}));
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
		await starting;
		await metrics?.close().catch(() => undefined);
		await runtime?.stop();
		restore();
	}
	return 0;
}
