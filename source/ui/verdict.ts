/**
 * The verdict line under the passes figures: the words come from model/verdict.ts passesVerdict;
 * the screen adds what the engines list knows (partly on CPU) and the contention of the moment, and
 * a level for the colour (the words and a glyph carry the meaning; colour is a second channel).
 */
import type {ModelFigures} from '../types/figures.js';
import {passesVerdict} from '../model/verdict.js';

export type Level = 'good' | 'warn' | 'bad' | 'muted';

export interface Verdict {
	readonly text: string;
	readonly level: Level;
}

/**
 * `demo`: the figures come from the demo's simulated engine. Its causes (the share of the model it
 * simulates on the CPU, its pace) are said as simulated, and the real machine's contention is never
 * pinned on them: a real process did not slow a simulated pass.
 */
export function passesVerdictLine(f: ModelFigures | undefined, contention?: string, demo = false): Verdict {
	const text = passesVerdict(f ?? {});
	const known = f?.decodeTps !== undefined;
	const cpu = f?.gpuResidency !== undefined && f.gpuResidency < 0.995 ? 1 - f.gpuResidency : undefined;
	if (demo) contention = undefined;
	const parts = [
		cpu !== undefined ? `${demo ? 'simulated: ' : ''}partly on CPU (${Math.round(cpu * 100)} % of the model)` : undefined,
		text,
		contention ? `contention: ${contention.replace(/^contention:\s*/i, '')}` : undefined,
		demo && known ? 'simulated by the demo engine' : undefined,
	].filter((x): x is string => x !== undefined);
	let level: Level = 'muted';
	const ratio = f?.pctOfCeiling;
	if (known && ratio !== undefined) level = ratio >= 0.6 ? 'good' : ratio >= 0.35 ? 'warn' : 'bad';
	if (known && (contention || (cpu !== undefined && level === 'good'))) level = 'warn';
	if (known && cpu !== undefined && ratio !== undefined && ratio < 0.35) level = 'bad';
	return {text: parts.join('; '), level};
}
