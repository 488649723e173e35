/**
 * The composition root of DESIGN §2: one store, a list of collectors (one small factory each: the
 * named logs, bandwidth, the system scan, discovery and its pollers, default logs, `ollama ps`, the
 * demo engine when asked) and a list of reactions (`server-models` → resolve bytes per token). The
 * monitor, `snapshot` and the tests use the same code. Nothing here knows an engine by name: the
 * registry (engines/index.ts) says what each one needs.
 */
import os from 'node:os';
import path from 'node:path';
import {mkdtempSync, rmSync} from 'node:fs';
import {stat} from 'node:fs/promises';
import type {EffectiveConfig} from './config/config.js';
import {parseLogSpec, resolveApiKey, effectiveHistoryPath} from './config/config.js';
import {createStore, type MonitorStore} from './model/store.js';
import type {Action, Collector, Dispatch, ModelInfo, ServerInfo} from './types/state.js';
import type {EngineEvent, EngineKind} from './types/events.js';
import {createLogSource, labelOf, type LogInput} from './sources/log-source.js';
import {processStartMs} from './sources/process-start.js';
import {loopbackPort, portOwnerPid} from './sources/port-owner.js';
import {splitArgs} from './sources/command-log.js';
import {parseReplaySpec} from './sources/replay.js';
import {createDiscovery} from './sources/discovery/discovery.js';
import {createProcessFinder} from './sources/discovery/processes.js';
import {normalizeServerUrl} from './sources/discovery/server-id.js';
import {createSystemCollector, type SystemCollector} from './sources/system-collector.js';
import {detectBandwidth} from './sources/bandwidth.js';
import {createModelBytesResolver} from './sources/model-bytes.js';
import {defaultLogLocations, findExistingLogs} from './sources/log-locations.js';
import {createProbeController} from './probe/controller.js';
import {readHistory} from './probe/history.js';
import {compareTargets, createCompareController} from './probe/compare-controller.js';
import {DEFAULT_DEPTHS} from './config/depths.js';
import {measureProfile} from './probe/depths.js';
import {matchProbeRequest} from './model/derive.js';
import {attributeLate} from './probe/late-match.js';
import type {LogQuery} from './probe/timing.js';
import {readProfiles, saveProfiles} from './probe/profiles.js';
import {loadPrompt} from './probe/prompts.js';
import {profilesFile} from './config/paths.js';
import type {Profile} from './types/whatif.js';
import {VERSION} from './version.js';
import type {RuntimeControls} from './types/controller.js';
import type {DemoEngine} from './demo/engine.js';
import {createPoller} from './sources/discovery/pollers.js';
import {createOllamaPsCollector} from './sources/ollama-ps-cli.js';
import {engineOf, UNKNOWN_ENGINE} from './engines/index.js';
import {sanitize} from './util/sanitize.js';
import {createBusyGate} from './model/busy-gate.js';

export interface RuntimeOptions {
	readonly config: EffectiveConfig;
	/** Scan default ports and processes, and use default log locations. */
	readonly scan: boolean;
	readonly replay?: string;
	readonly demoSplit?: number;
	readonly apiKey?: string;
	/** Each probe run's overall limit (`--timeout`), ms. */
	readonly probeTimeoutMs?: number;
	/** Demo speed factor (tests). */
	readonly demoSpeed?: number;
	/** Demo background agent (tests turn it off to send their own requests). */
	readonly demoAgent?: boolean | 'both' | 'session';
	/** Discovery/poll interval (ms). */
	readonly pollMs?: number;
	/** The monitor rings the bell (and an OSC 9 notification) once per new kind of agent finding (`--notify`). */
	readonly notify?: boolean;
	/** Run the system scan (process table, GPU). */
	readonly system?: boolean;
	/** A store created earlier (the monitor draws its first frame before the collectors start). */
	readonly store?: MonitorStore;
	/** Tests: read processes, their sockets and start times from this Linux /proc tree, not this machine's. */
	readonly procRoot?: string;
	/** Tests: the ports discovery scans (default: every engine's default ports; processes' ports are added). */
	readonly scanPorts?: readonly number[];
	/** Where the what-if profiles are kept (default profiles.json in the state dir; tests give a temp file). */
	readonly profilesPath?: string;
}


export interface Runtime {
	readonly store: MonitorStore;
	readonly dispatch: Dispatch;
	/** What the screen asks of the runtime (the terminal's owner adds quit and suspend). */
	readonly controller: Required<RuntimeControls>;
	/** Resolves when the first discovery pass is done (and the demo started, if it had to be). */
	readonly ready: Promise<void>;
	readonly demo: () => DemoEngine | undefined;
	stop(): Promise<void>;
}

/** A `--log` value as the input of a log source (commands are split into argv, never run through a shell). */
export function logInputOf(spec: string): {input: LogInput; engine?: EngineKind} | {error: string} {
	const parsed = parseLogSpec(spec);
	if (!parsed.ok) return {error: parsed.error};
	const s = parsed.spec;
	if (s.kind === 'file') return {input: {kind: 'file', path: s.path}, engine: s.engine};
	return {input: {kind: 'cmd', argv: splitArgs(s.command)}, engine: s.engine};
}

/** The server id an engine's own environment names (`OLLAMA_HOST`, else its default). */
function hostIdOf(engine: EngineKind): string | undefined {
	const host = engineOf(engine).hostEnv;
	if (!host) return undefined;
	return normalizeServerUrl(process.env[host.name] ?? host.fallback)?.id ?? host.fallback;
}

/**
 * Who a log was attached for. A log is read once: when the same file comes twice, the first tie
 * wins, except that a log named alone (`--log PATH`, entry `log:PATH`) gives way to the server
 * discovery finds writing it (`--log-file PATH` on its command line).
 */
type LogTie = 'named alone' | 'named server' | 'found' | 'default';

/** Whether two paths are one file: the same device and inode where both exist, else the same absolute path. */
async function sameFile(a: string, b: string): Promise<boolean> {
	const [sa, sb] = await Promise.all([stat(a).catch(() => undefined), stat(b).catch(() => undefined)]);
	if (sa && sb) return sa.dev === sb.dev && sa.ino === sb.ino;
	return path.resolve(a) === path.resolve(b);
}

/** When the process serving a loopback URL started: its listening port → pid → start time (undefined for a remote URL). */
function serverProcessStart(url: string, procRoot: string | undefined): (() => Promise<number | undefined>) | undefined {
	const port = loopbackPort(url);
	if (port === undefined) return undefined;
	return async () => {
		const pid = await portOwnerPid(port, {procRoot});
		return pid === undefined ? undefined : processStartMs(pid, {procRoot});
	};
}

/** What every collector factory and reaction is given. */
interface RuntimeContext {
	readonly options: RuntimeOptions;
	readonly config: EffectiveConfig;
	readonly store: MonitorStore;
	readonly dispatch: Dispatch;
	readonly apiKeyFor: (url: string | undefined) => string | undefined;
	readonly namedServers: readonly {readonly url: string; readonly apiKey?: string; readonly source: 'flag'}[];
	/** Attach a log to a server (a file once, whoever names it: see LogTie). */
	readonly attachLog: (serverId: string, input: LogInput, engine: EngineKind | undefined, tie: LogTie, serverInfo?: Partial<ServerInfo>, processStart?: () => Promise<number | undefined>) => Promise<void>;
}

/** A reaction: something the runtime does when the store hears an action (after the reducer ran). */
type Reaction = (action: Action, ctx: RuntimeContext) => void;

// ---- reactions ----------------------------------------------------------------------------------

/** server-models → resolve bytes per token for each model (of the merged server as the store knows it). */
function resolveBytesPerToken(resolver: ReturnType<typeof createModelBytesResolver>): Reaction {
	return (action, ctx) => {
		if (action.type !== 'server-models') return;
		const info = ctx.store.getSnapshot().servers[action.serverId];
		if (info) for (const m of action.models) resolver.request(action.serverId, {engine: info.engine, url: info.url, apiKey: ctx.apiKeyFor(info.url), demo: info.demo}, m as ModelInfo);
	};
}

/**
 * Whether an action says an engine got work (the system scan leaves its quiet pace). A GET the
 * engine logged (Ollama's `[GIN] … GET "/api/ps"`, llama-server's `request: GET /slots`) is not
 * work: most are infertop's own polls echoed in the log, and waking on them kept the scan at its
 * fastest pace on an idle engine. A line no parser read may be anything: it counts.
 */
export function isWork(action: Action): boolean {
	if (action.type === 'engine-event') return eventIsWork(action.event);
	// A read's lines at once: work if any line (or any of its events) is.
	if (action.type === 'log-batch') return action.lines.some(l => !l.parsed || (l.events?.some(eventIsWork) ?? false));
	return action.type === 'log-line' && !action.parsed;
}

function eventIsWork(event: EngineEvent): boolean {
	return !(event.type === 'http' && (event.method === 'GET' || event.method === 'HEAD'));
}

/**
 * A poller's longest wait while its server's answers repeat (the default 2 s pace doubles up to
 * 8 s): an idle engine is asked a quarter as often, and a request in its log (isWork) brings the
 * poller back at once. Tests that set their own poll interval keep it fixed.
 */
const QUIET_POLL_MS = 8000;
const quietPollMs = (options: RuntimeOptions): number | undefined => (options.pollMs === undefined ? QUIET_POLL_MS : undefined);

interface RunningDemo {
	readonly engine: DemoEngine;
	readonly dir: string;
	readonly remove: () => void;
	readonly serverId: string;
	readonly poller: {wake(): void};
}

// ---- collectors (one small factory each) ----------------------------------------------------------

/** The logs the user named (`--log`, `--replay`). */
async function namedLogs(ctx: RuntimeContext): Promise<void> {
	const {config, options} = ctx;
	for (const spec of config.logs) {
		const parsed = logInputOf(spec);
		if ('error' in parsed) {
			ctx.dispatch({type: 'notice', t: Date.now(), level: 'error', text: `--log ${parsed.error}`});
			continue;
		}
		// With exactly one server named, its logs are its own (`--server URL --log PATH`). A local
		// server is tied to its process as a discovered one is: the process listening on its port,
		// whose start anchors llama.cpp's process-relative stamps (the backlog gets wall-clock times).
		const only = config.servers.length === 1 ? normalizeServerUrl(config.servers[0]!.url) : undefined;
		if (only) await ctx.attachLog(only.id, parsed.input, parsed.engine, 'named server', {url: only.id, source: 'flag'}, serverProcessStart(only.url, options.procRoot));
		else await ctx.attachLog(`log:${labelOf(parsed.input)}`, parsed.input, parsed.engine, 'named alone');
	}
	if (options.replay) {
		const r = parseReplaySpec(options.replay);
		await ctx.attachLog(`replay:${r.file}`, {kind: 'replay', path: r.file, speed: r.speed}, undefined, 'named alone');
	}
}

/** Bandwidth (override, else the chip table); the demo's own figure wins unless overridden. */
function bandwidth(ctx: RuntimeContext, demoRunning: () => boolean): Promise<void> {
	return detectBandwidth({override: ctx.config.bandwidth}).then(
		bw => {
			if (!demoRunning() || ctx.config.bandwidth !== undefined) ctx.dispatch({type: 'bandwidth', bandwidth: bw});
		},
		() => undefined,
	);
}

/** The system scan (process table, GPU). */
function system(ctx: RuntimeContext): SystemCollector | undefined {
	// Watched engines are known by pid (discovery's ports → pids, the process scan): never contention.
	const enginePids = (): ReadonlySet<number> => {
		const servers = ctx.store.getSnapshot().servers;
		return new Set(Object.values(servers).flatMap(s => (s.pid !== undefined && !s.demo ? [s.pid] : [])));
	};
	return ctx.options.system === false ? undefined : createSystemCollector({dispatch: ctx.dispatch, intervalMs: ctx.config.refresh, enginePids});
}

/** Discovery: named servers, default ports and processes; a log a process names is attached to its server. */
function discovery(ctx: RuntimeContext) {
	return createDiscovery({
		dispatch: ctx.dispatch,
		servers: ctx.namedServers,
		scan: ctx.options.scan,
		intervalMs: ctx.options.pollMs,
		// rounds that find nothing new: every 5 s, stretching to 20 s (a new engine shows within 20 s)
		quietIntervalMs: ctx.options.pollMs === undefined ? 20_000 : undefined,
		pollIntervalMs: ctx.options.pollMs,
		pollQuietMaxMs: quietPollMs(ctx.options),
		...(ctx.options.procRoot !== undefined ? {processFinder: createProcessFinder({procRoot: ctx.options.procRoot}), portOwner: (port: number) => portOwnerPid(port, {procRoot: ctx.options.procRoot})} : {}),
		...(ctx.options.scanPorts !== undefined ? {ports: ctx.options.scanPorts} : {}),
		lookedForLogs: defaultLogLocations(process.platform, process.env, os.homedir()).map(l => (l.kind === 'file' ? l.path! : l.argv!.join(' '))),
		onLogFound: (serverId, logPath) => {
			// The process that names its log (`--log-file`) is known: its start anchors llama.cpp's
			// process-relative stamps, so the backlog carries wall-clock times.
			const pid = ctx.store.getSnapshot().servers[serverId]?.pid;
			const procRoot = ctx.options.procRoot;
			void ctx.attachLog(serverId, {kind: 'file', path: logPath}, undefined, 'found', undefined, pid === undefined ? undefined : () => processStartMs(pid, {procRoot}));
		},
	});
}

/** Default log locations of every engine, attached to the server they belong to (the engine's `hostEnv`). */
async function defaultLogs(ctx: RuntimeContext): Promise<void> {
	if (!ctx.options.scan) return;
	for (const loc of await findExistingLogs()) {
		const input: LogInput = loc.kind === 'file' ? {kind: 'file', path: loc.path!} : {kind: 'cmd', argv: loc.argv!};
		const hostId = hostIdOf(loc.engine);
		await ctx.attachLog(hostId ?? `log:${labelOf(input)}`, input, loc.engine, 'default', hostId ? {url: hostId} : {});
	}
}

/** `--ollama-ps cli`: residency from the CLI table. */
function ollamaPsCli(ctx: RuntimeContext): Collector | undefined {
	return ctx.config.ollamaPs === 'cli' ? createOllamaPsCollector({serverId: hostIdOf('ollama')!, dispatch: ctx.dispatch}) : undefined;
}

/** The built-in demo engine: an Ollama (engine `ollama`, `demo: true`) with its log and the same poller a real Ollama gets. */
async function demoEngine(ctx: RuntimeContext, collectors: Collector[]): Promise<RunningDemo> {
	const {options, config} = ctx;
	const dir = mkdtempSync(path.join(os.tmpdir(), 'infertop-demo-'));
	// Every exit path removes it: stop() (remove), and — when the process ends without it (the
	// terminal closed, an uncaught error, process.exit from elsewhere) — the synchronous exit hook.
	const removeDir = (): void => {
		try {
			rmSync(dir, {recursive: true, force: true});
		} catch {
			// Nothing more can be done while exiting.
		}
	};
	process.once('exit', removeDir);
	const remove = (): void => {
		process.off('exit', removeDir);
		removeDir();
	};
	// Loaded only for --demo: its model tables (and node:crypto for their digests) are not a monitor's.
	const {startDemoEngine, DEMO_OLLAMA_VERSION} = await import('./demo/engine.js');
	const engine = await startDemoEngine({logPath: path.join(dir, 'server.log'), split: options.demoSplit, speed: options.demoSpeed, agent: options.demoAgent});
	const id = normalizeServerUrl(engine.url)?.id ?? engine.url;
	const info = {id, engine: 'ollama' as const, url: engine.url, source: 'demo' as const, demo: true, version: DEMO_OLLAMA_VERSION};
	ctx.dispatch({type: 'server-seen', t: Date.now(), server: info});
	if (config.bandwidth === undefined) ctx.dispatch({type: 'bandwidth', bandwidth: {gbs: engine.bandwidthGBs, source: 'demo engine (simulated)', chip: 'DEMO'}});
	await ctx.attachLog(id, {kind: 'file', path: engine.logPath}, info.engine, 'named server');
	const poller = createPoller({server: info, dispatch: ctx.dispatch, intervalMs: options.pollMs, quietMaxMs: quietPollMs(options)});
	collectors.push({start: () => poller.start(), stop: () => poller.stop()});
	poller.start();
	await poller.pollNow();
	return {engine, dir, remove, serverId: id, poller};
}

/**
 * V8 set for busy logs while they are (model/busy-gate.ts says when and why): bin/infertop.js leaves
 * a function at Symbol.for('infertop.busy') that turns V8's optimizing compiler on and off, and
 * gives its young generation room (bin/young-generation.js).
 * Nothing when run from source (tsx, the tests: V8's defaults, always on). A timer runs only while
 * lines come or it is on: none at rest.
 */
function createBusySwitch(): {lines(n: number): void; stop(): void} | undefined {
	const hook = (globalThis as Record<symbol, unknown>)[Symbol.for('infertop.busy')];
	if (typeof hook !== 'function') return undefined;
	const gate = createBusyGate();
	let applied = false;
	let lastLines = 0;
	let timer: NodeJS.Timeout | undefined;
	const tick = (): void => {
		const now = Date.now();
		const on = gate.check(now);
		if (on !== applied) {
			applied = on;
			(hook as (on: boolean) => void)(on);
		}
		if (!on && now - lastLines > 3000 && timer) {
			clearInterval(timer);
			timer = undefined;
		}
	};
	return {
		lines(n) {
			lastLines = Date.now();
			gate.add(n, lastLines);
			if (!timer) {
				timer = setInterval(tick, 1000);
				timer.unref();
			}
		},
		stop() {
			if (timer) clearInterval(timer);
			timer = undefined;
		},
	};
}

// ---- the composition root -------------------------------------------------------------------------

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
	const {config} = options;
	const store = options.store ?? createStore({host: os.hostname(), demo: config.demo === true, refreshMs: config.refresh});
	const collectors: Collector[] = [];
	const logsAttached = new Set<string>();
	/** The logs read, by file (see LogTie): a file counted twice counts every request twice. */
	const fileLogs: {path: string; serverId: string; tie: LogTie; engine?: EngineKind; source: Collector}[] = [];
	let attaching: Promise<void> = Promise.resolve();
	/** Entries dropped as another's in disguise: what their log sources still had in flight is not theirs to count. */
	const removed = new Set<string>();
	let demo: RunningDemo | undefined;
	let demoStarting: Promise<void> | undefined;
	let stopped = false;

	const namedServers = config.servers.map(s => ({url: s.url, apiKey: resolveApiKey(s) ?? (config.servers.length === 1 ? options.apiKey : undefined), source: 'flag' as const}));
	const apiKeyFor = (url: string | undefined): string | undefined => (url ? namedServers.find(s => s.url === url)?.apiKey : undefined);

	const reactions: Reaction[] = [resolveBytesPerToken(createModelBytesResolver({dispatch: a => store.dispatch(a)}))];
	const busySwitch = createBusySwitch();
	const dispatch: Dispatch = (action: Action) => {
		if (stopped) return;
		if (removed.size > 0 && removed.has('serverId' in action ? action.serverId : action.type === 'server-seen' ? action.server.id : '')) return;
		if (action.type === 'log-batch') busySwitch?.lines(action.lines.length);
		store.dispatch(action);
		for (const react of reactions) react(action, ctx);
	};

	const ctx: RuntimeContext = {
		options,
		config,
		store,
		dispatch,
		apiKeyFor,
		namedServers,
		attachLog(serverId, input, engine, tie, serverInfo, processStart) {
			// One at a time: whether a file is already read is decided in order.
			const next = attaching.then(() => attachOnce(serverId, input, engine, tie, serverInfo, processStart));
			attaching = next.catch(() => undefined);
			return next;
		},
	};

	const attachOnce = async (serverId: string, input: LogInput, engine: EngineKind | undefined, tie: LogTie, serverInfo?: Partial<ServerInfo>, processStart?: () => Promise<number | undefined>): Promise<void> => {
		if (stopped) return;
		const label = labelOf(input);
		if (logsAttached.has(`${serverId}\u0000${label}`)) return;
		if (input.kind === 'file') {
			let same: (typeof fileLogs)[number] | undefined;
			for (const f of fileLogs) if (await sameFile(f.path, input.path)) same = f;
			if (same) {
				// The same file under another name: read once. A log named alone is the found server's own
				// log (`--log-file` on its command line): it becomes that server's, read again from its
				// backlog with the process's start time, and the `log:` entry goes with all it counted.
				if (same.serverId === serverId || same.tie !== 'named alone' || tie !== 'found') return;
				fileLogs.splice(fileLogs.indexOf(same), 1);
				collectors.splice(collectors.indexOf(same.source), 1);
				await same.source.stop().catch(() => undefined);
				removed.add(same.serverId);
				store.dispatch({type: 'server-removed', serverId: same.serverId});
				dispatch({type: 'notice', t: Date.now(), level: 'info', text: sanitize(`${same.path} is the log of ${serverId} (its --log-file): read once, as that server's`)});
				engine ??= same.engine;
			}
		}
		logsAttached.add(`${serverId}\u0000${label}`);
		const existing = store.getSnapshot().servers[serverId];
		dispatch({type: 'server-seen', t: Date.now(), server: existing
			? {id: serverId, engine: existing.engine, source: existing.source, logLabel: label}
			: {id: serverId, engine: engine ?? UNKNOWN_ENGINE, source: 'log', logLabel: label, ...serverInfo}});
		const source = createLogSource({serverId, engine, input, dispatch, ...(processStart ? {processStartMs: processStart} : {})});
		if (input.kind === 'file') fileLogs.push({path: input.path, serverId, tie, ...(engine !== undefined ? {engine} : {}), source});
		collectors.push(source);
		await source.start();
	};
	const start = async (c: Collector | undefined): Promise<void> => {
		if (!c) return;
		collectors.push(c);
		await c.start();
	};

	// The collectors, in start order.
	await namedLogs(ctx);
	const bandwidthReady = bandwidth(ctx, () => demoStarting !== undefined);
	const sys = system(ctx);
	// An engine got work: the system scan leaves its quiet pace at once.
	if (sys) reactions.push(action => (isWork(action) ? sys.wake() : undefined));
	await start(sys);
	const disc = discovery(ctx);
	// ... and its poller asks again at its base pace.
	reactions.push(action => {
		if (!isWork(action) || !('serverId' in action)) return;
		disc.wake(action.serverId);
		if (demo?.serverId === action.serverId) demo.poller.wake();
	});
	collectors.push(disc);
	await defaultLogs(ctx);
	await start(ollamaPsCli(ctx));

	const startDemo = (): Promise<void> => {
		if (demo || stopped) return Promise.resolve();
		demoStarting ??= demoEngine(ctx, collectors).then(d => {
			demo = d;
		});
		return demoStarting;
	};

	const ready = (async () => {
		disc.start();
		// start() returns at once; the demo decision needs the first round's answer.
		await disc.refresh();
		await bandwidthReady;
		// A server the user named counts even when it is down: it is listed as down, not replaced by the demo.
		const found = disc.servers().length > 0 || config.servers.length > 0 || config.logs.length > 0 || options.replay !== undefined;
		if (config.demo === true || (config.demo === 'auto' && !found)) await startDemo();
		if (config.demo === 'auto' && !found && demo) dispatch({type: 'notice', t: Date.now(), level: 'info', text: 'no engine found: started the demo (DEMO on screen; --no-demo never starts it)'});
	})();

	// What the probe and the comparison share: where results go, how long a run may wait and take, keys.
	const probeSettings = {
		dispatch,
		getState: store.getSnapshot,
		historyPath: effectiveHistoryPath(config),
		busyTimeoutMs: config.busyTimeout * 1000,
		totalTimeoutMs: options.probeTimeoutMs,
		apiKeyFor,
	};
	const probe = createProbeController({
		...probeSettings,
		readLog: true,
		onHistoryError: message => dispatch({type: 'notice', t: Date.now(), level: 'warn', text: `probe history: ${message}`}),
	});

	// The comparison (key `c`): one request at a time per machine, its own run id in the history.
	const comparer = createCompareController({
		...probeSettings,
		readLog: true,
		onHistoryError: message => dispatch({type: 'notice', t: Date.now(), level: 'warn', text: `compare history: ${message}`}),
	});

	const stopTicker = store.startTicker();

	const controller: Required<RuntimeControls> = {
		probe(serverId, prompt, runs, chosen) {
			const s = store.getSnapshot().servers[serverId];
			if (!s?.url) {
				dispatch({type: 'notice', t: Date.now(), level: 'warn', text: 'this entry has no server URL to probe (log only)'});
				return;
			}
			// The model the screen shows (pinned with m, or the one running); else the server's first.
			const model = chosen ?? s.models[0]?.name;
			void probe.probe({serverId, engine: s.engine, url: s.url, model, apiKey: apiKeyFor(s.url)}, prompt ?? store.getSnapshot().probe.prompt, runs);
		},
		cancelProbe: () => probe.cancel(),
		compare: () => {
			if (probe.running) probe.cancel();
			void comparer.start();
		},
		cancelCompare: () => comparer.cancel(),
		startDemo: () => {
			void startDemo().catch(error => dispatch({type: 'notice', t: Date.now(), level: 'error', text: `demo: ${String(error)}`}));
		},
		setRefresh: ms => dispatch({type: 'refresh', refreshMs: ms}),
		loadProbeHistory: async () => {
			const file = effectiveHistoryPath(config);
			const {entries} = await readHistory(file);
			return {entries, file};
		},
		loadProfiles: async () => {
			const file = options.profilesPath ?? profilesFile();
			return {profiles: await readProfiles(file), file};
		},
		measureProfiles: async onStep => {
			// One server × model at a time (never two racing one GPU), the probe stopped first.
			if (probe.running) probe.cancel();
			const file = options.profilesPath ?? profilesFile();
			const have = await readProfiles(file).catch(() => []);
			const source = (await loadPrompt('long')).text;
			const problems: string[] = [];
			const measured: Profile[] = [];
			// Its requests not told apart while each probe waited (attributeLate).
			const late: Promise<number>[] = [];
			for (const t of compareTargets(store.getSnapshot(), apiKeyFor)) {
				if (t.model === undefined || have.some(p => p.url === t.url && p.model === t.model)) continue;
				const model = t.model;
				const unmatched: LogQuery[] = [];
				try {
					measured.push(
						await measureProfile({
							target: {serverId: t.serverId, url: t.url, engine: t.engine, model, apiKey: t.apiKey, contextWindow: t.contextLength, loaded: true},
							depths: DEFAULT_DEPTHS,
							source,
							version: VERSION,
							busyTimeoutMs: config.busyTimeout * 1000,
							expiresAt: async () => store.getSnapshot().servers[t.serverId ?? '']?.models.find(m => m.name === model)?.expiresAt,
							onStep: line => onStep(`${t.url} ${model}: ${line}`),
							// Its requests in the log are infertop's own, not an agent's turns.
							...(t.serverId !== undefined
								? {
										logFigures: (q: LogQuery) => matchProbeRequest(store.getSnapshot(), t.serverId!, q),
										onLogRequest: (key: string, m: string) => dispatch({type: 'request-attributed', serverId: t.serverId!, key, model: m, by: 'probe'}),
										onUnmatchedLog: (q: LogQuery) => unmatched.push(q),
									}
								: {}),
						}),
					);
				} catch (error) {
					problems.push(`${t.url} ${model}: ${error instanceof Error ? error.message : String(error)}`);
				}
				if (t.serverId !== undefined && unmatched.length > 0) late.push(attributeLate(() => store.getSnapshot(), dispatch, t.serverId, unmatched));
			}
			if (measured.length > 0) await saveProfiles(file, measured);
			// Done when its own requests are told from an agent's (each waits at most LATE_MATCH_MS).
			await Promise.all(late);
			return {measured: measured.length, problems};
		},
	};

	return {
		store,
		dispatch,
		controller,
		ready,
		demo: () => demo?.engine,
		async stop() {
			if (stopped) return;
			// What runs now stops first, discovery with the rest: a `cmd:` log's child is killed and a
			// round under way (a long list of silent servers) aborted, never waited for.
			const early = [...collectors];
			await Promise.all(early.map(c => c.stop().catch(() => undefined)));
			await ready.catch(() => undefined);
			await demoStarting?.catch(() => undefined);
			stopped = true;
			stopTicker();
			busySwitch?.stop();
			probe.cancel();
			comparer.cancel();
			await Promise.all(collectors.filter(c => !early.includes(c)).map(c => c.stop().catch(() => undefined)));
			await demo?.engine.stop().catch(() => undefined);
			demo?.remove();
		},
	};
}
