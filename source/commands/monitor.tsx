/**
 * The interactive monitor: alternate screen, one Ink render, one exit path (q / Ctrl+C / SIGTERM →
 * stop collectors → leave the alternate screen).
 */
import React from 'react';
import {render} from 'ink';
import {writeFileSync} from 'node:fs';
import os from 'node:os';
import type {Runtime, RuntimeOptions} from '../runtime.js';
import type {RuntimeControls, ScreenControls} from '../types/controller.js';
import {createStore, type MonitorStore} from '../model/store.js';
import type {MonitorState} from '../types/state.js';
import {findingRows, notifications} from '../ui/view-model/findings.js';
import {sessionsWork} from '../model/sessions.js';
import {App} from '../ui/app.js';
import {VERSION} from '../version.js';
import {themeCycle} from '../config/themes.js';
import {saveCodeCacheAfter} from './code-cache.js';
import {onStopSignals, serveMetrics} from './lifecycle.js';

/**
 * Incremental rendering: a changed figure rewrites its line, not the screen. Ink 6.8's left ghost
 * lines (ink#910); patches/ink+6.8.0.patch fixes it in node_modules at install, so it is on from
 * source and in the bundle alike (the install and the build fail when the patch is not applied).
 */
export const INCREMENTAL = true;
/** Ink's cap on frames a second (see render() below). */
export const MAX_FPS = 30;

/** Ring once per new finding kind as the store publishes; returns the unsubscribe. */
function notifyFindings(store: MonitorStore, sessionGapMs: number): () => void {
	const notified = new Set<string>();
	let servers: MonitorState['servers'] | undefined;
	let lastAt = -Infinity;
	return store.subscribe(() => {
		const state = store.getSnapshot();
		// At most every 2 s (sessions are derived for it; a busy log changes the rings every frame).
		if (state.servers === servers || state.now - lastAt < 2000) return;
		servers = state.servers;
		lastAt = state.now;
		const {kinds, sequence} = notifications(findingRows(state, sessionGapMs), notified);
		if (kinds.length === 0) return;
		for (const k of kinds) notified.add(k);
		process.stdout.write(sequence);
	});
}

export async function runMonitor(options: RuntimeOptions): Promise<number> {
	const {config} = options;
	// The first frame comes before the collectors start: discovery and log reading fill it in.
	const store = createStore({host: os.hostname(), demo: config.demo === true, refreshMs: config.refresh});
	let runtime: Runtime | undefined;
	// Every way out (q, a signal, a terminal gone) unmounts through here: nothing renders after it.
	let leaving = false;
	const leave = () => {
		leaving = true;
		app.unmount();
	};
	// What only the terminal's owner can do: leave, and give the terminal back on Ctrl+Z.
	const screen: ScreenControls = {
		quit: leave,
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
	// The runtime's controls before it has started (it loads after the first frame): nothing to do
	// yet, a new refresh goes into the store, the history is not there yet. Then the runtime's own.
	const beforeStart: Required<RuntimeControls> = {
		probe: () => undefined,
		cancelProbe: () => undefined,
		compare: () => undefined,
		cancelCompare: () => undefined,
		startDemo: () => undefined,
		setRefresh: ms => store.dispatch({type: 'refresh', refreshMs: ms}),
		loadProbeHistory: () => Promise.reject(new Error('still starting')),
		loadProfiles: () => Promise.reject(new Error('still starting')),
		measureProfiles: () => Promise.reject(new Error('still starting')),
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
	// Frames Ink drew (for the overhead bench: INFERTOP_RENDER_STATS=FILE gets them as JSON at exit).
	let frames = 0;
	const startedAt = performance.now();
	const screenOf = (controls: RuntimeControls) => <App store={store} controller={{...controls, ...screen}} themes={themes} version={VERSION} sessionGapMs={config.sessionGap * 1000} />;
	const app = render(screenOf(beforeStart), {
		exitOnCtrlC: false,
		patchConsole: false,
		// Ink holds a frame until 1/maxFps after the last: a key that came just after a store publish
		// (at most 4 a second) waited up to that long. At 10, a key reached the screen in a median
		// 10 ms but 107–110 ms one time in ~20 (bench/burst.bench.ts, a pseudo-terminal of its own);
		// at 30 it waits ≤ 33 ms. Frames come from keys and publishes, not from a log's lines.
		maxFps: MAX_FPS,
		incrementalRendering: INCREMENTAL,
		onRender: () => {
			frames++;
		},
	});
	// Node's warnings go to stderr, which would scribble over the screen: show them as notices.
	process.removeAllListeners('warning');
	process.on('warning', warning => store.dispatch({type: 'notice', t: Date.now(), level: 'warn', text: `${warning.name}: ${warning.message}`}));
	// bin/infertop.js's V8 code cache, where it has none: saved once the first frame and the collectors have run.
	saveCodeCacheAfter(2000);
	// --notify: a bell (and an OSC 9 notification) once per new kind of agent finding (issue 28).
	const stopNotify = options.notify === true && process.stdout.isTTY === true ? notifyFindings(store, config.sessionGap * 1000) : undefined;
	// For start-up benchmarks: leave right after the first frame.
	if (process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') setImmediate(leave);
	let metrics: {close(): Promise<void>} | undefined;
	const starting = (async () => {
		if (leaving || process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') return;
		// Loaded after the first frame: the collectors (and their dependencies) are not needed to draw it.
		const {startRuntime} = await import('../runtime.js');
		runtime = await startRuntime({...options, store});
		// From now on the keys reach the runtime's own controls.
		if (!leaving) app.rerender(screenOf(runtime.controller));
		if (config.serveMetrics) {
			try {
				metrics = await serveMetrics(store, config.serveMetrics, config);
			} catch (error) {
				store.dispatch({type: 'notice', t: Date.now(), level: 'error', text: (error as Error).message});
			}
		}
	})().catch(error => store.dispatch({type: 'notice', t: Date.now(), level: 'error', text: String(error)}));
	// The terminal went away (tmux kill-session, a closed window): writes fail with EIO/EPIPE. That
	// is a way to leave, not a crash: stop as on SIGHUP, so the collectors and the demo clean up.
	let hungUp = false;
	const onOutputError = () => {
		hungUp = true;
		leave();
	};
	process.stdout.on('error', onOutputError);
	const releaseSignals = onStopSignals(
		signal => {
			if (signal === 'SIGHUP') hungUp = true;
			leave();
		},
		{secondInterruptExits: true},
	);
	try {
		await app.waitUntilExit();
	} finally {
		await starting;
		await metrics?.close().catch(() => undefined);
		await runtime?.stop();
		restore();
		const statsFile = process.env.INFERTOP_RENDER_STATS;
		if (statsFile) {
			// and, per server, the log lines read and skipped (the traffic benches' lag behind the writer),
			// and what the agent sessions' derivations did (how often, how many timelines: model/sessions.ts)
			const servers = store.getSnapshot().servers;
			const logs = Object.fromEntries(Object.values(servers).map(s => [s.id, {lines: s.linesParsed + s.linesUnparsed, linesSkipped: s.logLag?.linesSkipped ?? 0, requestsSeen: s.requestsSeen}]));
			writeFileSync(statsFile, JSON.stringify({frames, publishes: store.publishes(), seconds: (performance.now() - startedAt) / 1000, logs, sessions: sessionsWork}));
		}
		stopNotify?.();
		// Only now: until here a signal must find us listening (lifecycle.ts onStopSignals).
		releaseSignals();
		process.stdout.off('error', onOutputError);
		// Writes still queued for a terminal that is gone must not throw once the listener is off.
		process.stdout.on('error', () => undefined);
		// Everything is cleaned up. A normal exit would now restore the terminal's modes, and Node
		// aborts when the terminal is gone (nodejs/node#51519: tcsetattr fails with EIO): end the
		// way a hangup ends a program instead, by SIGHUP with its default action.
		// (Other SIGHUP listeners — Ink's exit hook, a loader's relay — have nothing left to do.)
		if (hungUp) {
			process.removeAllListeners('SIGHUP');
			process.kill(process.pid, 'SIGHUP');
		}
	}
	return 0;
}
