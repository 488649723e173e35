/**
 * The comparison table (seed 004's): one line per server × model, from the compare rows. Pure.
 * A figure no run gave is `--`; two runs that differ show their range (`88–91`), as the seed does.
 */
import type {CompareKind, CompareRow} from '../types/compare.js';
import type {ModelInfo} from '../types/state.js';

/** The models to compare on one server: the named one, else those loaded (or all listed when the engine does not say). */
export function modelsToCompare(models: readonly ModelInfo[], named: string | undefined): ModelInfo[] {
	if (named !== undefined) return [models.find((m) => m.name === named) ?? {name: named}];
	const loaded = models.filter((m) => m.loaded === true);
	if (loaded.length > 0) return loaded;
	// Engines that serve one model (llama-server, mlx_lm) or list only what is loaded (Ollama /api/ps) leave `loaded` unset.
	return models.filter((m) => m.loaded === undefined);
}

/** The JSON of one compare row (`infertop compare --json`): unknown = null. */
export interface CompareJsonRow {
	readonly server: string;
	readonly engine: string;
	readonly model: string | null;
	readonly prompt: CompareKind;
	readonly run: number;
	readonly runId: string;
	readonly ttftMs: number | null;
	readonly decodeTps: number | null;
	readonly reportedTps: number | null;
	readonly promptTokens: number | null;
	readonly cachedTokens: number | null;
	readonly tokensPerPass: number | null;
	readonly ceilingTps: number | null;
	/** Time waited on HTTP 429 before this run got the server (ms); null when it was not busy. */
	readonly queuedMs: number | null;
	/** Why the run has no figures; null when it ran. */
	readonly error: string | null;
}

const num = (x: number | undefined): number | null => (x === undefined || !Number.isFinite(x) ? null : x);

export function compareJson(r: CompareRow): CompareJsonRow {
	const p = r.result;
	return {
		server: r.url,
		engine: r.engine,
		model: r.model ?? p?.model ?? null,
		prompt: r.prompt,
		run: r.run,
		runId: r.runId,
		ttftMs: num(p?.ttftMs),
		decodeTps: num(p?.decodeTps),
		reportedTps: num(p?.reportedTps),
		promptTokens: num(p?.promptTokens),
		cachedTokens: num(p?.cachedTokens),
		tokensPerPass: num(p?.tokensPerPass),
		ceilingTps: num(p?.ceilingTps),
		queuedMs: num(p?.busyWaitMs),
		error: r.error ?? null,
	};
}

/** `88–91`, `88` when both round alike, `--` when none is known. */
export function range(values: readonly (number | undefined)[], digits = 0): string {
	const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
	if (known.length === 0) return '--';
	const lo = Math.min(...known).toFixed(digits);
	const hi = Math.max(...known).toFixed(digits);
	return lo === hi ? lo : `${lo}–${hi}`;
}

export const COMPARE_COLUMNS = ['server', 'engine', 'model', 'code tok/s', 'prose tok/s', 'long: wait / writes', '2nd TTFT', 'tok/pass', '% ceil'] as const;

export interface CompareLine {
	readonly url: string;
	readonly engine: string;
	readonly model: string;
	readonly cells: readonly string[];
	/** Runs that failed (their reasons, once each). */
	readonly errors: readonly string[];
}

const seconds = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : ms / 1000);

/** One line per server × model, in the order they were planned. */
export function compareLines(rows: readonly CompareRow[]): CompareLine[] {
	const groups = new Map<string, CompareRow[]>();
	for (const r of [...rows].sort((a, b) => a.index - b.index)) {
		const key = `${r.url}\u0000${r.engine}\u0000${r.model ?? ''}`;
		groups.set(key, [...(groups.get(key) ?? []), r]);
	}
	return [...groups.values()].map((g) => {
		const first = g[0]!;
		const of = (k: CompareKind) => g.filter((r) => r.prompt === k && r.result !== undefined).map((r) => r.result!);
		const long = of('long');
		const longWait = range(long.map((r) => seconds(r.ttftMs)));
		const longWrite = range(long.map((r) => r.decodeTps));
		const second = long.filter((r) => r.run === 2);
		const secondTtft = second.length === 0 ? '--' : `${range(second.map((r) => seconds(r.ttftMs)), 1)} s${second[0]?.cachedTokens !== undefined ? ` (${second[0].cachedTokens} cached)` : ''}`;
		const all = g.flatMap((r) => (r.result ? [r.result] : []));
		const pct = range(all.map((r) => (r.pctOfCeiling === undefined ? undefined : r.pctOfCeiling * 100)));
		const cells = [
			range(of('code').map((r) => r.decodeTps)),
			range(of('prose').map((r) => r.decodeTps)),
			longWait === '--' && longWrite === '--' ? '--' : `${longWait} s / ${longWrite}`,
			secondTtft,
			range(all.map((r) => r.tokensPerPass), 2),
			pct === '--' ? '--' : `${pct} %`,
		];
		return {url: first.url, engine: first.engine, model: first.model ?? all[0]?.model ?? '--', cells, errors: [...new Set(g.flatMap((r) => (r.error ? [`${r.prompt} run ${r.run}: ${r.error}`] : [])))]};
	});
}

/** The table as text (headless `infertop compare`). */
export function compareText(rows: readonly CompareRow[], runId: string): string {
	const lines = compareLines(rows);
	const table = [[...COMPARE_COLUMNS], ...lines.map((l) => [l.url, l.engine, l.model, ...l.cells])];
	const widths = COMPARE_COLUMNS.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
	const out = [`compare ${runId}: tok/s are wall-clocked decode rates; long = the ~27K-token prompt (cut to each model's context)`];
	for (const r of table) out.push(r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd());
	for (const l of lines) for (const e of l.errors) out.push(`! ${l.url} ${l.model}: ${e}`);
	return out.join('\n') + '\n';
}
