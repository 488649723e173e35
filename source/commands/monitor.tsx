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
import {themeCycle} from '../config/themes.js';

export async function runMonitor(options: RuntimeOptions): Promise<number> {
	const {config} = options;
	// The first frame comes before the collectors start: discovery and log reading fill it in.
	const store = createStore({host: os.hostname(), demo: config.demo === true, refreshMs: config.refresh});
	let runtime: Runtime | undefined;
	let quitRequested = false;
	const controller: Controller = {
		probe: (id, prompt, runs, model) => runtime?.controller.probe(id, prompt, runs, model),
		cancelProbe: () => runtime?.controller.cancelProbe(),
		startDemo: () => runtime?.controller.startDemo(),
		quit: () => {
			quitRequested = true;
			app.unmount();
		},
		setRefresh: ms => (runtime ? runtime.controller.setRefresh(ms) : store.dispatch({type: 'refresh', refreshMs: ms})),
		loadProbeHistory: async () => {
			if (!runtime?.controller.loadProbeHistory) throw new Error('still starting');
			return runtime.controller.loadProbeHistory();
		},
		suspend: onResume => {
			if (process.platform === 'win32' || !process.stdin.isTTY) return;
			// Give the terminal back as it was: main screen, cooked mode, cursor shown; then stop (SIGTSTP's default action).
			if (alt) process.stdout.write('\u001b[?1049l');
			process.stdout.write('\u001b[?25h');
			process.stdin.setRawMode?.(false);
			process.once('SIGCONT', () => {
				process.stdin.setRawMode?.(true);
				if (alt) process.stdout.write('\u001b[?1049h');
				process.stdout.write('\u001b[2J\u001b[H\u001b[?25l');
				onResume();
			});
			// The whole process group (npx/tsx wrappers too), as a shell's Ctrl+Z does: the shell then sees the job stopped.
			try {
				process.kill(0, 'SIGTSTP');
			} catch {
				process.kill(process.pid, 'SIGTSTP');
			}
		},
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
	// Themes are files: read (and checked) here, before the screen; one that does not load is a notice.
	const {themes, error: themeError} = themeCycle({name: config.theme, noColor: config.noColor});
	if (themeError) store.dispatch({type: 'notice', t: Date.now(), level: 'warn', text: themeError});
	const app = render(<App store={store} controller={controller} themes={themes} version={VERSION} />, {
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
