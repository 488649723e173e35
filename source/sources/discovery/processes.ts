/**
 * Engine processes by name and command line, their listening ports where the platform says,
 * and the log file a llama-server was told to write (`--log-file PATH`).
 * systeminformation's process list is expensive: `createProcessFinder` asks at most every 10 s.
 */
import type {EngineKind} from '../../types/events.js';
import path from 'node:path';
import {engineOf, ENGINE_PROCESS_NAMES, engineProcessKind} from '../../engines/index.js';
import {readLinuxCwd, readLinuxListening} from '../linux-hw.js';
import {createProcessSampler, hasLeanSampler, type ProcessSampler} from '../process-sampler.js';

/** Names looked for (for the empty state): every engine descriptor's. */
export {ENGINE_PROCESS_NAMES};

/** A process as systeminformation lists it (the fields used here). */
export interface ProcessRow {
	readonly pid: number;
	readonly parentPid?: number;
	readonly name: string;
	readonly command?: string;
	readonly params?: string;
	readonly path?: string;
	/** The arguments one by one, where the platform gives them and one holds white space. */
	readonly argv?: readonly string[];
}

/** A listening socket as systeminformation lists it (the fields used here). */
export interface ConnectionRow {
	readonly protocol?: string;
	readonly localAddress?: string;
	readonly localPort: string | number;
	readonly state?: string;
	readonly pid?: number | null;
}

export interface EngineProcess {
	readonly pid: number;
	readonly engine: EngineKind;
	readonly name: string;
	/** Full command line (command + params). */
	readonly commandLine: string;
	/** Ports it listens on: from the socket table where the platform tells, else `--port N`. */
	readonly ports: readonly number[];
	/** `--log-file PATH` from a llama-server command line. */
	readonly logFile?: string;
}

/**
 * The engine SERVER a process runs, from its name and full command line; undefined when none.
 * Recognition is engines/index.ts `engineProcessKind` (one matcher for the whole app); discovery then
 * drops what is not a server of its own: Ollama's runners (`ollama runner`, `ollama_llama_server`,
 * the llama-server Ollama ≥ 0.30 spawns from its install folder — their figures come from Ollama's
 * log), llama.cpp tools other than llama-server, and vLLM/SGLang worker processes.
 */
export function engineOfProcess(name: string, commandLine: string): EngineKind | undefined {
	const kind = engineProcessKind(name, commandLine);
	if (!kind) return undefined;
	const isServer = engineOf(kind).process?.isServer;
	return !isServer || isServer(name, commandLine) ? kind : undefined;
}

/** Value of `--flag VALUE` / `--flag=VALUE` (quoted or not) in a command line. */
export function flagValue(commandLine: string, ...flags: string[]): string | undefined {
	for (const flag of flags) {
		const escaped = flag.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');
		const m = new RegExp(`(?:^|\\s)${escaped}(?:=|\\s+)(?:"([^"]*)"|'([^']*)'|(\\S+))`).exec(commandLine);
		if (m) return m[1] ?? m[2] ?? m[3];
	}
	return undefined;
}

/** Value of `--flag VALUE` / `--flag=VALUE` in an argument list (a value may hold spaces or newlines). */
export function flagValueOfArgv(argv: readonly string[], flag: string): string | undefined {
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i]!;
		if (a === flag) return argv[i + 1];
		if (a.startsWith(`${flag}=`)) return a.slice(flag.length + 1);
	}
	return undefined;
}

/** `--log-file PATH` of a llama-server (also `LLAMA_LOG_FILE`-style flags are not in argv). */
export function logFileFromCommand(commandLine: string): string | undefined {
	return flagValue(commandLine, '--log-file');
}

/** `--port N` where the command line says. */
export function portFromCommand(commandLine: string): number | undefined {
	const v = flagValue(commandLine, '--port');
	const n = v === undefined ? NaN : Number(v);
	return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
}

/** Pure: engine processes out of a process list and a socket table. */
export function findEngineProcesses(processes: readonly ProcessRow[], connections: readonly ConnectionRow[] = []): EngineProcess[] {
	const listening = new Map<number, Set<number>>();
	for (const c of connections) {
		if (c.pid === null || c.pid === undefined) continue;
		if (c.state !== undefined && c.state.toUpperCase() !== 'LISTEN') continue;
		if (c.protocol !== undefined && !/^tcp/i.test(c.protocol)) continue;
		const port = Number(c.localPort);
		if (!Number.isInteger(port) || port <= 0) continue;
		let set = listening.get(c.pid);
		if (!set) listening.set(c.pid, (set = new Set()));
		set.add(port);
	}
	const pidsOf = new Map<EngineKind, Set<number>>();
	const rows = processes.map((p) => {
		const commandLine = [p.command ?? '', p.params ?? ''].join(' ').trim() || p.name;
		const engine = engineOfProcess(p.name, commandLine);
		if (engine) {
			let set = pidsOf.get(engine);
			if (!set) pidsOf.set(engine, (set = new Set()));
			set.add(p.pid);
		}
		return {p, commandLine, engine};
	});
	const out: EngineProcess[] = [];
	for (const {p, commandLine, engine} of rows) {
		if (!engine) continue;
		// A llama-server spawned by Ollama is Ollama's runner, not a server of its own.
		const rule = engineOf(engine).process;
		if (rule?.childOf !== undefined && p.parentPid !== undefined && pidsOf.get(rule.childOf)?.has(p.parentPid)) continue;
		const fromTable = [...(listening.get(p.pid) ?? [])].sort((a, b) => a - b);
		const flagPort = portFromCommand(commandLine);
		const ports = fromTable.length > 0 ? fromTable : flagPort !== undefined ? [flagPort] : [];
		const logFile = rule?.logFileFlag === undefined ? undefined : p.argv !== undefined ? flagValueOfArgv(p.argv, rule.logFileFlag) : flagValue(commandLine, rule.logFileFlag);
		out.push({pid: p.pid, engine, name: p.name, commandLine, ports, ...(logFile !== undefined ? {logFile} : {})});
	}
	return out;
}

export interface ProcessFinderOptions {
	/** Minimum time between two process-table reads (default 10 s). */
	readonly minIntervalMs?: number;
	/** Injected for tests; default systeminformation. */
	readonly listProcesses?: () => Promise<readonly ProcessRow[]>;
	/** The engines' pids are given (Linux reads only their sockets). */
	readonly listConnections?: (pids: readonly number[]) => Promise<readonly ConnectionRow[]>;
	/** A process's working folder, against which a relative `--log-file` is resolved (default: Linux /proc/PID/cwd). */
	readonly cwdOf?: (pid: number) => Promise<string | undefined>;
	/** Read the process table, sockets and working folders from this Linux /proc tree (tests). */
	readonly procRoot?: string;
	readonly now?: () => number;
}

export interface ProcessFinder {
	/** Engine processes, at most `minIntervalMs` old; never throws (empty on failure). */
	find(): Promise<readonly EngineProcess[]>;
	/** Why the last read failed, if it did. */
	lastError(): string | undefined;
}

let lean: ProcessSampler | undefined;

const rowsOf = async (sampler: ProcessSampler): Promise<ProcessRow[]> =>
	(await sampler.sample(new Set())).processes.map((p) => ({pid: p.pid, ...(p.ppid !== undefined ? {parentPid: p.ppid} : {}), name: p.name, ...(p.command !== undefined ? {command: p.command} : {}), ...(p.argv !== undefined ? {argv: p.argv} : {})}));

/** Engine candidates from the lean sampler (/proc, or one `ps` on macOS); systeminformation elsewhere. */
async function defaultProcesses(): Promise<readonly ProcessRow[]> {
	if (hasLeanSampler()) {
		lean ??= createProcessSampler({busyPct: Infinity});
		if (lean) return rowsOf(lean);
	}
	const si = await import('systeminformation');
	const data = await si.processes();
	return data.list;
}

async function defaultConnections(pids: readonly number[]): Promise<readonly ConnectionRow[]> {
	// Linux: /proc/net/tcp and the engines' open sockets (sources/linux-hw.ts), not systeminformation
	if (process.platform === 'linux') return readLinuxListening(pids);
	const si = await import('systeminformation');
	return si.networkConnections();
}

/** A `--log-file` as the process sees it: a relative path is relative to the process's working folder, not to infertop's. */
async function resolveLogFiles(found: EngineProcess[], cwdOf: (pid: number) => Promise<string | undefined>): Promise<EngineProcess[]> {
	return Promise.all(
		found.map(async (p) => {
			if (p.logFile === undefined || path.isAbsolute(p.logFile)) return p;
			const cwd = await cwdOf(p.pid).catch(() => undefined);
			return cwd === undefined ? p : {...p, logFile: path.resolve(cwd, p.logFile)};
		}),
	);
}

export function createProcessFinder(options: ProcessFinderOptions = {}): ProcessFinder {
	const minIntervalMs = options.minIntervalMs ?? 10_000;
	const now = options.now ?? Date.now;
	const {procRoot} = options;
	// A fake /proc tree (tests) is read the way Linux's is, on any platform.
	const sampler = procRoot === undefined ? undefined : createProcessSampler({platform: 'linux', procRoot, busyPct: Infinity});
	const listProcesses = options.listProcesses ?? (sampler ? () => rowsOf(sampler) : defaultProcesses);
	const listConnections = options.listConnections ?? (procRoot !== undefined ? (pids: readonly number[]) => readLinuxListening(pids, {procRoot}) : defaultConnections);
	const cwdOf = options.cwdOf ?? (procRoot !== undefined || process.platform === 'linux' ? (pid: number) => readLinuxCwd(pid, {procRoot}) : async () => undefined);
	let cached: readonly EngineProcess[] = [];
	let at = -Infinity;
	let inflight: Promise<readonly EngineProcess[]> | undefined;
	let error: string | undefined;
	const read = async (): Promise<readonly EngineProcess[]> => {
		try {
			const procs = await listProcesses();
			const engines = procs.filter((p) => engineOfProcess(p.name, [p.command ?? '', p.params ?? ''].join(' ').trim() || p.name) !== undefined);
			// The socket table is only worth reading when an engine process runs.
			let conns: readonly ConnectionRow[] = [];
			if (engines.length > 0) {
				try {
					conns = await listConnections(engines.map((p) => p.pid));
				} catch {
					conns = [];
				}
			}
			cached = await resolveLogFiles(findEngineProcesses(procs, conns), cwdOf);
			error = undefined;
		} catch (e) {
			error = `process list unavailable: ${(e as Error)?.message ?? String(e)}`.slice(0, 160);
		}
		at = now();
		return cached;
	};
	return {
		find() {
			if (inflight) return inflight;
			if (now() - at < minIntervalMs) return Promise.resolve(cached);
			inflight = read().finally(() => {
				inflight = undefined;
			});
			return inflight;
		},
		lastError: () => error,
	};
}
