import {Box} from 'ink';
import {memo} from 'react';
import type {SystemState} from '../../types/system.js';
import {bytes, duration, fit, mib, pct100} from '../format.js';
import {Line, Span, Title} from './common.js';

export interface ContentionPaneProps {
	readonly system: SystemState;
	readonly width: number;
	readonly height: number;
}

/** The lines under the title, most important first (the pane shows as many as fit). Pure. */
export function contentionLines(system: SystemState): string[] {
	const c = system.contention;
	const lines: string[] = [];
	for (const g of system.gpus) {
		if (g.unified && g.source !== undefined && g.source !== 'systeminformation') {
			// Apple silicon read by ioreg or mactop: busy share and the unified memory the GPU driver has in use.
			const inUse = g.memoryInUseBytes === undefined ? '' : `  GPU memory in use ${(g.memoryInUseBytes / 2 ** 30).toFixed(1)} GiB`;
			lines.push(`GPU ${g.index ?? ''}${g.index === undefined ? '' : ' '}${g.name}${g.cores !== undefined ? ` (${g.cores}-core)` : ''}  busy ${pct100(g.utilizationPct)}${inUse}  (${g.source})`);
			continue;
		}
		const mem = g.unified ? 'unified memory' : `mem ${mib(g.memoryUsedMiB)}/${mib(g.memoryTotalMiB)}`;
		lines.push(`GPU ${g.index ?? ''}${g.index === undefined ? '' : ' '}${g.name}  ${mem}  util ${pct100(g.utilizationPct)}${g.powerW !== undefined ? `  ${g.powerW.toFixed(0)} W` : ''}${g.temperatureC !== undefined ? `  ${g.temperatureC.toFixed(0)}°C` : ''}`);
	}
	for (const h of c.hot.slice(0, 5)) {
		lines.push(`hot ${fit(h.count !== undefined ? `${h.name} ×${h.count}` : h.name, 18, true)} pid ${String(h.pid).padEnd(7)} ${pct100(h.cpuPct).padStart(5)} CPU  for ${duration(h.hotForMs)}${h.memRssBytes !== undefined ? `  ${bytes(h.memRssBytes)}` : ''}`);
	}
	// "Other engines" are engines not being watched; a watched one is never contention.
	const others = c.engines.filter(e => e.watched !== true);
	if (others.length > 0) {
		lines.push(`other engines: ${others.map(e => `${e.engine} (${e.name} pid ${e.pid}${e.cpuPct !== undefined ? `, ${pct100(e.cpuPct)} CPU` : ''})`).join(', ')}`);
	}
	const macUsers = system.mac?.gpuUsersSource;
	if (c.gpuUsers.length > 0) {
		const label = macUsers === 'mactop' ? 'GPU users (mactop, experimental)' : 'GPU users';
		lines.push(`${label}: ${c.gpuUsers.map(u => `${u.name} (pid ${u.pid}${u.usedMiB !== undefined ? `, ${mib(u.usedMiB)}` : ''}${u.gpuPct !== undefined ? `, ${pct100(u.gpuPct)} GPU` : ''})`).join(', ')}`);
	} else if (system.mac !== undefined && macUsers === undefined) {
		// No sudoless source answered: say so rather than suggest nobody uses the GPU.
		lines.push('GPU users: -- (macOS does not tell without sudo here)');
	}
	const extra: string[] = [];
	extra.push(`swap ${c.swapUsedBytes === undefined ? '--' : bytes(c.swapUsedBytes)}${c.swapTotalBytes !== undefined ? ` of ${bytes(c.swapTotalBytes)}` : ''}`);
	if (c.memoryPressure) extra.push(`memory pressure ${c.memoryPressure}`);
	if (c.power) {
		const p = c.power;
		const src = p.source === 'battery' ? `battery${p.percent !== undefined ? ` ${p.percent.toFixed(0)}%` : ''}` : p.source === 'ac' ? 'AC' : '--';
		extra.push(`power ${src}${p.mode ? ` ${p.mode}` : ''}${p.governor ? ` (${p.governor})` : ''}`);
	}
	if (system.cpuLoadPct !== undefined) extra.push(`CPU load ${pct100(system.cpuLoadPct)}`);
	lines.push(extra.join('  ·  '));
	for (const r of system.reasons.slice(0, 2)) lines.push(`(${r})`);
	return lines;
}

export const ContentionPane = memo(function ContentionPane({system, width, height}: ContentionPaneProps) {
	const c = system.contention;
	const lines = contentionLines(system).slice(0, Math.max(0, height - 1));
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="CONTENTION">
				{'  '}
				{system.updatedAt === undefined && !c.active ? (
					<Span color="muted">-- not measured yet</Span>
				) : c.active ? (
					<Span color="warn">{`! ${c.verdict?.replace(/^contention:\s*/i, '') ?? 'something competes for the machine'}`}</Span>
				) : (
					<Span color="good">{`✓ ${c.verdict ?? 'calm: nothing else competes'}`}</Span>
				)}
			</Title>
			{lines.map((l, i) => (
				<Line key={i} color={l.startsWith('hot ') ? 'warn' : l.startsWith('(') ? 'muted' : undefined}>
					{l}
				</Line>
			))}
		</Box>
	);
});
