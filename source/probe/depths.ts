/**
 * `compare --depths 0,4k,16k,32k` (issue 29): one server × model measured at several context
 * depths, every point a real probe through runProbe (wall clock, the engine's own figures beside):
 *
 * - each depth: a fresh prompt of about that many tokens (a nonce first, so no earlier request's
 *   prefix can be reused), capped by the model's window; its uncached tokens ÷ TTFT is the prefill
 *   rate there, its wall decode rate the decode rate there;
 * - the cache: the deepest prompt sent again, the same text: did the server reuse it (its cached
 *   count, or where it says none, a second TTFT under half the first), and how fast;
 * - the load: a first short request, before the depths, loads the model where it is not loaded: the
 *   engine's own load time where it states one (Ollama `load_duration`);
 * - concurrency: a second short request sent while the first streams: answered side by side, after
 *   it, or refused (429).
 *
 * Requests run one at a time (never two servers racing one GPU), except the concurrency pair.
 */
import {performance} from 'node:perf_hooks';
import {runProbe, type RunProbeOptions} from './run.js';
import type {LogQuery} from './timing.js';
import {CHARS_PER_TOKEN_LOW, type ProbePrompt} from './prompts.js';
import type {ProtocolPlan} from './protocols.js';
import type {ProbeResult} from '../types/probe.js';
import type {CacheBehaviour, Concurrency, DepthPoint, Profile} from '../types/whatif.js';

/** Tokens generated at each depth: enough for a decode rate, short enough that prefill is the story. */
export const DEPTH_MAX_TOKENS = 64;
/** Characters per token assumed to size a depth's prompt (source code in these vocabularies: ~3–4). */
const CHARS_PER_TOKEN_TARGET = 3.5;
/** Tokens kept free beside the answer (chat template, special tokens). */
const WINDOW_MARGIN = 256;
/** A second TTFT under this share of the first says the prefix was reused (where the server gives no count). */
export const REUSED_BY_TIME = 0.5;

/**
 * Four random bytes in hex. node:crypto is loaded on the first call, not with this module: loading it
 * with the bundle cost ~6.7 ms of every start (a CPU profile of the first frame; it is not among the
 * modules the bin loads under node's own code cache), for a probe most starts never send.
 */
const randomHex = (): string => process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex');

/** A fixed-length nonce line: the prompt starts differently each time, so no earlier prefix matches. */
export const nonceLine = (nonce = randomHex()): string => `[request ${nonce}]\n`;

/** The depth-0 text (also the tokenizer text: every server counts the same characters). */
export const SHORT_DEPTH_TEXT =
	'Write a Python function that merges two sorted lists into one sorted list without using sort(). ' +
	'Explain its running time in one sentence. Reply with the code and the sentence only.';
const QUESTION = '\n\n---\nThe text above is source code. In two sentences: what does it do?';
export const TOKENIZER_TEXT_ID = 'depth-0 v1';

/**
 * The prompt for one depth: depth 0 is a short question; a deeper one is `source` (repeated where
 * too short) cut at a line end to about depth × 3.5 characters, then a question. The window caps it:
 * at most (window − max tokens − 256) × 2.5 characters, the probe's conservative rule. Returns the
 * text without its nonce and whether the window cut it.
 */
export function depthText(source: string, depth: number, window: number | undefined, maxTokens: number): {text: string; capped: boolean} {
	if (depth === 0) return {text: SHORT_DEPTH_TEXT, capped: false};
	let chars = Math.round(depth * CHARS_PER_TOKEN_TARGET) - QUESTION.length;
	let capped = false;
	if (window !== undefined && Number.isFinite(window) && window > 0) {
		const cap = Math.floor((window - maxTokens - WINDOW_MARGIN) * CHARS_PER_TOKEN_LOW) - QUESTION.length;
		if (cap < chars) {
			chars = cap;
			capped = true;
		}
	}
	if (chars <= 0 || source.length === 0) return {text: SHORT_DEPTH_TEXT, capped: true};
	let body = source;
	while (body.length < chars) body += '\n' + source;
	const cut = body.lastIndexOf('\n', chars);
	return {text: body.slice(0, cut > 0 ? cut : chars) + QUESTION, capped};
}

export interface DepthTarget {
	readonly serverId?: string;
	readonly url: string;
	readonly engine: string;
	readonly model: string;
	readonly apiKey?: string;
	readonly contextWindow?: number;
	/** The server listed the model as loaded before the first request (its load time is then not a cold load's). */
	readonly loaded?: boolean;
}

type ProbePass = Pick<RunProbeOptions, 'signal' | 'timeouts' | 'totalTimeoutMs' | 'busyTimeoutMs' | 'busyRetryBaseMs' | 'transport' | 'logFigures' | 'logWaitMs'>;

export interface MeasureOptions extends ProbePass {
	readonly target: DepthTarget;
	readonly depths: readonly number[];
	/** The long source text deeper prompts are cut from (samples/prompts/long-source.txt). */
	readonly source: string;
	readonly maxTokens?: number;
	readonly version: string;
	/** The model's `expires_at` asked after the last request (Ollama /api/ps), for the keep-alive. */
	readonly expiresAt?: () => Promise<string | undefined>;
	/** One line per finished request, for the progress on stderr. */
	readonly onStep?: (line: string) => void;
	/** Every finished probe of the measurement (the probe history takes them). */
	readonly onResult?: (r: ProbeResult) => void;
	/** The log request a probe matched (`logFigures`): infertop's own, not an agent's turn. */
	readonly onLogRequest?: (key: string, model: string) => void;
	/** A probe whose log request was not found in time (`logFigures`): its query, to be matched when the line comes. */
	readonly onUnmatchedLog?: (q: LogQuery) => void;
	readonly now?: () => number;
	/** Nonces (tests); default random. */
	readonly nonce?: () => string;
}

const uncachedOf = (r: ProbeResult): number | undefined => (r.promptTokens === undefined ? undefined : r.promptTokens - (r.cachedTokens ?? 0));
const round = (x: number, d = 2): number => Number(x.toFixed(d));

/** Measure one server × model. Throws (one line) only when no depth could be measured at all. */
export async function measureProfile(o: MeasureOptions): Promise<Profile> {
	const maxTokens = o.maxTokens ?? DEPTH_MAX_TOKENS;
	const now = o.now ?? Date.now;
	const nonce = o.nonce ?? randomHex;
	const t = o.target;
	const notes: string[] = [];
	let plan: ProtocolPlan | undefined;
	const probe = async (text: string, label: string, onTokens?: (tokens: number) => void): Promise<ProbeResult> => {
		const prompt: ProbePrompt = {kind: 'file', label, text};
		const out = await runProbe({
			target: {serverId: t.serverId, url: t.url, engine: t.engine, model: t.model, apiKey: t.apiKey},
			prompt,
			maxTokens,
			signal: o.signal,
			timeouts: o.timeouts ?? {firstTokenMs: 300_000, interTokenMs: 30_000},
			totalTimeoutMs: o.totalTimeoutMs ?? 600_000,
			busyTimeoutMs: o.busyTimeoutMs,
			busyRetryBaseMs: o.busyRetryBaseMs,
			plan,
			transport: o.transport,
			logFigures: o.logFigures,
			logWaitMs: o.logWaitMs,
			...(onTokens ? {onProgress: (p: {tokens: number}) => onTokens(p.tokens)} : {}),
		});
		plan = out.plan;
		if (out.logRequest?.model !== undefined) o.onLogRequest?.(out.logRequest.key, out.logRequest.model);
		else if (out.unmatchedLog !== undefined) o.onUnmatchedLog?.(out.unmatchedLog);
		o.onResult?.(out.result);
		return out.result;
	};
	const points: DepthPoint[] = [];
	let loadMs: number | undefined;
	// A first short request loads the model where it is not loaded (its load time, where the engine
	// states one), so no depth's TTFT holds a load.
	try {
		const first = await probe(nonceLine(nonce()) + SHORT_DEPTH_TEXT, 'load');
		if (first.loadMs !== undefined) {
			if (t.loaded === true) notes.push(`load time: the model was loaded already (load_duration ${Math.round(first.loadMs)} ms is not a cold load); unload it to measure one`);
			else {
				loadMs = first.loadMs;
				if (t.loaded === undefined) notes.push('load time: the first request\'s load_duration; whether the model was loaded before is not known (then it is not a cold load)');
			}
		}
	} catch (e) {
		if (o.signal?.aborted) throw e;
		notes.push(`first request: ${(e as Error).message}`);
	}
	let tokenizer: Profile['tokenizer'];
	let deepest: {sent: string; first: ProbeResult} | undefined;
	for (const depth of o.depths) {
		const {text, capped} = depthText(o.source, depth, t.contextWindow, maxTokens);
		if (capped && depth > 0) notes.push(`depth ${depth} cut to the ${t.contextWindow}-token window`);
		let r: ProbeResult;
		const sent = nonceLine(nonce()) + text;
		try {
			r = await probe(sent, `depth ${depth}`);
		} catch (e) {
			if (o.signal?.aborted) throw e;
			notes.push(`depth ${depth}: ${(e as Error).message}`);
			continue;
		}
		if (depth === 0 && r.promptTokens !== undefined) tokenizer = {textId: TOKENIZER_TEXT_ID, tokens: r.promptTokens};
		const uncached = uncachedOf(r);
		if (r.promptTokens === undefined || uncached === undefined || r.ttftMs === undefined || r.ttftMs <= 0) {
			notes.push(`depth ${depth}: the server gave no prompt count or no first token`);
			continue;
		}
		points.push({
			nominal: depth,
			promptTokens: r.promptTokens,
			cachedTokens: r.cachedTokens,
			ttftMs: round(r.ttftMs),
			prefillTps: round((uncached * 1000) / r.ttftMs),
			prefillTpsReported: r.prefillTps === undefined ? undefined : round(r.prefillTps),
			decodeTps: r.decodeTps === undefined ? undefined : round(r.decodeTps),
			decodeTpsReported: r.reportedTps === undefined ? undefined : round(r.reportedTps),
			generated: r.completionTokens,
			t: now(),
		});
		o.onStep?.(`depth ${depth}: ${r.promptTokens} prompt tokens, TTFT ${Math.round(r.ttftMs)} ms, decode ${r.decodeTps === undefined ? '--' : r.decodeTps.toFixed(1)} tok/s`);
		if (depth > 0 || deepest === undefined) deepest = {sent, first: r};
	}
	if (points.length === 0) throw new Error(`${t.url} ${t.model}: no depth could be measured (${notes.join('; ') || 'no answer'})`);
	if (loadMs === undefined && t.loaded !== true) notes.push('load time: the engine states none for the first request');
	const cache = deepest ? await cacheBehaviour(deepest, probe, notes) : {};
	const concurrency = await concurrencyOf(probe, nonce, notes);
	let keepAliveMs: number | undefined;
	if (o.expiresAt) {
		const asked = now();
		const at = await o.expiresAt().catch(() => undefined);
		const until = at === undefined ? Number.NaN : Date.parse(at);
		// A keep-alive past a year is "forever" (Ollama keep_alive -1 gives year 2318).
		if (Number.isFinite(until) && until > asked && until - asked < 365 * 86_400_000) keepAliveMs = Math.round((until - asked) / 1000) * 1000;
		else if (Number.isFinite(until) && until - asked >= 365 * 86_400_000) notes.push('keep-alive: forever (never unloads on idle)');
	}
	return {
		url: t.url,
		engine: t.engine,
		model: t.model,
		measuredAt: now(),
		version: o.version,
		...(t.contextWindow !== undefined ? {contextWindow: t.contextWindow} : {}),
		points: points.sort((a, b) => a.promptTokens - b.promptTokens),
		cache,
		...(loadMs !== undefined ? {loadMs: round(loadMs), loadSource: 'load_duration'} : {}),
		...(keepAliveMs !== undefined ? {keepAliveMs} : {}),
		...(concurrency !== undefined ? {concurrency} : {}),
		...(tokenizer ? {tokenizer} : {}),
		...(notes.length > 0 ? {notes} : {}),
	};
}

/** The deepest prompt again, the same text and nonce: reused or not, and the cached-prefix prefill rate. */
async function cacheBehaviour(d: {sent: string; first: ProbeResult}, probe: (text: string, label: string) => Promise<ProbeResult>, notes: string[]): Promise<CacheBehaviour> {
	let second: ProbeResult;
	try {
		// The first request's own text, its nonce included.
		second = await probe(d.sent, 'cache');
	} catch (e) {
		notes.push(`cache: ${(e as Error).message}`);
		return {};
	}
	const first = d.first;
	const out: {-readonly [K in keyof CacheBehaviour]: CacheBehaviour[K]} = {promptTokens: second.promptTokens, cachedTokens: second.cachedTokens, firstTtftMs: first.ttftMs === undefined ? undefined : round(first.ttftMs), secondTtftMs: second.ttftMs === undefined ? undefined : round(second.ttftMs)};
	if (second.cachedTokens !== undefined) {
		out.reused = second.cachedTokens > 0;
		out.by = 'count';
	} else if (first.ttftMs !== undefined && second.ttftMs !== undefined) {
		out.reused = second.ttftMs < REUSED_BY_TIME * first.ttftMs;
		out.by = 'time';
	}
	if (second.promptTokens !== undefined && second.ttftMs !== undefined && second.ttftMs > 0) out.cachedPrefillTps = round((second.promptTokens * 1000) / second.ttftMs);
	return out;
}

/**
 * A second request sent while the first streams (once its first token came): the times are this
 * process's clock as the tokens arrive.
 */
async function concurrencyOf(probe: (text: string, label: string, onTokens?: (tokens: number) => void) => Promise<ProbeResult>, nonce: () => string, notes: string[]): Promise<Concurrency | undefined> {
	let aLast: number | undefined;
	let bSent: number | undefined;
	let bFirst: number | undefined;
	let go!: () => void;
	const started = new Promise<void>((resolve) => (go = resolve));
	const a = probe(nonceLine(nonce()) + SHORT_DEPTH_TEXT, 'concurrency a', (n) => {
		if (n <= 0) return;
		aLast = performance.now();
		go();
	}).finally(() => go());
	const b = started.then(() => {
		bSent = performance.now();
		return probe(nonceLine(nonce()) + SHORT_DEPTH_TEXT, 'concurrency b', (n) => {
			if (n > 0 && bFirst === undefined) bFirst = performance.now();
		});
	});
	let pair: [ProbeResult, ProbeResult];
	try {
		pair = await Promise.all([a, b]);
	} catch (e) {
		notes.push(`concurrency: ${(e as Error).message}`);
		return undefined;
	}
	const c = concurrencyFrom({refused: (pair[0].busyRetries ?? 0) + (pair[1].busyRetries ?? 0) > 0, aLastToken: aLast, bSent, bFirstToken: bFirst});
	if (c === undefined) notes.push('concurrency: unknown (the first answer ended before the second request was sent)');
	return c;
}

/**
 * A second request sent while the first streamed: refused (429) → `refuses`; its first token
 * before the first request's last → `parallel`; after it → `one-at-a-time`. Sent only after the
 * first ended, or without tokens: unknown.
 */
export function concurrencyFrom(x: {refused: boolean; aLastToken?: number; bSent?: number; bFirstToken?: number}): Concurrency | undefined {
	if (x.refused) return 'refuses';
	if (x.aLastToken === undefined || x.bSent === undefined || x.bFirstToken === undefined || x.bSent >= x.aLastToken) return undefined;
	return x.bFirstToken < x.aLastToken ? 'parallel' : 'one-at-a-time';
}
