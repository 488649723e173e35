/**
 * The figures of a PASSES row, one record each (DESIGN §1): its unit, its formula over each kind of
 * set (the requests of the last minute, a probe, an engine's batch window), whether a batch window
 * may stand for it, its JSON key and rounding (`snapshot --json` `models[]`), its Prometheus gauge
 * and its place and format on screen. derive (figuresOf), the snapshot, the exporter and the PASSES
 * pane iterate this table; `ModelFigures` is made from it, so a figure is added by adding a record.
 *
 * The order is the JSON row's. A formula that reads other figures of the row (`derived`, `screen`)
 * states its return type: the row's type is made from this table, and TypeScript infers neither
 * through the cycle.
 */
import {
	acceptance,
	ceilingTps,
	effectiveBandwidthGBs,
	msPerPass,
	msPerPassFromRate,
	passesPerSec,
	pctOfCeiling,
	rate,
	type RequestTotals,
} from './figures.js';
import type {BatchFigures, RowIdentity} from '../types/figures.js';
import type {ModelInfo, MonitorState, RequestRecord, ServerState} from '../types/state.js';
import type {ProbeResult} from '../types/probe.js';
import {batchSummary, DASH, gb, gbs, num, pct, tpp, tps} from '../util/format.js';

/** What a figure counts, and so its value's type (`text`: a string, `flag`: a boolean, `batch`: the engine's window). */
export type FigureUnit = 'tok/s' | 'ms' | 'ms epoch' | 'tokens' | 'tokens/pass' | 'passes' | 'passes/s' | 'ratio' | 'bytes' | 'GB/s' | 'requests' | 'sequences' | 'text' | 'flag' | 'batch';
export type ValueOf<U extends FigureUnit> = U extends 'text' ? string : U extends 'flag' ? boolean : U extends 'batch' ? BatchFigures : number;

/** One finished request of a set, with its counts worked out once (figures.ts totalsOf). */
export interface CountedRequest {
	readonly r: RequestRecord;
	readonly t: RequestTotals;
}

/** The engine's batch window (vLLM stats line, SGLang batch lines). */
export type IntervalFigures = NonNullable<ServerState['interval']>;

/** What every row has whatever its set: the set itself, the server, the model and the machine. */
export interface RowInputs {
	readonly set: FigureSetLike;
	readonly server: ServerState;
	readonly model?: ModelInfo;
	/** The model's bytes per token as resolved (gguf tensors, /api/show…). */
	readonly bytes?: {readonly bytesPerToken: number; readonly source: string};
	readonly bandwidth: MonitorState['bandwidth'];
	readonly residency: {readonly gpuResidency?: number; readonly processor?: string};
}

/** The parts of a figure set (derive.ts FigureSet) the table reads. */
export type FigureSetLike =
	| {readonly kind: 'requests'; readonly label: string; readonly live?: boolean}
	| {readonly kind: 'probe'; readonly label: string; readonly live?: boolean}
	| {readonly kind: 'interval'; readonly label: string}
	| {readonly kind: 'none'; readonly label?: undefined};

export interface FigureRecord<K extends string, U extends FigureUnit, Row = ModelFigures> {
	/** The key in ModelFigures, and in JSON unless `json.name` says otherwise. */
	readonly key: K;
	readonly unit: U;
	/**
	 * The value for each kind of set. A set kind without a formula of its own takes `row` (the same
	 * for every set: the model, the machine) or, once every other figure of the row is known, `derived`.
	 */
	readonly of: {
		/** Over the finished requests of the set. */
		readonly requests?: (rs: readonly CountedRequest[]) => ValueOf<U> | undefined;
		readonly probe?: (p: ProbeResult) => ValueOf<U> | undefined;
		/** From the engine's batch window (see `overBatch`). */
		readonly interval?: (iv: IntervalFigures) => ValueOf<U> | undefined;
		readonly row?: (r: RowInputs) => ValueOf<U> | undefined;
		derived?(f: Row): ValueOf<U> | undefined;
	};
	/**
	 * Whether the engine's batch window (a sum over every running sequence) may stand for this figure.
	 * false: a per-sequence figure, taken from a window only while one sequence runs (DESIGN §1:
	 * throughput summed over N running requests is no one request's speed).
	 */
	readonly overBatch: boolean;
	/** In `snapshot --json` `models[]`: under `name` (default the key), rounded to `digits`; false = not in JSON. */
	readonly json: false | {readonly name?: string; readonly digits?: number};
	/** A Prometheus gauge per model (source/metrics/README.md), `convert` to its base unit. */
	readonly prometheus?: {readonly name: string; readonly type: 'gauge'; readonly help: string; convert?(v: number): number};
	/** On the PASSES pane: one of its three figure lines, in table order; `value` undefined = not shown for this row. */
	readonly screen?: {readonly line: 0 | 1 | 2; label(f: Row): string; value(f: Row): string | undefined};
}

type JsonSpec = FigureRecord<string, FigureUnit>['json'];

/** A record, its key, unit and JSON name kept as literals (the row's and the JSON row's types are made from them). */
export function figure<const K extends string, const U extends FigureUnit, const J extends JsonSpec>(r: FigureRecord<K, U> & {readonly json: J}): FigureRecord<K, U> & {readonly json: J} {
	return r;
}

/** Σa and Σb over the requests `pick` gives both for; `n` of them did; `all`: every request of a non-empty set did. */
export function sums(rs: readonly CountedRequest[], pick: (c: CountedRequest) => readonly [number, number] | undefined): {readonly a: number; readonly b: number; readonly n: number; readonly all: boolean} {
	let a = 0;
	let b = 0;
	let n = 0;
	for (const c of rs) {
		const v = pick(c);
		if (!v) continue;
		a += v[0];
		b += v[1];
		n++;
	}
	return {a, b, n, all: rs.length > 0 && n === rs.length};
}

const positive = (x: number | undefined): x is number => x !== undefined && x > 0;
/** [decoded, passes] of a request whose passes are known (engine-counted or by the counts rule). */
const passesOf = ({t}: CountedRequest): readonly [number, number] | undefined => (t.decoded !== undefined && positive(t.passes) ? [t.decoded, t.passes] : undefined);
/** [cached, prompt] of a request whose cache and prompt are both known. */
const cacheOf = ({r, t}: CountedRequest): readonly [number, number] | undefined => (r.cachedTokens !== undefined && t.prompt !== undefined ? [r.cachedTokens, t.prompt] : undefined);

const isEstimate = (source: string | undefined) => source !== undefined && (source.startsWith('~') || /estimat/i.test(source));

/** `5.22 (engine 5.75)` when the engine's own figure differs from the counts. */
export function tppWithEngine(f: {readonly tokensPerPass?: number; readonly engineTokensPerPass?: number} | undefined): string {
	const ours = tpp(f?.tokensPerPass);
	const theirs = f?.engineTokensPerPass;
	if (theirs === undefined || tpp(theirs) === ours) return ours;
	return `${ours} (engine ${tpp(theirs)})`;
}

/** A sum over N running requests is shown as one aggregate, never as one request's speed. */
const aggregateOnly = (f: ModelFigures): boolean => f.aggregateTps !== undefined && f.decodeTps === undefined;

export const FIGURES = [
	figure({
		key: 'decodeTps',
		unit: 'tok/s',
		of: {
			requests: rs => {
				const s = sums(rs, ({r, t}) => (t.decoded !== undefined && positive(r.decodeMs) ? [t.decoded, r.decodeMs] : undefined));
				return s.b > 0 ? rate(s.a, s.b) : undefined;
			},
			probe: p => p.decodeTps,
			interval: iv => iv.genTps,
		},
		overBatch: false,
		json: {digits: 2},
		prometheus: {name: 'infertop_decode_tokens_per_second', type: 'gauge', help: 'Decode speed: generated tokens per second of wall time, over the recent finished requests of this model.'},
		screen: {
			line: 0,
			label: (f): string => (aggregateOnly(f) ? 'aggregate ' : 'decode '),
			value: (f): string => (aggregateOnly(f) ? `${tps(f.aggregateTps)} tok/s over ${f.running ?? '?'} running` : `${tps(f.decodeTps)} tok/s`),
		},
	}),
	figure({
		key: 'reportedTps',
		unit: 'tok/s',
		of: {
			// The engine's own figure over the same set: known only where every request of the set has one.
			requests: rs => {
				const s = sums(rs, ({r, t}) => {
					const n = r.generatedTokens ?? t.decoded;
					return positive(r.engineTps) && positive(n) ? [n, (n * 1000) / r.engineTps] : undefined;
				});
				return s.all && s.b > 0 ? rate(s.a, s.b) : undefined;
			},
			probe: p => p.reportedTps,
		},
		overBatch: false,
		json: {digits: 2},
		prometheus: {name: 'infertop_reported_tokens_per_second', type: 'gauge', help: 'Decode speed as the engine itself reports it, tokens per second (absent where the engine gives none).'},
	}),
	figure({key: 'ttftMs', unit: 'ms', of: {probe: p => p.ttftMs}, overBatch: false, json: {digits: 1}}),
	figure({
		key: 'prefillTps',
		unit: 'tok/s',
		of: {
			requests: rs => {
				const s = sums(rs, ({r, t}) => (positive(t.uncached) && positive(r.prefillMs) ? [t.uncached, r.prefillMs] : undefined));
				return s.b > 0 ? rate(s.a, s.b) : undefined;
			},
			probe: p => p.prefillTps,
			interval: iv => iv.promptTps,
		},
		overBatch: false,
		json: {digits: 2},
	}),
	figure({
		key: 'tokensPerPass',
		unit: 'tokens/pass',
		of: {
			// The counts rule over the set: Σdecoded ÷ Σpasses.
			requests: rs => {
				const s = sums(rs, passesOf);
				return s.n > 0 && s.b > 0 ? s.a / s.b : undefined;
			},
			probe: p => p.tokensPerPass,
			interval: iv => iv.meanAcceptLen,
		},
		overBatch: true,
		json: {digits: 4},
		prometheus: {name: 'infertop_tokens_per_pass', type: 'gauge', help: 'Tokens generated per forward pass of the target model: 1 without speculative decoding, more when draft tokens are accepted.'},
		screen: {line: 0, label: (): string => 'tok/pass ', value: (f): string => tppWithEngine(f)},
	}),
	figure({
		key: 'engineTokensPerPass',
		unit: 'tokens/pass',
		of: {
			// The engine's own figure (mean len…), weighted by passes: only where every request has one.
			requests: rs => {
				const s = sums(rs, ({r, t}) => (positive(r.engineMeanLen) && positive(t.passes) ? [r.engineMeanLen * t.passes, t.passes] : undefined));
				return s.all && s.b > 0 ? s.a / s.b : undefined;
			},
		},
		overBatch: false,
		json: {digits: 4},
	}),
	figure({
		key: 'acceptance',
		unit: 'ratio',
		of: {
			requests: rs => {
				const s = sums(rs, ({r}) => (r.drafted !== undefined && r.accepted !== undefined ? [r.accepted, r.drafted] : undefined));
				return s.n > 0 ? acceptance(s.a, s.b) : undefined;
			},
			probe: p => p.acceptance,
			interval: iv => iv.acceptRate ?? acceptance(iv.accepted, iv.drafted),
		},
		overBatch: true,
		json: {digits: 4},
		prometheus: {name: 'infertop_draft_acceptance_ratio', type: 'gauge', help: 'Share of the draft tokens that the target model accepted (0 to 1), with speculative decoding.'},
		screen: {line: 0, label: (): string => 'accept ', value: (f): string => pct(f.acceptance, 1)},
	}),
	figure({
		key: 'msPerPass',
		unit: 'ms',
		of: {
			// The requests' own decode time over their passes, not one from the mean rate.
			requests: rs => {
				const s = sums(rs, c => (c.t.decoded !== undefined && positive(c.r.decodeMs) && positive(c.t.passes) ? [c.r.decodeMs, c.t.passes] : undefined));
				return s.n > 0 ? msPerPass(s.a, s.b) : undefined;
			},
			derived: (f): number | undefined => msPerPassFromRate(f.decodeTps, f.tokensPerPass),
		},
		overBatch: false,
		json: {digits: 2},
		prometheus: {name: 'infertop_seconds_per_pass', type: 'gauge', help: 'Time one forward pass of the target model takes during decode, seconds.', convert: v => v / 1000},
		screen: {line: 1, label: (): string => 'ms/pass ', value: (f): string => num(f.msPerPass, 1)},
	}),
	figure({
		key: 'passes',
		unit: 'passes',
		of: {
			requests: rs => {
				const s = sums(rs, passesOf);
				return s.n > 0 ? s.b : undefined;
			},
			probe: p => p.passes,
		},
		overBatch: false,
		json: {},
	}),
	figure({
		key: 'passesPerSec',
		unit: 'passes/s',
		of: {derived: (f): number | undefined => passesPerSec(f.decodeTps, f.tokensPerPass)},
		overBatch: false,
		json: {digits: 3},
		prometheus: {name: 'infertop_passes_per_second', type: 'gauge', help: 'Forward passes of the target model per second during decode.'},
		screen: {line: 0, label: (): string => 'passes/s ', value: (f): string => num(f.passesPerSec, 1)},
	}),
	figure({
		key: 'bytesPerToken',
		unit: 'bytes',
		of: {row: r => r.bytes?.bytesPerToken ?? r.model?.bytesPerToken},
		overBatch: true,
		json: {},
		prometheus: {name: 'infertop_bytes_per_token', type: 'gauge', help: 'Bytes of model weights one forward pass reads from memory.'},
		screen: {
			line: 1,
			label: (): string => 'B ',
			value: (f): string => {
				const source = f.bytesPerTokenSource?.replace(/^~\s*/, '');
				const b = f.bytesPerToken === undefined ? DASH : `${isEstimate(f.bytesPerTokenSource) ? '~' : ''}${gb(f.bytesPerToken)}`;
				return b + (source && f.bytesPerToken !== undefined ? ` (${source})` : '');
			},
		},
	}),
	figure({key: 'bytesPerTokenSource', unit: 'text', of: {row: r => r.bytes?.source ?? r.model?.bytesPerTokenSource}, overBatch: true, json: {}}),
	figure({key: 'bandwidthGBs', unit: 'GB/s', of: {row: r => r.bandwidth.gbs}, overBatch: true, json: {digits: 1}}),
	figure({key: 'bandwidthSource', unit: 'text', of: {row: r => r.bandwidth.source}, overBatch: true, json: {}}),
	figure({
		key: 'ceilingTps',
		unit: 'tok/s',
		of: {row: r => ceilingTps(r.bandwidth.gbs, r.bytes?.bytesPerToken ?? r.model?.bytesPerToken)},
		overBatch: true,
		json: {digits: 2},
		prometheus: {name: 'infertop_ceiling_tokens_per_second', type: 'gauge', help: 'Most tokens per second memory bandwidth allows at one token per pass: bandwidth divided by bytes per token.'},
		screen: {line: 2, label: (): string => 'ceiling ', value: (f): string => `${tps(f.ceilingTps)} tok/s`},
	}),
	figure({
		key: 'pctOfCeiling',
		unit: 'ratio',
		of: {derived: (f): number | undefined => pctOfCeiling(f.decodeTps, f.ceilingTps)},
		overBatch: false,
		json: {digits: 4},
		prometheus: {name: 'infertop_ceiling_ratio', type: 'gauge', help: 'Decode speed as a share of the bandwidth ceiling (1 = at the ceiling; above 1 only with speculative decoding).'},
		screen: {line: 2, label: (): string => '', value: (f): string => `${pct(f.pctOfCeiling)} of ceiling`},
	}),
	figure({
		key: 'effectiveBandwidthGBs',
		unit: 'GB/s',
		of: {derived: (f): number | undefined => effectiveBandwidthGBs(passesPerSec(f.decodeTps, f.tokensPerPass), f.bytesPerToken)},
		overBatch: false,
		json: {digits: 1},
		prometheus: {name: 'infertop_effective_bandwidth_bytes_per_second', type: 'gauge', help: 'Memory bandwidth the engine actually used while decoding: passes per second times bytes per token, bytes per second.', convert: v => v * 1e9},
		screen: {
			line: 2,
			label: (): string => 'eff. BW ',
			value: (f): string => {
				const share = f.effectiveBandwidthGBs !== undefined && f.bandwidthGBs ? f.effectiveBandwidthGBs / f.bandwidthGBs : undefined;
				return `${gbs(f.effectiveBandwidthGBs)} = ${pct(share)} of ${gbs(f.bandwidthGBs)}`;
			},
		},
	}),
	figure({
		key: 'gpuResidency',
		unit: 'ratio',
		of: {row: r => r.residency.gpuResidency},
		overBatch: true,
		json: {digits: 4},
		prometheus: {name: 'infertop_gpu_residency_ratio', type: 'gauge', help: 'Share of the model held on the GPU (1 = all of it; below 1 part of it runs on the CPU, slower).'},
	}),
	figure({key: 'processor', unit: 'text', of: {row: r => r.residency.processor}, overBatch: true, json: {}}),
	figure({key: 'contextLength', unit: 'tokens', of: {row: r => r.model?.contextLength}, overBatch: true, json: {}}),
	figure({key: 'expiresAt', unit: 'text', of: {row: r => r.model?.expiresAt}, overBatch: true, json: {}}),
	figure({
		key: 'cachedTokens',
		unit: 'tokens',
		of: {
			// Cache and prompt over the same requests: both only where every request has both.
			requests: rs => {
				const s = sums(rs, cacheOf);
				return s.all ? s.a : undefined;
			},
			probe: p => p.cachedTokens,
		},
		overBatch: false,
		json: {},
	}),
	figure({
		key: 'promptTokens',
		unit: 'tokens',
		of: {
			requests: rs => {
				const s = sums(rs, cacheOf);
				return s.all ? s.b : undefined;
			},
			probe: p => p.promptTokens,
		},
		overBatch: false,
		json: {},
	}),
	figure({
		key: 'promptEstimated',
		unit: 'flag',
		// llama.cpp at default verbosity: the prompt worked out from n_tokens at stop is an estimate (~).
		of: {requests: rs => (sums(rs, cacheOf).all && rs.some(c => c.r.promptEstimated === true) ? true : undefined)},
		overBatch: false,
		json: {},
	}),
	figure({
		key: 'batch',
		unit: 'batch',
		of: {row: r => batchFigures(r.server)},
		overBatch: true,
		json: {},
		// vLLM/SGLang: the window's throughput is the batch's, never one sequence's.
		screen: {line: 1, label: (): string => 'batch ', value: (f): string | undefined => (f.batch?.genTps !== undefined ? batchSummary({genTps: f.batch.genTps, running: f.batch.running}) : undefined)},
	}),
	figure({
		key: 'requestCount',
		unit: 'requests',
		of: {requests: rs => rs.length, probe: () => 1, row: () => 0},
		overBatch: true,
		json: {name: 'requests'},
	}),
	figure({key: 'basis', unit: 'text', of: {requests: () => 'log', probe: () => 'probe', interval: () => 'interval'}, overBatch: true, json: {}}),
	figure({key: 'set', unit: 'text', of: {row: r => r.set.label}, overBatch: true, json: {}}),
	figure({key: 'aggregateTps', unit: 'tok/s', of: {interval: iv => iv.genTps}, overBatch: true, json: {digits: 2}}),
	figure({key: 'running', unit: 'sequences', of: {interval: iv => iv.running}, overBatch: true, json: {}}),
	// Not in JSON: when the newest request of the set finished (the model running right now is the newest) …
	figure({key: 'lastRequestAt', unit: 'ms epoch', of: {requests: rs => rs.at(-1)?.r.lastSeen, probe: p => p.t, interval: iv => iv.t}, overBatch: true, json: false}),
	// … and whether the set is of the last minute (the graph says `now`) or older (`last`); unknown for a window.
	figure({key: 'current', unit: 'flag', of: {row: r => (r.set.kind === 'requests' || r.set.kind === 'probe' ? r.set.live === true : undefined)}, overBatch: true, json: false}),
] as const;

export type FigureTable = readonly FigureRecord<string, FigureUnit, never>[];
type Records = (typeof FIGURES)[number];
export type FigureKey = Records['key'];

/**
 * The figures of one model on one server, from one set (source/model/derive.ts computes them; the
 * screen, the snapshot and the Prometheus exporter read them). Every figure optional: unknown.
 */
export type ModelFigures = RowIdentity & {readonly requestCount: number} & {readonly [R in Records as R['key']]?: ValueOf<R['unit']>};

/** A figure as written in JSON: unknown = null, a flag true or false, the set's request count always, the batch window by its own keys. */
export type JsonOf<U extends FigureUnit> = U extends 'flag' ? boolean : U extends 'requests' ? number : U extends 'batch' ? BatchJson | null : ValueOf<U> | null;
export type BatchJson = {readonly [K in keyof BatchFigures]-?: number | null};
type JsonName<R extends Records> = R['json'] extends false ? never : R['json'] extends {readonly name: infer N extends string} ? N : R['key'];

/** One row of `snapshot --json` `models[]` (readme "Snapshot schema"). */
export type ModelJson = {readonly server: string; readonly engine: RowIdentity['engine']; readonly model: string | null; readonly runner: NonNullable<RowIdentity['runner']> | null} & {
	readonly [R in Records as JsonName<R>]: JsonOf<R['unit']>;
};

/** The server's windowed batch figures (vLLM/SGLang), undefined keys dropped; undefined when it logs none. */
export function batchFigures(server: ServerState): BatchFigures | undefined {
	const iv = server.interval;
	if (!iv) return undefined;
	const out: Record<string, number> = {};
	for (const k of ['genTps', 'promptTps', 'running', 'waiting', 'kvUsage', 'prefixHitRate', 'preemptions', 'preemptedTotal', 'cachedTokens', 'newTokens'] as const) {
		const v = iv[k];
		if (v !== undefined && Number.isFinite(v) && v >= 0) out[k] = v;
	}
	return Object.keys(out).length > 0 ? out : undefined;
}
