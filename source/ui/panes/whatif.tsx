/**
 * The what-if table (`w` in the agent view, issue 29): the agent's session projected onto each
 * measured server × model, beside its own server projected the same way (the method's own error).
 * Only renders: the rows come from model/whatif.ts.
 */
import {Box} from 'ink';
import {memo} from 'react';
import {WHATIF_COLUMNS, whatIfCells, type WhatIfView} from '../../model/whatif.js';
import {Line, Span, Title} from './common.js';

export interface WhatIfPaneProps {
	readonly view: WhatIfView;
	readonly loading: boolean;
	readonly error?: string;
	readonly measuring?: string;
	readonly file?: string;
	readonly now: number;
	readonly width: number;
	readonly height: number;
}

type Row = {readonly text: string; readonly color?: 'accent' | 'bad' | 'warn' | 'muted'; readonly bold?: boolean};

/** The overlay's lines (header first), columns padded to fit. Pure. */
export function whatIfLines(p: Pick<WhatIfPaneProps, 'view' | 'loading' | 'error' | 'measuring' | 'now'>): Row[] {
	const out: Row[] = [];
	if (p.measuring !== undefined) out.push({text: `▶ measuring: ${p.measuring}`, color: 'accent'});
	if (p.error !== undefined) out.push({text: `✖ ${p.error}`, color: 'bad'});
	if (p.loading) out.push({text: 'reading the measured profiles…', color: 'muted'});
	if (p.view.problem !== undefined) out.push({text: p.view.problem, color: 'muted'});
	if (p.view.rows.length > 0) {
		const cells = [[...WHATIF_COLUMNS] as string[], ...p.view.rows.map((r) => whatIfCells({...r, server: r.server.replace(/^https?:\/\//, '')}, p.now))];
		const widths = WHATIF_COLUMNS.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
		cells.forEach((r, i) => out.push({text: r.map((c, j) => (j < 4 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join('  ').trimEnd(), bold: i === 0, color: i > 0 && p.view.rows[i - 1]!.unable !== null ? 'warn' : undefined}));
		const seen = new Set<string>();
		for (const r of p.view.rows) {
			for (const n of r.notes) {
				if (seen.has(n)) continue;
				seen.add(n);
				out.push({text: `${r.server.replace(/^https?:\/\//, '')}: ${n}`, color: 'muted'});
			}
		}
	}
	if (p.view.unmeasured && p.view.unmeasured.length > 0) out.push({text: `not measured yet (m measures them, one at a time): ${p.view.unmeasured.map((u) => u.replace(/^https?:\/\//, '')).join(', ')}`, color: 'warn'});
	out.push({text: 'speeds only: answer quality is not judged · * its own server, projected the same way · -- unknown', color: 'muted'});
	return out;
}

export const WhatIfPane = memo(function WhatIfPane(p: WhatIfPaneProps) {
	const s = p.view.session;
	const self = p.view.rows[0]?.selfErrorPct ?? null;
	const detail = s ? `${s.model} · ${s.turns.length} turns · own error ${self === null ? '--' : `${self > 0 ? '+' : ''}${Math.round(self)} %`} · m measures the rest · Esc back` : 'Esc back';
	const lines = whatIfLines(p);
	return (
		<Box flexDirection="column" height={p.height} width={p.width}>
			<Title title="WHAT IF" detail={detail} />
			{lines.slice(0, Math.max(0, p.height - 1)).map((l, i) => (
				<Line key={i} bold={l.bold}>
					{l.color ? <Span color={l.color}>{l.text}</Span> : l.text}
				</Line>
			))}
		</Box>
	);
});
