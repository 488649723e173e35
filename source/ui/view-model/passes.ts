/**
 * Which figures the PASSES pane is about (the running model, or the one pinned with `m`) and the
 * history samples of that model, as the pane, the selectors and the key router read them. Pure; no components.
 */
import type {ModelFigures} from '../../model/figure-table.js';
import type {PassSample, ServerLoad} from '../../types/state.js';

const newest = (fs: readonly ModelFigures[]): ModelFigures => fs.reduce((a, b) => ((b.lastRequestAt ?? 0) > (a.lastRequestAt ?? 0) ? b : a));

/**
 * The model the pane is about: of those whose decode rate (the headline) is known, the newest;
 * else the newest with any figure; else the first. A model whose log gives no decode time does not
 * take the headline to `--` by having run last.
 */
export function primaryFigures(figures: readonly ModelFigures[]): ModelFigures | undefined {
	const withRate = figures.filter(f => f.decodeTps !== undefined || f.aggregateTps !== undefined);
	if (withRate.length > 0) return newest(withRate);
	const withFigures = figures.filter(f => f.tokensPerPass !== undefined);
	if (withFigures.length === 0) return figures[0];
	return newest(withFigures);
}

/** Why a model's decode rate is `--`, in a few words (the PASSES title's `also …`); undefined where it is known. */
export function decodeUnknownWhy(f: ModelFigures): string | undefined {
	if (f.decodeTps !== undefined || f.aggregateTps !== undefined) return undefined;
	if (f.requestCount === 0) return 'decode --: no request finished yet';
	if (f.basis === 'log') return 'decode --: no decode time in its log';
	return undefined;
}

/** The model the pane shows: the pinned one while the server has it, else primaryFigures. Pure. */
export function shownFigures(figures: readonly ModelFigures[], pinnedModel: string | undefined): ModelFigures | undefined {
	if (pinnedModel !== undefined) {
		const hit = figures.find(f => f.model === pinnedModel);
		if (hit) return hit;
	}
	return primaryFigures(figures);
}

/** History samples of the model the pane shows (a sample without model or runner belongs to every model). */
export function samplesOf(history: readonly PassSample[], f: ModelFigures | undefined): readonly PassSample[] {
	if (!f) return history;
	return history.filter(s => {
		if (f.runner !== undefined && s.runner !== undefined) return s.runner === f.runner;
		if (f.model !== undefined && s.model !== undefined && !s.model.includes('/')) return s.model === f.model;
		return true;
	});
}

/** `3 running, 1 waiting` as the server's status API says (several running: its throughput is shared by them). */
export function batchText(load: ServerLoad | undefined): string | undefined {
	if (load?.running === undefined) return undefined;
	return `${load.running} running${load.waiting !== undefined && load.waiting > 0 ? `, ${load.waiting} waiting` : ''}`;
}
