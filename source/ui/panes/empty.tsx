import {Box} from 'ink';
import type {MonitorState} from '../../types/state.js';
import {Line, Span, Title} from './common.js';

export interface EmptyStateProps {
	readonly lookedFor?: MonitorState['lookedFor'];
	readonly width: number;
	readonly height: number;
	readonly canType: boolean;
}

/** What was looked for, how to point infertop at a server, and the demo offer. Pure. */
export function emptyLines(lookedFor: MonitorState['lookedFor'], canType: boolean): string[] {
	// The first look is not done yet: say so, not `ports --` (it lasts a moment; the demo may follow).
	if (lookedFor === undefined) return ['Looking for inference engines: default ports, engine processes, their logs…'];
	const lines = ['No inference engine found yet.', ''];
	lines.push('Looked for:');
	// An empty list after discovery ran means the scan was turned off: say so rather than `--`.
	const off = lookedFor !== undefined && lookedFor.ports.length === 0 ? 'not scanned (--no-scan)' : '--';
	lines.push(`  ports      ${lookedFor && lookedFor.ports.length > 0 ? lookedFor.ports.join(', ') : off}`);
	lines.push(`  processes  ${lookedFor && lookedFor.processes.length > 0 ? lookedFor.processes.join(', ') : off}`);
	lines.push(`  logs       ${lookedFor && lookedFor.logs.length > 0 ? lookedFor.logs.join(', ') : '--'}`);
	lines.push('');
	lines.push('Point infertop at one:');
	lines.push('  infertop --server http://127.0.0.1:8080      a server, local or remote');
	lines.push('  infertop --log PATH   (or ENGINE=PATH, cmd:CMD)  a log to tail');
	lines.push('');
	lines.push(canType ? 'Or press d to start the built-in demo engine (same as infertop --demo).' : 'Or run infertop --demo for the built-in demo engine.');
	return lines;
}

export function EmptyState({lookedFor, width, height, canType}: EmptyStateProps) {
	const lines = emptyLines(lookedFor, canType).slice(0, Math.max(0, height - 1));
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Title title="ENGINES" detail="none found" />
			{lines.map((l, i) => (
				<Line key={i} color={l.startsWith('  infertop') ? 'accent' : i === 0 ? 'warn' : undefined}>
					{l.includes('press d') ? (
						<>
							{'Or press '}
							<Span color="accent" bold>
								d
							</Span>
							{l.slice('Or press d'.length)}
						</>
					) : (
						l || ' '
					)}
				</Line>
			))}
		</Box>
	);
}
