/**
 * The probe's clock and its figures (DESIGN §1). Timestamps are taken by the transport (the reader
 * worker's clock, as each network read comes off the socket, before any parsing: transport.ts),
 * never by React or the parser. Every figure comes from
 * source/model/figures.ts; this file only decides which server counts feed which formula.
 */
import {
	acceptance,
	ceilingTps,
	decodeTpsWall,
	passesFromCounts,
	pctOfCeiling,
	prefillTps,
	ratesDisagree,
	tokensPerPass,
	tokensPerPassFromPasses,
} from '../model/figures.js';
import {OLLAMA_PROTOCOL, type ServerCounts} from '../types/probe.js';
import {answerBlockOf, PASSES_HEADERS} from '../engines/index.js';

/** What the engine's log said about the probe's generation (Ollama: the API has no draft counts). */
export interface LogFigures {
	decoded?: number;
	accepted?: number;
	drafted?: number;
	passes?: number;
	/** Prompt tokens served from the prefix cache, where the log says. */
	cached?: number;
	/** The log request these come from (its key), once matched. */
	key?: string;
	/** Why the log gives no figures for this probe (`no log line for this request`, `2 candidates`). */
	reason?: string;
}

/** The probe's own request, to find in the log: its time window and the counts its answer gave. */
export interface LogQuery {
	readonly fromMs: number;
	readonly toMs: number;
	readonly completionTokens?: number;
	readonly promptTokens?: number;
	readonly model?: string;
}

export type LogFiguresFn = (q: LogQuery) => LogFigures | undefined;

/** Arrival times of one streamed answer, performance.now() ms. */
export interface StreamClock {
	/** The request left (just before fetch). */
	tSent: number;
	/** First non-empty content token. */
	tFirst?: number;
	/** Last content token. */
	tLast?: number;
	/** Content events seen (never used as the token count). */
	chunks: number;
}

export function newClock(tSent: number): StreamClock {
	return {tSent, chunks: 0};
}

/** Note a content arrival at `t` (the time the network chunk carrying it was read). */
export function markToken(clock: StreamClock, t: number): void {
	if (clock.tFirst === undefined) clock.tFirst = t;
	clock.tLast = t;
	clock.chunks++;
}

/** The live rate while streaming: content events since the first ÷ elapsed (an estimate, chunks ≈ tokens). */
export function liveTps(clock: StreamClock, now: number): number | undefined {
	return decodeTpsWall(clock.chunks, clock.tFirst, Math.max(now, clock.tLast ?? now));
}

export interface ProbeFigures {
	ttftMs?: number;
	decodeTps?: number;
	reportedTps?: number;
	prefillTps?: number;
	promptTokens?: number;
	cachedTokens?: number;
	completionTokens?: number;
	tokensPerPass?: number;
	tokensPerPassSource?: string;
	acceptance?: number;
	passes?: number;
	drafted?: number;
	accepted?: number;
	ceilingTps?: number;
	pctOfCeiling?: number;
	disagree?: boolean;
	totalMs?: number;
	/** The engine's own load time (Ollama `load_duration`), ms. */
	loadMs?: number;
	/** What in the server's answer (or the log's figures) was not believable; those figures are unknown. */
	inconsistent?: string[];
}

export interface FigureInputs {
	readonly clock: StreamClock;
	readonly counts: ServerCounts;
	/** Target passes from an engine's passes header (lithos-metal's Decode-Steps; engines' `passesHeader`). */
	readonly decodeSteps?: number;
	/** That header's label; default: the first registered passes header's. */
	readonly decodeStepsSource?: string;
	readonly log?: LogFigures;
	readonly bandwidthGBs?: number;
	readonly bytesPerToken?: number;
	/** The engine, to apply its counting conventions (llama.cpp: decoded = n_gen − 1 since b10424). */
	readonly engine?: string;
}

/**
 * llama.cpp's first token comes out of the prompt pass in every build: decoded = n_gen − 1. Before
 * b10424 `predicted_ms` already ran from the first token (server-context.cpp @ decaf508b^:
 * `t_start_generation` at `n_decoded == 1`) and only `predicted_per_second` divided by n; since
 * b10424 (PR #26920) `n_gen_steps() = n_gen − 1` is the divisor too (server-common.h @ 3f545be).
 */

function passFigures(i: FigureInputs): Pick<ProbeFigures, 'tokensPerPass' | 'tokensPerPassSource' | 'acceptance' | 'passes' | 'drafted' | 'accepted'> {
	const c = i.counts;
	const n = c.completionTokens;
	if (i.decodeSteps !== undefined) {
		const tpp = tokensPerPassFromPasses(n, i.decodeSteps);
		return {tokensPerPass: tpp, tokensPerPassSource: tpp === undefined ? undefined : (i.decodeStepsSource ?? PASSES_HEADERS[0]?.label), passes: i.decodeSteps};
	}
	// An engine's own answer block (engines' `answerBlocks`: llama.cpp `timings`, LM Studio `stats`,
	// vLLM `metrics`): the counts rule over the tokens its decode passes made.
	const block = answerBlockOf(c.source)?.passes;
	if (block) {
		const decoded = n === undefined || !block.firstTokenFromPrompt ? n : Math.max(0, n - 1);
		if (block.noDraftIsOnePerPass && c.drafted === undefined && c.accepted === undefined) {
			// No draft fields: no draft ran, one token per pass.
			return {tokensPerPass: decoded !== undefined && decoded > 0 ? 1 : undefined, tokensPerPassSource: 'no draft', passes: decoded};
		}
		const tpp = tokensPerPass(decoded, c.accepted);
		const passes = passesFromCounts(decoded, c.accepted);
		return {tokensPerPass: tpp, tokensPerPassSource: block.label, acceptance: acceptance(c.accepted, c.drafted), passes, drafted: c.drafted, accepted: c.accepted};
	}
	const log = i.log?.reason === undefined ? i.log : undefined;
	if (log) {
		const decoded = log.decoded ?? n;
		if (log.passes !== undefined) {
			const tpp = tokensPerPassFromPasses(decoded, log.passes);
			return {tokensPerPass: tpp, tokensPerPassSource: 'log', acceptance: acceptance(log.accepted, log.drafted), passes: log.passes, drafted: log.drafted, accepted: log.accepted};
		}
		if (log.accepted !== undefined) {
			const tpp = tokensPerPass(decoded, log.accepted);
			const passes = passesFromCounts(decoded, log.accepted);
			return {tokensPerPass: tpp, tokensPerPassSource: 'log', acceptance: acceptance(log.accepted, log.drafted), passes, drafted: log.drafted, accepted: log.accepted};
		}
	}
	return {};
}

/** The log's figures for the probe, each checked like the server's numbers: unbelievable → dropped, noted. */
function checkedLog(log: LogFigures | undefined, inconsistent: string[]): LogFigures | undefined {
	if (!log) return undefined;
	const out: LogFigures = {};
	for (const k of ['decoded', 'accepted', 'drafted', 'passes', 'cached'] as const) {
		const v = log[k];
		if (v === undefined) continue;
		if (Number.isFinite(v) && v >= 0 && v <= 1e9) out[k] = v;
		else inconsistent.push(`log ${k} ${v}`);
	}
	if (out.accepted !== undefined && out.drafted !== undefined && out.accepted > out.drafted) {
		inconsistent.push(`log accepted ${out.accepted} > drafted ${out.drafted}`);
		out.accepted = undefined;
		out.drafted = undefined;
	}
	return out;
}

export function computeFigures(input: FigureInputs): ProbeFigures {
	const inconsistent = [...(input.counts.inconsistent ?? [])];
	const i: FigureInputs = {...input, log: checkedLog(input.log, inconsistent)};
	const {clock, counts} = i;
	const n = counts.completionTokens;
	const ttftMs = clock.tFirst === undefined ? undefined : clock.tFirst - clock.tSent;
	const decodeTps = decodeTpsWall(n, clock.tFirst, clock.tLast);
	let cachedTokens = counts.cachedTokens ?? i.log?.cached;
	if (cachedTokens !== undefined && counts.promptTokens !== undefined && cachedTokens > counts.promptTokens) {
		inconsistent.push(`cached ${cachedTokens} > prompt ${counts.promptTokens} tokens`);
		cachedTokens = undefined;
	}
	// Ollama's prompt_eval_count includes cached tokens and its API never says how many: without the
	// log's figure the uncached count (and so prefill tok/s) cannot be known.
	const prefill =
		counts.source === OLLAMA_PROTOCOL
			? cachedTokens === undefined
				? undefined
				: prefillTps(counts.promptTokens, cachedTokens, counts.prefillMs)
			: counts.prefillTokens !== undefined
				? prefillTps(counts.prefillTokens, 0, counts.prefillMs)
				: prefillTps(counts.promptTokens, cachedTokens, counts.prefillMs);
	const pass = passFigures(i);
	const ceiling = ceilingTps(i.bandwidthGBs, i.bytesPerToken);
	return {
		ttftMs,
		decodeTps,
		reportedTps: counts.reportedTps,
		prefillTps: prefill,
		promptTokens: counts.promptTokens,
		cachedTokens,
		completionTokens: n,
		...pass,
		ceilingTps: ceiling,
		pctOfCeiling: pctOfCeiling(decodeTps, ceiling),
		disagree: ratesDisagree(decodeTps, counts.reportedTps),
		totalMs: clock.tLast === undefined ? undefined : clock.tLast - clock.tSent,
		loadMs: counts.loadMs,
		inconsistent: inconsistent.length > 0 ? inconsistent : undefined,
	};
}
