/**
 * The requests table as data: every request of every server as an entry, sorted and filtered as the
 * table shows them (the pane, the detail overlay, the selectors and the key router read them). Pure; no components.
 */
import {requestFigures, type RequestFigures} from '../../model/figures.js';
import {engineName, engineOf} from '../../engines/index.js';
import {modelLabel, requestsWithoutFigures} from '../../model/derive.js';
import {heldAt, ringShift} from '../../model/ring-shift.js';
import type {RequestRecord, ServerState} from '../../types/state.js';
import type {EngineKind} from '../../types/events.js';
import type {TableSort} from '../view-state.js';

/** One request as the table and the detail overlay see it. Pure data. */
export interface RequestEntry {
	/** `serverId/key`: unique over the whole screen. */
	readonly key: string;
	readonly record: RequestRecord;
	readonly engine: string;
	readonly model: string;
	readonly figures: RequestFigures;
}

/** One server's entries in ring order, for one ring (and what its model labels and engine name read of the server). */
interface ServerEntries {
	readonly engine: string;
	readonly kind: ServerState['engine'];
	readonly noModels: boolean;
	readonly ring: readonly RequestRecord[];
	readonly entries: readonly RequestEntry[];
}

/**
 * Each server's entries by the identity of its request ring (the reducer makes a new array whenever
 * a ring changes): a server whose ring did not change since the last publish costs one lookup, not
 * a walk of its 200 records. Measured with 8 servers of 200 requests, `--no-opt`: 0.25 ms CPU per
 * publish when one ring changed, against 0.42 ms.
 */
const SERVER_ENTRIES = new WeakMap<readonly RequestRecord[], ServerEntries>();

/**
 * Each server's last entries, by server id: a ring that changed keeps the entries of the records it
 * still holds, found by their place in the old ring (model/ring-shift.ts), with no lookup and no
 * model label. Under traffic every ring changes between two frames (eight servers at 100 requests a
 * second: 200 records a ring, 100 of them new each second). A WeakMap from each record to its entry
 * was looked up and a label made for each of the 1,600 records at each frame, and V8's collector
 * traced its 1,600 weak entries at each scavenge: by place, eight busy logs cost ~4 % less (issue 32,
 * docs/measured.md). Only the servers of the state last asked for are kept.
 */
const LAST = new Map<string, ServerEntries>();

/** The figures of the entries whose figures were read (entryOf). */
const FIGURES = new WeakMap<RequestEntry, RequestFigures>();

/**
 * `figures` of an entry: one getter shared by every entry, so that an entry stays an object of one
 * shape with fast properties (a getter written in each entry's literal is a new function per entry,
 * which puts every entry in dictionary mode: slower reads of `record`, `key`… in every sort and filter).
 */
const FIGURES_PROPERTY: PropertyDescriptor = {
	enumerable: true,
	get(this: RequestEntry): RequestFigures {
		let f = FIGURES.get(this);
		if (f === undefined) {
			f = requestFigures(this.record);
			FIGURES.set(this, f);
		}
		return f;
	},
};

/**
 * An entry whose figures are worked out when first read, then kept (an enumerable getter: they read
 * as a field does, in a spread and in JSON too). Under traffic every record of a ring is new each
 * second (at 1,000 requests a second the 200-request ring turns over five times between frames), and
 * the table shows ~10 of them sorted by time: the figures of the other ~190 (requestFigures, an object
 * and its numbers each) were made for nothing every frame. A sort by a figure, the detail view and the
 * rows shown read them.
 */
function entryOf(r: RequestRecord, engine: string, model: string): RequestEntry {
	const e = {key: `${r.serverId}/${r.key}`, record: r, engine, model};
	Object.defineProperty(e, 'figures', FIGURES_PROPERTY);
	return e as RequestEntry;
}

/** Whether `c`'s entries were made for what the labels read now (at module level: not a closure made each frame). */
function labelledAs(c: ServerEntries | undefined, engine: string, s: ServerState, noModels: boolean): c is ServerEntries {
	return c !== undefined && c.engine === engine && c.kind === s.engine && c.noModels === noModels;
}

/** One server's requests as entries, in ring order. */
function serverEntries(s: ServerState): readonly RequestEntry[] {
	const engine = engineName(s);
	// modelLabel reads the record, whether the server lists models, and its engine kind
	const noModels = s.models.length === 0;
	const ring = s.requests;
	const cached = SERVER_ENTRIES.get(ring);
	if (labelledAs(cached, engine, s, noModels)) {
		LAST.set(s.id, cached);
		return cached.entries;
	}
	const last = LAST.get(s.id);
	const old = labelledAs(last, engine, s, noModels) ? last : undefined;
	const shift = old === undefined ? -1 : ringShift(old.ring, ring);
	const entries = new Array<RequestEntry>(ring.length);
	for (let i = 0; i < ring.length; i++) {
		const k = old === undefined ? -1 : heldAt(old.ring, ring, shift, i);
		entries[i] = k >= 0 ? old!.entries[k]! : entryOf(ring[i]!, engine, modelLabel(ring[i]!, s));
	}
	const made: ServerEntries = {engine, kind: s.engine, noModels, ring, entries};
	SERVER_ENTRIES.set(ring, made);
	LAST.set(s.id, made);
	return entries;
}

/** Every request of every server, newest first (a stable sort: on equal times in server order, then ring order). Pure (the caches only save remaking equal entries). */
export function requestEntries(servers: Readonly<Record<string, ServerState>>, order: readonly string[]): RequestEntry[] {
	const lists: (readonly RequestEntry[])[] = [];
	for (const id of order) {
		const s = servers[id];
		if (s) lists.push(serverEntries(s));
	}
	// a server gone from the state: its last entries are let go
	if (LAST.size > lists.length) for (const id of LAST.keys()) if (servers[id] === undefined) LAST.delete(id);
	// concat copies (the cached lists are never handed out to be changed); one native sort over runs already in order
	return ([] as RequestEntry[]).concat(...lists).sort(byLastSeen);
}

// The table's functions live at module level, not made anew each frame: under a busy log V8's
// optimizing compiler compiled each frame's new closures again, a few times a second (issue 32:
// `--trace-opt` at 1,000 req/s, the same source compiled 4–5 times in 20 s).
const byLastSeen = (a: RequestEntry, b: RequestEntry): number => b.record.lastSeen - a.record.lastSeen;
/** Running now: not done, and not a request the backlog left open (the header and the table alike). */
const inFlight = (r: RequestRecord): boolean => !r.done && !r.backlog;
const isLive = (e: RequestEntry): boolean => inFlight(e.record);
/** Largest first; unknown (undefined) after every known one; ties in the order given. */
const byValue = (a: SortItem, b: SortItem): number => (a.v === undefined ? (b.v === undefined ? a.i - b.i : 1) : b.v === undefined ? -1 : b.v - a.v || a.i - b.i);
interface SortItem {
	readonly e: RequestEntry;
	readonly i: number;
	readonly v: number | undefined;
}

/**
 * What the REQUESTS header counts: requests seen since start (each server's finished-request
 * counter, JSON's `requestsSeen`, plus the ones in flight), and the logs' lag and skipped lines.
 * O(servers + requests in flight): the rings are not walked for what the counters already say.
 */
export function requestsSeen(servers: Readonly<Record<string, ServerState>>, order: readonly string[]): {requests: number; lag: {bytesBehind: number; linesSkipped: number}; withoutFigures?: WithoutFigures} {
	let requests = 0;
	let bytesBehind = 0;
	let linesSkipped = 0;
	let calls = 0;
	// the engines of servers whose log showed requests only as access lines, once each
	const kinds: EngineKind[] = [];
	for (const id of order) {
		const s = servers[id];
		if (!s) continue;
		requests += s.requestsSeen;
		const without = requestsWithoutFigures(s);
		if (without > 0) {
			calls += without;
			if (!kinds.includes(s.engine)) kinds.push(s.engine);
		}
		// in flight: records not done among the newest 32 (the reducer looks no further back for a
		// request's next line); one the backlog left open is not running (as in tableEntries)
		for (let i = s.requests.length - 1; i >= 0 && i >= s.requests.length - 32; i--) {
			const r = s.requests[i]!;
			if (inFlight(r)) requests++;
		}
		bytesBehind += s.logLag?.bytesBehind ?? 0;
		linesSkipped += s.logLag?.linesSkipped ?? 0;
	}
	if (kinds.length === 0) return {requests, lag: {bytesBehind, linesSkipped}};
	const hint = kinds.length === 1 ? engineOf(kinds[0]).requestFigures : undefined;
	const engines = kinds.map(k => engineOf(k).label).join(' and ');
	return {requests, lag: {bytesBehind, linesSkipped}, withoutFigures: {calls, engines, ...(hint !== undefined ? {hint} : {})}};
}

/** Requests that servers' access lines showed, of servers whose log gave none with figures (model/derive.ts requestsWithoutFigures), and those servers' engines. */
export interface WithoutFigures {
	readonly calls: number;
	/** `vLLM`, `vLLM and SGLang`. */
	readonly engines: string;
	/** Where they are one engine's: how to have figures per request, or why there are none (its descriptor's `requestFigures`). */
	readonly hint?: string;
}

const SORT_VALUE: Record<TableSort, (e: RequestEntry) => number | undefined> = {
	// A request whose time the log does not give (`earlier`) sorts after every timed one.
	time: e => (e.record.earlier ? undefined : e.record.lastSeen),
	decode: e => e.figures.decodeTps,
	prompt: e => e.figures.promptTokens,
	cached: e => e.figures.cachedTokens,
};

/**
 * The finished entries of `entries` by time appended to `out`, where `entries` are already in that
 * order (requestEntries sorts them newest first): the timed ones as they come, then the `earlier`
 * ones. Under traffic the table is sorted by time on every frame, and the general sort made an item
 * for each of the kept requests (1,600 with eight servers) to put them in the order they were in.
 * False, with `out` as it was, where a time is out of order or not a number (the general sort then
 * says where it goes).
 */
function byTimeInOrder(entries: readonly RequestEntry[], out: RequestEntry[]): boolean {
	const live = out.length;
	let earlier: RequestEntry[] | undefined;
	let last = Infinity;
	for (let i = 0; i < entries.length; i++) {
		const e = entries[i]!;
		const r = e.record;
		if (!r.done) continue;
		if (r.earlier) {
			(earlier ??= []).push(e);
			continue;
		}
		const t = r.lastSeen;
		if (!(t <= last)) {
			out.length = live;
			return false;
		}
		last = t;
		out.push(e);
	}
	if (earlier !== undefined) for (let i = 0; i < earlier.length; i++) out.push(earlier[i]!);
	return true;
}

/**
 * The table's rows: requests in flight first (newest first), then finished ones by the sort key,
 * largest first; a request whose figure is unknown goes after every known one (never read as 0).
 * A request the backlog left open (not done, not running now) is left out; `earlier` requests (time unknown)
 * sort last by time. The filter is a case-insensitive substring of engine, model or request key. Pure.
 */
export function tableEntries(entries: readonly RequestEntry[], sort: TableSort, filter: string): RequestEntry[] {
	const q = filter.trim().toLowerCase();
	const hit = q === '' ? entries : entries.filter(e => `${e.engine} ${e.model} ${e.key}`.toLowerCase().includes(q));
	// A request the backlog left open is not running now: it is not shown as live.
	const out = hit.filter(isLive);
	if (sort === 'time' && byTimeInOrder(hit, out)) return out;
	const value = SORT_VALUE[sort];
	const done: SortItem[] = [];
	for (const e of hit) if (e.record.done) done.push({e, i: done.length, v: value(e)});
	done.sort(byValue);
	for (const x of done) out.push(x.e);
	return out;
}
