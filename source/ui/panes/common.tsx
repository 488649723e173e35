import {Text} from 'ink';
import type {ReactNode} from 'react';
import {useTheme} from '../theme-context.js';
import type {ThemeToken} from '../theme.js';

export interface LineProps {
	readonly children?: ReactNode;
	readonly color?: ThemeToken;
	readonly bold?: boolean;
	readonly dim?: boolean;
	readonly inverse?: boolean;
}

/** One screen line: always truncated, never wrapped (a wrapped line adds rows, ink#450). */
export function Line({children, color, bold, dim, inverse}: LineProps) {
	const theme = useTheme();
	return (
		<Text wrap="truncate-end" color={color ? theme.colors[color] : theme.colors.text} bold={bold} dimColor={dim} inverse={inverse}>
			{children}
		</Text>
	);
}

export interface SpanProps {
	readonly children?: ReactNode;
	readonly color?: ThemeToken;
	readonly bold?: boolean;
	readonly inverse?: boolean;
	readonly backgroundColor?: ThemeToken;
}

/** A coloured run inside a Line. */
export function Span({children, color, bold, inverse, backgroundColor}: SpanProps) {
	const theme = useTheme();
	return (
		<Text
			color={color ? theme.colors[color] : undefined}
			backgroundColor={backgroundColor ? theme.colors[backgroundColor] : undefined}
			bold={bold}
			inverse={inverse}
		>
			{children}
		</Text>
	);
}

/** A badge such as DEMO or PAUSED: inverse, so it stands out without colour too. */
export function Badge({children}: {readonly children: string}) {
	const theme = useTheme();
	if (theme.noColor || !theme.colors.badgeBg) {
		return (
			<Text inverse bold>
				{` ${children} `}
			</Text>
		);
	}
	return (
		<Text color={theme.colors.badge} backgroundColor={theme.colors.badgeBg} bold>
			{` ${children} `}
		</Text>
	);
}

/** A pane title: bold accent word, muted detail. */
export function Title({title, detail, children}: {readonly title: string; readonly detail?: string; readonly children?: ReactNode}) {
	return (
		<Line>
			<Span color="accent" bold>
				{title}
			</Span>
			{detail ? <Span color="muted">{`  ${detail}`}</Span> : null}
			{children}
		</Line>
	);
}
