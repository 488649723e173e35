/**
 * What else competes for the machine while the engines work (pure; no I/O).
 *
 * Input: successive process-table samples plus swap/pressure/power/GPU apps. Output: ContentionState.
 * Engine processes (the watched pids, anything engines/index.ts `engineProcessKind` recognises) and infertop with
 * its children are NEVER counted as contention; engines are listed separately, because two engine
 * servers on one machine at once is the classic mistake (seed 004).
 */
import {engineProcessKind} from '../engines/index.js';
import type {EngineKind} from '../types/events.js';
import type {ContentionState, EngineProcess, GpuProcess, HotProcess} from '../types/system.js';
import {sanitize} from '../util/sanitize.js';

/** One row of a process table. cpuPct as top shows it: 100 = one core. */
export interface ProcSample {
	readonly pid: number;
	readonly ppid?: number;
	readonly name: string;
	/** Full command line where known. */
	readonly command?: string;
	/** The arguments as the process has them, where one holds white space (the command line joined with spaces cannot say where it ends). */
	readonly argv?: readonly string[];
	readonly cpuPct?: number;
	readonly memRssBytes?: number;
}

function base(p: string): string {
	const s = p.replace(/\\/g, '/');
	return s.slice(s.lastIndexOf('/') + 1);
}

export interface ContentionOptions {
	/** CPU % (100 = one core) from which another process counts as competing. Default 25. */
	readonly hotPct?: number;
	/** How many hot processes to list. Default 5. */
	readonly topN?: number;
	/** Swap growth within swapWindowMs (bytes) that counts as active pressure. Default 32 MiB. */
	readonly swapGrowthBytes?: number;
	/** Window for swap growth, ms. Default 10 s. */
	readonly swapWindowMs?: number;
	/** Swap from which it is mentioned in the verdict. Default 100 MB. */
	readonly swapNoteBytes?: number;
	/** Engine CPU % from which an engine server counts as busy. Default 5. */
	readonly engineBusyPct?: number;
}

export type MemoryPressureLevel = NonNullable<ContentionState['memoryPressureLevel']>;

export interface ContentionInput {
	/** ms epoch of this sample. */
	readonly t: number;
	/** Process table; undefined = not scanned this time (hot list kept from the last scan). */
	readonly processes?: readonly ProcSample[];
	/** infertop's own pid; it and its descendants are excluded. */
	readonly selfPid?: number;
	/** Pids of engines infertop watches; they and their descendants are never contention. */
	readonly enginePids?: ReadonlySet<number>;
	/** nvidia-smi compute apps (all of them; engines are told apart here). */
	readonly gpuApps?: readonly GpuProcess[];
	readonly swapUsedBytes?: number;
	readonly swapTotalBytes?: number;
	readonly memoryPressure?: string;
	readonly memoryPressureLevel?: MemoryPressureLevel;
	readonly power?: ContentionState['power'];
	/** Logical cores (a quarter of the machine = cores × 25 % CPU). */
	readonly cores?: number;
	/** The whole machine's CPU load over the last window, 0..100 (counts jobs too short-lived to be listed). */
	readonly machineCpuPct?: number;
}

export interface ContentionResult {
	readonly state: ContentionState;
	/** GPU apps with isEngine set (for SystemState.gpuProcesses). */
	readonly gpuProcesses: readonly GpuProcess[];
}

interface Track {
	readonly name: string;
	readonly since: number;
}

/** Human duration for the verdict: `40 s`, `3 min`, `1 h 5 min`. */
export function shortDuration(ms: number): string {
	const s = Math.floor(ms / 1000);
	if (s < 60) return `${s} s`;
	const m = Math.floor(s / 60);
	if (m < 60) return `${m} min`;
	const h = Math.floor(m / 60);
	return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
}

/** Decimal bytes in words for the verdict: `2.1 GB`, `512 MB`. */
export function shortBytes(b: number): string {
	if (b >= 1e9) return `${(b / 1e9).toFixed(1)} GB`;
	if (b >= 1e6) return `${Math.round(b / 1e6)} MB`;
	return `${Math.round(b / 1e3)} KB`;
}

function pct(v: number): string {
	return `${Math.round(v)} %`;
}

/** Pids that descend from any of `roots` (roots included), given a process table. */
export function descendantsOf(roots: Iterable<number>, processes: readonly ProcSample[]): Set<number> {
	const children = new Map<number, number[]>();
	for (const p of processes) {
		if (p.ppid === undefined) continue;
		const list = children.get(p.ppid);
		if (list) list.push(p.pid);
		else children.set(p.ppid, [p.pid]);
	}
	const out = new Set<number>();
	const stack = [...roots];
	while (stack.length > 0) {
		const pid = stack.pop()!;
		if (out.has(pid)) continue;
		out.add(pid);
		for (const c of children.get(pid) ?? []) stack.push(c);
	}
	return out;
}

/**
 * A tracker over successive samples: remembers since when each process has been hot (by pid and
 * name, so a reused pid starts afresh). Processes that vanish are dropped.
 */
export function createContentionTracker(options: ContentionOptions = {}) {
	const hotPct = options.hotPct ?? 25;
	const topN = options.topN ?? 5;
	const swapGrowth = options.swapGrowthBytes ?? 32 * 1024 * 1024;
	const swapNote = options.swapNoteBytes ?? 100e6;
	const swapWindow = options.swapWindowMs ?? 10_000;
	const engineBusy = options.engineBusyPct ?? 5;
	let tracks = new Map<number, Track>();
	let groupTracks = new Map<string, Track>();
	let nextGroups = new Map<string, Track>();
	/** CPU % (100 = one core) of every listed process other than engines and infertop, last scan. */
	let othersPct = 0;
	let lastHot: HotProcess[] = [];
	let lastEngines: EngineProcess[] = [];
	let lastTable: readonly ProcSample[] = [];
	let lastScanT: number | undefined;
	const swapSeen: {t: number; v: number}[] = [];

	function update(input: ContentionInput): ContentionResult {
		const watched = input.enginePids ?? new Set<number>();
		if (input.processes !== undefined) {
			const table = input.processes;
			const byPid = new Map(table.map((p) => [p.pid, p]));
			const kinds = new Map<number, EngineKind>();
			for (const p of table) {
				const k = engineProcessKind(p.name, p.command ?? '');
				if (k !== undefined) kinds.set(p.pid, k);
			}
			const selfTree = input.selfPid !== undefined ? descendantsOf([input.selfPid], table) : new Set<number>();
			const engineTree = descendantsOf([...watched, ...kinds.keys()], table);

			// Engine servers: engine processes whose parent is not itself in an engine tree.
			const engineRoots = [...new Set([...watched, ...kinds.keys()])].filter((pid) => {
				const p = byPid.get(pid);
				if (!p || selfTree.has(pid)) return false;
				return p.ppid === undefined || !engineTree.has(p.ppid);
			});
			const engines: EngineProcess[] = engineRoots.map((pid) => {
				const p = byPid.get(pid)!;
				const tree = descendantsOf([pid], table);
				let cpu: number | undefined;
				for (const q of tree) {
					const c = byPid.get(q)?.cpuPct;
					if (c !== undefined) cpu = (cpu ?? 0) + c;
				}
				const kind = kinds.get(pid) ?? [...tree].map((q) => kinds.get(q)).find((k) => k !== undefined);
				return {
					pid,
					name: sanitize(p.name, 64),
					engine: kind ?? 'engine',
					...(cpu !== undefined ? {cpuPct: cpu} : {}),
					...(watched.has(pid) ? {watched: true} : {}),
					...(tree.size > 1 ? {children: tree.size - 1} : {}),
				};
			});
			engines.sort((a, b) => (b.cpuPct ?? 0) - (a.cpuPct ?? 0) || a.pid - b.pid);

			// Other processes grouped by command name, so many short jobs (a compiler's cc1plus ×12)
			// add up: a group is hot when its sum reaches hotPct, however small each member is.
			const next = new Map<number, Track>();
			const groups = new Map<string, {members: ProcSample[]; cpu: number}>();
			othersPct = 0;
			for (const p of table) {
				if (selfTree.has(p.pid) || engineTree.has(p.pid)) continue;
				if (p.cpuPct === undefined || !Number.isFinite(p.cpuPct) || p.cpuPct <= 0) continue;
				othersPct += p.cpuPct;
				const g = groups.get(p.name) ?? {members: [], cpu: 0};
				g.members.push(p);
				g.cpu += p.cpuPct;
				groups.set(p.name, g);
			}
			const hot: HotProcess[] = [];
			for (const [name, g] of groups) {
				if (!(g.cpu >= hotPct)) continue;
				const lead = g.members.reduce((a, b) => ((b.cpuPct ?? 0) > (a.cpuPct ?? 0) ? b : a));
				// Tracked by name: the group stays hot while its jobs come and go.
				const prev = groupTracks.get(name);
				const since = prev ? prev.since : input.t;
				nextGroups.set(name, {name, since});
				if (g.members.length === 1) {
					const prevPid = tracks.get(lead.pid);
					next.set(lead.pid, {name: lead.name, since: prevPid && prevPid.name === lead.name ? prevPid.since : since});
				}
				hot.push({
					pid: lead.pid,
					name: sanitize(name, 64),
					...(lead.command && g.members.length === 1 ? {command: sanitize(lead.command, 256)} : {}),
					cpuPct: g.cpu,
					hotForMs: Math.max(0, input.t - since),
					...(g.members.length > 1 ? {count: g.members.length, pids: g.members.slice(0, 32).map(m => m.pid)} : {}),
					...(lead.memRssBytes !== undefined && g.members.length === 1 ? {memRssBytes: lead.memRssBytes} : {}),
				});
			}
			groupTracks = nextGroups;
			nextGroups = new Map();
			hot.sort((a, b) => b.cpuPct - a.cpuPct || a.pid - b.pid);
			tracks = next;
			lastHot = hot.slice(0, topN);
			lastEngines = engines;
			lastTable = table;
			lastScanT = input.t;
		} else if (lastScanT !== undefined) {
			// Not rescanned: keep the last list, durations move on with the clock.
			const dt = Math.max(0, input.t - lastScanT);
			lastHot = lastHot.map((h) => ({...h, hotForMs: h.hotForMs + dt}));
			lastScanT = input.t;
		}

		// GPU users: compute apps that are not engines.
		const engineTreeNow = descendantsOf([...watched, ...lastEngines.map((e) => e.pid)], lastTable);
		const gpuProcesses: GpuProcess[] = (input.gpuApps ?? []).map((a) => {
			const p = lastTable.find((q) => q.pid === a.pid);
			const isEngine = engineTreeNow.has(a.pid)
				|| engineProcessKind(p?.name ?? a.name, p?.command ?? a.name) !== undefined
				|| engineProcessKind(a.name, a.name) !== undefined;
			const name = sanitize(p?.name ?? base(a.name), 64);
			return {...a, name, isEngine};
		});
		const gpuUsers = gpuProcesses.filter((g) => !g.isEngine && g.pid !== input.selfPid);

		// Swap and pressure.
		const swapUsed = input.swapUsedBytes;
		if (swapUsed !== undefined) {
			swapSeen.push({t: input.t, v: swapUsed});
			while (swapSeen.length > 0 && swapSeen[0]!.t < input.t - swapWindow) swapSeen.shift();
		}
		const swapLow = swapSeen.reduce<number | undefined>((m, s) => (m === undefined || s.v < m ? s.v : m), undefined);
		const swapGrew = swapUsed !== undefined && swapLow !== undefined && swapUsed - swapLow >= swapGrowth;
		const pressureHigh = input.memoryPressureLevel === 'warn' || input.memoryPressureLevel === 'critical';

		const servers = lastEngines;
		const twoServers = servers.length >= 2;

		// All CPU others take: the listed processes, or the machine's load less the engines and
		// infertop where that is more (jobs that start and end between two scans).
		const cores = input.cores ?? 0;
		const enginesPct = servers.reduce((n, e) => n + (e.cpuPct ?? 0), 0);
		const fromLoad = input.machineCpuPct !== undefined && cores > 0 ? input.machineCpuPct * cores - enginesPct - (selfPct(lastTable, input.selfPid) ?? 0) : undefined;
		const others = Math.max(othersPct, fromLoad ?? 0);
		const quarter = cores > 0 && others > cores * 25;
		const active = lastHot.length > 0 || gpuUsers.length > 0 || twoServers || swapGrew || pressureHigh || quarter;
		const parts: string[] = [];
		for (const h of lastHot.slice(0, 2)) {
			const who = h.count !== undefined ? `${h.name} ×${h.count}` : h.name;
			parts.push(h.hotForMs >= 1000 ? `${who} ${pct(h.cpuPct)} CPU for ${shortDuration(h.hotForMs)}` : `${who} ${pct(h.cpuPct)} CPU`);
		}
		if (lastHot.length > 2) parts.push(`+${lastHot.length - 2} more`);
		// Never calm while others take more than a quarter of the machine, listed or not.
		if (quarter) parts.push(`other processes ${pct(others)} CPU of ${cores * 100} %`);
		if (twoServers) {
			const names = servers.slice(0, 3).map((e) => (servers.filter((s) => s.name === e.name).length > 1 ? `${e.name} (${e.pid})` : e.name));
			const busy = servers.filter((e) => (e.cpuPct ?? 0) >= engineBusy).length;
			parts.push(`${servers.length} engine servers: ${names.join(', ')}${servers.length > 3 ? ', …' : ''}${busy >= 2 ? ` (${busy} busy)` : ''}`);
		}
		for (const g of gpuUsers.slice(0, 2)) parts.push(g.usedMiB !== undefined ? `${g.name} on GPU ${Math.round(g.usedMiB)} MiB` : g.gpuPct !== undefined ? `${g.name} ${pct(g.gpuPct)} GPU` : `${g.name} on GPU`);
		if (swapUsed !== undefined && (swapUsed >= swapNote || swapGrew)) parts.push(`swap ${shortBytes(swapUsed)}${swapGrew ? ' (growing)' : ''}`);
		if (pressureHigh) parts.push(`memory pressure ${input.memoryPressureLevel}`);
		const pw = input.power;
		if (pw?.source === 'battery') parts.push(pw.percent !== undefined ? `on battery ${Math.round(pw.percent)} %` : 'on battery');
		if (pw?.mode !== undefined && /low/i.test(pw.mode)) parts.push(`${pw.mode} mode`);
		if (pw?.governor !== undefined && /powersave/i.test(pw.governor)) parts.push(`governor ${pw.governor}`);
		const verdict = parts.length === 0 ? undefined : `${active ? 'contention' : 'no contention now'}: ${parts.join('; ')}`;

		const state: ContentionState = {
			hot: lastHot,
			engines: servers,
			gpuUsers,
			...(swapUsed !== undefined ? {swapUsedBytes: swapUsed} : {}),
			...(input.swapTotalBytes !== undefined ? {swapTotalBytes: input.swapTotalBytes} : {}),
			...(input.memoryPressure !== undefined ? {memoryPressure: input.memoryPressure} : {}),
			...(input.memoryPressureLevel !== undefined ? {memoryPressureLevel: input.memoryPressureLevel} : {}),
			...(pw !== undefined ? {power: pw} : {}),
			...(verdict !== undefined ? {verdict} : {}),
			active,
		};
		return {state, gpuProcesses};
	}

	return {update};
}

export type ContentionTracker = ReturnType<typeof createContentionTracker>;

function selfPct(table: readonly ProcSample[], selfPid: number | undefined): number | undefined {
	if (selfPid === undefined) return undefined;
	let n: number | undefined;
	for (const pid of descendantsOf([selfPid], table)) {
		const c = table.find(p => p.pid === pid)?.cpuPct;
		if (c !== undefined) n = (n ?? 0) + c;
	}
	return n;
}
