/**
 * The one-line verdict under the passes figures. Local to the UI until source/model/verdict.ts
 * lands; words only (the colour is a second channel, never the only one).
 */
import type {ModelFigures} from '../model/types.js';
import {pct, tpp} from './format.js';

export type Level = 'good' | 'warn' | 'bad' | 'muted';

export interface Verdict {
	readonly text: string;
	readonly level: Level;
}

export function passesVerdictLine(f: ModelFigures | undefined, contention?: string): Verdict {
	if (!f || (f.decodeTps === undefined && f.tokensPerPass === undefined)) {
		return {text: 'no finished request yet: press p to probe', level: 'muted'};
	}
	if (f.gpuResidency !== undefined && f.gpuResidency < 0.995) {
		return {text: `partly on CPU (${pct(1 - f.gpuResidency)} of the model): decode runs at CPU memory speed`, level: 'bad'};
	}
	const p = f.pctOfCeiling;
	const tail = contention ? `; ${contention}` : '';
	if (p === undefined) {
		const why = f.bytesPerToken === undefined ? 'bytes per token unknown' : 'bandwidth unknown (--bandwidth GB/s)';
		return {text: `ceiling unknown: ${why}${tail}`, level: 'muted'};
	}
	if (p > 1) {
		return {text: `above the one-token ceiling: speculation pays (${tpp(f.tokensPerPass)} tokens per pass)${tail}`, level: 'good'};
	}
	if (p >= 0.6) {
		return {text: `memory-bound at ${pct(p)} of ceiling: as fast as this memory allows${tail}`, level: contention ? 'warn' : 'good'};
	}
	if (p >= 0.35) return {text: `${pct(p)} of ceiling: something costs time besides reading weights${tail}`, level: 'warn'};
	return {text: `only ${pct(p)} of ceiling: held back${contention ? tail : ' (check offload, batch, contention)'}`, level: 'bad'};
}
