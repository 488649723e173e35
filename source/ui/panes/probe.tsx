import {Box} from 'ink';
import {memo} from 'react';
import type {ProbeProgress, ProbeResult, ProbeState} from '../../types/probe.js';
import {clock, duration, elapsed, fitRows, int, ms, pct, tpp, tps} from '../format.js';
import {Line, Span, Title} from './common.js';

export interface ProbePaneProps {
	readonly probe: ProbeState;
	readonly now: number;
	readonly width: number;
	readonly height: number;
	/** No keys to press (a snapshot, a pipe): no key hints. */
	readonly readOnly?: boolean;
}

/** Wall vs reported: flagged in words when they differ by more than 5 %. */
export function disagreement(r: ProbeResult): string | undefined {
	if (r.decodeTps === undefined || r.reportedTps === undefined || r.reportedTps <= 0) return undefined;
	const d = (r.decodeTps - r.reportedTps) / r.reportedTps;
	if (r.disagree === true || Math.abs(d) > 0.05) return `⚠ differ by ${(Math.abs(d) * 100).toFixed(0)}% (>5%)`;
	return undefined;
}

/** ` (queued 3.1 s behind 1 request)` when the run waited behind other requests, `` otherwise. Pure. */
export function queueText(r: ProbeResult): string {
	const n = r.queuedBehind;
	const reqs = n === undefined ? '' : `${n} request${n === 1 ? '' : 's'}`;
	const queue =
		n === undefined
			? ''
			: r.queuedMs !== undefined
				? ` (queued ${(r.queuedMs / 1000).toFixed(1)} s behind ${reqs})`
				: ` (${n === 1 ? '1 other request' : `${n} other requests`} running)`;
	const busy = r.busyRetries ? ` (server busy: waited out ${r.busyRetries} × HTTP 429)` : '';
	return queue + busy;
}

/** `TTFT 3.38 s (queued 3.1 s behind 1 request)` instead of a bare TTFT when the run waited. Pure. */
export function ttftText(r: ProbeResult): string {
	return `TTFT ${ms(r.ttftMs)}${queueText(r)}`;
}

/** Two lines for the last result. Pure. */
export function resultLines(r: ProbeResult): [string, string] {
	const first = `${ttftText(r)}   decode ${tps(r.decodeTps)} tok/s wall vs ${tps(r.reportedTps)} reported${r.run !== undefined ? ` (run ${r.run})` : ''}`;
	const cached = r.cachedTokens !== undefined && r.promptTokens !== undefined ? `   cached ${int(r.cachedTokens)}/${int(r.promptTokens)}` : '';
	// Why a figure is --: the answer contradicted itself, or no log line (or two) matched the probe's request.
	const why = r.tokensPerPass === undefined && r.logNote !== undefined ? ` (${r.logNote})` : '';
	const second = `tok/pass ${tpp(r.tokensPerPass)}${why}   accept ${pct(r.acceptance)}   ceiling ${tps(r.ceilingTps)} tok/s   ${pct(r.pctOfCeiling)} of ceiling${cached}   ${r.prompt} · ${r.model ?? r.engine} · ${clock(r.t)}`;
	return [first, second];
}

/** The two runs of one `r` probe (run 1 then run 2, same server, prompt and model), newest pair; undefined otherwise. Pure. */
export function lastPair(results: readonly ProbeResult[]): [ProbeResult, ProbeResult] | undefined {
	const second = results.at(-1);
	const first = results.at(-2);
	if (!first || !second || first.run !== 1 || second.run !== 2) return undefined;
	if (first.url !== second.url || first.prompt !== second.prompt || first.model !== second.model) return undefined;
	return [first, second];
}

/**
 * First against second, side by side: TTFT, cached tokens, decode; then the TTFT the prefix cache
 * saved (first − second). A saving needs both TTFTs; a run that queued is said, since its TTFT is
 * not the prefill alone. Pure.
 */
export function pairLines(first: ProbeResult, second: ProbeResult): [string, string, string] {
	const cached = (r: ProbeResult) => `${int(r.cachedTokens)}/${int(r.promptTokens)}`;
	const cell = (r: ProbeResult) => `TTFT ${ms(r.ttftMs).padStart(8)}   cached ${cached(r).padStart(11)}   decode ${tps(r.decodeTps).padStart(6)} tok/s${queueText(r)}`;
	// Prefill with prefill: a run's wait behind other requests is not what the cache saves. Where
	// another request held the server for a time not known, neither run's prefill is known.
	const shared = (r: ProbeResult) => r.queuedBehind !== undefined && r.queuedMs === undefined;
	const prefillOf = (r: ProbeResult) => (r.ttftMs === undefined ? undefined : r.ttftMs - (r.queuedMs ?? 0));
	const excluded = [first, second].some(r => r.queuedMs !== undefined && r.queuedMs > 0) ? ', queue excluded' : '';
	const p1 = prefillOf(first);
	const p2 = prefillOf(second);
	let saved: string;
	const noMoreCached = first.cachedTokens !== undefined && second.cachedTokens !== undefined && second.cachedTokens <= first.cachedTokens;
	if (noMoreCached) saved = `cache saved nothing (the second prompt was no more cached: ${int(second.cachedTokens)} of ${int(second.promptTokens)})`;
	else if (shared(first) || shared(second)) saved = 'cache saved -- (a run shared the server with other requests: its prefill is not known)';
	else if (p1 === undefined || p2 === undefined) saved = 'cache saved -- of TTFT';
	else {
		const d = p1 - p2;
		saved = d > 0 ? `cache saved ${ms(d)} of TTFT${excluded} (${pct(p1 > 0 ? d / p1 : undefined)})` : `cache saved nothing (second ${excluded ? 'prefill' : 'TTFT'} ${ms(-d)} longer)`;
	}
	return [`first   ${cell(first)}`, `second  ${cell(second)}`, `${saved} · ${second.prompt} · ${second.model ?? second.engine} · ${clock(second.t)}`];
}

/** Silence after which the live rate is no longer shown as live: the stream has stalled. */
export const STALL_MS = 2000;

/**
 * The live line while a probe runs, with its overall limit (`--timeout`). A stream silent for
 * STALL_MS or more shows `stalled N s`, not the rate of its last token (which a silent stall would
 * otherwise keep showing). Pure.
 */
export function runningLine(run: ProbeProgress, now: number): string {
	const many = run.runs !== undefined && run.runs > 1;
	const runs = many ? ` · run ${run.run ?? 1}/${run.runs}` : '';
	const limit = run.timeoutMs !== undefined ? ` (limit ${duration(run.timeoutMs)}${many ? ' a run' : ''})` : '';
	const silent = run.tokens > 0 && run.elapsedMs !== undefined ? now - (run.startedAt + run.elapsedMs) : 0;
	const rate = silent >= STALL_MS ? `-- tok/s live (stalled ${elapsed(silent)})` : `${tps(run.liveTps)} tok/s live`;
	return `▶ ${int(run.tokens)} tokens · ${rate} · TTFT ${ms(run.ttftMs)} · ${elapsed(now - run.startedAt)} elapsed${limit}${runs}${run.status ? ` · ${run.status}` : ''}   Esc cancels`;
}

/** What the server's answer said that could not be true (its figures show --). Pure. */
export function inconsistentLine(what: readonly string[]): string {
	return `⚠ the server's answer was inconsistent (${what.join(', ')}): those figures are --`;
}

export const ProbePane = memo(function ProbePane({probe, now, width, height, readOnly = false}: ProbePaneProps) {
	const last = probe.results.at(-1);
	const run = probe.running;
	const room = Math.max(0, height - 1);
	const pairShown = lastPair(probe.results) !== undefined && !run;
	const lines: {text: string; color?: 'accent' | 'bad' | 'warn' | 'muted'}[] = [];
	if (run) lines.push({text: runningLine(run, now), color: 'accent'});
	if (probe.lastError) lines.push({text: `✖ ${probe.lastError}`, color: 'bad'});
	const pair = lastPair(probe.results);
	if (pair && !run) {
		const [a, b, c] = pairLines(pair[0], pair[1]);
		lines.push({text: a}, {text: b}, {text: c, color: 'accent'});
		const bad = [...(pair[0].inconsistent ?? []), ...(pair[1].inconsistent ?? [])];
		if (bad.length > 0) lines.push({text: inconsistentLine(bad), color: 'warn'});
	} else if (last) {
		const [a, b] = resultLines(last);
		const flag = disagreement(last);
		lines.push({text: flag ? `${a}  ${flag}` : a, color: flag ? 'warn' : undefined});
		lines.push({text: b});
		if (last.inconsistent && last.inconsistent.length > 0) lines.push({text: inconsistentLine(last.inconsistent), color: 'warn'});
	} else if (!run) {
		lines.push({text: readOnly ? 'no probe yet (infertop probe URL runs one)' : 'no probe yet: p probes the selected server, P chooses the prompt, r runs it twice', color: 'muted'});
	}
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="PROBE" detail={`prompt ${probe.prompt}${run ? ` · running on ${run.serverId}${run.model ? ` · ${run.model}` : ''}` : pairShown ? ' · first against second run' : ''}`} />
			{fitRows(lines, width, room).map((l, i) => (
				<Line key={i}>{l.color ? <Span color={l.color}>{l.text}</Span> : l.text}</Line>
			))}
		</Box>
	);
});
