/**
 * `infertop probe [URL]`: one headless probe (or `--runs N` of the same prompt), printed as a
 * table or JSON, appended to the probe history. Returns the exit code; never throws.
 */
import {ProbeError} from './client.js';
import {redactUserinfo, sanitize, sanitizeDeep, sanitizeName} from '../util/sanitize.js';
import {VERSION} from '../version.js';
import {appendHistory, checkHistoryWritable, defaultHistoryPath} from './history.js';
import {loadPrompt, parsePromptArg} from './prompts.js';
import {ENGINE_KEY_ENV, detectEngine, pickModel, runProbe} from './run.js';
import type {ProbeResult} from '../types/probe.js';
import type {ProtocolPlan} from './protocols.js';
import type {LogFiguresFn} from './timing.js';
import type {StreamTimeouts} from './client.js';

export interface ProbeCommandOptions {
	url?: string;
	/** Engine hint (from discovery's fingerprinting); detected from the URL when absent. */
	engine?: string;
	prompt: string;
	runs: number;
	json: boolean;
	maxTokens: number;
	model?: string;
	apiKey?: string;
	historyPath?: string;
	busyTimeoutMs?: number;
	/** Each run's overall limit (`--timeout`), ms. */
	totalTimeoutMs?: number;
	busyRetryBaseMs?: number;
	bandwidthGBs?: number;
	bytesPerToken?: number;
	discover?: () => Promise<{url: string; engine: string; model?: string}[]>;
	/**
	 * The ceiling's inputs for the model probed (DESIGN §1: bandwidth, bytes per token), as the monitor
	 * has them; the figures stay -- where either is unknown.
	 */
	ceilingInputs?: (target: {url: string; engine: string; model?: string; apiKey?: string}) => Promise<{bandwidthGBs?: number; bytesPerToken?: number; bytesPerTokenSource?: string}>;
	logFigures?: LogFiguresFn;
	timeouts?: StreamTimeouts;
	version?: string;
	env?: NodeJS.ProcessEnv;
	signal?: AbortSignal;
	stdout: NodeJS.WritableStream;
	/** Every message and error (default: process.stderr); stdout carries only the result. */
	stderr?: NodeJS.WritableStream;
}

/** The JSON of one probe run (DESIGN §1 keys; unknown = null). */
export function probeJson(r: ProbeResult): Record<string, string | number | boolean | readonly string[] | null> {
	const v = (x: number | undefined): number | null => (x === undefined || !Number.isFinite(x) ? null : x);
	return {
		engine: r.engine,
		url: r.url,
		model: r.model ?? null,
		protocol: r.protocol,
		prompt: r.prompt,
		run: v(r.run),
		ttftMs: v(r.ttftMs),
		decodeTps: v(r.decodeTps),
		reportedTps: v(r.reportedTps),
		disagree: r.disagree ?? null,
		prefillTps: v(r.prefillTps),
		promptTokens: v(r.promptTokens),
		cachedTokens: v(r.cachedTokens),
		completionTokens: v(r.completionTokens),
		tokensPerPass: v(r.tokensPerPass),
		tokensPerPassSource: r.tokensPerPassSource ?? null,
		// Why tokens per pass is unknown (the log's match: `2 candidates`, `no log line for this request`).
		unknownBecause: r.tokensPerPass === undefined ? (r.logNote ?? null) : null,
		acceptance: v(r.acceptance),
		passes: v(r.passes),
		ceilingTps: v(r.ceilingTps),
		pctOfCeiling: v(r.pctOfCeiling),
		bytesPerToken: v(r.bytesPerToken),
		// What the server's answer said that could not be true (those figures are null): e.g. ["eval_count -5"].
		inconsistent: r.inconsistent && r.inconsistent.length > 0 ? r.inconsistent : null,
	};
}

const fmt = (x: number | undefined, digits: number, unit = ''): string => (x === undefined || !Number.isFinite(x) ? '--' : `${x.toFixed(digits)}${unit}`);

/** The table of one or more runs: one row per figure, one column per run. */
export function probeTable(results: readonly ProbeResult[]): string {
	const r0 = results[0];
	if (!r0) return '';
	const head = `${r0.engine}  ${r0.url}  ${r0.model ?? '--'}  prompt ${r0.prompt}  (${r0.protocol})`;
	const rows: [string, (r: ProbeResult) => string][] = [
		['TTFT', (r) => fmt(r.ttftMs, 0, ' ms')],
		['decode tok/s (wall)', (r) => fmt(r.decodeTps, 1) + (r.disagree ? ' !' : '')],
		['reported tok/s', (r) => fmt(r.reportedTps, 1)],
		['prefill tok/s', (r) => fmt(r.prefillTps, 0)],
		['prompt tokens', (r) => fmt(r.promptTokens, 0)],
		['cached tokens', (r) => fmt(r.cachedTokens, 0)],
		['completion tokens', (r) => fmt(r.completionTokens, 0)],
		['tokens/pass', (r) => fmt(r.tokensPerPass, 2) + (r.tokensPerPassSource && r.tokensPerPass !== undefined ? ` (${r.tokensPerPassSource})` : '')],
		['acceptance', (r) => (r.acceptance === undefined ? '--' : `${(r.acceptance * 100).toFixed(1)} %`)],
		['ceiling tok/s', (r) => fmt(r.ceilingTps, 1) + (r.ceilingTps !== undefined && r.bytesPerToken !== undefined && r.bandwidthGBs !== undefined ? ` (${r.bandwidthGBs.toFixed(0)} GB/s ÷ ${(r.bytesPerToken / 1e9).toFixed(2)} GB${r.bytesPerTokenSource ? `, ${r.bytesPerTokenSource}` : ''})` : '')],
		['% of ceiling', (r) => (r.pctOfCeiling === undefined ? '--' : `${(r.pctOfCeiling * 100).toFixed(0)} %`)],
	];
	const cols = results.map((r, i) => (results.length > 1 ? `run ${r.run ?? i + 1}` : ''));
	const cells = rows.map(([name, f]) => [name, ...results.map(f)]);
	const widths = [Math.max(...cells.map((c) => c[0]!.length)), ...results.map((_, i) => Math.max(cols[i]!.length, ...cells.map((c) => c[i + 1]!.length)))];
	const line = (c: string[]): string => c.map((s, i) => (i === 0 ? s.padEnd(widths[0]!) : s.padStart(widths[i]!))).join('  ').trimEnd();
	const out = [head];
	if (results.length > 1) out.push(line(['', ...cols]));
	for (const c of cells) out.push(line(c));
	if (results.some((r) => r.disagree)) out.push('! wall and reported tok/s differ by more than 5 %');
	const whyNot = [...new Set(results.flatMap((r) => (r.tokensPerPass === undefined && r.logNote !== undefined ? [r.logNote] : [])))];
	if (whyNot.length > 0) out.push(`tokens/pass --: ${whyNot.join('; ')}`);
	const bad = [...new Set(results.flatMap((r) => r.inconsistent ?? []))];
	if (bad.length > 0) out.push(`! the server's answer was inconsistent (${bad.join(', ')}): those figures are --`);
	return out.join('\n') + '\n';
}

const errorLine = (e: unknown): string => sanitize(e instanceof Error ? e.message : String(e), 200);

export async function probeCommand(opts: ProbeCommandOptions): Promise<number> {
	const env = opts.env ?? process.env;
	const err = opts.stderr ?? process.stderr;
	// Errors go to stderr, always, --json or not: stdout carries only the result.
	const fail = (message: string, code: number): number => {
		err.write(`infertop probe: ${sanitizeName(redactUserinfo(message))}\n`);
		return code;
	};
	const promptArg = parsePromptArg(opts.prompt);
	if (!promptArg) return fail(`unknown prompt "${opts.prompt}": use code, prose, repeat, hex, long or @file`, 2);
	if (!Number.isInteger(opts.runs) || opts.runs < 1 || opts.runs > 20) return fail(`--runs must be 1..20 (got ${opts.runs})`, 2);
	if (!Number.isInteger(opts.maxTokens) || opts.maxTokens < 2) return fail(`--max-tokens must be an integer ≥ 2 (got ${opts.maxTokens})`, 2);
	let url = opts.url;
	let engine = opts.engine;
	let model = opts.model;
	if (url === undefined) {
		const found = opts.discover ? await opts.discover().catch(() => []) : [];
		const first = found[0];
		if (!first) return fail('no inference server found on this machine; give its URL: infertop probe http://127.0.0.1:11434', 1);
		url = first.url;
		engine ??= first.engine;
		model ??= first.model;
	}
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `http://${url}`;
	try {
		const u = new URL(url);
		if (u.protocol !== 'http:' && u.protocol !== 'https:') return fail(`unsupported URL scheme ${u.protocol} (use http:// or https://)`, 2);
	} catch {
		return fail(`not a URL: ${url}`, 2);
	}
	engine ??= await detectEngine(url, opts.signal);
	const apiKey = opts.apiKey ?? env.INFERTOP_API_KEY ?? (ENGINE_KEY_ENV[engine] ?? []).map((k) => env[k]).find((v) => v !== undefined && v !== '');
	let prompt;
	try {
		prompt = await loadPrompt(promptArg);
	} catch (e) {
		return fail((e as Error).message, 2);
	}
	const historyPath = opts.historyPath ?? defaultHistoryPath(env);
	try {
		await checkHistoryWritable(historyPath);
	} catch (e) {
		return fail(`cannot write the probe history ${historyPath}: ${errorLine(e)} (give another --history PATH)`, 2);
	}
	// The model first (the loaded one when none is named): the ceiling is the model's.
	model ??= await pickModel(url, engine, apiKey, opts.signal);
	type CeilingInputs = Awaited<ReturnType<NonNullable<ProbeCommandOptions['ceilingInputs']>>>;
	// Never held up by it: what is not known within 6 s leaves the ceiling --.
	let capTimer: NodeJS.Timeout | undefined;
	const cap = new Promise<CeilingInputs>((resolve) => (capTimer = setTimeout(() => resolve({}), 6000)));
	const ceiling: CeilingInputs = opts.ceilingInputs ? await Promise.race([opts.ceilingInputs({url, engine, model, apiKey}).catch((): CeilingInputs => ({})), cap]) : {};
	clearTimeout(capTimer);
	const results: ProbeResult[] = [];
	let plan: ProtocolPlan | undefined;
	try {
		for (let run = 1; run <= opts.runs; run++) {
			const out = await runProbe({
				target: {url, engine, model, apiKey},
				prompt,
				maxTokens: opts.maxTokens,
				run: opts.runs > 1 ? run : undefined,
				signal: opts.signal,
				timeouts: opts.timeouts ?? (prompt.kind === 'long' ? {firstTokenMs: 300_000, interTokenMs: 30_000} : undefined),
				busyTimeoutMs: opts.busyTimeoutMs,
				totalTimeoutMs: opts.totalTimeoutMs,
				busyRetryBaseMs: opts.busyRetryBaseMs,
				logFigures: opts.logFigures,
				bandwidthGBs: opts.bandwidthGBs ?? ceiling.bandwidthGBs,
				bytesPerToken: opts.bytesPerToken ?? ceiling.bytesPerToken,
				bytesPerTokenSource: opts.bytesPerToken === undefined ? ceiling.bytesPerTokenSource : undefined,
				plan,
			});
			plan = out.plan;
			model ??= out.result.model;
			results.push(out.result);
			try {
				await appendHistory(historyPath, out.result, opts.version ?? VERSION);
			} catch (e) {
				err.write(`infertop probe: history not written: ${errorLine(e)}\n`);
			}
		}
	} catch (e) {
		const message = e instanceof ProbeError || e instanceof Error ? e.message : String(e);
		return fail(`${url}: ${message}`, 1);
	}
	if (opts.json) {
		const j = results.map(probeJson);
		opts.stdout.write(JSON.stringify(sanitizeDeep(j.length === 1 ? j[0] : j), null, 2) + '\n');
	} else {
		opts.stdout.write(probeTable(results));
	}
	return 0;
}
