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
import {requestFigures, totalsOf, type RequestFigures} from './figures.js';
import {diagnoseTurns, FINDING_KINDS, placeSignals, prefillRisk, type Finding, type FindingKind, type TurnDiagnosis, type TurnInput} from './findings.js';
import {macGpuSummary, type WiredVerdict} from './wired-limit.js';
import {heldAt, ringShift} from './ring-shift.js';
import {MAX_REQUESTS} from './reducer.js';
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

/**
 * What the derivation did, counted (tests assert structure, not time: the work of one derivation
 * is bounded by the ring, never turns × ring, and a ring that did not change costs nothing).
 * `derives`: serverSessions runs; `timelines`: requests' timelines worked out (once per record);
 * `slotIndexes`: free-slot indexes built (one per derivation that needs it); `slotSteps`: elements
 * the free-slot test visited (binary-search steps; a request each where the scan is linear);
 * `held`: timelines the last derivation kept for the next (those of records expected to be still held).
 */
export const sessionsWork = {derives: 0, timelines: 0, slotIndexes: 0, slotSteps: 0, held: 0};

interface Timed {
	readonly r: RequestRecord;
	readonly end: number;
	/** Arrival of the accepted try, where known. */
	readonly arrival?: number;
	/** Waiting for a slot after arrival (engine-stated, from the access wall time, or 0 where the engine never queues). */
	readonly slotQueueMs?: number;
	/** A lower bound of the arrival, for the gap rule where the arrival is unknown. */
	readonly earliest: number;
	/** The request's figures (requestFigures) and uncached prompt tokens (totalsOf), worked out with it. */
	readonly f: RequestFigures;
	readonly uncached?: number;
}

/** One request's own timeline: when it arrived and how long it waited for a slot. */
function timeline(r: RequestRecord, refuses: boolean): Timed {
	sessionsWork.timelines++;
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
	return {r, end, arrival, slotQueueMs, earliest: arrival ?? Math.min(r.startedAt ?? r.firstSeen, r.firstSeen, end - (work ?? 0)), f: requestFigures(r), uncached: totalsOf(r).uncached};
}

/**
 * The last derivation's timelines of each server, by place in its ring (model/ring-shift.ts). A
 * record is never changed once published (the reducer copies it), so a record still in the ring
 * keeps its timeline. A WeakMap keyed by the records did the same and cost more than it saved: an
 * entry a finished request made every scavenge walk the table (under a busy log every record is new
 * by the next look; the app's V8 without TurboFan: 1.3 → 1.8 ms a derivation of a 200-request ring,
 * the GC 7 → 48 % of it).
 */
interface LastRing {
	readonly requests: readonly RequestRecord[];
	readonly refuses: boolean;
	readonly timed: readonly (Timed | undefined)[];
}
const lastRings = new Map<string, LastRing>();

/**
 * What is kept of this derivation for the next: the timelines of the records after the first
 * `dropped` places only (`dropped`: the places the ring will have moved by the next derivation, if
 * as many records come by then as came since the last), and a copy of the ring, not the ring itself.
 * Keeping every timeline and the ring (the sessions memo's key) kept a whole derivation, its
 * sessions included, alive until the next; under a busy log, where none of it is used again, all of
 * it outlived the young generation (eight logs at 100 req/s: ~260 KB/s more promoted, issue 32).
 */
function keptRing(requests: readonly RequestRecord[], refuses: boolean, byPlace: (Timed | undefined)[], dropped: number): LastRing {
	let held = 0;
	for (let k = 0; k < byPlace.length; k++) {
		if (k < dropped) byPlace[k] = undefined;
		else if (byPlace[k] !== undefined) held++;
	}
	sessionsWork.held = held;
	return {requests: requests.slice(), refuses, timed: byPlace};
}

/** Where a request began for the free-slot test: its launch, else its arrival, else when it was first seen. */
const startOf = (o: Timed): number => o.r.startedAt ?? o.arrival ?? o.r.firstSeen;

/**
 * The free-slot test's index over one server's timed requests (sorted by end): for each suffix of
 * them (those that ended after some time), the least start in it, where it is, and the least start
 * but that one. Built once per derivation (O(ring)); each test is then a binary search instead of a
 * scan of the whole ring for every turn (was O(turns × ring): 20,000 steps a derivation at 100 turns
 * and a ring of 200, and an iterator result object per step in the app's interpreter).
 */
interface SlotIndex {
	readonly all: readonly Timed[];
	readonly ends: number[];
	readonly least: number[];
	readonly leastAt: number[];
	readonly second: number[];
}

/** The index, or undefined where the ends are not in order (a NaN): the linear scan answers then. */
function slotIndex(all: readonly Timed[]): SlotIndex | undefined {
	sessionsWork.slotIndexes++;
	const n = all.length;
	const ends: number[] = [];
	let before = -Infinity;
	for (let k = 0; k < n; k++) {
		const e = all[k]!.end;
		if (!(e >= before)) return undefined;
		ends.push(e);
		before = e;
	}
	const least: number[] = new Array<number>(n);
	const leastAt: number[] = new Array<number>(n);
	const second: number[] = new Array<number>(n);
	// A NaN start is never less than a launch (the scan's `<` is false): it is never the least.
	let m1 = Infinity;
	let at = -1;
	let m2 = Infinity;
	for (let k = n - 1; k >= 0; k--) {
		const s = startOf(all[k]!);
		if (s < m1) {
			m2 = m1;
			m1 = s;
			at = k;
		} else if (s < m2) m2 = s;
		least[k] = m1;
		leastAt[k] = at;
		second[k] = m2;
	}
	return {all, ends, least, leastAt, second};
}

/** The index of one derivation, built when the first turn asks for it. */
interface SlotIndexHolder {
	readonly all: readonly Timed[];
	readonly indexed: boolean;
	built: boolean;
	index: SlotIndex | undefined;
}

/**
 * No slot wait, known: the engine logged when it began the request, and from `since` (the session's
 * previous turn ended, its slot freed) until then no other request of the server was in flight —
 * a slot stood free the whole time, and these engines start a request whenever one is free.
 */
function freeSlotSince(t: Timed, since: number, slots: SlotIndexHolder): boolean {
	const began = t.r.startedAt;
	if (began === undefined || began < since) return false;
	if (slots.indexed && !slots.built) {
		slots.built = true;
		slots.index = slotIndex(slots.all);
	}
	const ix = slots.index;
	if (ix === undefined) {
		// Another request that began before this one and ended after `since`: a slot was not free.
		const all = slots.all;
		for (let k = 0; k < all.length; k++) {
			sessionsWork.slotSteps++;
			const o = all[k]!;
			if (o === t) continue;
			if (startOf(o) < began && o.end > since) return false;
		}
		return true;
	}
	// The first request (by end) that ended after `since`; every one from there on did.
	const ends = ix.ends;
	let lo = 0;
	let hi = ends.length;
	while (lo < hi) {
		sessionsWork.slotSteps++;
		const mid = (lo + hi) >>> 1;
		if (ends[mid]! > since) hi = mid;
		else lo = mid + 1;
	}
	if (lo === ends.length) return true;
	const least = ix.all[ix.leastAt[lo]!] === t ? ix.second[lo]! : ix.least[lo]!;
	return !(least < began);
}

const refusedBy = (f: Refusal, client: string | undefined): boolean => !f.earlier && (client === undefined ? f.client === undefined : f.client === client);

/** Sessions of one client on one model being formed, in the order their first turn came. */
interface Forming {
	readonly model: string;
	readonly client?: string;
	readonly items: Timed[];
}

const byEnd = (a: Timed, b: Timed): number => a.end - b.end;
const NO_SIGNALS: readonly ServerSignal[] = [];

/**
 * Group one server's finished requests into sessions. `reuse` (default): the timelines of the records
 * still in the ring since the last derivation kept, and the free-slot test from an index; false:
 * every timeline worked out anew and the free-slot test a scan of the ring (the tests compare the two).
 */
export function serverSessions(server: ServerState, gapMs = DEFAULT_SESSION_GAP_MS, reuse = true): SessionsView {
	sessionsWork.derives++;
	const refuses = engineOf(server.engine).whenBusy === 'refuses';
	// infertop's own probes (matched to their log request) are not an agent's turns. A failed or
	// cancelled request is a turn that went wrong (its findings say why), outside the budget.
	// Indexed loops, no iterators or per-request temporaries: this runs every second on a busy ring
	// in the app's interpreter (no optimizing compiler).
	const requests = server.requests;
	const n = requests.length;
	// Where the last derivation's ring had this ring's records (ring-shift.ts; -1: nothing to keep).
	const last = reuse ? lastRings.get(server.id) : undefined;
	const shift = last !== undefined && last.refuses === refuses ? ringShift(last.requests, requests) : -1;
	const byPlace: (Timed | undefined)[] | undefined = reuse ? new Array<Timed | undefined>(n) : undefined;
	const timed: Timed[] = [];
	let doneCount = 0;
	// Σ uncached ÷ Σ prefill time over each model's finished requests with both known (in ring order).
	const prefill = new Map<string, {tokens: number; ms: number}>();
	for (let k = 0; k < n; k++) {
		const r = requests[k]!;
		if (!r.done || r.attribution?.by === 'probe') continue;
		doneCount++;
		let t: Timed | undefined;
		if (!r.earlier) {
			const o = last === undefined ? -1 : heldAt(last.requests, requests, shift, k);
			const kept = o >= 0 ? last!.timed[o] : undefined;
			t = kept ?? timeline(r, refuses);
			timed.push(t);
			if (byPlace !== undefined) byPlace[k] = t;
		}
		if (r.outcome !== undefined) continue;
		const uncached = t !== undefined ? t.uncached : totalsOf(r).uncached;
		if (uncached === undefined || uncached <= 0 || r.prefillMs === undefined || r.prefillMs <= 0) continue;
		const model = modelLabel(r, server);
		const sums = prefill.get(model);
		if (sums === undefined) prefill.set(model, {tokens: uncached, ms: r.prefillMs});
		else {
			sums.tokens += uncached;
			sums.ms += r.prefillMs;
		}
	}
	if (byPlace !== undefined) {
		// Records that came since the last derivation (all of them where none was there, none at the first).
		const arrivals = last === undefined ? 0 : shift < 0 ? n : Math.max(0, n - (last.requests.length - shift));
		lastRings.set(server.id, keptRing(requests, refuses, byPlace, Math.max(0, n + arrivals - MAX_REQUESTS)));
	}
	timed.sort(byEnd);
	const withoutTime = doneCount - timed.length;
	// Model → client → the sessions forming; `forming` keeps them in the order they began.
	const open = new Map<string, Map<string, Forming[]>>();
	const forming: Forming[][] = [];
	for (let k = 0; k < timed.length; k++) {
		const t = timed[k]!;
		const model = modelLabel(t.r, server);
		let clients = open.get(model);
		if (clients === undefined) {
			clients = new Map();
			open.set(model, clients);
		}
		const clientKey = t.r.client ?? '';
		let list = clients.get(clientKey);
		if (list === undefined) {
			list = [];
			clients.set(clientKey, list);
			forming.push(list);
		}
		const current = list.length > 0 ? list[list.length - 1] : undefined;
		const prev = current !== undefined && current.items.length > 0 ? current.items[current.items.length - 1] : undefined;
		let joins = false;
		if (prev !== undefined) {
			const prevPrompt = prev.f.promptTokens;
			const f = t.f;
			const grows = prevPrompt !== undefined && prevPrompt > 0 && f.promptTokens !== undefined && f.cachedTokens !== undefined && f.promptTokens > prevPrompt && f.cachedTokens >= PREFIX_REUSE_SHARE * prevPrompt;
			joins = grows || t.earliest - prev.end <= gapMs;
		}
		if (current !== undefined && joins) current.items.push(t);
		else list.push({model, client: t.r.client, items: [t]});
	}
	const sessions: Session[] = [];
	const signals = server.signals ?? [];
	const placed = placeSignals(signals, timed);
	const refusals = server.refusals ?? [];
	const slots: SlotIndexHolder = {all: timed, indexed: reuse, built: false, index: undefined};
	for (let g = 0; g < forming.length; g++) {
		const list = forming[g]!;
		for (let j = 0; j < list.length; j++) {
			const s = list[j]!;
			const sums = prefill.get(s.model);
			const tps = sums !== undefined && sums.ms > 0 ? (sums.tokens * 1000) / sums.ms : undefined;
			const items = s.items.length > MAX_TURNS ? s.items.slice(-MAX_TURNS) : s.items;
			sessions.push(buildSession(server, s.model, s.client, items, tps, refusals, slots, gapMs, placed, signals));
		}
	}
	sessions.sort(byLastTurn);
	return {sessions, withoutTime};
}

const lastTime = (s: Session): number => (s.turns.length > 0 ? s.turns[s.turns.length - 1]!.time : 0);
const byLastTurn = (a: Session, b: Session): number => lastTime(a) - lastTime(b);

/** `t` with a slot wait known to be 0: it arrived when it began. */
const withFreeSlot = (t: Timed): Timed => ({r: t.r, end: t.end, arrival: t.r.startedAt, slotQueueMs: 0, earliest: t.earliest, f: t.f, uncached: t.uncached});

function buildSession(server: ServerState, model: string, client: string | undefined, items: readonly Timed[], prefillTps: number | undefined, refusals: readonly Refusal[], slots: SlotIndexHolder, gapMs: number, placed: Map<Timed, ServerSignal[]>, signals: readonly ServerSignal[]): Session {
	const n = items.length;
	// One shape for every turn (its diagnosis filled in below): spreads of optional fields are slow.
	const turns: {-readonly [K in keyof Turn]: Turn[K]}[] = [];
	// A slot wait known to be 0 (nothing else held the server since the last turn ended).
	const adjusted: Timed[] = [];
	let last: number | undefined;
	for (let i = 0; i < n; i++) {
		const t = items[i]!;
		adjusted.push(t.slotQueueMs === undefined && last !== undefined && freeSlotSince(t, last, slots) ? withFreeSlot(t) : t);
		last = last === undefined ? t.end : Math.max(last, t.end);
	}
	// Refused tries of this client: each belongs to the first turn (in the order they ended) that
	// arrived after it — an agent's turns overlap (side requests), so a try refused while the last
	// turn ran is still a later one's. A try a whole-second stamp puts just after every arrival goes
	// to the first turn that ended after it. Tries older than the session by more than the gap are another's.
	const sessionFrom = (n > 0 ? items[0]!.earliest : 0) - gapMs;
	const until = last ?? -Infinity;
	let mine: Refusal[] | undefined;
	for (let k = 0; k < refusals.length; k++) {
		const x = refusals[k]!;
		if (refusedBy(x, client) && x.t >= sessionFrom && x.t <= until) (mine ??= []).push(x);
	}
	// Only where this client was refused: a list per turn.
	let claims: Refusal[][] | undefined;
	if (mine !== undefined) {
		const lists: Refusal[][] = [];
		const claimed = new Set<Refusal>();
		for (let i = 0; i < n; i++) {
			const t = adjusted[i]!;
			const arrived = t.arrival ?? t.r.firstSeen;
			const list: Refusal[] = [];
			for (let k = 0; k < mine.length; k++) {
				const x = mine[k]!;
				if (claimed.has(x) || x.t > arrived) continue;
				claimed.add(x);
				list.push(x);
			}
			lists.push(list);
		}
		for (let k = 0; k < mine.length; k++) {
			const x = mine[k]!;
			if (claimed.has(x)) continue;
			for (let i = 0; i < n; i++) {
				if (adjusted[i]!.end >= x.t) {
					lists[i]!.push(x);
					break;
				}
			}
		}
		claims = lists;
	}
	const inputs: TurnInput[] = [];
	const placedOn: (readonly ServerSignal[])[] = [];
	let prevEnd: number | undefined;
	let failed = false;
	for (let i = 0; i < n; i++) {
		const t = adjusted[i]!;
		const f = t.f;
		const claim = claims?.[i];
		const retries = claim !== undefined ? claim.length : 0;
		const firstRefusal = retries > 0 ? Math.min(...claim!.map(x => x.t)) : undefined;
		const retryWait = firstRefusal !== undefined && t.arrival !== undefined ? Math.max(0, t.arrival - firstRefusal) : firstRefusal === undefined ? 0 : undefined;
		const queueMs = t.slotQueueMs !== undefined && retryWait !== undefined ? t.slotQueueMs + retryWait : undefined;
		const start = firstRefusal ?? t.arrival;
		let idleBeforeMs: number | undefined;
		// Turns that overlap (an agent's side request) leave no idle between them: 0, known.
		if (prevEnd !== undefined && start !== undefined) idleBeforeMs = Math.max(0, start - prevEnd);
		const promptTokens = f.promptTokens;
		const cachedTokens = f.cachedTokens;
		const prefillMs = t.r.prefillMs;
		const generatedTokens = t.r.generatedTokens ?? t.r.decodedTokens;
		if (t.r.outcome !== undefined) failed = true;
		turns.push({
			serverId: server.id,
			key: t.r.key,
			time: t.end,
			start,
			promptTokens,
			cachedTokens,
			promptEstimated: f.promptEstimated === true,
			prefillTokens: t.r.prefillTokens,
			queueMs,
			prefillMs,
			decodeMs: t.r.decodeMs,
			generatedTokens,
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
		inputs.push({r: t.r, end: t.end, earliest: t.earliest, promptTokens, cachedTokens, queueMs, prefillMs, generatedTokens});
		placedOn.push((placed.size > 0 ? placed.get(items[i]!) : undefined) ?? NO_SIGNALS);
		prevEnd = prevEnd === undefined ? t.end : Math.max(prevEnd, t.end);
	}
	const descriptor = engineOf(server.engine);
	let logsLoads = false;
	for (let k = 0; k < signals.length; k++) {
		if (signals[k]!.kind === 'loaded') {
			logsLoads = true;
			break;
		}
	}
	const diagnosis = diagnoseTurns(inputs, {
		model,
		models: server.models,
		slotContext: server.context?.nCtxPerSlot,
		offload: server.offloads[model],
		fixes: descriptor.agentFixes,
		prefillTps,
		placed: placedOn,
		signals,
		logsLoads,
	});
	for (let i = 0; i < n; i++) {
		const t = turns[i]!;
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
		id: `${server.id}/${model}/${client ?? '-'}/${n > 0 ? items[0]!.r.key : ''}`,
		serverId: server.id,
		engine: server.engine,
		model,
		client,
		turns: full,
		// Failed and cancelled turns hold no whole figures: the budget is over the turns that finished.
		budget: budgetOf(failed ? full.filter(t => t.outcome === undefined) : full, prefillTps),
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

/**
 * The budget of a series of turns (exported for the exporter's counters and the tests). One pass
 * over the turns (was a dozen maps and filters of them): every sum still adds the same numbers in
 * the same order from 0, so the figures are the same floats.
 */
export function budgetOf(turns: readonly Turn[], prefillTps: number | undefined): Budget {
	const n = turns.length;
	const first = n > 0 ? turns[0] : undefined;
	// Sums over every turn (idle: over turns 2…n); undefined from the first unknown on.
	let queueMs: number | undefined = 0;
	let prefillMs: number | undefined = 0;
	let decodeMs: number | undefined = 0;
	let idleSum: number | undefined = 0;
	let cachedTokens: number | undefined = 0;
	const unknown = {queue: 0, prefill: 0, decode: 0, idle: 0};
	let cachedUnknown = 0;
	// Shares over the turns whose every part is known (the first turn has no idle to know), so one
	// unknown part of one turn does not take that part out of every share; where no turn is fully
	// known, over the parts known in every turn.
	let full = 0;
	let fullIdle = 0;
	let fullQueue = 0;
	let fullPrefill = 0;
	let fullDecode = 0;
	let fullIdleMs = 0;
	for (let i = 0; i < n; i++) {
		const t = turns[i]!;
		const q = t.queueMs;
		const p = t.prefillMs;
		const d = t.decodeMs;
		const c = t.cachedTokens;
		if (q === undefined) {
			unknown.queue++;
			queueMs = undefined;
		} else if (queueMs !== undefined) queueMs += q;
		if (p === undefined) {
			unknown.prefill++;
			prefillMs = undefined;
		} else if (prefillMs !== undefined) prefillMs += p;
		if (d === undefined) {
			unknown.decode++;
			decodeMs = undefined;
		} else if (decodeMs !== undefined) decodeMs += d;
		if (c === undefined) {
			cachedUnknown++;
			cachedTokens = undefined;
		} else if (cachedTokens !== undefined) cachedTokens += c;
		const idle = t.idleBeforeMs;
		if (i > 0) {
			if (idle === undefined) {
				unknown.idle++;
				idleSum = undefined;
			} else if (idleSum !== undefined) idleSum += idle;
		}
		if (q !== undefined && p !== undefined && d !== undefined && (i === 0 || idle !== undefined)) {
			full++;
			fullQueue += q;
			fullPrefill += p;
			fullDecode += d;
			if (t !== first) {
				fullIdle++;
				fullIdleMs += idle!;
			}
		}
	}
	const later = n > 0 ? n - 1 : 0;
	const idleMs = later === 0 ? 0 : idleSum;
	const savedByCacheMs = cachedTokens !== undefined && prefillTps !== undefined && prefillTps > 0 ? (cachedTokens * 1000) / prefillTps : undefined;
	const parts: Record<BudgetPart, number | undefined> = full > 0
		? {queue: fullQueue, prefill: fullPrefill, decode: fullDecode, idle: fullIdle > 0 ? fullIdleMs : undefined}
		: {queue: queueMs, prefill: prefillMs, decode: decodeMs, idle: later > 0 ? idleMs : undefined};
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
	const idleApplies = full > 0 ? fullIdle > 0 : later > 0;
	return {
		queueMs,
		prefillMs,
		decodeMs,
		idleMs,
		savedByCacheMs,
		cachedTokens,
		unknown,
		shares: waitKnown && (parts.idle !== undefined || !idleApplies) ? share(BUDGET_PARTS) : {},
		waitShares: (waitKnown ? share(WAIT_PARTS) : {}) as Budget['waitShares'],
		sharesOver: full > 0 ? full : n,
		cachedUnknown,
	};
}
const WAIT_PARTS: readonly BudgetPart[] = ['queue', 'prefill', 'decode'];

/** What a server's sessions are derived from besides its ring (the memos' key). */
interface DerivedFrom {
	readonly refusals: ServerState['refusals'];
	readonly models: ServerState['models'];
	readonly signals: ServerState['signals'];
	readonly gapMs: number;
}
/** `m` was derived from what `server` holds now (its ring is the key it was found by). */
const derivedFrom = (m: DerivedFrom | undefined, server: ServerState, gapMs: number): m is DerivedFrom => m !== undefined && m.refusals === server.refusals && m.models === server.models && m.signals === server.signals && m.gapMs === gapMs;

interface Memo extends DerivedFrom {
	readonly requests: ServerState['requests'];
	readonly view: SessionsView;
}
const memo = new WeakMap<ServerState['requests'], Memo>();

/** Sessions of one server, recomputed only when its requests, refusals or models changed. */
export function sessionsOfServer(server: ServerState, gapMs = DEFAULT_SESSION_GAP_MS): SessionsView {
	const m = memo.get(server.requests);
	if (derivedFrom(m, server, gapMs)) return m.view;
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
	const mac = wiredOver(state);
	if (mac !== undefined) {
		const verdict = mac.verdict!;
		const holders = new Set((mac.demand?.parts ?? []).map(p => p.serverId));
		sessions = sessions.map(s => (holders.has(s.serverId) ? withWiredFinding(s, verdict) : s));
	}
	return {sessions, withoutTime};
}

/** The Mac's GPU summary where its engines hold more than the GPU may wire (its verdict `over`); else undefined. */
function wiredOver(state: MonitorState): ReturnType<typeof macGpuSummary> | undefined {
	const mac = state.system.mac ? macGpuSummary(state) : undefined;
	return mac?.verdict?.level === 'over' ? mac : undefined;
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

/** Where each kind stands in FINDING_KINDS (findingEntries' per-kind slots). */
const KIND_AT: ReadonlyMap<FindingKind, number> = new Map(FINDING_KINDS.map((k, i) => [k, i]));

/**
 * Every session's findings, one entry per kind per session (the instance with the engine's own
 * line first, else the first), newest first; plus the requests still prefilling whose first byte is
 * predicted past the client's 300 s.
 */
export function findingEntries(state: MonitorState, view: SessionsView): FindingEntry[] {
	const out: FindingEntry[] = [];
	const sessions = view.sessions;
	const scratch = kindScratch();
	for (let j = 0; j < sessions.length; j++) sessionEntries(sessions[j]!, scratch, out);
	liveEntries(state, sessions, out);
	return out.sort(newestFirst);
}

const newestFirst = (a: FindingEntry, b: FindingEntry): number => b.time - a.time;

/** What a session's entries need to be gathered (per kind: the turns with it, its first and its first own instance), reused session after session. */
interface KindScratch {
	readonly turnsOf: (number[] | undefined)[];
	readonly firstOf: (Finding | undefined)[];
	readonly ownOf: (Finding | undefined)[];
}
function kindScratch(): KindScratch {
	const kinds = FINDING_KINDS.length;
	return {turnsOf: new Array<number[] | undefined>(kinds), firstOf: new Array<Finding | undefined>(kinds), ownOf: new Array<Finding | undefined>(kinds)};
}

/**
 * One session's entries, appended to `out` in FINDING_KINDS order. One pass over the session's turns
 * for every kind at once (issue 32): a pass per kind walked each turn's findings 11 times a frame,
 * with an iterator a turn in the app's interpreter (8 busy servers: 8 sessions × 11 kinds × 100
 * turns, ~2.3 MB of iterator objects in 25 s, the most of any one site of a frame).
 */
function sessionEntries(s: Session, scratch: KindScratch, out: FindingEntry[]): void {
	const {turnsOf, firstOf, ownOf} = scratch;
	const turns = s.turns;
	turnsOf.fill(undefined);
	firstOf.fill(undefined);
	ownOf.fill(undefined);
	let any = false;
	for (let i = 0; i < turns.length; i++) {
		const findings = turns[i]!.findings;
		for (let k = 0; k < findings.length; k++) {
			const f = findings[k]!;
			const at = KIND_AT.get(f.kind);
			if (at === undefined) continue;
			any = true;
			let list = turnsOf[at];
			if (list === undefined) turnsOf[at] = list = [];
			if (list.length === 0 || list[list.length - 1] !== i + 1) list.push(i + 1);
			if (firstOf[at] === undefined) firstOf[at] = f;
			if (ownOf[at] === undefined && !f.inferred) ownOf[at] = f;
		}
	}
	if (!any) return;
	for (let at = 0; at < turnsOf.length; at++) {
		const list = turnsOf[at];
		if (list === undefined) continue;
		const finding = ownOf[at] ?? firstOf[at]!;
		out.push({time: turns[list[list.length - 1]! - 1]!.time, serverId: s.serverId, model: s.model, sessionId: s.id, kind: FINDING_KINDS[at]!, evidence: finding.evidence, fix: finding.fix, turns: list, finding});
	}
}

/** What the requests still in flight read of a session: which it is, its turns so far, its model's prefill rate. */
interface SessionRef {
	readonly id: string;
	readonly serverId: string;
	readonly model: string;
	readonly prefillTps?: number;
	readonly turnCount: number;
}

/** The requests still prefilling whose first byte is predicted past the client's 300 s, each with the newest session of its server and model (`sessions` oldest last turn first). */
function liveEntries(state: MonitorState, sessions: readonly (Session | SessionRef)[], out: FindingEntry[]): void {
	for (const id of state.order) {
		const server = state.servers[id];
		if (!server) continue;
		const requests = server.requests;
		for (let i = 0; i < requests.length; i++) {
			const r = requests[i]!;
			if (r.done || r.outcome !== undefined) continue;
			const model = modelLabel(r, server);
			const session = sessions.findLast(x => x.serverId === id && x.model === model);
			const risk = prefillRisk(r, session?.prefillTps, state.now);
			if (!risk) continue;
			const turnCount = session === undefined ? 0 : 'turns' in session ? session.turns.length : session.turnCount;
			out.push({time: state.now, serverId: id, model, sessionId: session?.id ?? `${id}/${model}`, kind: 'timeout-risk', evidence: risk.evidence, fix: risk.fix, turns: [turnCount + 1], live: true, finding: risk});
		}
	}
}

/** One session as the findings keep it: its entries and what the requests in flight read of it, not its turns. */
interface SessionFindings extends SessionRef {
	/** Its last turn's time (deriveSessions' order of sessions). */
	readonly lastTime: number;
	readonly entries: readonly FindingEntry[];
}

interface FindingsMemo extends DerivedFrom {
	readonly sessions: readonly SessionFindings[];
}
const findingsMemo = new WeakMap<ServerState['requests'], FindingsMemo>();

/**
 * One server's sessions as the findings keep them, derived only when its requests, refusals or
 * models changed (as sessionsOfServer). The sessions themselves are let go at once: the footer
 * looks every 2 s, and a busy server's sessions held until then (the sessions memo's) outlived V8's
 * young generation, ~190 KB/s of eight busy logs' ~1,270 promoted (issue 32); their findings are a
 * few entries.
 */
function serverFindings(server: ServerState, gapMs: number): readonly SessionFindings[] {
	const m = findingsMemo.get(server.requests);
	if (derivedFrom(m, server, gapMs)) return m.sessions;
	const held = memo.get(server.requests);
	const view = derivedFrom(held, server, gapMs) ? held.view : serverSessions(server, gapMs);
	const scratch = kindScratch();
	const sessions = view.sessions.map((s): SessionFindings => {
		const entries: FindingEntry[] = [];
		sessionEntries(s, scratch, entries);
		return {id: s.id, serverId: s.serverId, model: s.model, prefillTps: s.prefillTps, turnCount: s.turns.length, lastTime: s.turns.at(-1)?.time ?? 0, entries};
	});
	findingsMemo.set(server.requests, {refusals: server.refusals, models: server.models, signals: server.signals, gapMs, sessions});
	return sessions;
}

/**
 * The same entries as findingEntries(state, deriveSessions(state, gapMs)), for the footer, the
 * findings list and `--notify`, which read findings only: each server's sessions are derived (where
 * they changed) and let go, and only their findings kept. Where the Mac's wired-memory verdict
 * adds a finding to sessions (deriveSessions), the sessions are derived whole.
 */
export function currentFindings(state: MonitorState, gapMs = DEFAULT_SESSION_GAP_MS): FindingEntry[] {
	if (wiredOver(state) !== undefined) return findingEntries(state, deriveSessions(state, gapMs));
	const sessions: SessionFindings[] = [];
	for (const id of state.order) {
		const s = state.servers[id];
		if (s) sessions.push(...serverFindings(s, gapMs));
	}
	sessions.sort(byLastTime);
	const out: FindingEntry[] = [];
	for (const s of sessions) out.push(...s.entries);
	liveEntries(state, sessions, out);
	return out.sort(newestFirst);
}

const byLastTime = (a: SessionFindings, b: SessionFindings): number => a.lastTime - b.lastTime;

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
