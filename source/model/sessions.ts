/**
 * The agent view (issue 16 part 1): finished requests grouped into sessions of turns, and where
 * each session's wall time went — queue, prefill, decode, idle (the agent's tools running) — plus
 * the time the prompt cache saved. Pure; derived from the request ring and the refused tries, and
 * memoised on them (a quiet tick costs nothing). Definitions: readme "The agent view".
 *
 * Unknown is `undefined` here (`null` in JSON, `--` on screen), never 0: a part is 0 only where the
 * log says so (llama.cpp at `-v` logs every deferred task; lithos-metal never queues, it refuses).
 */
import {engineOf} from '../engines/index.js';
import {modelLabel} from './derive.js';
import {requestFigures, totalsOf} from './figures.js';
import {diagnoseTurns, FINDING_KINDS, placeSignals, prefillRisk, type Finding, type FindingKind, type TurnDiagnosis} from './findings.js';
import {macGpuSummary, type WiredVerdict} from './wired-limit.js';
import type {MonitorState, Refusal, RequestRecord, ServerSignal, ServerState} from '../types/state.js';

/** Default longest pause between two turns of one session (ms): config `sessionGap`, `--session-gap`. */
export const DEFAULT_SESSION_GAP_MS = 60_000;
/** A turn continues a session by prefix when it reuses at least this share of the last turn's prompt. */
export const PREFIX_REUSE_SHARE = 0.9;
/** Turns kept per session (the bars show the last ~20; the budget covers these). */
export const MAX_TURNS = 100;
/** A wall time shorter than prefill + decode by more than this (ms) contradicts them (rounding: 2 decimals). */
const SLACK_MS = 1;

export type BudgetPart = 'queue' | 'prefill' | 'decode' | 'idle';
export const BUDGET_PARTS: readonly BudgetPart[] = ['queue', 'prefill', 'decode', 'idle'];

export interface Turn extends TurnDiagnosis {
	readonly serverId: string;
	readonly key: string;
	/** When the turn ended (ms epoch, the log's time for backlog lines). */
	readonly time: number;
	/** When the agent's first try of it arrived, where known. */
	readonly start?: number;
	readonly promptTokens?: number;
	readonly cachedTokens?: number;
	/** Prompt and cached tokens are worked out, not stated by the log (`~`). */
	readonly promptEstimated: boolean;
	/** Prompt tokens processed (uncached). */
	readonly prefillTokens?: number;
	readonly queueMs?: number;
	readonly prefillMs?: number;
	readonly decodeMs?: number;
	readonly generatedTokens?: number;
	/** Time since the session's previous turn ended (the agent's tools); undefined for the first turn and where unknown. */
	readonly idleBeforeMs?: number;
	/** Refused tries (429 / 503 busy) of this turn before it was accepted. */
	readonly retries: number;
	/** Read from the log's backlog (its time is the log's own). */
	readonly backlog: boolean;
	/** The request failed or the client went away: in the turns (with its findings), not in the budget. */
	readonly outcome?: 'error' | 'cancelled';
}

export interface Budget {
	/** Sums over the turns; undefined when any turn's part is unknown (never a partial sum). */
	readonly queueMs?: number;
	readonly prefillMs?: number;
	readonly decodeMs?: number;
	/** Idle before turns 2…n. */
	readonly idleMs?: number;
	/** Σ cached tokens ÷ the model's measured prefill rate; undefined when either is unknown. */
	readonly savedByCacheMs?: number;
	readonly cachedTokens?: number;
	/** Turns whose part is unknown (idle: of turns 2…n). */
	readonly unknown: Readonly<Record<BudgetPart, number>>;
	/** Share of wall time per part (see sharesOver); undefined for a part that is unknown there. */
	readonly shares: Readonly<Partial<Record<BudgetPart, number>>>;
	/** Share of the agent's wait (queue + prefill + decode, the known ones) per part. */
	readonly waitShares: Readonly<Partial<Record<Exclude<BudgetPart, 'idle'>, number>>>;
	/**
	 * The turns the shares are computed over: those whose every part is known (where some are), else
	 * all, with the parts unknown in any turn left out of the shares.
	 */
	readonly sharesOver: number;
	/** Turns whose cached count is unknown. */
	readonly cachedUnknown: number;
}

export interface Session {
	readonly id: string;
	readonly serverId: string;
	readonly engine: ServerState['engine'];
	/** The model label (`model unknown` without evidence). */
	readonly model: string;
	/** The client address the access log gave; undefined = the log names none (one client assumed). */
	readonly client?: string;
	readonly turns: readonly Turn[];
	readonly budget: Budget;
	/** The model's measured prefill rate (tok/s) the cache saving uses; undefined = unknown. */
	readonly prefillTps?: number;
}

export interface SessionsView {
	readonly sessions: readonly Session[];
	/** Finished requests left out because their time is unknown (a backlog before any stamp). */
	readonly withoutTime: number;
}

const sum = (xs: readonly (number | undefined)[]): number | undefined => {
	let s = 0;
	for (const x of xs) {
		if (x === undefined) return undefined;
		s += x;
	}
	return s;
};

/** Σ uncached ÷ Σ prefill time over a model's finished requests with both known, tok/s. */
function measuredPrefillTps(requests: readonly RequestRecord[]): number | undefined {
	let tokens = 0;
	let ms = 0;
	for (const r of requests) {
		if (r.outcome !== undefined) continue;
		const {uncached} = totalsOf(r);
		if (uncached === undefined || uncached <= 0 || r.prefillMs === undefined || r.prefillMs <= 0) continue;
		tokens += uncached;
		ms += r.prefillMs;
	}
	return ms > 0 ? (tokens * 1000) / ms : undefined;
}

interface Timed {
	readonly r: RequestRecord;
	readonly end: number;
	/** Arrival of the accepted try, where known. */
	readonly arrival?: number;
	/** Waiting for a slot after arrival (engine-stated, from the access wall time, or 0 where the engine never queues). */
	readonly slotQueueMs?: number;
	/** A lower bound of the arrival, for the gap rule where the arrival is unknown. */
	readonly earliest: number;
}

/** One request's own timeline: when it arrived and how long it waited for a slot. */
function timeline(r: RequestRecord, refuses: boolean): Timed {
	const end = r.lastSeen;
	const work = r.prefillMs !== undefined && r.decodeMs !== undefined ? r.prefillMs + r.decodeMs : undefined;
	let slotQueueMs = r.queueMs;
	let duration: number | undefined;
	if (r.accessMs !== undefined) {
		// The access line's latency covers the whole request: what is neither prefill nor decode is the wait.
		duration = r.accessMs;
		if (slotQueueMs === undefined && work !== undefined && r.accessMs + SLACK_MS >= work) slotQueueMs = Math.max(0, r.accessMs - work);
	} else {
		if (slotQueueMs === undefined && refuses) slotQueueMs = 0;
		const own = r.wallMs ?? work;
		if (own !== undefined && slotQueueMs !== undefined) duration = own + slotQueueMs;
	}
	// A logged start line and a known wait place the arrival exactly (llama.cpp `-v`: launch − deferred).
	const arrival = r.accessMs === undefined && r.startedAt !== undefined && slotQueueMs !== undefined ? r.startedAt - slotQueueMs : duration !== undefined ? end - duration : undefined;
	return {r, end, arrival, slotQueueMs, earliest: arrival ?? Math.min(r.startedAt ?? r.firstSeen, r.firstSeen, end - (work ?? 0))};
}

/**
 * No slot wait, known: the engine logged when it began the request, and from `since` (the session's
 * previous turn ended, its slot freed) until then no other request of the server was in flight —
 * a slot stood free the whole time, and these engines start a request whenever one is free.
 */
function freeSlotSince(t: Timed, since: number, all: readonly Timed[]): boolean {
	const began = t.r.startedAt;
	if (began === undefined || began < since) return false;
	for (const o of all) {
		if (o === t) continue;
		const oStart = o.r.startedAt ?? o.arrival ?? o.r.firstSeen;
		if (oStart < began && o.end > since) return false;
	}
	return true;
}

const refusedBy = (f: Refusal, client: string | undefined): boolean => !f.earlier && (client === undefined ? f.client === undefined : f.client === client);

/** Group one server's finished requests into sessions. */
export function serverSessions(server: ServerState, gapMs = DEFAULT_SESSION_GAP_MS): SessionsView {
	const refuses = engineOf(server.engine).whenBusy === 'refuses';
	// infertop's own probes (matched to their log request) are not an agent's turns. A failed or
	// cancelled request is a turn that went wrong (its findings say why), outside the budget.
	const done = server.requests.filter(r => r.done && r.attribution?.by !== 'probe');
	const timed = done.filter(r => !r.earlier).map(r => timeline(r, refuses)).sort((a, b) => a.end - b.end);
	const withoutTime = done.length - timed.length;
	const rateOf = new Map<string, number | undefined>();
	const open = new Map<string, {model: string; client?: string; items: Timed[]}[]>();
	for (const t of timed) {
		const model = modelLabel(t.r, server);
		const group = `${model}\u0000${t.r.client ?? ''}`;
		const list = open.get(group) ?? [];
		const current = list.at(-1);
		const prev = current?.items.at(-1);
		let joins = false;
		if (prev) {
			const prevPrompt = requestFigures(prev.r).promptTokens;
			const f = requestFigures(t.r);
			const grows = prevPrompt !== undefined && prevPrompt > 0 && f.promptTokens !== undefined && f.cachedTokens !== undefined && f.promptTokens > prevPrompt && f.cachedTokens >= PREFIX_REUSE_SHARE * prevPrompt;
			joins = grows || t.earliest - prev.end <= gapMs;
		}
		if (current && joins) current.items.push(t);
		else list.push({model, client: t.r.client, items: [t]});
		open.set(group, list);
	}
	const sessions: Session[] = [];
	const signals = server.signals ?? [];
	const placed = placeSignals(signals, timed);
	for (const list of open.values()) {
		for (const s of list) {
			if (!rateOf.has(s.model)) rateOf.set(s.model, measuredPrefillTps(done.filter(r => modelLabel(r, server) === s.model)));
			sessions.push(buildSession(server, s.model, s.client, s.items.slice(-MAX_TURNS), rateOf.get(s.model), server.refusals ?? [], timed, gapMs, {placed, signals}));
		}
	}
	sessions.sort((a, b) => (a.turns.at(-1)?.time ?? 0) - (b.turns.at(-1)?.time ?? 0));
	return {sessions, withoutTime};
}

function buildSession(server: ServerState, model: string, client: string | undefined, items: readonly Timed[], prefillTps: number | undefined, refusals: readonly Refusal[], all: readonly Timed[], gapMs: number, evidence: {placed: Map<Timed, ServerSignal[]>; signals: readonly ServerSignal[]}): Session {
	// One shape for every turn (its diagnosis filled in below): spreads of optional fields are slow.
	const turns: {-readonly [K in keyof Turn]: Turn[K]}[] = [];
	// A slot wait known to be 0 (nothing else held the server since the last turn ended).
	const adjusted: Timed[] = [];
	let last: number | undefined;
	for (const t of items) {
		adjusted.push(t.slotQueueMs === undefined && last !== undefined && freeSlotSince(t, last, all) ? {...t, slotQueueMs: 0, arrival: t.r.startedAt} : t);
		last = last === undefined ? t.end : Math.max(last, t.end);
	}
	// Refused tries of this client: each belongs to the first turn (in the order they ended) that
	// arrived after it — an agent's turns overlap (side requests), so a try refused while the last
	// turn ran is still a later one's. A try a whole-second stamp puts just after every arrival goes
	// to the first turn that ended after it. Tries older than the session by more than the gap are another's.
	const sessionFrom = (items[0]?.earliest ?? 0) - gapMs;
	const mine = refusals.filter(x => refusedBy(x, client) && x.t >= sessionFrom && x.t <= (last ?? -Infinity));
	const claims: Refusal[][] = adjusted.map(() => []);
	const claimed = new Set<Refusal>();
	adjusted.forEach((t, i) => {
		const until = t.arrival ?? t.r.firstSeen;
		for (const x of mine) {
			if (claimed.has(x) || x.t > until) continue;
			claimed.add(x);
			claims[i]!.push(x);
		}
	});
	for (const x of mine) {
		if (claimed.has(x)) continue;
		const i = adjusted.findIndex(t => t.end >= x.t);
		if (i >= 0) claims[i]!.push(x);
	}
	let prevEnd: number | undefined;
	for (const [i, t] of adjusted.entries()) {
		const f = requestFigures(t.r);
		const retries = claims[i]!.length;
		const firstRefusal = retries > 0 ? Math.min(...claims[i]!.map(x => x.t)) : undefined;
		const retryWait = firstRefusal !== undefined && t.arrival !== undefined ? Math.max(0, t.arrival - firstRefusal) : firstRefusal === undefined ? 0 : undefined;
		const queueMs = t.slotQueueMs !== undefined && retryWait !== undefined ? t.slotQueueMs + retryWait : undefined;
		const start = firstRefusal ?? t.arrival;
		let idleBeforeMs: number | undefined;
		// Turns that overlap (an agent's side request) leave no idle between them: 0, known.
		if (prevEnd !== undefined && start !== undefined) idleBeforeMs = Math.max(0, start - prevEnd);
		turns.push({
			serverId: server.id,
			key: t.r.key,
			time: t.end,
			start,
			promptTokens: f.promptTokens,
			cachedTokens: f.cachedTokens,
			promptEstimated: f.promptEstimated === true,
			prefillTokens: t.r.prefillTokens,
			queueMs,
			prefillMs: t.r.prefillMs,
			decodeMs: t.r.decodeMs,
			generatedTokens: t.r.generatedTokens ?? t.r.decodedTokens,
			idleBeforeMs,
			retries,
			backlog: t.r.backlog === true,
			outcome: t.r.outcome,
			contextTokens: undefined,
			contextWindow: undefined,
			contextFill: undefined,
			cacheReuse: undefined,
			cacheReuseBasis: undefined,
			loadMs: undefined,
			finishReason: undefined,
			findings: [],
		});
		prevEnd = prevEnd === undefined ? t.end : Math.max(prevEnd, t.end);
	}
	const descriptor = engineOf(server.engine);
	const diagnosis = diagnoseTurns(
		adjusted.map((t, i) => ({r: t.r, end: t.end, earliest: t.earliest, promptTokens: turns[i]!.promptTokens, cachedTokens: turns[i]!.cachedTokens, queueMs: turns[i]!.queueMs, prefillMs: turns[i]!.prefillMs, generatedTokens: turns[i]!.generatedTokens})),
		{
			model,
			models: server.models,
			slotContext: server.context?.nCtxPerSlot,
			offload: server.offloads[model],
			fixes: descriptor.agentFixes,
			prefillTps,
			placed: items.map(t => evidence.placed.get(t) ?? []),
			signals: evidence.signals,
			logsLoads: evidence.signals.some(x => x.kind === 'loaded'),
		},
	);
	for (const [i, t] of turns.entries()) {
		const d = diagnosis[i]!;
		t.contextTokens = d.contextTokens;
		t.contextWindow = d.contextWindow;
		t.contextFill = d.contextFill;
		t.cacheReuse = d.cacheReuse;
		t.cacheReuseBasis = d.cacheReuseBasis;
		t.loadMs = d.loadMs;
		t.finishReason = d.finishReason;
		t.findings = d.findings;
	}
	const full: readonly Turn[] = turns;
	return {
		id: `${server.id}/${model}/${client ?? '-'}/${items[0]?.r.key ?? ''}`,
		serverId: server.id,
		engine: server.engine,
		model,
		client,
		turns: full,
		// Failed and cancelled turns hold no whole figures: the budget is over the turns that finished.
		budget: budgetOf(full.filter(t => t.outcome === undefined), prefillTps),
		prefillTps,
	};
}

/** How many parts (queue, prefill, decode, idle before) of a session's turns are known. */
function knownParts(s: Session): number {
	let n = 0;
	for (const t of s.turns) n += [t.queueMs, t.prefillMs, t.decodeMs, t.idleBeforeMs].filter(x => x !== undefined).length;
	return n;
}

/**
 * The session the agent view opens on: of the shown server's sessions (else all), the one with
 * the most known parts; the newest of those that know as much.
 */
export function openingSession(sessions: readonly Session[], serverId: string | undefined): Session | undefined {
	const own = sessions.filter(x => x.serverId === serverId);
	const pool = own.length > 0 ? own : sessions;
	let best: Session | undefined;
	let most = -1;
	for (const s of pool) {
		const n = knownParts(s);
		if (n >= most) {
			best = s;
			most = n;
		}
	}
	return best;
}

/** The budget of a series of turns (exported for the exporter's counters and the tests). */
export function budgetOf(turns: readonly Turn[], prefillTps: number | undefined): Budget {
	const later = turns.slice(1);
	const queueMs = sum(turns.map(t => t.queueMs));
	const prefillMs = sum(turns.map(t => t.prefillMs));
	const decodeMs = sum(turns.map(t => t.decodeMs));
	const idleMs = later.length === 0 ? 0 : sum(later.map(t => t.idleBeforeMs));
	const cachedTokens = sum(turns.map(t => t.cachedTokens));
	const savedByCacheMs = cachedTokens !== undefined && prefillTps !== undefined && prefillTps > 0 ? (cachedTokens * 1000) / prefillTps : undefined;
	const unknown = {
		queue: turns.filter(t => t.queueMs === undefined).length,
		prefill: turns.filter(t => t.prefillMs === undefined).length,
		decode: turns.filter(t => t.decodeMs === undefined).length,
		idle: later.filter(t => t.idleBeforeMs === undefined).length,
	};
	// Shares over the turns whose every part is known (the first turn has no idle to know), so one
	// unknown part of one turn does not take that part out of every share; where no turn is fully
	// known, over the parts known in every turn.
	const full = turns.filter((t, i) => t.queueMs !== undefined && t.prefillMs !== undefined && t.decodeMs !== undefined && (i === 0 || t.idleBeforeMs !== undefined));
	const fullIdle = full.filter(t => t !== turns[0]);
	const parts: Record<BudgetPart, number | undefined> = full.length > 0
		? {
			queue: sum(full.map(t => t.queueMs)),
			prefill: sum(full.map(t => t.prefillMs)),
			decode: sum(full.map(t => t.decodeMs)),
			idle: fullIdle.length > 0 ? sum(fullIdle.map(t => t.idleBeforeMs)) : undefined,
		}
		: {queue: queueMs, prefill: prefillMs, decode: decodeMs, idle: later.length > 0 ? idleMs : undefined};
	const share = (keys: readonly BudgetPart[]): Partial<Record<BudgetPart, number>> => {
		const total = keys.reduce((a, k) => a + (parts[k] ?? 0), 0);
		const out: Partial<Record<BudgetPart, number>> = {};
		if (total <= 0) return out;
		for (const k of keys) if (parts[k] !== undefined) out[k] = parts[k]! / total;
		return out;
	};
	// A share is of a whole: none where a part of the wait is unknown (never `idle 100 %` over idle
	// alone), and none of wall time where the idle between the turns it is over is unknown.
	const waitKnown = parts.queue !== undefined && parts.prefill !== undefined && parts.decode !== undefined;
	const idleApplies = full.length > 0 ? fullIdle.length > 0 : later.length > 0;
	return {
		queueMs,
		prefillMs,
		decodeMs,
		idleMs,
		savedByCacheMs,
		cachedTokens,
		unknown,
		shares: waitKnown && (parts.idle !== undefined || !idleApplies) ? share(BUDGET_PARTS) : {},
		waitShares: (waitKnown ? share(['queue', 'prefill', 'decode']) : {}) as Budget['waitShares'],
		sharesOver: full.length > 0 ? full.length : turns.length,
		cachedUnknown: turns.filter(t => t.cachedTokens === undefined).length,
	};
}

interface Memo {
	readonly requests: ServerState['requests'];
	readonly refusals: ServerState['refusals'];
	readonly models: ServerState['models'];
	readonly signals: ServerState['signals'];
	readonly gapMs: number;
	readonly view: SessionsView;
}
const memo = new WeakMap<ServerState['requests'], Memo>();

/** Sessions of one server, recomputed only when its requests, refusals or models changed. */
export function sessionsOfServer(server: ServerState, gapMs = DEFAULT_SESSION_GAP_MS): SessionsView {
	const m = memo.get(server.requests);
	if (m && m.refusals === server.refusals && m.models === server.models && m.signals === server.signals && m.gapMs === gapMs) return m.view;
	const view = serverSessions(server, gapMs);
	memo.set(server.requests, {requests: server.requests, refusals: server.refusals, models: server.models, signals: server.signals, gapMs, view});
	return view;
}

/** Every server's sessions, oldest last turn first. */
export function deriveSessions(state: MonitorState, gapMs = DEFAULT_SESSION_GAP_MS): SessionsView {
	let sessions: Session[] = [];
	let withoutTime = 0;
	for (const id of state.order) {
		const s = state.servers[id];
		if (!s) continue;
		const v = sessionsOfServer(s, gapMs);
		sessions.push(...v.sessions);
		withoutTime += v.withoutTime;
	}
	sessions.sort((a, b) => (a.turns.at(-1)?.time ?? 0) - (b.turns.at(-1)?.time ?? 0));
	// A Mac whose engines hold more than the GPU may wire (model/wired-limit.ts): part of the model
	// runs from memory the GPU cannot keep wired, on every turn of the models it holds (issue 33).
	const mac = state.system.mac ? macGpuSummary(state) : undefined;
	const verdict = mac?.verdict;
	if (verdict?.level === 'over') {
		const holders = new Set((mac?.demand?.parts ?? []).map(p => p.serverId));
		sessions = sessions.map(s => (holders.has(s.serverId) ? withWiredFinding(s, verdict) : s));
	}
	return {sessions, withoutTime};
}

function withWiredFinding(s: Session, v: WiredVerdict): Session {
	const gib = (b: number) => `${(b / 2 ** 30).toFixed(1)} GiB`;
	const finding: Finding = {
		kind: 'spilled-to-cpu',
		evidence: `engines hold ${gib(v.demandBytes)}, over the GPU's wired-memory limit of ${gib(v.limit.bytes)} (${Math.round(v.pct)} %): ${v.text}`,
		fix: v.fix?.command ?? v.advice ?? 'use a smaller quantization, a shorter context or fewer models',
		inferred: true,
	};
	return {...s, turns: s.turns.map(t => ({...t, findings: [...t.findings, finding]}))};
}

/** One finding of a session as `snapshot --json` lists it: the turns (1-based) it is on, the newest one's time. */
export interface FindingEntry {
	readonly time: number;
	readonly serverId: string;
	readonly model: string;
	readonly sessionId: string;
	readonly kind: FindingKind;
	readonly evidence: string;
	readonly fix: string;
	/** Turns of the session it is on (1-based); a request still prefilling is the turn after the last. */
	readonly turns: readonly number[];
	/** Said while the turn is still in flight (timeout-risk while prefilling). */
	readonly live?: boolean;
	readonly finding: Finding;
}

/**
 * Every session's findings, one entry per kind per session (the instance with the engine's own
 * line first, else the first), newest first; plus the requests still prefilling whose first byte is
 * predicted past the client's 300 s.
 */
export function findingEntries(state: MonitorState, view: SessionsView): FindingEntry[] {
	const out: FindingEntry[] = [];
	for (const s of view.sessions) {
		for (const kind of FINDING_KINDS) {
			const on = s.turns.flatMap((t, i) => (t.findings.some(f => f.kind === kind) ? [i] : []));
			if (on.length === 0) continue;
			const all = on.flatMap(i => s.turns[i]!.findings.filter(f => f.kind === kind));
			const finding = all.find(f => !f.inferred) ?? all[0]!;
			out.push({time: s.turns[on.at(-1)!]!.time, serverId: s.serverId, model: s.model, sessionId: s.id, kind, evidence: finding.evidence, fix: finding.fix, turns: on.map(i => i + 1), finding});
		}
	}
	for (const id of state.order) {
		const server = state.servers[id];
		if (!server) continue;
		for (const r of server.requests) {
			if (r.done || r.outcome !== undefined) continue;
			const model = modelLabel(r, server);
			const session = view.sessions.findLast(x => x.serverId === id && x.model === model);
			const risk = prefillRisk(r, session?.prefillTps, state.now);
			if (!risk) continue;
			out.push({time: state.now, serverId: id, model, sessionId: session?.id ?? `${id}/${model}`, kind: 'timeout-risk', evidence: risk.evidence, fix: risk.fix, turns: [(session?.turns.length ?? 0) + 1], live: true, finding: risk});
		}
	}
	return out.sort((a, b) => b.time - a.time);
}

const pct = (x: number): string => `${Math.round(x * 100)} %`;

/** Seconds in words: `41 s`, `2.5 s`, `320 ms`, `4 min 10 s`. */
export function durationWords(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)} ms`;
	if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
	if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
	const m = Math.floor(ms / 60_000);
	return `${m} min ${Math.round((ms - m * 60_000) / 1000)} s`;
}

/**
 * The budget in words: "prefill is 62 % of this agent's wait; the cache saved 41 s over 18 turns;
 * decode 21 %", plus what is unknown. Shares of the wait are over its known parts.
 */
export function budgetWords(s: Session): string {
	const b = s.budget;
	const n = s.turns.length;
	const parts: string[] = [];
	const w = b.waitShares;
	const order = (['prefill', 'decode', 'queue'] as const).filter(k => w[k] !== undefined).sort((x, y) => (w[y] ?? 0) - (w[x] ?? 0));
	const [first, ...rest] = order;
	if (first !== undefined) parts.push(`${first} is ${pct(w[first]!)} of this agent's wait`);
	if (b.savedByCacheMs !== undefined) parts.push(`the cache saved ${durationWords(b.savedByCacheMs)} over ${n} turn${n === 1 ? '' : 's'}`);
	else if (b.cachedTokens !== undefined && b.cachedTokens > 0) parts.push('cache saving unknown (no measured prefill rate)');
	for (const k of rest) parts.push(`${k} ${pct(w[k]!)}`);
	if (b.shares.idle !== undefined && n > 1) parts.push(`idle between turns ${pct(b.shares.idle)} of wall time`);
	if (b.sharesOver < n) parts.push(`shares over the ${b.sharesOver} turn${b.sharesOver === 1 ? '' : 's'} fully known`);
	const unknown = BUDGET_PARTS.filter(k => b.unknown[k] > 0).map(k => `${k} (${b.unknown[k]} of ${k === 'idle' ? n - 1 : n})`);
	if (unknown.length > 0) parts.push(`unknown: ${unknown.join(', ')}`);
	return parts.join('; ');
}
