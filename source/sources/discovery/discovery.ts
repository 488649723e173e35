/**
 * Zero configuration: find every engine on this machine (default ports on loopback, engine
 * processes and the ports they listen on) plus the servers the user names, identify each by an
 * unambiguous marker, and keep one poller per server. Re-runs in the background (cheap: one TCP
 * connect per port; fingerprints only for ports not already answering). Never blocks: all network
 * work is async with deadlines and its results are dispatched.
 */
import {sharedAbortController} from '../http-get.js';
import type {Collector, Dispatch, ServerInfo, ServerSource} from '../../types/state.js';
import {fingerprint, type Identity} from './fingerprint.js';
import {DEFAULT_PORTS, scanPorts} from './port-scan.js';
import {createPoller, type ServerPoller} from './pollers.js';
import {createProcessFinder, ENGINE_PROCESS_NAMES, type EngineProcess, type ProcessFinder} from './processes.js';
import {normalizeServerUrl} from './server-id.js';
import {UNKNOWN_ENGINE} from '../../engines/index.js';
import {portOwnerPid} from '../port-owner.js';

export interface NamedServer {
	readonly url: string;
	/** Sent as `Authorization: Bearer` to this server only. */
	readonly apiKey?: string;
	readonly source: 'flag' | 'config';
}

export interface DiscoveryOptions {
	readonly dispatch: Dispatch;
	/** `--server URL` (repeatable) and config entries; remote hosts allowed. */
	readonly servers?: readonly NamedServer[];
	/** Scan loopback ports and look for engine processes (default true). */
	readonly scan?: boolean;
	/** Time between two discovery rounds (default 5000 ms). */
	readonly intervalMs?: number;
	/**
	 * While rounds find nothing new (the same servers, the same engine processes) the time between
	 * them doubles up to this (ms); a round that finds or loses something brings it back to
	 * intervalMs. Default: intervalMs (no back-off).
	 */
	readonly quietIntervalMs?: number;
	/** A llama-server `--log-file` found on a command line, for the log tailer. */
	readonly onLogFound?: (serverId: string, path: string) => void;
	/** Base URLs never to report (the embedded demo engine, …). */
	readonly excludeUrls?: readonly string[];
	/** Ports to scan (default DEFAULT_PORTS); process ports are added. Tests inject their own. */
	readonly ports?: readonly number[];
	/** Loopback hosts tried per port (default 127.0.0.1 then ::1). */
	readonly hosts?: readonly string[];
	/** Time between two polls of one server (default 2000 ms). */
	readonly pollIntervalMs?: number;
	/** A poller's longest wait while its server's answers do not change (default: no back-off); see PollerOptions.quietMaxMs. */
	readonly pollQuietMaxMs?: number;
	readonly connectTimeoutMs?: number;
	/** Deadline for a fingerprint / a poll request (default 800 ms / 1500 ms). */
	readonly fingerprintTimeoutMs?: number;
	readonly pollTimeoutMs?: number;
	/** Process lister (default systeminformation, at most every 10 s). */
	readonly processFinder?: ProcessFinder;
	/**
	 * The process listening on a local port (default: sources/port-owner.ts). A named local server
	 * that no engine process by name explains is tied to its process this way, scan or not.
	 */
	readonly portOwner?: (port: number) => Promise<number | undefined>;
	/** Log locations looked at by others (log-locations.ts), for the empty state. */
	readonly lookedForLogs?: readonly string[];
	/**
	 * A port that answers HTTP but is no engine is asked again only after this long (default 60 s),
	 * so an unrelated web server's access log does not fill with our probes; a port that accepts and
	 * never answers, after a quarter of it.
	 */
	readonly retryUnknownMs?: number;
	readonly now?: () => number;
}

export interface Discovery extends Collector {
	/** Servers identified so far (named first, then in the order found). */
	servers(): ServerInfo[];
	/** Run one discovery round now (joins one in flight). */
	refresh(): Promise<void>;
	/** A server got work: its poller leaves its quiet pace. */
	wake(serverId: string): void;
}

interface Entry {
	info: ServerInfo & {url: string};
	poller: ServerPoller;
	apiKey?: string;
	named: boolean;
	port?: number;
}

function portOf(url: string): number | undefined {
	try {
		const u = new URL(url);
		return Number(u.port || (u.protocol === 'https:' ? 443 : 80));
	} catch {
		return undefined;
	}
}

function isLoopback(url: string): boolean {
	try {
		const h = new URL(url).hostname;
		return h === 'localhost' || h === '[::1]' || /^127\./.test(h);
	} catch {
		return false;
	}
}

/** Named servers identified at once, at most (each identification asks a handful of paths at once). */
export const NAMED_AT_ONCE = 32;

/** `fn` over `items`, at most `limit` at a time, none started once `signal` is aborted. */
async function eachLimited<T>(items: readonly T[], limit: number, signal: AbortSignal, fn: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < items.length && !signal.aborted) await fn(items[next++]!);
	};
	await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker));
}

export function createDiscovery(options: DiscoveryOptions): Discovery {
	const {dispatch} = options;
	const scan = options.scan ?? true;
	const intervalMs = options.intervalMs ?? 5000;
	const quietIntervalMs = Math.max(intervalMs, options.quietIntervalMs ?? intervalMs);
	let roundEvery = intervalMs;
	// what a round changed: servers added or replaced, processes that came or went, a named server down
	let news = 0;
	const now = options.now ?? Date.now;
	const basePorts = options.ports ?? DEFAULT_PORTS;
	const finder = scan ? (options.processFinder ?? createProcessFinder()) : undefined;
	const portOwner = options.portOwner ?? ((port: number) => portOwnerPid(port));
	const excluded = new Set((options.excludeUrls ?? []).map((u) => normalizeServerUrl(u)?.id).filter((id): id is string => id !== undefined));
	const named = (options.servers ?? [])
		.map((s) => ({...s, norm: normalizeServerUrl(s.url)}))
		.filter((s): s is NamedServer & {norm: NonNullable<ReturnType<typeof normalizeServerUrl>>} => s.norm !== undefined);
	const namedIds = new Set(named.map((s) => s.norm.id));
	const entries = new Map<string, Entry>();
	const logsSent = new Set<string>();
	const noticed = new Map<string, string>();
	const retryUnknownMs = options.retryUnknownMs ?? 60_000;
	/** Ports that answered but are no engine (or never answered): id → time to ask again. */
	const unknownUntil = new Map<string, number>();
	let processes: readonly EngineProcess[] = [];
	let running = false;
	let timer: ReturnType<typeof setTimeout> | undefined;
	let inflight: Promise<void> | undefined;
	let lookedForJson: string | undefined;
	let controller = sharedAbortController();

	const notice = (key: string, text: string, level: 'info' | 'warn' | 'error' = 'warn') => {
		if (noticed.get(key) === text) return;
		noticed.set(key, text);
		dispatch({type: 'notice', t: now(), text, level});
	};

	const processForPort = (port: number | undefined, url: string): EngineProcess | undefined =>
		port === undefined || !isLoopback(url) ? undefined : processes.find((p) => p.ports.includes(port));

	const addServer = (id: string, url: string, identity: Identity, source: ServerSource, apiKey?: string) => {
		const old = entries.get(id);
		if (old) void old.poller.stop();
		const port = portOf(url);
		const proc = processForPort(port, url);
		const info: ServerInfo & {url: string} = {
			id,
			engine: identity.engine,
			url,
			source,
			...(identity.version !== undefined ? {version: identity.version} : {}),
			...(proc ? {pid: proc.pid} : {}),
		};
		const entry: Entry = {info, apiKey, named: source === 'flag' || source === 'config', port, poller: undefined as unknown as ServerPoller};
		entry.poller = createPoller({
			server: info,
			dispatch,
			apiKey,
			intervalMs: options.pollIntervalMs,
			quietMaxMs: options.pollQuietMaxMs,
			timeoutMs: options.pollTimeoutMs,
			now,
			pidOf: () => entry.info.pid,
			// Back after being lost: is it still the same engine on that address?
			onBack: () => void recheck(id),
		});
		entries.set(id, entry);
		news++;
		dispatch({type: 'server-seen', t: now(), server: info});
		if (running) entry.poller.start();
		// A named server identified after this round's process scan: its process now, not a round later.
		if (proc) attachProcess(entry);
		else if (entry.named && port !== undefined && isLoopback(url)) void tieToPortOwner(id, entry, port);
	};

	/** A named local server: the process listening on its port, when no engine process by name was. */
	const tieToPortOwner = async (id: string, entry: Entry, port: number) => {
		const pid = await portOwner(port).catch(() => undefined);
		if (pid === undefined || controller.signal.aborted || entries.get(id) !== entry || entry.info.pid !== undefined) return;
		entry.info = {...entry.info, pid};
		dispatch({type: 'server-seen', t: now(), server: entry.info});
	};

	const recheck = async (id: string) => {
		const entry = entries.get(id);
		if (!entry) return;
		const fp = await fingerprint(entry.info.url, {timeoutMs: options.fingerprintTimeoutMs, apiKey: entry.apiKey, signal: controller.signal});
		if (controller.signal.aborted || entries.get(id) !== entry) return;
		if (fp.identity && fp.identity.engine !== entry.info.engine) addServer(id, entry.info.url, fp.identity, entry.info.source, entry.apiKey);
	};

	/** A server's process (its pid, the log it writes), where the process table has it. */
	const attachProcess = (entry: Entry) => {
		const proc = processForPort(entry.port, entry.info.url);
		if (!proc) return;
		if (proc.pid !== entry.info.pid) {
			entry.info = {...entry.info, pid: proc.pid};
			dispatch({type: 'server-seen', t: now(), server: entry.info});
		}
		if (proc.logFile && options.onLogFound) {
			const key = `${entry.info.id}\u0000${proc.logFile}`;
			if (!logsSent.has(key)) {
				logsSent.add(key);
				options.onLogFound(entry.info.id, proc.logFile);
			}
		}
	};
	const attachProcesses = () => {
		for (const entry of entries.values()) attachProcess(entry);
	};

	const lookedFor = (ports: readonly number[]) => {
		const logs = [...new Set([...(options.lookedForLogs ?? []), ...processes.map((p) => p.logFile).filter((p): p is string => p !== undefined)])];
		const value = {ports: [...ports], processes: scan ? [...ENGINE_PROCESS_NAMES] : [], logs};
		const json = JSON.stringify(value);
		if (json === lookedForJson) return;
		lookedForJson = json;
		dispatch({type: 'looked-for', lookedFor: value});
	};

	const scanPortList = (): number[] => {
		const set = new Set<number>(basePorts);
		for (const p of processes) for (const port of p.ports) set.add(port);
		return [...set];
	};

	const round = async (): Promise<void> => {
		const signal = controller.signal;
		// Named servers first: they carry their own key, and win over a scan of the same address.
		// A bounded number at a time: a long list must not open hundreds of sockets at once.
		const namedWork = eachLimited(
			named.filter((s) => {
				const e = entries.get(s.norm.id);
				return !e || e.poller.lifecycle() === 'lost';
			}),
			NAMED_AT_ONCE,
			signal,
			async (s) => {
				const fp = await fingerprint(s.norm.url, {timeoutMs: options.fingerprintTimeoutMs, apiKey: s.apiKey, signal});
				if (signal.aborted) return;
				const existing = entries.get(s.norm.id);
				if (fp.identity) {
					if (!existing || existing.info.engine !== fp.identity.engine) addServer(s.norm.id, s.norm.url, fp.identity, s.source, s.apiKey);
					noticed.delete(s.norm.id);
				} else if (!existing) {
					// Listed as down with the reason, never dropped: the user named it.
					const why = fp.error ?? 'not an inference server';
					if (noticed.get(s.norm.id) !== `${s.norm.url}: ${why}`) {
						news++;
						dispatch({type: 'server-down', t: now(), server: {id: s.norm.id, engine: UNKNOWN_ENGINE, url: s.norm.url, source: s.source}, error: why});
					}
					notice(s.norm.id, `${s.norm.url}: ${why}`);
				}
			},
		);
		let scanWork: Promise<void> = Promise.resolve();
		if (scan) {
			scanWork = (async () => {
				const found = (await finder?.find()) ?? [];
				if (JSON.stringify(found.map((p) => [p.pid, p.ports])) !== JSON.stringify(processes.map((p) => [p.pid, p.ports]))) news++;
				processes = found;
				if (signal.aborted) return;
				const ports = scanPortList();
				lookedFor(ports);
				const results = await scanPorts({
					ports,
					hosts: options.hosts,
					connectTimeoutMs: options.connectTimeoutMs,
					fingerprintTimeoutMs: options.fingerprintTimeoutMs,
					signal,
					skip: (id) => {
						if (excluded.has(id) || namedIds.has(id)) return true;
						if ((unknownUntil.get(id) ?? -Infinity) > now()) return true;
						const e = entries.get(id);
						return e !== undefined && e.poller.lifecycle() !== 'lost';
					},
				});
				if (signal.aborted) return;
				for (const r of results) {
					if (!r.open) unknownUntil.delete(r.id);
					const fp = r.fingerprint;
					const identity = fp?.identity;
					if (fp && !identity) {
						// Not an engine: ask again later. A partial answer (some requests timed out) is retried next round.
						if (fp.error === 'not an inference server') unknownUntil.set(r.id, now() + retryUnknownMs);
						else if (!fp.answered) unknownUntil.set(r.id, now() + retryUnknownMs / 4);
					}
					if (!identity) continue;
					unknownUntil.delete(r.id);
					const existing = entries.get(r.id);
					if (existing && existing.info.engine === identity.engine) continue;
					const proc = processes.find((p) => p.ports.includes(r.port));
					addServer(r.id, r.id, identity, proc ? 'process' : 'port-scan');
				}
				attachProcesses();
			})();
		} else {
			lookedFor([]);
		}
		await Promise.all([namedWork, scanWork]);
	};

	// One chain per start(): a stop()+start() must not leave the old chain scheduling too.
	let generation = 0;
	const schedule = (g: number) => {
		if (!running || g !== generation || timer !== undefined) return;
		timer = setTimeout(() => {
			timer = undefined;
			const before = news;
			void discovery.refresh().finally(() => {
				// nothing new: ask less often (a named server that is down or lost is asked at the base pace)
				const lost = named.some((n) => !entries.has(n.norm.id)) || [...entries.values()].some((e) => e.named && e.poller.lifecycle() === 'lost');
				roundEvery = news !== before || lost ? intervalMs : Math.min(quietIntervalMs, roundEvery * 2);
				schedule(g);
			});
		}, roundEvery);
	};

	const discovery: Discovery = {
		start() {
			if (running) return;
			running = true;
			controller = sharedAbortController();
			for (const e of entries.values()) e.poller.start();
			lookedFor(scan ? scanPortList() : []);
			const g = ++generation;
			void discovery.refresh().finally(() => schedule(g));
		},
		async stop() {
			running = false;
			if (timer !== undefined) clearTimeout(timer);
			timer = undefined;
			controller.abort();
			await inflight;
			await Promise.all([...entries.values()].map((e) => e.poller.stop()));
		},
		wake(serverId) {
			entries.get(serverId)?.poller.wake();
		},
		refresh() {
			inflight ??= round()
				.catch((e: unknown) => notice('discovery', `discovery failed: ${(e as Error)?.message ?? String(e)}`, 'error'))
				.finally(() => {
					inflight = undefined;
				});
			return inflight;
		},
		servers() {
			const list = [...entries.values()];
			list.sort((a, b) => Number(b.named) - Number(a.named));
			return list.map((e) => e.info);
		},
	};
	return discovery;
}

export type DiscoverOnceOptions = Omit<DiscoveryOptions, 'dispatch' | 'intervalMs' | 'onLogFound'> & {readonly dispatch?: Dispatch};

/** One discovery round without pollers (headless `probe`: take the first). Named servers first. */
export async function discoverOnce(options: DiscoverOnceOptions = {}): Promise<ServerInfo[]> {
	const d = createDiscovery({...options, dispatch: options.dispatch ?? (() => {})});
	try {
		await d.refresh();
		return d.servers();
	} finally {
		await d.stop();
	}
}
