/**
 * `--serve-metrics ADDR`: the live figures as Prometheus metrics (text exposition format 0.0.4).
 * Ollama has no /metrics endpoint (ollama#3144): infertop derives one from what it sees.
 * Names and labels are listed in source/metrics/README.md and are stable.
 *
 * The exposition is written by hand rather than with prom-client: every value here is a snapshot
 * computed from the store at scrape time, and a figure that is unknown must disappear from the
 * output (never 0). With prom-client that means resetting every gauge before each scrape and
 * re-setting the known ones; writing the ~15 lines of the format directly is simpler, exact, has
 * no global registry to leak between tests, and keeps prom-client out of the bundle.
 *
 * A figure that is unknown (undefined, NaN, ±Infinity) is OMITTED. The HELP/TYPE lines of every
 * family are always written, so a scraper sees the whole vocabulary.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {cumulative, REQUEST_HISTOGRAMS, SECONDS_BUCKETS} from '../model/request-histograms.js';
import {DEFAULT_SESSION_GAP_MS, sessionsOfServer, type Session, type SessionsView, type Turn} from '../model/sessions.js';
import {FIGURES, type FigureTable, type ModelFigures} from '../model/figure-table.js';
import {macGpuSummary} from '../model/wired-limit.js';
import type {HistogramCounts, MonitorState} from '../types/state.js';
import {DEFAULT_METRICS_ADDR, parseListenAddress} from './address.js';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Readonly<Record<string, string | undefined>>;
interface Sample {
	readonly labels: Labels;
	readonly value: number;
	/** Histograms: `_bucket`, `_sum`, `_count`. */
	readonly suffix?: string;
}
interface Family {
	readonly name: string;
	readonly type: 'gauge' | 'counter' | 'histogram';
	readonly help: string;
	readonly samples: Sample[];
}

/** Label values: backslash, double quote and newline escaped (exposition format 0.0.4). */
export function escapeLabelValue(value: string): string {
	return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and newline escaped. */
function escapeHelp(text: string): string {
	return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatLabels(labels: Labels): string {
	const parts: string[] = [];
	for (const [k, v] of Object.entries(labels)) if (v !== undefined && v !== '') parts.push(`${k}="${escapeLabelValue(v)}"`);
	return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64) and JS agree on the digits; JS writes exponents as `e+21`, which parsers accept. */
const formatValue = (v: number): string => String(v);

const known = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);

// ---------------------------------------------------------------------------------------------
// Counters from finished requests seen in logs

interface CounterKey {
	readonly engine: string;
	readonly server: string;
	readonly model?: string;
}
interface CounterTotals {
	requests: number;
	generated?: number;
	prompt?: number;
	drafted?: number;
	accepted?: number;
	/** Per-request distributions, by histogram name (the reducer's, model/request-histograms.ts). */
	histograms: Readonly<Record<string, HistogramCounts>>;
}

/** A cumulative histogram: counts per upper bound (le), plus sum and count (exposition format). */
export class Histogram {
	readonly counts: number[];
	sum = 0;
	count = 0;
	constructor(readonly bounds: readonly number[]) {
		this.counts = bounds.map(() => 0);
	}
	observe(v: number): void {
		for (let i = 0; i < this.bounds.length; i++) if (v <= this.bounds[i]!) this.counts[i]!++;
		this.sum += v;
		this.count++;
	}
}

/** Time to first token of each probe, wall clock (DESIGN ttftMs): the only TTFT infertop measures itself. */
const PROBE_TTFT = ['infertop_probe_ttft_seconds', 'Time to first token of each probe infertop ran, wall clock from the request leaving to the first token, seconds.'] as const;

/**
 * Monotonic totals over every finished request infertop has seen since start: the reducer counts
 * each one once, when it finishes, under the model label known then (the listed name, or
 * `unknown` without evidence), so a burst larger than the request ring is still counted in full.
 */
/** A turn is counted into the agent budget once settled: a later turn followed it, or this long passed. */
export const TURN_SETTLE_MS = 10_000;

/** The agent view's budget as counters (readme "The agent view"): seconds of each part over the turns where it is known. */
interface BudgetTotals {
	turns: number;
	queue: number;
	prefill: number;
	decode: number;
	idle: number;
	saved: number;
	/** Turns whose part was unknown (not in its seconds), and known (a part never known has no series: unknown, not 0 s). */
	unknown: Record<'queue' | 'prefill' | 'decode' | 'idle' | 'saved', number>;
	known: Record<'queue' | 'prefill' | 'decode' | 'idle' | 'saved', number>;
	/** Settled turns with each finding kind (model/findings.ts), counted once per turn. */
	findings: Partial<Record<string, number>>;
	/** The newest settled turn's context fill (prompt held ÷ its window); undefined where unknown. */
	contextFill?: number;
	contextFillAt?: number;
}

/** A turn of a session not counted yet because it is not settled (the last turn of its session, younger than TURN_SETTLE_MS). */
interface PendingTurn {
	readonly session: Session;
	readonly turn: Turn;
	readonly index: number;
	readonly id: string;
}

/** Per server: the sessions view last looked at, the ids of its turns counted, and its turns waiting to settle. */
interface ServerTurns {
	readonly view: SessionsView;
	readonly counted: ReadonlySet<string>;
	readonly pending: readonly PendingTurn[];
}

/** Seconds of one part of a settled turn added to its model's budget, or the turn counted as unknown there. */
function addPart(b: BudgetTotals, part: 'queue' | 'prefill' | 'decode' | 'idle' | 'saved', ms: number | undefined): void {
	if (known(ms) && ms >= 0) {
		b[part] += ms / 1000;
		b.known[part]++;
	} else b.unknown[part]++;
}

export class RequestCounters {
	private state: MonitorState | undefined;
	/**
	 * `incremental` (default): a server whose sessions view is the same object as at the last look
	 * (sessionsOfServer memoises it on the ring: the ring did not change) only has its waiting turns
	 * checked, not every turn's id rebuilt and looked up each second; false: every server's turns
	 * each time (the tests compare the two).
	 */
	constructor(
		private readonly sessionGapMs = DEFAULT_SESSION_GAP_MS,
		private readonly incremental = true,
	) {}
	/** Agent budget per (engine, server, model), monotonic: each settled turn is added once. */
	private readonly budgets = new Map<string, {key: CounterKey; totals: BudgetTotals}>();
	/** Turn ids are `server \0 key \0 time`: one server's never meet another's, so they are kept per server. */
	private turnsByServer = new Map<string, ServerTurns>();

	private observeTurns(state: MonitorState): void {
		const next = new Map<string, ServerTurns>();
		for (const [serverId, server] of Object.entries(state.servers)) {
			const view = sessionsOfServer(server, this.sessionGapMs);
			const prev = this.turnsByServer.get(serverId);
			const before: ReadonlySet<string> = prev?.counted ?? new Set<string>();
			if (this.incremental && prev !== undefined && prev.view === view) {
				// The same sessions: every turn counted before is still there; only the waiting ones can settle.
				if (prev.pending.length === 0) {
					next.set(serverId, prev);
					continue;
				}
				const pending: PendingTurn[] = [];
				const added: string[] = [];
				for (const p of prev.pending) {
					if (before.has(p.id)) continue;
					if (state.now - p.turn.time < TURN_SETTLE_MS) pending.push(p);
					else {
						added.push(p.id);
						this.countTurn(server, serverId, p.session, p.turn, p.index);
					}
				}
				const counted = added.length > 0 ? new Set([...before, ...added]) : before;
				next.set(serverId, {view, counted, pending});
				continue;
			}
			// Turns that left the ring are forgotten (their seconds stay in the counters).
			const counted = new Set<string>();
			const pending: PendingTurn[] = [];
			// Indexed loops (no iterator or closure a session): a busy log's sessions are new each second.
			const sessions = view.sessions;
			for (let k = 0; k < sessions.length; k++) {
				const session = sessions[k]!;
				const turns = session.turns;
				for (let i = 0; i < turns.length; i++) {
					const t = turns[i]!;
					const id = `${serverId}\u0000${t.key}\u0000${t.time}`;
					if (before.has(id)) {
						counted.add(id);
						continue;
					}
					const settled = i < turns.length - 1 || state.now - t.time >= TURN_SETTLE_MS;
					if (!settled) {
						pending.push({session, turn: t, index: i, id});
						continue;
					}
					counted.add(id);
					this.countTurn(server, serverId, session, t, i);
				}
			}
			next.set(serverId, {view, counted, pending});
		}
		this.turnsByServer = next;
	}

	/** Adds one settled turn to its model's budget. */
	private countTurn(server: MonitorState['servers'][string], serverId: string, session: Session, t: Turn, i: number): void {
		const key: CounterKey = {engine: server.engine, server: server.url ?? serverId, model: session.model};
		const k = `${key.engine}\u0000${key.server}\u0000${key.model ?? ''}`;
		let e = this.budgets.get(k);
		if (!e) {
			e = {key, totals: {turns: 0, queue: 0, prefill: 0, decode: 0, idle: 0, saved: 0, unknown: {queue: 0, prefill: 0, decode: 0, idle: 0, saved: 0}, known: {queue: 0, prefill: 0, decode: 0, idle: 0, saved: 0}, findings: {}}};
			this.budgets.set(k, e);
		}
		const b = e.totals;
		b.turns++;
		// Each kind once a turn, in the order the turn has them (no Set and array a turn: a busy
		// log's turns are all new each second, in the app's interpreter).
		const findings = t.findings;
		for (let f = 0; f < findings.length; f++) {
			const kind = findings[f]!.kind;
			let before = false;
			for (let g = 0; g < f; g++) {
				if (findings[g]!.kind === kind) {
					before = true;
					break;
				}
			}
			if (!before) b.findings[kind] = (b.findings[kind] ?? 0) + 1;
		}
		if (b.contextFillAt === undefined || t.time >= b.contextFillAt) {
			b.contextFill = t.contextFill;
			b.contextFillAt = t.time;
		}
		addPart(b, 'queue', t.queueMs);
		addPart(b, 'prefill', t.prefillMs);
		addPart(b, 'decode', t.decodeMs);
		// The first turn of a session has no idle before it (not unknown: nothing to count).
		if (i > 0) addPart(b, 'idle', t.idleBeforeMs);
		addPart(b, 'saved', t.cachedTokens !== undefined && session.prefillTps !== undefined && session.prefillTps > 0 ? (t.cachedTokens * 1000) / session.prefillTps : undefined);
	}

	budgetEntries(): readonly {readonly key: CounterKey; readonly totals: Readonly<BudgetTotals>}[] {
		return [...this.budgets.values()];
	}
	/**
	 * Turns and probes seen (the request counters and histograms are the reducer's: every finished
	 * request observed once, when it finished, never a sample of the ring at each look).
	 */
	observe(state: MonitorState): void {
		this.state = state;
		this.observeProbes(state);
		this.observeTurns(state);
	}

	/** Probes seen, by server and model: their TTFT distribution. */
	private readonly probeTtft = new Map<string, {key: CounterKey; histogram: Histogram}>();
	private probesCounted = new Set<string>();
	private probeResults: MonitorState['probe']['results'] | undefined;

	observeProbes(state: MonitorState): void {
		// The same results array as at the last look (the reducer makes a new one when a probe ends): nothing new.
		if (this.incremental && state.probe.results === this.probeResults) return;
		this.probeResults = state.probe.results;
		const still = new Set<string>();
		for (const p of state.probe.results) {
			const id = `${p.url}\u0000${p.model ?? ''}\u0000${p.t}\u0000${p.run ?? ''}\u0000${p.ttftMs ?? ''}\u0000${p.totalMs ?? ''}`;
			still.add(id);
			if (this.probesCounted.has(id)) continue;
			this.probesCounted.add(id);
			if (!known(p.ttftMs) || p.ttftMs < 0) continue;
			const k = `${p.engine}\u0000${p.url}\u0000${p.model ?? ''}`;
			let entry = this.probeTtft.get(k);
			if (!entry) {
				entry = {key: {engine: p.engine, server: p.url, model: p.model}, histogram: new Histogram(SECONDS_BUCKETS)};
				this.probeTtft.set(k, entry);
			}
			entry.histogram.observe(p.ttftMs / 1000);
		}
		this.probesCounted = still;
	}

	probeEntries(): readonly {readonly key: CounterKey; readonly histogram: Histogram}[] {
		return [...this.probeTtft.values()];
	}

	/**
	 * Counts and token sums come from the reducer (every request since start, never capped by the
	 * ring); the histograms beside them from the requests observed here.
	 */
	entries(): readonly {readonly key: CounterKey; readonly totals: Readonly<CounterTotals>}[] {
		const state = this.state;
		if (!state) return [];
		const keyOf = (k: CounterKey) => `${k.engine}\u0000${k.server}\u0000${k.model ?? ''}`;
		const out = new Map<string, {key: CounterKey; totals: CounterTotals}>();
		for (const [serverId, server] of Object.entries(state.servers)) {
			for (const [model, t] of Object.entries(server.totals)) {
				const key: CounterKey = {engine: server.engine, server: server.url ?? serverId, model};
				out.set(keyOf(key), {key, totals: {...t, histograms: t.histograms ?? {}}});
			}
		}
		return [...out.values()];
	}
}

// ---------------------------------------------------------------------------------------------
// Rendering

const COUNTERS: readonly (readonly [name: string, help: string, pick: (t: Readonly<CounterTotals>) => number | undefined])[] = [
	['infertop_requests_total', 'Finished generation requests seen in the logs.', (t) => t.requests],
	['infertop_generated_tokens_total', 'Tokens generated by the finished requests seen in the logs.', (t) => t.generated],
	['infertop_prompt_tokens_total', 'Prompt tokens (cached + processed) of the finished requests seen in the logs.', (t) => t.prompt],
	['infertop_draft_tokens_total', 'Draft tokens proposed by speculative decoding in the finished requests seen.', (t) => t.drafted],
	['infertop_accepted_tokens_total', 'Draft tokens accepted in the finished requests seen.', (t) => t.accepted],
];

/** The agent budget (model/sessions.ts) per model: seconds over the settled turns where each part is known. */
const BUDGET_COUNTERS: readonly (readonly [name: string, help: string, pick: (t: Readonly<BudgetTotals>) => number | undefined])[] = [
	['infertop_agent_turns_total', 'Agent turns (finished requests grouped into sessions) counted into the budget, once each settled.', (t) => t.turns],
	['infertop_agent_queue_seconds_total', 'Agent turns: time waiting before prefill (for a slot, a model load, or between busy retries), seconds, over the turns where it is known.', (t) => (t.known.queue > 0 ? t.queue : undefined)],
	['infertop_agent_prefill_seconds_total', 'Agent turns: time the engine spent on the prompt, seconds, over the turns where it is known.', (t) => (t.known.prefill > 0 ? t.prefill : undefined)],
	['infertop_agent_decode_seconds_total', 'Agent turns: time the engine spent generating, seconds, over the turns where it is known.', (t) => (t.known.decode > 0 ? t.decode : undefined)],
	['infertop_agent_idle_seconds_total', 'Agent turns: time between the end of a turn and the next one of its session (the agent\'s tools), seconds, where known.', (t) => (t.known.idle > 0 ? t.idle : undefined)],
	['infertop_agent_cache_saved_seconds_total', 'Agent turns: prefill time the prompt cache saved (cached tokens divided by the model\'s measured prefill rate), seconds, where known.', (t) => (t.known.saved > 0 ? t.saved : undefined)],
];

/** `_bucket` lines (cumulative, then +Inf), `_sum` and `_count` of one histogram series. */
function histogramSamples(fam: Family, labels: Labels, h: Readonly<Pick<Histogram, 'bounds' | 'counts' | 'sum' | 'count'>>): void {
	h.bounds.forEach((le, i) => fam.samples.push({labels: {...labels, le: formatValue(le)}, value: h.counts[i]!, suffix: '_bucket'}));
	fam.samples.push({labels: {...labels, le: '+Inf'}, value: h.count, suffix: '_bucket'});
	fam.samples.push({labels, value: h.sum, suffix: '_sum'});
	fam.samples.push({labels, value: h.count, suffix: '_count'});
}

/** The full exposition text for one state. Pure (counters are read, not updated). The per-model gauges are the figure table's (model/figure-table.ts). */
export function renderMetrics(state: MonitorState, figures: readonly ModelFigures[], counters?: RequestCounters, table: FigureTable = FIGURES): string {
	const families: Family[] = [];
	const family = (name: string, type: Family['type'], help: string): Family => {
		const f: Family = {name, type, help, samples: []};
		families.push(f);
		return f;
	};
	const serverLabel = (serverId: string): string => state.servers[serverId]?.url ?? serverId;

	for (const {key, prometheus: gauge} of table) {
		if (!gauge) continue;
		const fam = family(gauge.name, gauge.type, gauge.help);
		for (const f of figures) {
			const raw = (f as unknown as Readonly<Record<string, unknown>>)[key];
			const v = typeof raw === 'number' && Number.isFinite(raw) ? (gauge.convert ? gauge.convert(raw) : raw) : undefined;
			if (known(v)) fam.samples.push({labels: {engine: f.engine, server: serverLabel(f.serverId), model: f.model}, value: v});
		}
	}

	// The last probe per server and model.
	const lastProbe = new Map<string, MonitorState['probe']['results'][number]>();
	for (const p of state.probe.results) lastProbe.set(`${p.url}\u0000${p.model ?? ''}`, p);
	const ttft = family('infertop_last_probe_ttft_seconds', 'gauge', 'Time to first token of the last probe, wall clock, seconds.');
	const probeTps = family('infertop_last_probe_decode_tokens_per_second', 'gauge', 'Decode speed of the last probe, generated tokens per second of wall time.');
	for (const p of lastProbe.values()) {
		const labels = {engine: p.engine, server: p.url, model: p.model};
		if (known(p.ttftMs)) ttft.samples.push({labels, value: p.ttftMs / 1000});
		if (known(p.decodeTps)) probeTps.samples.push({labels, value: p.decodeTps});
	}

	const entries = counters?.entries() ?? [];
	for (const [name, help, pick] of COUNTERS) {
		const fam = family(name, 'counter', help);
		for (const {key, totals} of entries) {
			const v = pick(totals);
			if (known(v)) fam.samples.push({labels: {engine: key.engine, server: key.server, model: key.model}, value: v});
		}
	}

	for (const {name, help, bounds} of REQUEST_HISTOGRAMS) {
		const fam = family(name, 'histogram', help);
		for (const {key, totals} of entries) {
			const h = totals.histograms[name];
			if (h) histogramSamples(fam, {engine: key.engine, server: key.server, model: key.model}, {bounds, counts: cumulative(h), sum: h.sum, count: h.count});
		}
	}
	const budgets = counters?.budgetEntries() ?? [];
	for (const [name, help, pick] of BUDGET_COUNTERS) {
		const fam = family(name, 'counter', help);
		for (const {key, totals} of budgets) {
			const v = pick(totals);
			if (v !== undefined) fam.samples.push({labels: {engine: key.engine, server: key.server, model: key.model}, value: v});
		}
	}
	// Issue 28: turns with each finding, and how full the newest turn's context was, per model.
	const findings = family('infertop_agent_findings_total', 'counter', 'Agent turns on which infertop found this kind of trouble (truncated, context-exceeded, cache-miss, reloaded, …: readme "Why the agent is slow or forgetting"), once each settled turn.');
	for (const {key, totals} of budgets) {
		for (const [kind, n] of Object.entries(totals.findings)) if (n !== undefined) findings.samples.push({labels: {engine: key.engine, server: key.server, model: key.model, kind}, value: n});
	}
	const fill = family('infertop_agent_context_fill_ratio', 'gauge', 'Agent turns: the newest settled turn\'s prompt as the engine held it ÷ the context window it was held in (0..1; absent where either is unknown).');
	for (const {key, totals} of budgets) if (known(totals.contextFill)) fill.samples.push({labels: {engine: key.engine, server: key.server, model: key.model}, value: totals.contextFill});
	const unknownTurns = family('infertop_agent_turns_part_unknown_total', 'counter', 'Agent turns whose part (queue, prefill, decode, idle, saved) was unknown, so not in that part\'s seconds.');
	for (const {key, totals} of budgets) {
		for (const [part, n] of Object.entries(totals.unknown)) unknownTurns.samples.push({labels: {engine: key.engine, server: key.server, model: key.model, part}, value: n});
	}
	const probeTtft = family(PROBE_TTFT[0], 'histogram', PROBE_TTFT[1]);
	for (const {key, histogram} of counters?.probeEntries() ?? []) histogramSamples(probeTtft, {engine: key.engine, server: key.server, model: key.model}, histogram);

	const up = family('infertop_server_up', 'gauge', 'Whether the server answers (1) or not (0: stopped answering, or a named server that never did); absent for a log without a server.');
	for (const id of state.order) {
		const s = state.servers[id];
		if (!s || s.state === 'log-only') continue;
		up.samples.push({labels: {server: s.url ?? id, engine: s.engine, ...(s.demo === true ? {demo: 'true'} : {})}, value: s.state === 'up' || s.state === 'restarted' ? 1 : 0});
	}

	const sys = state.system;
	const systemKnown = sys.updatedAt !== undefined;
	const active = family('infertop_contention_active', 'gauge', 'Whether something competes with the engines for the machine right now (1) or not (0): busy processes, swap, battery power.');
	if (systemKnown) active.samples.push({labels: {}, value: sys.contention.active ? 1 : 0});
	const hot = family('infertop_contention_cpu_cores', 'gauge', 'CPU taken by another busy process, in cores (1 = one core fully busy).');
	for (const p of sys.contention.hot) if (known(p.cpuPct)) hot.samples.push({labels: {process: p.name, pid: String(p.pid)}, value: p.cpuPct / 100});
	const swap = family('infertop_swap_used_bytes', 'gauge', 'Swap space in use on this machine, bytes.');
	if (known(sys.contention.swapUsedBytes)) swap.samples.push({labels: {}, value: sys.contention.swapUsedBytes});
	const selfCpu = family('infertop_self_cpu_cores', 'gauge', "infertop's own CPU use, in cores (1 = one core fully busy).");
	if (known(sys.self.cpuPct)) selfCpu.samples.push({labels: {}, value: sys.self.cpuPct / 100});
	const selfRss = family('infertop_self_rss_bytes', 'gauge', "infertop's own resident memory, bytes.");
	if (known(sys.self.rssBytes)) selfRss.samples.push({labels: {}, value: sys.self.rssBytes});

	// GPUs (all), and on macOS the GPU's wired-memory limit against what the engines hold (issue 33).
	const gpuBusy = family('infertop_gpu_busy_ratio', 'gauge', 'Share of time the GPU was busy (0..1), as its tool reports it (nvidia-smi, sysfs, ioreg, mactop).');
	const gpuInUse = family('infertop_gpu_memory_in_use_bytes', 'gauge', 'Apple silicon: unified memory the GPU driver has in use, bytes (ioreg In use system memory).');
	for (const g of sys.gpus) {
		const labels = {gpu: g.name, index: g.index === undefined ? undefined : String(g.index), source: g.source};
		if (known(g.utilizationPct)) gpuBusy.samples.push({labels, value: g.utilizationPct / 100});
		if (known(g.memoryInUseBytes)) gpuInUse.samples.push({labels, value: g.memoryInUseBytes});
	}
	const gpuUser = family('infertop_gpu_process_busy_ratio', 'gauge', 'Share of the GPU\'s time another process used over the last scan (0..1; macOS, from the driver\'s per-client GPU time).');
	for (const u of sys.contention.gpuUsers) if (known(u.gpuPct)) gpuUser.samples.push({labels: {process: u.name, pid: String(u.pid)}, value: u.gpuPct / 100});
	const mac = macGpuSummary(state);
	const wiredLimit = family('infertop_gpu_wired_limit_bytes', 'gauge', 'Apple silicon: the GPU\'s wired-memory limit, bytes; source sysctl (iogpu.wired_limit_mb), engine (its log said Metal\'s limit) or default-rule (estimated from RAM).');
	if (mac?.limit) wiredLimit.samples.push({labels: {source: mac.limit.source}, value: mac.limit.bytes});
	const wiredHeld = family('infertop_gpu_wired_demand_bytes', 'gauge', 'Apple silicon: what the engines of this machine hold on the GPU (weights + KV cache, from their own numbers), bytes; a lower bound where partial="true".');
	if (mac?.demand) wiredHeld.samples.push({labels: {partial: mac.demand.unknown.length > 0 || mac.demand.kvMissing ? 'true' : 'false'}, value: mac.demand.bytes});
	const wiredRatio = family('infertop_gpu_wired_limit_ratio', 'gauge', 'Apple silicon: what the engines hold ÷ the GPU\'s wired-memory limit (near from 0.9, over above 1: slow decode or a failed load).');
	if (mac?.verdict) wiredRatio.samples.push({labels: {verdict: mac.verdict.level}, value: mac.verdict.pct / 100});
	const memFree = family('infertop_memory_free_ratio', 'gauge', 'macOS: system-wide memory free share (memory_pressure), 0..1.');
	if (known(sys.mac?.memoryFreePct)) memFree.samples.push({labels: {}, value: sys.mac.memoryFreePct / 100});

	const out: string[] = [];
	for (const f of families) {
		out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
		const seen = new Set<string>();
		for (const s of f.samples) {
			const line = `${f.name}${s.suffix ?? ''}${formatLabels(s.labels)}`;
			if (seen.has(line)) continue; // one series per label set (the first wins)
			seen.add(line);
			out.push(`${line} ${formatValue(s.value)}`);
		}
	}
	return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// The HTTP server

export interface MetricsServerOptions {
	/** `HOST:PORT` (see parseListenAddress); default 127.0.0.1:9464. Port 0 picks a free port. */
	readonly addr?: string;
	readonly getState: () => MonitorState;
	/** source/model/derive.ts deriveModels. */
	readonly derive: (state: MonitorState) => readonly ModelFigures[];
	/** How often finished requests are counted between scrapes (ms); default 1000. */
	readonly sampleEveryMs?: number;
	/** Agent view: the longest pause within one session (config `sessionGap`), ms. */
	readonly sessionGapMs?: number;
}

export interface MetricsServer {
	/** e.g. `http://127.0.0.1:9464/metrics` (the real port when 0 was asked). */
	readonly url: string;
	close(): Promise<void>;
}

/**
 * Serve `GET /metrics`. Resolves once listening; rejects with a short reason (`127.0.0.1:9464:
 * address already in use`) when it cannot bind. A scrape never throws out of the server: a failure
 * to compute answers 500 with the reason.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
	const addr = options.addr ?? DEFAULT_METRICS_ADDR;
	const parsed = parseListenAddress(addr);
	if (!parsed.ok) throw new Error(`--serve-metrics: ${parsed.error}`);
	const counters = new RequestCounters(options.sessionGapMs);
	const observe = (): MonitorState | undefined => {
		try {
			const state = options.getState();
			counters.observe(state);
			return state;
		} catch {
			return undefined;
		}
	};

	const server = http.createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0];
		if (req.method !== 'GET' && req.method !== 'HEAD') {
			res.writeHead(405, {allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8'}).end('method not allowed\n');
			return;
		}
		if (path === '/') {
			res.writeHead(200, {'content-type': 'text/plain; charset=utf-8'}).end('infertop: Prometheus metrics at /metrics\n');
			return;
		}
		if (path !== '/metrics') {
			res.writeHead(404, {'content-type': 'text/plain; charset=utf-8'}).end('not found; try /metrics\n');
			return;
		}
		let body: string;
		try {
			const state = options.getState();
			counters.observe(state);
			body = renderMetrics(state, options.derive(state), counters);
		} catch (error) {
			res.writeHead(500, {'content-type': 'text/plain; charset=utf-8'}).end(`infertop: cannot compute metrics: ${error instanceof Error ? error.message : String(error)}\n`);
			return;
		}
		res.writeHead(200, {'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store'});
		res.end(req.method === 'HEAD' ? undefined : body);
	});
	server.keepAliveTimeout = 5000;

	await new Promise<void>((resolve, reject) => {
		const onError = (error: NodeJS.ErrnoException): void => {
			const why = error.code === 'EADDRINUSE' ? 'address already in use' : error.code === 'EADDRNOTAVAIL' ? 'no such address on this machine' : error.code === 'EACCES' ? 'permission denied' : error.message;
			reject(new Error(`--serve-metrics ${addr}: ${why}`));
		};
		server.once('error', onError);
		server.listen(parsed.port, parsed.host, () => {
			server.off('error', onError);
			resolve();
		});
	});
	// Errors after listening (e.g. a client reset) must not crash the monitor.
	server.on('error', () => {});
	server.on('clientError', (_error, socket) => socket.destroy());

	observe();
	const timer = setInterval(observe, options.sampleEveryMs ?? 1000);
	timer.unref();

	const bound = server.address() as AddressInfo;
	const host = bound.family === 'IPv6' || bound.address.includes(':') ? `[${bound.address}]` : bound.address;
	let closing: Promise<void> | undefined;
	return {
		url: `http://${host}:${bound.port}/metrics`,
		close() {
			clearInterval(timer);
			closing ??= new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closing;
		},
	};
}
