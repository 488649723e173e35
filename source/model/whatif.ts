/**
 * "What if" (issue 29): an agent session's recorded turns projected onto other server × model
 * profiles (measured by `compare --depths`), and onto the server it ran on (the method's own error).
 * Pure.
 *
 * Per turn, on a candidate:
 * - prompt and generated tokens scale by the tokenizers' ratio (the candidate's count of the depth-0
 *   text ÷ the session model's; 1 for the same model; unknown → no projection);
 * - cached: none where the candidate does not reuse a prefix or reloads; else the tokens the turn
 *   reused where it ran, or (where that server reused nothing) the previous turn's prompt when this
 *   prompt grew from it (an agent's prompt grows by appending);
 * - prefill = T(prompt) − T(cached), T(d) the wall time to first token of a fresh d-token prompt,
 *   linear between the measured depths (T(0) = 0);
 * - decode = generated × ms per token at the prompt's depth (linear between the measured depths, the
 *   shallowest point's below it);
 * - past the deepest point both extend the last segment up to EXTRAPOLATE_SHARE beyond it; deeper is unknown;
 * - load: where the agent's idle gap outlasted the candidate's keep-alive, its load time;
 * - queue: the turn's own where the candidate runs requests the way the session's server does (where
 *   the log gives it); else this agent alone: 0 where it runs them side by side, one at a time the
 *   wait behind the session's own overlapping turns;
 * - idle: the agent's own, unchanged.
 * A turn whose prompt + answer exceed the candidate's window makes it unable.
 */
import type {Session, Turn} from './sessions.js';
import {engineOf} from '../engines/index.js';
import type {MonitorState, ServerState} from '../types/state.js';
import {modelLabel} from './derive.js';
import {requestFigures} from './figures.js';
import {modelsToCompare} from './compare.js';
import type {Concurrency, DepthPoint, Profile} from '../types/whatif.js';

/** Past the deepest measured depth, the last segment is extended by at most this share of it. */
export const EXTRAPOLATE_SHARE = 0.25;

export type WhatIfPart = 'queue' | 'load' | 'prefill' | 'decode' | 'idle';
export const WHATIF_PARTS: readonly WhatIfPart[] = ['queue', 'load', 'prefill', 'decode', 'idle'];

export interface WhatIfParts {
	readonly queueMs: number | null;
	readonly loadMs: number | null;
	readonly prefillMs: number | null;
	readonly decodeMs: number | null;
	readonly idleMs: number | null;
}

export interface WhatIfRow {
	readonly server: string;
	readonly engine: string;
	readonly model: string;
	/** This is the server × model the session ran on (projected the same way: the method's own error). */
	readonly actual: boolean;
	readonly turns: number;
	/** Sum of the parts; null when any is unknown or the candidate is unable. */
	readonly projectedMs: number | null;
	readonly parts: WhatIfParts;
	/** The session's recorded wall time (queue + prefill + decode + idle), the same for every row. */
	readonly actualMs: number | null;
	/** (projected − actual) ÷ actual, %, for this row. */
	readonly changePct: number | null;
	/** The session's server projected onto its own profile against what it recorded, %: the method's error. */
	readonly selfErrorPct: number | null;
	/** When the candidate's rates were measured (ISO; for rates from the log, its newest request), and by which infertop. */
	readonly ratesMeasuredAt: string;
	/** Where the rates come from: `compare --depths`, or the finished requests of the server's log (passive). */
	readonly ratesSource: 'measured' | 'log';
	readonly ratesVersion: string;
	/** `turn 7 needs 41K tokens, window 32K`; null when it can run the session. */
	readonly unable: string | null;
	/** The part that dominates the projected time. */
	readonly dominant: WhatIfPart | null;
	/** Candidate tokens per session-model token (null: unknown). */
	readonly tokenRatio: number | null;
	/** The rates used at the session's shallowest and deepest turn, and the depths measured. */
	readonly rates: {
		readonly depthFrom: number | null;
		readonly depthTo: number | null;
		readonly prefillTps: readonly [number | null, number | null];
		readonly decodeTps: readonly [number | null, number | null];
		readonly measuredDepths: readonly number[];
	};
	/** Why a number is null, and the assumptions made (one line each). */
	readonly notes: readonly string[];
}

const r2 = (x: number): number => Math.round(x * 100) / 100;

/** T(d), ms: linear through (0, 0) and each point's (prompt tokens, TTFT); null past the allowed extension. */
export function prefillTimeAt(points: readonly DepthPoint[], depth: number): number | null {
	if (depth <= 0) return 0;
	const xs = [{d: 0, t: 0}, ...points.filter((p) => p.promptTokens > 0).map((p) => ({d: p.promptTokens, t: p.ttftMs}))];
	const last = xs.at(-1)!;
	if (xs.length < 2) return null;
	if (depth > last.d * (1 + EXTRAPOLATE_SHARE)) return null;
	for (let i = 1; i < xs.length; i++) {
		const a = xs[i - 1]!;
		const b = xs[i]!;
		if (depth <= b.d || i === xs.length - 1) return a.t + ((b.t - a.t) * (depth - a.d)) / (b.d - a.d);
	}
	return null;
}

/** ms per generated token at a depth: linear between points, the shallowest one's below them; null past the allowed extension. */
export function decodeMsPerTokenAt(points: readonly DepthPoint[], depth: number): number | null {
	const xs = points.filter((p) => p.decodeTps !== undefined && p.decodeTps > 0).map((p) => ({d: p.promptTokens, m: 1000 / p.decodeTps!}));
	if (xs.length === 0) return null;
	const last = xs.at(-1)!;
	if (depth > last.d * (1 + EXTRAPOLATE_SHARE)) return null;
	if (depth <= xs[0]!.d || xs.length === 1) return xs[0]!.m;
	for (let i = 1; i < xs.length; i++) {
		const a = xs[i - 1]!;
		const b = xs[i]!;
		if (depth <= b.d || i === xs.length - 1) return a.m + ((b.m - a.m) * (depth - a.d)) / (b.d - a.d);
	}
	return null;
}

/** `620`, `2.2K`, `18K`: a window and a prompt near it stay told apart. */
const ktok = (n: number): string => (n >= 10_000 ? `${Math.round(n / 1000)}K` : n >= 1000 ? `${(n / 1000).toFixed(1)}K` : String(n));

/** The tokenizer ratio of a candidate against the session's model, and why where unknown. */
export function tokenRatio(candidate: Profile, sessionModel: string, own: Profile | undefined): {ratio: number | null; note?: string} {
	if (candidate.model === sessionModel) return {ratio: 1};
	const a = own?.tokenizer;
	const b = candidate.tokenizer;
	if (a && b && a.textId === b.textId && a.tokens > 0) return {ratio: b.tokens / a.tokens, note: `tokens scaled by ${(b.tokens / a.tokens).toFixed(3)} (${b.tokens} vs ${a.tokens} tokens of the same text)`};
	return {ratio: null, note: own ? 'tokenizer ratio unknown: the depth-0 text was not counted on both' : 'tokenizer ratio unknown: the session\'s own model has no measured profile (compare --depths on it)'};
}

interface TurnPlan {
	readonly prompt: number;
	readonly cached: number;
	readonly generated: number;
}

export interface ProjectOptions {
	/** The profile of the server × model the session ran on, where measured (for the ratio and the self error). */
	readonly own?: Profile;
	/** How the session's server runs requests (its profile's, else its engine's), for the queue rule. */
	readonly ownConcurrency?: Concurrency;
	/** Now (ms epoch), for the rates' age. */
	readonly now?: number;
}

const sumOrNull = (xs: readonly (number | null)[]): number | null => (xs.some((x) => x === null) ? null : xs.reduce<number>((a, x) => a + x!, 0));

/** The session's recorded wall time: Σ queue + prefill + decode + idle; null where any is unknown. */
export function actualMsOf(turns: readonly Turn[]): number | null {
	const parts = turns.flatMap((t, i) => [t.queueMs ?? null, t.prefillMs ?? null, t.decodeMs ?? null, i === 0 ? 0 : (t.idleBeforeMs ?? null)]);
	const s = sumOrNull(parts);
	return s === null ? null : r2(s);
}

/** One candidate's projection of the turns (no self error: see projectSession). */
export function projectTurns(turns: readonly Turn[], sessionModel: string, c: Profile, o: ProjectOptions = {}): Omit<WhatIfRow, 'actual' | 'actualMs' | 'changePct' | 'selfErrorPct'> {
	const notes: string[] = c.passive === undefined ? [] : [c.passive];
	const {ratio, note} = tokenRatio(c, sessionModel, o.own);
	if (note) notes.push(note);
	const measuredDepths = c.points.map((p) => p.promptTokens);
	const base = {
		server: c.url,
		engine: c.engine,
		model: c.model,
		turns: turns.length,
		ratesMeasuredAt: new Date(c.measuredAt).toISOString(),
		ratesVersion: c.version,
		ratesSource: c.passive === undefined ? ('measured' as const) : ('log' as const),
		tokenRatio: ratio === null ? null : Number(ratio.toFixed(4)),
	};
	const nothing: WhatIfParts = {queueMs: null, loadMs: null, prefillMs: null, decodeMs: null, idleMs: null};
	const emptyRates = {depthFrom: null, depthTo: null, prefillTps: [null, null] as const, decodeTps: [null, null] as const, measuredDepths};
	if (ratio === null) return {...base, projectedMs: null, parts: nothing, unable: null, dominant: null, rates: emptyRates, notes};
	// Tokens on the candidate.
	const plans: (TurnPlan | null)[] = [];
	const reusedWhereRan = turns.some((t) => (t.cachedTokens ?? 0) > 0);
	let assumedAppend = false;
	let unable: string | null = null;
	for (const [i, t] of turns.entries()) {
		if (t.promptTokens === undefined || t.generatedTokens === undefined) {
			plans.push(null);
			notes.push(`turn ${i + 1}: ${t.promptTokens === undefined ? 'prompt' : 'generated'} tokens unknown`);
			continue;
		}
		let shared: number;
		if (reusedWhereRan) shared = t.cachedTokens ?? 0;
		else {
			const prev = turns[i - 1]?.promptTokens;
			shared = prev !== undefined && prev < t.promptTokens ? prev : 0;
			if (shared > 0) assumedAppend = true;
		}
		const prompt = Math.round(t.promptTokens * ratio);
		const generated = Math.round(t.generatedTokens * ratio);
		plans.push({prompt, cached: Math.min(prompt, Math.round(shared * ratio)), generated});
		if (unable === null && c.contextWindow !== undefined && prompt + generated > c.contextWindow) unable = `turn ${i + 1} needs ${ktok(prompt + generated)} tokens, window ${ktok(c.contextWindow)}`;
	}
	const depths = plans.filter((p): p is TurnPlan => p !== null).map((p) => p.prompt);
	const depthFrom = depths.length > 0 ? Math.min(...depths) : null;
	const depthTo = depths.length > 0 ? Math.max(...depths) : null;
	const rateAt = (d: number | null): [number | null, number | null] => {
		if (d === null) return [null, null];
		const tp = prefillTimeAt(c.points, d);
		const md = decodeMsPerTokenAt(c.points, d);
		return [tp !== null && tp > 0 ? r2((d * 1000) / tp) : null, md !== null && md > 0 ? r2(1000 / md) : null];
	};
	const [pf, df] = rateAt(depthFrom);
	const [pt, dt] = rateAt(depthTo);
	const rates = {depthFrom, depthTo, prefillTps: [pf, pt] as const, decodeTps: [df, dt] as const, measuredDepths};
	if (unable !== null) return {...base, projectedMs: null, parts: nothing, unable, dominant: null, rates, notes};
	if (assumedAppend && c.cache.reused === true) notes.push('where the session\'s server reused nothing, each prompt is taken to extend the previous turn\'s (an agent\'s prompt grows by appending)');
	const reuses = c.cache.reused;
	if (reuses === undefined) notes.push('prompt-cache reuse unknown on this server: prefill unknown');
	const concurrency = c.concurrency;
	const sameQueue = concurrency !== undefined && concurrency === o.ownConcurrency;
	if (concurrency === undefined) notes.push('whether it runs requests at once is unknown: the turns\' own queue used');
	// A timeline on the candidate, for the one-at-a-time wait and the keep-alive.
	let free = 0;
	let prevArrival = 0;
	let prevEnd = 0;
	const parts = {queue: [] as (number | null)[], load: [] as (number | null)[], prefill: [] as (number | null)[], decode: [] as (number | null)[], idle: [] as (number | null)[]};
	let beyond = 0;
	let reloads = 0;
	let queueAssumed = 0;
	for (const [i, t] of turns.entries()) {
		const plan = plans[i];
		const idle = i === 0 ? 0 : (t.idleBeforeMs ?? null);
		parts.idle.push(idle);
		// Load: the agent's idle outlasted the keep-alive.
		let load: number | null = 0;
		let reloaded = false;
		if (i > 0 && idle !== null && c.keepAliveMs !== undefined && idle > c.keepAliveMs) {
			reloaded = true;
			reloads++;
			load = c.loadMs ?? null;
		} else if (i > 0 && idle === null && c.keepAliveMs !== undefined) load = null;
		parts.load.push(load);
		if (!plan) {
			parts.prefill.push(null);
			parts.decode.push(null);
			parts.queue.push(null);
			continue;
		}
		const cached = reuses === true && !reloaded ? plan.cached : 0;
		const tHi = prefillTimeAt(c.points, plan.prompt);
		const tLo = prefillTimeAt(c.points, cached);
		const prefill = reuses === undefined || tHi === null || tLo === null ? null : Math.max(0, tHi - tLo);
		const mpt = decodeMsPerTokenAt(c.points, plan.prompt);
		const decode = mpt === null ? null : plan.generated * mpt;
		if (tHi === null || mpt === null) beyond++;
		parts.prefill.push(prefill);
		parts.decode.push(decode);
		// Arrival on the candidate's clock: after the previous turn and the agent's idle, or, for a
		// turn that overlapped the previous one where it ran, as long after its arrival as it was there.
		const prevTurn = turns[i - 1];
		const overlapped = prevTurn !== undefined && t.start !== undefined && prevTurn.start !== undefined && t.start < prevTurn.time;
		const arrival = i === 0 ? 0 : overlapped ? prevArrival + (t.start! - prevTurn.start!) : prevEnd + (idle ?? 0);
		// This agent alone on the candidate: side by side it never waits; one at a time it waits behind its own earlier turn.
		const alone = concurrency === undefined ? null : concurrency === 'parallel' ? 0 : Math.max(0, free - arrival);
		let queue: number | null;
		if (concurrency === undefined || sameQueue) {
			queue = t.queueMs ?? alone;
			if (t.queueMs === undefined && alone !== null) queueAssumed++;
		} else queue = alone;
		parts.queue.push(queue);
		const end = arrival + (queue ?? 0) + (load ?? 0) + (prefill ?? 0) + (decode ?? 0);
		free = Math.max(free, end);
		prevArrival = arrival;
		prevEnd = Math.max(prevEnd, end);
	}
	if (beyond > 0) {
		const deepest = c.points.at(-1)?.promptTokens ?? 0;
		notes.push(`${beyond} turn${beyond === 1 ? ' is' : 's are'} deeper than ${ktok(Math.round(deepest * (1 + EXTRAPOLATE_SHARE)))} tokens (the deepest measured, ${ktok(deepest)}, + ${EXTRAPOLATE_SHARE * 100} %): measure deeper (compare --depths)`);
	}
	if (queueAssumed > 0) notes.push(`queue: ${queueAssumed} turn${queueAssumed === 1 ? '\'s' : 's\''} own wait unknown: this agent alone on the server assumed (${concurrency === 'parallel' ? 'no wait' : 'the wait behind its own earlier turn'})`);
	if (reloads > 0) notes.push(`${reloads} reload${reloads === 1 ? '' : 's'}: the agent's idle outlasted the ${Math.round(c.keepAliveMs! / 1000)} s keep-alive${c.loadMs === undefined ? ' (load time unknown)' : ''}`);
	const total: WhatIfParts = {
		queueMs: sumOrNull(parts.queue),
		loadMs: sumOrNull(parts.load),
		prefillMs: sumOrNull(parts.prefill),
		decodeMs: sumOrNull(parts.decode),
		idleMs: sumOrNull(parts.idle),
	};
	const rounded: WhatIfParts = {
		queueMs: total.queueMs === null ? null : r2(total.queueMs),
		loadMs: total.loadMs === null ? null : r2(total.loadMs),
		prefillMs: total.prefillMs === null ? null : r2(total.prefillMs),
		decodeMs: total.decodeMs === null ? null : r2(total.decodeMs),
		idleMs: total.idleMs === null ? null : r2(total.idleMs),
	};
	const projected = sumOrNull([total.queueMs, total.loadMs, total.prefillMs, total.decodeMs, total.idleMs]);
	const known = WHATIF_PARTS.map((k) => [k, total[`${k}Ms` as keyof WhatIfParts]] as const).filter(([, v]) => v !== null && v > 0);
	const dominant = known.length === 0 ? null : known.reduce((a, b) => (b[1]! > a[1]! ? b : a))[0];
	return {...base, projectedMs: projected === null ? null : r2(projected), parts: rounded, unable: null, dominant, rates, notes};
}

const pctChange = (x: number | null, of: number | null): number | null => (x === null || of === null || of <= 0 ? null : r2(((x - of) / of) * 100));

/**
 * The session projected onto each candidate, and onto its own server × model (`actual: true`, its
 * profile where measured): every row carries the same actual time and the own row's self error.
 */
export function projectSession(session: Session, candidates: readonly Profile[], own: {url?: string; profile?: Profile; concurrency?: Concurrency}): WhatIfRow[] {
	// A failed or cancelled request is a turn of the agent view, not of its budget: not projected either.
	const s = {...session, turns: session.turns.filter((t) => t.outcome === undefined)};
	const actualMs = actualMsOf(s.turns);
	const ownConcurrency = own.profile?.concurrency ?? own.concurrency;
	const opts: ProjectOptions = {own: own.profile, ownConcurrency};
	const self = own.profile ? projectTurns(s.turns, s.model, own.profile, opts) : undefined;
	// Rates learnt from the log that holds this session's own turns would check the method against itself.
	const circular = self?.ratesSource === 'log';
	const circularWhy = 'the method\'s own error is unknown: its server\'s rates come from the same log as this session\'s turns (no measured profile)';
	const selfErrorPct = self && !circular ? pctChange(self.projectedMs, actualMs) : null;
	const rows: WhatIfRow[] = [];
	const isOwn = (p: Profile): boolean => own.url !== undefined && p.url === own.url && p.model === s.model;
	if (self) rows.push({...self, actual: true, actualMs, changePct: circular ? null : pctChange(self.projectedMs, actualMs), selfErrorPct, notes: circular ? [...self.notes, circularWhy] : self.notes});
	for (const c of candidates) {
		if (isOwn(c) || c === own.profile) continue;
		const p = projectTurns(s.turns, s.model, c, opts);
		const why = !own.profile ? 'the method\'s own error is unknown: the session\'s server has no measured profile' : circular ? circularWhy : actualMs === null ? 'the method\'s own error and the change are unknown: a part of the recorded turns is not in the log' : undefined;
		rows.push({...p, actual: false, actualMs, changePct: pctChange(p.projectedMs, actualMs), selfErrorPct, notes: why !== undefined && selfErrorPct === null ? [...p.notes, why] : p.notes});
	}
	return rows;
}

// ---- text ----------------------------------------------------------------------------------

const sec = (ms: number | null): string => (ms === null ? '--' : ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);
const signed = (x: number | null): string => (x === null ? '--' : `${x > 0 ? '+' : ''}${Math.round(x)} %`);
const rate = (pair: readonly [number | null, number | null]): string => (pair[0] === null && pair[1] === null ? '--' : pair[0] === pair[1] ? String(Math.round(pair[0]!)) : `${pair[0] === null ? '--' : Math.round(pair[0])}→${pair[1] === null ? '--' : Math.round(pair[1])}`);

/** How old a measurement is, in words (`3 h`, `2 d`). */
export function ageWords(iso: string, now: number): string {
	const ms = now - Date.parse(iso);
	if (!Number.isFinite(ms) || ms < 0) return '--';
	if (ms < 3_600_000) return `${Math.max(1, Math.round(ms / 60_000))} min`;
	if (ms < 172_800_000) return `${Math.round(ms / 3_600_000)} h`;
	return `${Math.round(ms / 86_400_000)} d`;
}

export const WHATIF_COLUMNS = ['', 'server', 'engine', 'model', 'projected', 'change', 'queue', 'load', 'prefill', 'decode', 'idle', 'prefill tok/s', 'decode tok/s', 'depths', 'rates of'] as const;

/** One table line's cells (the TUI and the text share them). */
export function whatIfCells(r: WhatIfRow, now: number): string[] {
	const depths = r.rates.depthFrom === null ? '--' : `${ktok(r.rates.depthFrom)}–${ktok(r.rates.depthTo!)}`;
	return [
		r.actual ? '*' : '',
		r.server,
		r.engine,
		r.model,
		r.unable !== null ? 'unable' : sec(r.projectedMs),
		r.unable !== null ? r.unable : signed(r.changePct),
		sec(r.parts.queueMs),
		sec(r.parts.loadMs),
		sec(r.parts.prefillMs),
		sec(r.parts.decodeMs),
		sec(r.parts.idleMs),
		rate(r.rates.prefillTps),
		rate(r.rates.decodeTps),
		depths,
		`${r.ratesSource === 'log' ? 'log ' : ''}${ageWords(r.ratesMeasuredAt, now)}`,
	];
}

/** The projection as text (`infertop whatif`). */
export function whatIfText(s: Pick<Session, 'id' | 'model' | 'turns'>, rows: readonly WhatIfRow[], now: number): string {
	const actual = rows[0]?.actualMs ?? actualMsOf(s.turns);
	const self = rows[0]?.selfErrorPct ?? null;
	const out = [`what if: session ${s.id} (${s.turns.length} turns, ${s.model}), recorded ${sec(actual)}; the method's own error on its server: ${signed(self)}`];
	const table = [[...WHATIF_COLUMNS] as string[], ...rows.map((r) => whatIfCells(r, now))];
	const widths = WHATIF_COLUMNS.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
	for (const r of table) out.push(r.map((c, i) => (i < 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd());
	for (const r of rows) for (const n of r.notes) out.push(`  ${r.server} ${r.model}: ${n}`);
	out.push('* the server the session ran on, projected the same way. Speeds only: the quality of the answers is not judged.');
	return out.join('\n') + '\n';
}

/** A depth as asked (`--depths 4k`): 4096 → `4K`. */
const depthLabel = (n: number): string => (n > 0 && n % 1024 === 0 ? `${n / 1024}K` : String(n));

/** A measured profile as text (`compare --depths`). */
export function profileText(p: Profile): string {
	const out = [`${p.url} ${p.engine} ${p.model}: measured ${new Date(p.measuredAt).toISOString()} by infertop ${p.version}${p.contextWindow !== undefined ? `, window ${p.contextWindow}` : ''}`];
	out.push('  depth  prompt tok  TTFT ms  prefill tok/s (engine)  decode tok/s (engine)');
	for (const x of p.points) {
		const eng = (v: number | undefined): string => (v === undefined ? '--' : v.toFixed(1));
		out.push(`  ${depthLabel(x.nominal).padStart(5)}  ${String(x.promptTokens).padStart(10)}  ${Math.round(x.ttftMs).toString().padStart(7)}  ${`${x.prefillTps.toFixed(1)} (${eng(x.prefillTpsReported)})`.padStart(22)}  ${`${x.decodeTps === undefined ? '--' : x.decodeTps.toFixed(1)} (${eng(x.decodeTpsReported)})`.padStart(21)}`);
	}
	const c = p.cache;
	const cache = c.reused === undefined ? 'unknown' : c.reused ? `reused (by ${c.by === 'count' ? `the server's count: ${c.cachedTokens} of ${c.promptTokens}` : 'time'}), second TTFT ${c.secondTtftMs === undefined ? '--' : Math.round(c.secondTtftMs)} ms${c.cachedPrefillTps === undefined ? '' : `, ${Math.round(c.cachedPrefillTps)} tok/s`}` : `not reused (by ${c.by === 'count' ? "the server's count" : 'time'})`;
	out.push(`  cache: ${cache}`);
	out.push(`  load: ${p.loadMs === undefined ? '--' : `${Math.round(p.loadMs)} ms (${p.loadSource ?? 'engine'})`}; keep-alive: ${p.keepAliveMs === undefined ? '--' : `${Math.round(p.keepAliveMs / 1000)} s`}; requests: ${p.concurrency ?? '--'}`);
	for (const n of p.notes ?? []) out.push(`  note: ${n}`);
	return out.join('\n') + '\n';
}

// ---- passive curves: the log's finished requests ----------------------------------------------

/** Fewest finished requests with prefill and decode known that make a curve from the log. */
export const PASSIVE_MIN_POINTS = 3;
/** Depth groups the log's requests are pooled into. */
const PASSIVE_GROUPS = 8;

/** One finished request as a point: its prompt and cached tokens, prefill ms of the uncached part, decode ms, generated, when. */
export interface PassivePoint {
	readonly prompt: number;
	readonly cached: number;
	readonly prefillMs: number;
	readonly decodeMs: number;
	readonly generated: number;
	readonly t: number;
}

/** The points of one server × model: every finished request (not infertop's probes) whose counts and times are all known. */
export function passivePoints(server: Pick<ServerState, 'requests' | 'models' | 'engine'>, model: string): PassivePoint[] {
	const out: PassivePoint[] = [];
	for (const r of server.requests) {
		if (!r.done || r.outcome !== undefined || r.attribution?.by === 'probe' || modelLabel(r, server) !== model) continue;
		const f = requestFigures(r);
		const generated = r.generatedTokens ?? r.decodedTokens;
		if (f.promptTokens === undefined || f.cachedTokens === undefined || f.promptEstimated === true || r.prefillMs === undefined || r.decodeMs === undefined || generated === undefined) continue;
		if (f.promptTokens - f.cachedTokens <= 0 || r.prefillMs <= 0 || generated <= 1 || r.decodeMs <= 0) continue;
		out.push({prompt: f.promptTokens, cached: f.cachedTokens, prefillMs: r.prefillMs, decodeMs: r.decodeMs, generated, t: r.lastSeen});
	}
	return out;
}

/**
 * A curve from the log's points, as a profile the projection reads: the points sorted by depth are
 * pooled into up to 8 groups of equal count; each group's prefill cost per token is Σ prefill ms ÷
 * Σ uncached tokens over its requests, its decode Σ decode ms ÷ Σ generated; T(d), the time of a fresh
 * prompt, adds each group's cost per token over the depths up to its deepest prompt. Undefined with
 * fewer than PASSIVE_MIN_POINTS points. The engine's own times (the log's), not wall clock.
 */
export function passiveProfile(url: string, engine: string, model: string, points: readonly PassivePoint[], now: number): Profile | undefined {
	if (points.length < PASSIVE_MIN_POINTS) return undefined;
	const sorted = [...points].sort((a, b) => a.prompt - b.prompt);
	const groups: PassivePoint[][] = [];
	const per = Math.ceil(sorted.length / Math.min(PASSIVE_GROUPS, sorted.length));
	for (let i = 0; i < sorted.length; i += per) groups.push(sorted.slice(i, i + per));
	const depthPoints: DepthPoint[] = [];
	let t = 0;
	let from = 0;
	for (const g of groups) {
		const depth = Math.max(...g.map((p) => p.prompt));
		if (depth <= from) continue;
		const msPerToken = g.reduce((a, p) => a + p.prefillMs, 0) / g.reduce((a, p) => a + (p.prompt - p.cached), 0);
		const decodeMsPerToken = g.reduce((a, p) => a + p.decodeMs, 0) / g.reduce((a, p) => a + p.generated, 0);
		t += msPerToken * (depth - from);
		from = depth;
		depthPoints.push({nominal: depth, promptTokens: depth, ttftMs: r2(t), prefillTps: r2((depth * 1000) / t), decodeTps: r2(1000 / decodeMsPerToken), t: Math.max(...g.map((p) => p.t))});
	}
	const newest = Math.max(...points.map((p) => p.t));
	const reused = points.some((p) => p.cached > 0);
	return {
		url,
		engine,
		model,
		measuredAt: newest,
		version: 'log',
		points: depthPoints,
		cache: reused ? {reused: true, by: 'count'} : {},
		passive: `rates from ${points.length} finished requests in its log (the engine's own times; newest ${ageWords(new Date(newest).toISOString(), now)} ago)`,
	};
}

// ---- from the monitor's state ---------------------------------------------------------------

export interface WhatIfView {
	readonly session?: Session;
	readonly rows: readonly WhatIfRow[];
	/** Why there is no table (one line), or what is missing. */
	readonly problem?: string;
	/** Servers × models the monitor knows that have no profile and no log curve (`url model`): offered a measurement. */
	readonly unmeasured?: readonly string[];
}

/**
 * `last`: the newest session of more than one turn (an agent's side request — a title, a summary — is
 * a session of one), else the newest.
 */
export function lastSession(sessions: readonly Session[]): Session | undefined {
	return sessions.filter((s) => s.turns.length > 1).at(-1) ?? sessions.at(-1);
}

/**
 * The projection of one session of the state (its id, or `last`) onto the profiles: the own
 * server's profile (same URL and model) gives the self error; `urls` (when given) limit the candidates.
 */
export function whatIfOf(sessions: readonly Session[], servers: MonitorState['servers'], profiles: readonly Profile[], which: string, urls: readonly string[] = [], at?: number): WhatIfView {
	const s = which === 'last' ? lastSession(sessions) : (sessions.find((x) => x.id === which) ?? sessions.find((x) => x.id.startsWith(which)));
	if (!s) return {rows: [], problem: sessions.length === 0 ? 'no agent session recorded yet (the agent view, key a, shows them)' : `no session ${which} (there are ${sessions.length}; --session last)`};
	const server = servers[s.serverId];
	const url = server?.url;
	const now = at ?? Math.max(0, ...Object.values(servers).map((x) => x?.lastSeen ?? 0), ...profiles.map((p) => p.measuredAt));
	const newest = newerOfMeasuredAndLog(profiles, servers, now);
	const found = newest.find((p) => url !== undefined && p.url === url && p.model === s.model);
	// Its own curve from its log holds this session's turns: the self error then shows how well the curve fits them.
	const own = found?.passive !== undefined ? {...found, passive: `${found.passive}; this session's turns among them`} : found;
	const norm = (u: string): string => u.replace(/\/+$/, '');
	const candidates = newest.filter((p) => urls.length === 0 || urls.some((u) => norm(u) === norm(p.url)));
	const concurrency: Concurrency | undefined = server && engineOf(server.engine).whenBusy === 'refuses' ? 'refuses' : undefined;
	const rows = projectSession(s, candidates, {url, profile: own, concurrency});
	const unmeasured: string[] = [];
	for (const x of Object.values(servers)) {
		if (!x?.url || x.state === 'stale' || x.state === 'log-only') continue;
		for (const m of modelsToCompare(x.models, undefined)) if (!newest.some((p) => p.url === x.url && p.model === m.name)) unmeasured.push(`${x.url} ${m.name}`);
	}
	if (unmeasured.length > 0) return {session: s, rows, unmeasured, ...(rows.length === 0 ? {problem: 'no measured profile to project onto: infertop compare --depths 0,4k,16k,32k [URL…] (or whatif --measure URL)'} : {})};
	if (rows.length === 0) return {session: s, rows, problem: 'no measured profile to project onto: infertop compare --depths 0,4k,16k,32k [URL…] (or whatif --measure URL)'};
	return {session: s, rows};
}

/**
 * Per server × model, the newer rates: the measured profile, or the log's curve where its newest
 * request is later than the measurement (the measured cache, load, keep-alive, concurrency, window
 * and tokenizer kept, the curve replaced). A server × model with a log curve and no measurement is
 * a candidate too.
 */
export function newerOfMeasuredAndLog(profiles: readonly Profile[], servers: MonitorState['servers'], now: number): Profile[] {
	const out: Profile[] = [];
	const seen = new Set<string>();
	const logCurve = (url: string, model: string): Profile | undefined => {
		const server = Object.values(servers).find((x) => x?.url === url);
		return server ? passiveProfile(url, server.engine, model, passivePoints(server, model), now) : undefined;
	};
	for (const p of profiles) {
		seen.add(`${p.url}\u0000${p.model}`);
		const log = logCurve(p.url, p.model);
		if (log && log.measuredAt > p.measuredAt) out.push({...p, points: log.points, measuredAt: log.measuredAt, passive: `${log.passive}, newer than the measurement of ${ageWords(new Date(p.measuredAt).toISOString(), now)} ago`});
		else out.push(log ? {...p, notes: [...(p.notes ?? []), "measured rates: newer than the log's requests"]} : p);
	}
	for (const server of Object.values(servers)) {
		if (!server?.url) continue;
		const models = new Set(server.requests.filter((r) => r.done).map((r) => modelLabel(r, server)));
		for (const m of models) {
			if (seen.has(`${server.url}\u0000${m}`)) continue;
			const log = passiveProfile(server.url, server.engine, m, passivePoints(server, m), now);
			if (log) out.push(log);
		}
	}
	return out;
}
