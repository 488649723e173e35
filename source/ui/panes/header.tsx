import {memo} from 'react';
import type {MonitorState} from '../../types/state.js';
import {gbs, interval} from '../format.js';
import {Badge, Line, Span} from './common.js';

export interface HeaderProps {
	readonly version: string;
	readonly host: string;
	readonly demo: boolean;
	readonly paused: boolean;
	readonly bandwidth: MonitorState['bandwidth'];
	readonly chip?: string;
	readonly refreshMs: number;
	readonly themeName?: string;
}

/** host · chip · bandwidth (source) · refresh · DEMO / PAUSED badges right after the name, so truncation never hides them. */
export const Header = memo(function Header(props: HeaderProps) {
	const bw = props.bandwidth;
	return (
		<Line>
			<Span color="accent" bold>
				{props.version ? `infertop ${props.version}` : 'infertop'}
			</Span>
			{props.demo ? (
				<>
					{' '}
					<Badge>DEMO</Badge>
				</>
			) : null}
			{props.paused ? (
				<>
					{' '}
					<Badge>PAUSED</Badge>
				</>
			) : null}
			<Span color="muted">{'  host '}</Span>
			{props.host || '--'}
			<Span color="muted">{'  every '}</Span>
			{interval(props.refreshMs)}
			<Span color="muted">{'  BW '}</Span>
			{gbs(bw.gbs)}
			<Span color="muted">{'  chip '}</Span>
			{props.chip ?? bw.chip ?? '--'}
			{bw.source ? <Span color="muted">{`  BW from ${bw.source}`}</Span> : null}
		</Line>
	);
});
