/**
 * The interactive monitor: alternate screen, one Ink render, one exit path (q / Ctrl+C / SIGTERM →
 * stop collectors → leave the alternate screen).
 */
import React from 'react';
import {render} from 'ink';
import os from 'node:os';
import type {Controller, Runtime, RuntimeOptions} from '../runtime.js';
import {createStore} from '../model/store.js';
import {App} from '../ui/app.js';
import {VERSION} from '../version.js';

/** Defined true by scripts/build.mjs in a bundle whose Ink has the ink#910 fix; undefined when run from source. */
declare const __INK_910_FIXED__: boolean | undefined;
/** Incremental rendering (a changed figure rewrites one line) only where Ink 6.8's renderer is fixed. */
export const INCREMENTAL = typeof __INK_910_FIXED__ !== 'undefined' && __INK_910_FIXED__ === true;

export async function runMonitor(options: RuntimeOptions): Promise<number> {
	const {config} = options;
	// The first frame comes before the collectors start: discovery and log reading fill it in.
	const store = createStore({host: os.hostname(), demo: config.demo === true, refreshMs: config.refresh});
	let runtime: Runtime | undefined;
	let quitRequested = false;
	const controller: Controller = {
		probe: (id, prompt, runs) => runtime?.controller.probe(id, prompt, runs),
		cancelProbe: () => runtime?.controller.cancelProbe(),
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
	// Frames Ink drew (for the overhead bench: INFERTOP_RENDER_STATS=FILE gets them as JSON at exit).
	let frames = 0;
	const startedAt = performance.now();
	const app = render(<App store={store} controller={controller} theme={config.theme} noColor={config.noColor} version={VERSION} />, {
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: 10,
		incrementalRendering: INCREMENTAL,
		onRender: () => {
			frames++;
		},
	});
	// Node's warnings go to stderr, which would scribble over the screen: show them as notices.
	process.removeAllListeners('warning');
	process.on('warning', warning => store.dispatch({type: 'notice', t: Date.now(), level: 'warn', text: `${warning.name}: ${warning.message}`}));
	// For start-up benchmarks: leave right after the first frame.
	if (process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') setImmediate(() => app.unmount());
	let metrics: {close(): Promise<void>} | undefined;
	const starting = (async () => {
		if (quitRequested || process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') return;
		// Loaded after the first frame: the collectors (and their dependencies) are not needed to draw it.
		const {startRuntime} = await import('../runtime.js');
		runtime = await startRuntime({...options, store});
		if (config.serveMetrics) {
			try {
				const [{startMetricsServer}, {deriveModels}] = await Promise.all([import('../metrics/exporter.js'), import('../model/derive.js')]);
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
		const statsFile = process.env.INFERTOP_RENDER_STATS;
		if (statsFile) {
			const {writeFileSync} = await import('node:fs');
			writeFileSync(statsFile, JSON.stringify({frames, publishes: store.publishes(), seconds: (performance.now() - startedAt) / 1000}));
		}
	}
	return 0;
}
