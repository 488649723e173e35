/**
 * The running pipeline of DESIGN §2: starts every collector (discovery and pollers, log sources,
 * the system scan, bandwidth detection, bytes-per-token resolution, the demo engine when asked)
 * against one store, and stops them all. The monitor, `snapshot` and the tests use the same code.
 */
import os from 'node:os';
import path from 'node:path';
import {mkdtempSync, rmSync} from 'node:fs';
import type {EffectiveConfig} from './config/config.js';
import {parseLogSpec, resolveApiKey, effectiveHistoryPath} from './config/config.js';
import {createStore, type MonitorStore} from './model/store.js';
import {logCountsInWindow} from './model/derive.js';
import type {Action, Collector, Dispatch, EngineKind, ModelInfo, ServerInfo} from './model/types.js';
import {createLogSource, labelOf, type LogInput} from './sources/log-source.js';
import {splitArgs} from './sources/command-log.js';
import {parseReplaySpec} from './sources/replay.js';
import {createDiscovery} from './sources/discovery/discovery.js';
import {normalizeServerUrl} from './sources/discovery/server-id.js';
import {createSystemCollector, type SystemCollector} from './sources/system-collector.js';
import {detectBandwidth} from './sources/bandwidth.js';
import {createModelBytesResolver} from './sources/model-bytes.js';
import {defaultLogLocations, findExistingLogs} from './sources/log-locations.js';
import {createProbeController} from './probe/controller.js';
import type {Controller} from './ui/controller.js';
import {startDemoEngine, DEMO_OLLAMA_VERSION, type DemoEngine} from './demo/engine.js';
import {createPoller} from './sources/discovery/pollers.js';
import {readOllamaPs} from './sources/ollama-ps-cli.js';

export interface RuntimeOptions {
	readonly config: EffectiveConfig;
	/** Scan default ports and processes, and use default log locations. */
	readonly scan: boolean;
	readonly replay?: string;
	readonly demoSplit?: number;
	readonly apiKey?: string;
	/** Demo speed factor (tests). */
	readonly demoSpeed?: number;
	/** Demo background agent (tests turn it off to send their own requests). */
	readonly demoAgent?: boolean;
	/** Discovery/poll interval (ms). */
	readonly pollMs?: number;
	/** Run the system scan (process table, GPU). */
	readonly system?: boolean;
	/** A store created earlier (the monitor draws its first frame before the collectors start). */
	readonly store?: MonitorStore;
}

export type {Controller} from './ui/controller.js';

export interface Runtime {
	readonly store: MonitorStore;
	readonly dispatch: Dispatch;
	readonly controller: Controller;
	/** Resolves when the first discovery pass is done (and the demo started, if it had to be). */
	readonly ready: Promise<void>;
	readonly demo: () => DemoEngine | undefined;
	stop(): Promise<void>;
	onQuit(handler: () => void): void;
}

/** A `--log` value as the input of a log source (commands are split into argv, never run through a shell). */
export function logInputOf(spec: string): {input: LogInput; engine?: EngineKind} | {error: string} {
	const parsed = parseLogSpec(spec);
	if (!parsed.ok) return {error: parsed.error};
	const s = parsed.spec;
	if (s.kind === 'file') return {input: {kind: 'file', path: s.path}, engine: s.engine};
	return {input: {kind: 'cmd', argv: splitArgs(s.command)}, engine: s.engine};
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
	const {config} = options;
	const store = options.store ?? createStore({host: os.hostname(), demo: config.demo === true, refreshMs: config.refresh});
	const collectors: Collector[] = [];
	const logsAttached = new Set<string>();
	const quitHandlers: (() => void)[] = [];
	let demo: DemoEngine | undefined;
	let demoDir: string | undefined;
	let stopped = false;

	const resolver = createModelBytesResolver({dispatch: a => store.dispatch(a)});
	let system: SystemCollector | undefined;
	const dispatch: Dispatch = (action: Action) => {
		if (stopped) return;
		store.dispatch(action);
		// An engine got work: the system scan leaves its quiet pace at once.
		if (action.type === 'engine-event' || action.type === 'log-line') system?.wake();
		if (action.type === 'server-models') {
			// The merged server (url, engine) as the store knows it after this action.
			const info = store.getSnapshot().servers[action.serverId];
			if (info) for (const m of action.models) resolver.request(action.serverId, {engine: info.engine, url: info.url, apiKey: apiKeyFor(info.url)}, m as ModelInfo);
		}
	};

	const namedServers = config.servers.map(s => ({url: s.url, apiKey: resolveApiKey(s) ?? (config.servers.length === 1 ? options.apiKey : undefined), source: 'flag' as const}));
	function apiKeyFor(url: string | undefined): string | undefined {
		if (!url) return undefined;
		return namedServers.find(s => s.url === url)?.apiKey;
	}

	async function attachLog(serverId: string, input: LogInput, engine: EngineKind | undefined, serverInfo?: Partial<ServerInfo>): Promise<void> {
		const label = labelOf(input);
		if (logsAttached.has(`${serverId}\u0000${label}`)) return;
		logsAttached.add(`${serverId}\u0000${label}`);
		if (!store.getSnapshot().servers[serverId]) {
			dispatch({type: 'server-seen', t: Date.now(), server: {id: serverId, engine: engine ?? 'openai', source: 'log', logLabel: label, ...serverInfo}});
		} else {
			const existing = store.getSnapshot().servers[serverId]!;
			dispatch({type: 'server-seen', t: Date.now(), server: {id: serverId, engine: existing.engine, source: existing.source, logLabel: label}});
		}
		const source = createLogSource({serverId, engine, input, dispatch});
		collectors.push(source);
		await source.start();
	}

	// 1. Logs the user named.
	for (const spec of config.logs) {
		const parsed = logInputOf(spec);
		if ('error' in parsed) {
			dispatch({type: 'notice', t: Date.now(), level: 'error', text: `--log ${parsed.error}`});
			continue;
		}
		// With exactly one server named, its logs are its own (`--server URL --log PATH`).
		const only = config.servers.length === 1 ? normalizeServerUrl(config.servers[0]!.url)?.id : undefined;
		await attachLog(only ?? `log:${labelOf(parsed.input)}`, parsed.input, parsed.engine, only ? {url: only, source: 'flag'} : {});
	}
	if (options.replay) {
		const r = parseReplaySpec(options.replay);
		await attachLog(`replay:${r.file}`, {kind: 'replay', path: r.file, speed: r.speed}, undefined);
	}

	// 2. Bandwidth (override, else the chip table).
	const bandwidthReady = detectBandwidth({override: config.bandwidth}).then(
		bandwidth => {
			if (!demo || config.bandwidth !== undefined) dispatch({type: 'bandwidth', bandwidth});
		},
		() => undefined,
	);

	// 3. The system scan.
	if (options.system !== false) {
		system = createSystemCollector({dispatch, intervalMs: config.refresh});
		collectors.push(system);
		await system.start();
	}

	// 4. Discovery: named servers, default ports and processes.
	const discovery = createDiscovery({
		dispatch,
		servers: namedServers,
		scan: options.scan,
		intervalMs: options.pollMs,
		pollIntervalMs: options.pollMs,
		lookedForLogs: defaultLogLocations(process.platform, process.env, os.homedir()).map(l => (l.kind === 'file' ? l.path! : l.argv!.join(' '))),
		onLogFound: (serverId, logPath) => {
			void attachLog(serverId, {kind: 'file', path: logPath}, undefined);
		},
	});
	collectors.push(discovery);

	async function startDemo(): Promise<void> {
		if (demo || stopped) return;
		demoDir = mkdtempSync(path.join(os.tmpdir(), 'infertop-demo-'));
		demo = await startDemoEngine({
			logPath: path.join(demoDir, 'server.log'),
			split: options.demoSplit,
			speed: options.demoSpeed,
			agent: options.demoAgent,
		});
		const id = normalizeServerUrl(demo.url)?.id ?? demo.url;
		const info = {id, engine: 'demo-ollama' as const, url: demo.url, source: 'demo' as const, demo: true, version: DEMO_OLLAMA_VERSION};
		dispatch({type: 'server-seen', t: Date.now(), server: info});
		if (config.bandwidth === undefined) dispatch({type: 'bandwidth', bandwidth: {gbs: demo.bandwidthGBs, source: 'demo engine (simulated)', chip: 'DEMO'}});
		await attachLog(id, {kind: 'file', path: demo.logPath}, 'ollama');
		// The demo speaks Ollama's API: the same poller a real Ollama gets.
		const poller = createPoller({server: {...info, engine: 'ollama'}, dispatch, intervalMs: options.pollMs});
		collectors.push({start: () => poller.start(), stop: () => poller.stop()});
		poller.start();
		await poller.pollNow();
	}

	// 5. Default log locations (Ollama's), attached to the Ollama server they belong to.
	if (options.scan) {
		const ollamaId = normalizeServerUrl(process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434')?.id ?? 'http://127.0.0.1:11434';
		for (const loc of await findExistingLogs()) {
			const input: LogInput = loc.kind === 'file' ? {kind: 'file', path: loc.path!} : {kind: 'cmd', argv: loc.argv!};
			await attachLog(loc.engine === 'ollama' ? ollamaId : `log:${labelOf(input)}`, input, loc.engine, loc.engine === 'ollama' ? {url: ollamaId} : {});
		}
	}

	// 6. `--ollama-ps cli`: residency from the CLI table.
	if (config.ollamaPs === 'cli') {
		const ollamaId = normalizeServerUrl(process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434')?.id ?? 'http://127.0.0.1:11434';
		let timer: NodeJS.Timeout | undefined;
		const tick = async () => {
			const r = await readOllamaPs();
			if (stopped) return;
			if (r.reason) dispatch({type: 'log-state', serverId: ollamaId, text: r.reason});
			else dispatch({type: 'server-models', t: Date.now(), serverId: ollamaId, models: r.models});
			timer = setTimeout(() => void tick(), 2000);
		};
		collectors.push({start: () => undefined, stop: async () => clearTimeout(timer)});
		void tick();
	}

	const ready = (async () => {
		discovery.start();
		// start() returns at once; the demo decision needs the first round's answer.
		await discovery.refresh();
		await bandwidthReady;
		const found = discovery.servers().length > 0 || config.logs.length > 0 || options.replay !== undefined;
		if (config.demo === true || (config.demo === 'auto' && !found)) await startDemo();
	})();

	// One probe runs at a time: its log window belongs to the server it targets.
	let probing: string | undefined;
	const probe = createProbeController({
		dispatch,
		logFigures: (fromMs, toMs) => (probing ? logCountsInWindow(store.getSnapshot(), probing, fromMs, toMs) : undefined),
		getState: store.getSnapshot,
		historyPath: effectiveHistoryPath(config),
		busyTimeoutMs: config.busyTimeout * 1000,
		apiKeyFor,
		onHistoryError: message => dispatch({type: 'notice', t: Date.now(), level: 'warn', text: `probe history: ${message}`}),
	});

	const stopTicker = store.startTicker();

	const controller: Controller = {
		probe(serverId, prompt, runs) {
			const s = store.getSnapshot().servers[serverId];
			if (!s?.url) {
				dispatch({type: 'notice', t: Date.now(), level: 'warn', text: 'this entry has no server URL to probe (log only)'});
				return;
			}
			const model = s.models[0]?.name;
			probing = serverId;
			void probe.probe({serverId, engine: s.engine, url: s.url, model, apiKey: apiKeyFor(s.url)}, prompt ?? store.getSnapshot().probe.prompt, runs);
		},
		cancelProbe: () => probe.cancel(),
		startDemo: () => {
			void startDemo().catch(error => dispatch({type: 'notice', t: Date.now(), level: 'error', text: `demo: ${String(error)}`}));
		},
		quit: () => {
			for (const h of quitHandlers) h();
		},
		setRefresh: ms => dispatch({type: 'refresh', refreshMs: ms}),
	};

	return {
		store,
		dispatch,
		controller,
		ready,
		demo: () => demo,
		onQuit: h => quitHandlers.push(h),
		async stop() {
			if (stopped) return;
			await ready.catch(() => undefined);
			stopped = true;
			stopTicker();
			probe.cancel();
			await Promise.all(collectors.map(c => c.stop().catch(() => undefined)));
			await demo?.stop().catch(() => undefined);
			if (demoDir) rmSync(demoDir, {recursive: true, force: true});
		},
	};
}
