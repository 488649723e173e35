/**
 * The vocabulary of a row of live figures (DESIGN §1 keys); the figures are listed in source/model/figure-table.ts.
 */
import type {EngineKind, OllamaRunner} from './events.js';

/** Windowed batch figures as the engine logs them (see ModelFigures.batch). */
export interface BatchFigures {
	readonly genTps?: number;
	readonly promptTps?: number;
	readonly running?: number;
	readonly waiting?: number;
	readonly kvUsage?: number;
	readonly prefixHitRate?: number;
	readonly preemptions?: number;
	readonly preemptedTotal?: number;
	readonly cachedTokens?: number;
	readonly newTokens?: number;
}

/**
 * Which model on which server a row of figures is of. The figures themselves (ModelFigures) are made
 * from the figure table, source/model/figure-table.ts: one record per figure.
 */
export interface RowIdentity {
	readonly serverId: string;
	readonly engine: EngineKind;
	readonly model?: string;
	readonly runner?: OllamaRunner;
}
