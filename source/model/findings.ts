/**
 * Why the agent is slow or forgetting (issue 28): per turn of an agent session, the context the
 * engine held, the window it was held in, how much of the cache was reused, the model load it paid,
 * how it finished, and the findings — each a kind, the engine's own evidence (one sanitized line) and
 * the one fix that applies. Pure: the engines' lines arrive as signals (EngineEvent `agent-signal`,
 * `model-loaded`, `model-unloaded`; ServerState `signals`), the figures from the request records.
 *
 * Unknown is `undefined` (`null` in JSON, `--` on screen), never a guess: `contextFill` needs both the
 * tokens and the window; `loadMs` is 0 only where the log writes its loads and wrote none for the turn.
 */
import type {AgentFixes} from '../engines/descriptor.js';
import type {ModelInfo, RequestRecord, ServerSignal} from '../types/state.js';
import type {AgentSignal} from '../types/events.js';
import {grouped} from '../util/format.js';

export type FindingKind =
	| 'truncated'
	| 'context-exceeded'
	| 'context-shifted'
	| 'context-near-full'
	| 'cache-miss'
	| 'reloaded'
	| 'spilled-to-cpu'
	| 'tool-call-failed'
	| 'output-limit'
	| 'timeout-risk'
	| 'queued';

/** Every kind, costliest first (correctness before time): the order the summary line picks from. */
export const FINDING_KINDS: readonly FindingKind[] = ['truncated', 'context-exceeded', 'tool-call-failed', 'output-limit', 'cache-miss', 'reloaded', 'timeout-risk', 'spilled-to-cpu', 'context-shifted', 'queued', 'context-near-full'];

/** A finding's mark on a turn's bar and in lists. */
export const FINDING_MARK: Readonly<Record<FindingKind, string>> = {
	'truncated': '✂',
	'context-exceeded': '✖',
	'tool-call-failed': '⚒',
	'output-limit': '…',
	'cache-miss': '○',
	'reloaded': '↻',
	'timeout-risk': '⏱',
	'spilled-to-cpu': '⇣',
	'context-shifted': '⇤',
	'queued': '⧗',
	'context-near-full': '▲',
};

export interface Finding {
	readonly kind: FindingKind;
	/** The engine's line or the API field that shows it (sanitized, one line). */
	readonly evidence: string;
	/** The one change that helps, as a user would type it. */
	readonly fix: string;
	/** Figures the summary line names (tokens sent, the window, where the prefix diverged, why it reloaded). */
	readonly tokens?: number;
	readonly window?: number;
	readonly position?: number;
	readonly cause?: string;
	/** cache-miss: the divergence sat at the same small position turn after turn (a nonce). */
	readonly nonce?: boolean;
	/** The finding is inferred from figures, not stated by a line of the engine. */
	readonly inferred?: boolean;
}

/** cacheReuse's denominator: the previous turn's prompt (this prompt resent it and grew), or this turn's prompt. */
export type CacheReuseBasis = 'previous-prompt' | 'prompt';

export interface TurnDiagnosis {
	readonly contextTokens?: number;
	readonly contextWindow?: number;
	readonly contextFill?: number;
	readonly cacheReuse?: number;
	readonly cacheReuseBasis?: CacheReuseBasis;
	readonly loadMs?: number;
	readonly finishReason?: 'stop' | 'length' | 'error' | 'cancelled';
	readonly findings: readonly Finding[];
}

/** What the diagnosis reads of one turn (model/sessions.ts builds it). */
export interface TurnInput {
	readonly r: RequestRecord;
	/** When it ended, and the earliest it can have begun. */
	readonly end: number;
	readonly earliest: number;
	readonly promptTokens?: number;
	readonly cachedTokens?: number;
	readonly queueMs?: number;
	readonly prefillMs?: number;
	readonly generatedTokens?: number;
}

export interface SessionContext {
	readonly model: string;
	readonly models: readonly ModelInfo[];
	/** The server's last stated context per slot (llama-server), for a one-model server. */
	readonly slotContext?: number;
	/** `offloaded N/M layers` of this model, where the log said. */
	readonly offload?: {readonly layersOnGpu: number; readonly layersTotal: number};
	readonly fixes?: AgentFixes;
	/** The model's measured prefill rate (tok/s). */
	readonly prefillTps?: number;
	/** Signals placed on this session's turns (by request key or by time), index = turn. */
	readonly placed: readonly (readonly ServerSignal[])[];
	/** Every signal of the server (reload causes: unloads, evictions between turns). */
	readonly signals: readonly ServerSignal[];
	/** The log writes its model loads (one was seen): a turn without one loaded nothing. */
	readonly logsLoads: boolean;
}

/** Node's fetch (undici) aborts after this long without response headers: agents on Node give up here. */
export const CLIENT_TIMEOUT_MS = 300_000;
/** Ollama's docs ask at least this window for agents and coding tools (docs/context-length.mdx). */
export const AGENT_WINDOW = 64_000;
const NEAR_FULL = 0.9;
const MISS_REUSE = 0.5;
/** A divergence this early, at the same place on consecutive misses, is a nonce or a timestamp. */
const NONCE_MAX_POSITION = 2048;
const NONCE_SLACK = 2;

const n = (x: number): string => grouped(Math.round(x));

/** The smallest power of two ≥ max(tokens, the agents' floor), doubled past the window it replaces. */
export function windowFor(tokens: number, window?: number): number {
	let w = 1;
	while (w < Math.max(tokens, AGENT_WINDOW)) w *= 2;
	while (window !== undefined && w <= window) w *= 2;
	return w;
}

function contextFix(fixes: AgentFixes | undefined, tokens: number, window?: number): string {
	const w = windowFor(tokens, window);
	return fixes?.contextLength?.(w) ?? `load the model with a ${n(w)}-token context`;
}

/** A turn's window where its request does not say: the listed model's, else the server's per slot (the same for every turn). */
function listedWindow(ctx: SessionContext): number | undefined {
	const model = ctx.models.find(m => m.name === ctx.model) ?? (ctx.models.length === 1 ? ctx.models[0] : undefined);
	return model?.contextLength ?? model?.contextPerSlot ?? (ctx.models.length <= 1 ? ctx.slotContext : undefined);
}

/** The signals that belong to one turn (the rest are causes read between turns). */
export const PLACED_KINDS: ReadonlySet<ServerSignal['kind']> = new Set(['truncated', 'context-exceeded', 'context-shifted', 'tool-call-failed', 'loaded']);

/**
 * Which turn each signal belongs to: the request its line names, else the first turn (in the order
 * they ended) that ended at or after it and had begun by then (1 s slack: whole-second stamps), else
 * the first that ended after it. A signal after every turn waits for the turn in flight.
 */
export function placeSignals<T extends {readonly r: RequestRecord; readonly end: number; readonly earliest: number}>(signals: readonly ServerSignal[], turns: readonly T[]): Map<T, ServerSignal[]> {
	const out = new Map<T, ServerSignal[]>();
	const add = (t: T, s: ServerSignal) => {
		const list = out.get(t);
		if (list) list.push(s);
		else out.set(t, [s]);
	};
	// Indexed loops: this runs on every derivation of a busy ring, where V8 does not optimize.
	for (let k = 0; k < signals.length; k++) {
		const s = signals[k]!;
		if (s.earlier || !PLACED_KINDS.has(s.kind)) continue;
		let t: T | undefined;
		if (s.key !== undefined) {
			for (let i = turns.length - 1; i >= 0; i--) {
				const x = turns[i]!;
				if (x.r.key === s.key && x.end >= s.t - 1000) {
					t = x;
					break;
				}
			}
			if (t) add(t, s);
			continue;
		}
		for (let i = 0; i < turns.length; i++) {
			const x = turns[i]!;
			if (x.end >= s.t && x.earliest <= s.t + 1000) {
				t = x;
				break;
			}
		}
		if (t === undefined) {
			for (let i = 0; i < turns.length; i++) {
				const x = turns[i]!;
				if (x.end >= s.t) {
					t = x;
					break;
				}
			}
		}
		if (t) add(t, s);
	}
	return out;
}

const stated = (s: ServerSignal): s is AgentSignal & {t: number} => s.kind !== 'loaded' && s.kind !== 'unloaded';
const hasKind = (findings: readonly Finding[], k: FindingKind): boolean => {
	for (let i = 0; i < findings.length; i++) if (findings[i]!.kind === k) return true;
	return false;
};
const NO_LOADS: readonly ServerSignal[] = [];

/** Diagnose every turn of one session, in order. */
export function diagnoseTurns(turns: readonly TurnInput[], ctx: SessionContext): TurnDiagnosis[] {
	// Indexed loops and what is the same for every turn worked out once: this runs on every
	// derivation of a busy ring, in the app's interpreter (no optimizing compiler).
	const out: TurnDiagnosis[] = [];
	const listed = listedWindow(ctx);
	const windows: (number | undefined)[] = [];
	for (let i = 0; i < turns.length; i++) {
		const w = turns[i]!.r.contextWindow;
		windows.push(w !== undefined ? w : listed);
	}
	// Part of the model on the CPU (as the server says now): the same on every turn.
	const spills = spillOf(ctx) !== undefined;
	const misses: {i: number; position?: number}[] = [];
	for (let i = 0; i < turns.length; i++) {
		const t = turns[i]!;
		const findings: Finding[] = [];
		const signals = ctx.placed[i] ?? NO_LOADS;
		const window = windows[i];
		const tokens = t.promptTokens;
		const fill = tokens !== undefined && window !== undefined && window > 0 ? tokens / window : undefined;
		// The engine's own words first.
		for (let k = 0; k < signals.length; k++) {
			const s = signals[k]!;
			if (!stated(s)) continue;
			if (s.kind === 'truncated') {
				const sent = s.prompt;
				findings.push({kind: 'truncated', evidence: s.evidence, fix: contextFix(ctx.fixes, sent ?? tokens ?? 0, window), tokens: sent, window: window ?? s.limit});
			} else if (s.kind === 'context-exceeded') {
				const sent = s.prompt ?? tokens;
				findings.push({kind: 'context-exceeded', evidence: s.evidence, fix: contextFix(ctx.fixes, sent ?? 0, s.window ?? window), tokens: sent, window: s.window ?? window});
			} else if (s.kind === 'context-shifted') {
				findings.push({kind: 'context-shifted', evidence: s.evidence, fix: contextFix(ctx.fixes, tokens ?? 0, window), tokens, window});
			} else if (s.kind === 'tool-call-failed') {
				findings.push({kind: 'tool-call-failed', evidence: s.evidence, fix: 'use the tool-call format the model was trained on (its own chat template / the engine\'s parser for it), or a model that calls tools reliably'});
			}
		}
		// A held prompt that stopped growing at the window (or at about half of it: Ollama ≥ 0.30.11's
		// shift cut) while the agent kept adding: cut, though no line said so.
		const prevHeld = i > 0 ? turns[i - 1]!.promptTokens : undefined;
		if (!hasKind(findings, 'truncated') && !hasKind(findings, 'context-exceeded') && tokens !== undefined && window !== undefined && prevHeld !== undefined && windows[i - 1] === window) {
			const capped = (x: number) => x >= 0.98 * window || (x >= 0.49 * window && x <= 0.6 * window);
			if (capped(tokens) && capped(prevHeld) && Math.abs(tokens - prevHeld) <= 0.01 * window) {
				findings.push({kind: 'truncated', evidence: `prompt held ${n(tokens)} tokens of a ${n(window)} window on this and the previous turn: it stopped growing`, fix: contextFix(ctx.fixes, window, window), tokens, window, inferred: true});
			}
		}
		if (!hasKind(findings, 'truncated') && !hasKind(findings, 'context-exceeded') && fill !== undefined && fill >= NEAR_FULL) {
			findings.push({kind: 'context-near-full', evidence: `prompt ${n(tokens!)} of a ${n(window!)} window (${Math.round(fill * 100)} %)`, fix: contextFix(ctx.fixes, tokens!, window), tokens, window, inferred: true});
		}
		// Cache reuse: against the previous prompt where this one resent it and grew.
		const prevPrompt = i > 0 ? turns[i - 1]!.promptTokens : undefined;
		const continues = prevPrompt !== undefined && prevPrompt > 0 && tokens !== undefined && tokens >= prevPrompt;
		let cacheReuse: number | undefined;
		let basis: CacheReuseBasis | undefined;
		if (t.cachedTokens !== undefined && continues) {
			cacheReuse = Math.min(1, t.cachedTokens / prevPrompt);
			basis = 'previous-prompt';
		} else if (t.cachedTokens !== undefined && tokens !== undefined && tokens > 0) {
			cacheReuse = Math.min(1, t.cachedTokens / tokens);
			basis = 'prompt';
		}
		if (continues && cacheReuse !== undefined && cacheReuse < MISS_REUSE && !hasKind(findings, 'truncated') && !hasKind(findings, 'context-shifted')) {
			// Where the prefix diverged: the engine's matched prefix, else what the cache reused.
			const position = t.r.sharedPrefixTokens ?? t.cachedTokens;
			misses.push({i, position});
			findings.push({kind: 'cache-miss', evidence: `${n(t.cachedTokens!)} of ${n(tokens!)} prompt tokens from the cache after a ${n(prevPrompt)}-token turn${position !== undefined ? `: prefix diverges at token ${n(position)}` : ''}`, fix: 'keep the prompt\'s start the same every turn (no timestamps or moving reminders in the system prompt)', tokens, position, inferred: true});
		}
		// Loads during the turn, and why.
		const loads = signals.length === 0 ? NO_LOADS : signals.filter(s => s.kind === 'loaded');
		let loadMs: number | undefined = ctx.logsLoads ? 0 : undefined;
		if (loads.length > 0) {
			// One load can be said twice (Ollama's `llama-server started in N seconds` and the runner's own
			// `model loaded`): the lines that say how long it took are the load's time.
			const timed = loads.flatMap(l => (l.kind === 'loaded' && l.seconds !== undefined ? [l] : []));
			loadMs = timed.length > 0 ? timed.reduce((a, l) => a + l.seconds! * 1000, 0) : undefined;
			const load = timed.at(-1) ?? loads.at(-1)!;
			const prevEnd = i > 0 ? turns[i - 1]!.end : undefined;
			// The session's first load is its cold start (in loadMs), not a reload.
			if (prevEnd !== undefined) {
				const reload = reloadCause(ctx, prevEnd, load.t, windows[i - 1], window);
				findings.push({kind: 'reloaded', evidence: load.evidence, fix: reload.fix, cause: reload.cause, ...(reload.inferred ? {inferred: true} : {})});
			}
		}
		// How it finished.
		const finishReason = t.r.outcome ?? t.r.finishReason;
		if (finishReason === 'length' && !hasKind(findings, 'context-exceeded') && !hasKind(findings, 'truncated')) {
			const limit = t.r.outputLimit;
			findings.push({kind: 'output-limit', evidence: `finish_reason length after ${t.generatedTokens !== undefined ? n(t.generatedTokens) : '--'} tokens${limit !== undefined ? ` (n_predict ${n(limit)})` : ''}`, fix: 'raise the request\'s max_tokens (num_predict), or lower the reasoning effort so the answer fits', inferred: true});
		}
		// Time to first byte past what a Node client waits for headers.
		const ttfb = t.prefillMs !== undefined ? t.prefillMs + (t.queueMs ?? 0) : undefined;
		if (ttfb !== undefined && ttfb > CLIENT_TIMEOUT_MS) {
			findings.push({kind: 'timeout-risk', evidence: `${Math.round(ttfb / 1000)} s before the first byte${t.queueMs ? ` (${Math.round(t.queueMs / 1000)} s queued)` : ''}: Node clients abort at 300 s and retry the whole prefill`, fix: 'keep the prompt cached between turns, or raise the agent\'s request timeout above 300 s', inferred: true});
		}
		// The wait before prefill holds a load during the turn: only what is left is a wait for a slot
		// (a load of unknown length leaves it unknown, so no finding).
		const slotWait = t.queueMs === undefined || loads.length === 0 ? t.queueMs : loadMs !== undefined ? t.queueMs - loadMs : undefined;
		if (slotWait !== undefined && t.prefillMs !== undefined && slotWait >= 1000 && slotWait > t.prefillMs) {
			findings.push({kind: 'queued', evidence: `waited ${Math.round(slotWait / 100) / 10} s for a slot, longer than its own prefill (${Math.round(t.prefillMs / 100) / 10} s)`, fix: ctx.fixes?.parallel ?? 'run fewer requests at once (subagents), or give the server more slots', inferred: true});
		}
		// Part of the model on the CPU (as the server says now).
		if (spills) findings.push(spillOf(ctx)!);
		out.push({
			contextTokens: tokens,
			contextWindow: window,
			contextFill: fill,
			cacheReuse,
			cacheReuseBasis: basis,
			loadMs,
			finishReason,
			findings,
		});
	}
	markNonces(out, misses);
	return out;
}

/** Misses whose divergence sat at the same small position on consecutive misses: a nonce at the prompt's start. */
function markNonces(out: TurnDiagnosis[], misses: readonly {i: number; position?: number}[]): void {
	const nonce = new Set<number>();
	for (let k = 1; k < misses.length; k++) {
		const a = misses[k - 1]!;
		const b = misses[k]!;
		// On turns one after the other (a miss now and then, at the same place, is slot thrash, not a nonce).
		if (a.position === undefined || b.position === undefined || b.i !== a.i + 1) continue;
		if (a.position <= NONCE_MAX_POSITION && Math.abs(a.position - b.position) <= NONCE_SLACK) {
			nonce.add(a.i);
			nonce.add(b.i);
		}
	}
	for (const i of nonce) {
		const d = out[i]!;
		const findings = d.findings.map(f => f.kind === 'cache-miss'
			? {...f, nonce: true, evidence: `${f.evidence}, as on the turns around it: a nonce or timestamp near the prompt's start`, fix: 'CLAUDE_CODE_ATTRIBUTION_HEADER=0 (Claude Code\'s per-request cch= nonce); otherwise take the changing text out of the system prompt\'s start'}
			: f);
		out[i] = {...d, findings};
	}
}

function reloadCause(ctx: SessionContext, prevEnd: number, loadT: number, prevWindow: number | undefined, window: number | undefined): {cause: string; fix: string; inferred?: boolean} {
	if (prevWindow !== undefined && window !== undefined && prevWindow !== window) {
		const shrunk = ctx.signals.find(s => s.kind === 'context-shrunk' && s.t > prevEnd && s.t <= loadT);
		if (shrunk) return {cause: `the runner shrank its context to fit memory (${n(prevWindow)} → ${n(window)})`, fix: contextFix(ctx.fixes, prevWindow)};
		return {cause: `options changed: context ${n(prevWindow)} → ${n(window)}`, fix: ctx.fixes?.sameOptions ?? 'send the same options (context size) every turn'};
	}
	const between = ctx.signals.filter(s => s.t > prevEnd && s.t <= loadT);
	if (between.some(s => s.kind === 'evicting' || (s.kind === 'unloaded' && s.reason === 'evicted' && (s.model === undefined || s.model === ctx.model)))) {
		return {cause: 'evicted: another model needed the memory', fix: ctx.fixes?.moreModels ?? 'give the models room to stay loaded together, or use one model'};
	}
	if (between.some(s => s.kind === 'unloaded' && (s.reason === 'gone' || s.reason === 'ttl') && (s.model === undefined || s.model === ctx.model))) {
		return {cause: 'keep-alive expired: the model left memory while the agent was idle', fix: ctx.fixes?.keepAlive ?? 'keep the model loaded longer than the agent\'s pauses'};
	}
	return {cause: 'cause not in the log', fix: ctx.fixes?.keepAlive ?? 'keep the model loaded between turns', inferred: true};
}

function spillOf(ctx: SessionContext): Finding | undefined {
	const m = ctx.models.find(x => x.name === ctx.model);
	if (m?.sizeBytes !== undefined && m.sizeVramBytes !== undefined && m.sizeBytes > 0 && m.sizeVramBytes < m.sizeBytes) {
		const gb = (b: number) => `${(b / 1e9).toFixed(1)} GB`;
		return {kind: 'spilled-to-cpu', evidence: `size_vram ${gb(m.sizeVramBytes)} of size ${gb(m.sizeBytes)}${m.processor ? ` (${m.processor})` : ''}`, fix: 'a smaller quantization or a shorter context, so the whole model fits the GPU'};
	}
	const o = ctx.offload;
	if (o && o.layersTotal > 0 && o.layersOnGpu < o.layersTotal) {
		return {kind: 'spilled-to-cpu', evidence: `offloaded ${o.layersOnGpu}/${o.layersTotal} layers to GPU`, fix: 'a smaller quantization or a shorter context, so every layer fits the GPU'};
	}
	return undefined;
}

/**
 * The predicted time to first byte of a request still prefilling: its uncached prompt ÷ the model's
 * measured prefill rate, plus what it waited; a finding when it passes the client's 300 s.
 */
export function prefillRisk(r: RequestRecord, prefillTps: number | undefined, now: number): Finding | undefined {
	if (r.done || prefillTps === undefined || prefillTps <= 0 || r.promptTokens === undefined) return undefined;
	const uncached = r.prefillTokens ?? r.promptTokens - (r.cachedTokens ?? 0);
	if (uncached <= 0) return undefined;
	const waited = Math.max(0, (r.startedAt ?? r.firstSeen) - r.firstSeen) + (r.queueMs ?? 0);
	const predicted = (uncached * 1000) / prefillTps + waited;
	if (predicted <= CLIENT_TIMEOUT_MS) return undefined;
	const elapsed = Math.max(0, now - r.firstSeen);
	return {kind: 'timeout-risk', evidence: `prefilling ${n(uncached)} uncached tokens at ${n(prefillTps)} tok/s: first byte in about ${Math.round(predicted / 1000)} s (${Math.round(elapsed / 1000)} s so far); Node clients abort at 300 s`, fix: 'keep the prompt cached between turns, or raise the agent\'s request timeout above 300 s', tokens: r.promptTokens, inferred: true};
}

/** The costliest finding of a series of turns, with the turns it is on (1-based). */
export function costliest(turns: readonly {readonly findings: readonly Finding[]}[]): {finding: Finding; turns: number[]} | undefined {
	for (const kind of FINDING_KINDS) {
		const on = turns.flatMap((t, i) => (t.findings.some(f => f.kind === kind) ? [i + 1] : []));
		if (on.length === 0) continue;
		// The instance with the largest figure speaks for the kind.
		const all = turns.flatMap(t => t.findings.filter(f => f.kind === kind));
		const finding = all.reduce((a, b) => ((b.tokens ?? 0) > (a.tokens ?? 0) && !b.inferred ? b : a), all.find(f => !f.inferred) ?? all[0]!);
		return {finding, turns: on};
	}
	return undefined;
}

export const FINDING_WORDS: Readonly<Record<FindingKind, string>> = {
	'truncated': 'prompt truncated',
	'context-exceeded': 'context exceeded',
	'context-shifted': 'context shifted',
	'context-near-full': 'context nearly full',
	'cache-miss': 'prompt cache missed',
	'reloaded': 'model reloaded',
	'spilled-to-cpu': 'model partly on the CPU',
	'tool-call-failed': 'tool call failed to parse',
	'output-limit': 'output budget ran out',
	'timeout-risk': 'first byte past the client\'s 300 s',
	'queued': 'queued longer than its prefill',
};

/**
 * The line above the turns: `✖ prompt truncated on 6 of 9 turns: 61,204 tokens into a 4,096 window
 * (Ollama WARN "truncating input prompt") — fix: OLLAMA_CONTEXT_LENGTH=65536`.
 */
export function summaryLine(turns: readonly {readonly findings: readonly Finding[]}[], engineLabel: string): string | undefined {
	const c = costliest(turns);
	if (!c) return undefined;
	const f = c.finding;
	const parts: string[] = [`✖ ${FINDING_WORDS[f.kind]} on ${c.turns.length} of ${turns.length} turn${turns.length === 1 ? '' : 's'}`];
	const figures: string[] = [];
	if ((f.kind === 'truncated' || f.kind === 'context-exceeded') && f.tokens !== undefined && f.window !== undefined) figures.push(`${n(f.tokens)} tokens into a ${n(f.window)} window`);
	else if (f.kind === 'cache-miss' && f.position !== undefined) figures.push(f.nonce ? `prefix diverges at token ${n(f.position)} every turn (a nonce)` : `prefix diverges at token ${n(f.position)}`);
	else if (f.kind === 'reloaded' && f.cause) figures.push(f.cause);
	const level = /level=([A-Z]+)/.exec(f.evidence)?.[1];
	const quote = f.inferred ? f.evidence : `${engineLabel}${level ? ` ${level}` : ''} "${quoteOf(f.evidence)}"`;
	const head = figures.length > 0 ? `${parts[0]}: ${figures.join(', ')}` : parts[0]!;
	return `${head} (${quote}) — fix: ${f.fix}`;
}

/** The message of an evidence line (slog `msg="…"`), else the line, shortened. */
function quoteOf(evidence: string): string {
	const m = /msg="((?:[^"\\]|\\.)*)"/.exec(evidence);
	const text = m ? m[1]! : evidence;
	return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
