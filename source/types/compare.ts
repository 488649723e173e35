/**
 * `infertop compare` / key `c`: one prompt set, run the same way on every server × model (seed
 * 004's speed table). Owned by source/probe/compare.ts; shown by source/ui/panes/compare.tsx.
 */
import type {ProbeResult} from './probe.js';

/** The three prompts of the table (seed 004): code, prose, and the ~27K-token long prompt. */
export type CompareKind = 'code' | 'prose' | 'long';

export const COMPARE_KINDS: readonly CompareKind[] = ['code', 'prose', 'long'];

/** Runs of each prompt: the second shows whether the engine reuses the identical prompt's work. */
export const COMPARE_RUNS = 2;

/** One probe of the comparison, finished or failed. */
export interface CompareRow {
	/** Position in the plan (rows are reported in plan order). */
	readonly index: number;
	readonly runId: string;
	readonly serverId?: string;
	readonly url: string;
	readonly engine: string;
	readonly model?: string;
	readonly prompt: CompareKind;
	readonly run: number;
	/** The probe's figures (absent when the run failed). */
	readonly result?: ProbeResult;
	/** Why the run has no figures (one line). */
	readonly error?: string;
}

/** What runs now, for the live view. */
export interface CompareProgress {
	readonly index: number;
	readonly total: number;
	readonly url: string;
	readonly model?: string;
	readonly prompt: CompareKind;
	readonly run: number;
	readonly tokens: number;
	readonly liveTps?: number;
	readonly ttftMs?: number;
	/** e.g. `server busy (HTTP 429), retrying in 2 s`. */
	readonly status?: string;
	readonly elapsedMs: number;
	/** When this probe began (ms epoch). */
	readonly startedAt: number;
}

export interface CompareState {
	readonly runId: string;
	readonly startedAt: number;
	readonly total: number;
	/** Plan order. */
	readonly rows: readonly CompareRow[];
	/** The probes running now (one per machine at most). */
	readonly running: readonly CompareProgress[];
	readonly finished: boolean;
	readonly cancelled?: boolean;
	readonly error?: string;
}
