import {Box} from 'ink';
import {memo} from 'react';
import type {ProbeProgress, ProbeResult, ProbeState} from '../../types/probe.js';
import {clock, duration, elapsed, int, ms, pct, tpp, tps} from '../format.js';
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

/** Two lines for the last result. Pure. */
export function resultLines(r: ProbeResult): [string, string] {
	const first = `TTFT ${ms(r.ttftMs)}   decode ${tps(r.decodeTps)} tok/s wall vs ${tps(r.reportedTps)} reported${r.run !== undefined ? ` (run ${r.run})` : ''}`;
	const cached = r.cachedTokens !== undefined && r.promptTokens !== undefined ? `   cached ${int(r.cachedTokens)}/${int(r.promptTokens)}` : '';
	const second = `tok/pass ${tpp(r.tokensPerPass)}   accept ${pct(r.acceptance)}   ceiling ${tps(r.ceilingTps)} tok/s   ${pct(r.pctOfCeiling)} of ceiling${cached}   ${r.prompt} · ${r.model ?? r.engine} · ${clock(r.t)}`;
	return [first, second];
}

/** The live line while a probe runs, with its overall limit (`--timeout`). Pure. */
export function runningLine(run: ProbeProgress, now: number): string {
	const many = run.runs !== undefined && run.runs > 1;
	const runs = many ? ` · run ${run.run ?? 1}/${run.runs}` : '';
	const limit = run.timeoutMs !== undefined ? ` (limit ${duration(run.timeoutMs)}${many ? ' a run' : ''})` : '';
	return `▶ ${int(run.tokens)} tokens · ${tps(run.liveTps)} tok/s live · TTFT ${ms(run.ttftMs)} · ${elapsed(now - run.startedAt)} elapsed${limit}${runs}${run.status ? ` · ${run.status}` : ''}   Esc cancels`;
}

/** What the server's answer said that could not be true (its figures show --). Pure. */
export function inconsistentLine(what: readonly string[]): string {
	return `⚠ the server's answer was inconsistent (${what.join(', ')}): those figures are --`;
}

export const ProbePane = memo(function ProbePane({probe, now, width, height, readOnly = false}: ProbePaneProps) {
	const last = probe.results.at(-1);
	const run = probe.running;
	const room = Math.max(0, height - 1);
	const lines: {text: string; color?: 'accent' | 'bad' | 'warn' | 'muted'}[] = [];
	if (run) lines.push({text: runningLine(run, now), color: 'accent'});
	if (probe.lastError) lines.push({text: `✖ ${probe.lastError}`, color: 'bad'});
	if (last) {
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
			<Title title="PROBE" detail={`prompt ${probe.prompt}${run ? ` · running on ${run.serverId}` : ''}`} />
			{lines.slice(0, room).map((l, i) => (
				<Line key={i}>{l.color ? <Span color={l.color}>{l.text}</Span> : l.text}</Line>
			))}
		</Box>
	);
});
