import {Box, Text} from 'ink';
import {memo} from 'react';
import type {SelfCost} from '../../types/system.js';
import {bytes, pct100} from '../format.js';
import {fitHints, footerHints, type KeyBinding, type KeyScope} from '../keymap.js';
import {useTheme} from '../theme-context.js';
import {Line, Span} from './common.js';

export interface FooterProps {
	readonly keymap: readonly KeyBinding[];
	readonly scopes: readonly KeyScope[];
	readonly self: SelfCost;
	/** stdin is not a TTY: keys can't be read. */
	readonly readOnly: boolean;
	readonly width: number;
	/** Shown instead of the key hints (a recent notice, or the snapshot's note). */
	readonly note?: {readonly text: string; readonly level: 'info' | 'warn' | 'error'};
}

const NOTE_GLYPH = {info: 'ℹ', warn: '!', error: '✖'} as const;
const NOTE_COLOR = {info: 'accent', warn: 'warn', error: 'bad'} as const;

/** infertop's own cost, the way htop lists itself. */
export function selfText(self: SelfCost): string {
	return `infertop CPU ${pct100(self.cpuPct, 1)} RSS ${bytes(self.rssBytes)}`;
}

/** Key hints generated from the keymap, then infertop's own CPU % and RSS at the right. */
/** Rows a notice needs at this width to be read whole (the footer gives it the full width), at most 3. */
export function noteRows(note: FooterProps['note'], width: number): number {
	if (!note || width <= 0) return 1;
	return Math.min(3, Math.max(1, Math.ceil(Array.from(`${NOTE_GLYPH[note.level]} ${note.text}`).length / width)));
}

export const Footer = memo(function Footer({keymap, scopes, self, readOnly, width, note}: FooterProps) {
	const theme = useTheme();
	const me = selfText(self);
	const rows = noteRows(note, Math.max(1, width - me.length - 1));
	if (note && rows > 1) {
		// A notice longer than one row: the whole width, on the rows the layout gave it.
		const wrapped = noteRows(note, width);
		return (
			<Box width={width} height={wrapped}>
				<Text wrap="wrap" color={theme.colors[NOTE_COLOR[note.level]]}>{`${NOTE_GLYPH[note.level]} ${note.text}`}</Text>
			</Box>
		);
	}
	const room = Math.max(0, width - me.length - 2);
	const hints = readOnly || note ? [] : fitHints(footerHints(keymap, scopes), room);
	return (
		<Box width={width} height={1}>
			<Box flexGrow={1} width={Math.max(0, width - me.length - 1)}>
				<Line>
					{note ? (
						<Span color={NOTE_COLOR[note.level]}>{`${NOTE_GLYPH[note.level]} ${note.text}`}</Span>
					) : readOnly ? (
						<Span color="warn">read-only: no keyboard (stdin is not a TTY)</Span>
					) : (
						hints.map((h, i) => (
							<Text key={`${h.id}${i}`}>
								{i > 0 ? '  ' : ''}
								<Text bold color={theme.colors.accent}>
									{h.keys}
								</Text>
								<Text color={theme.colors.muted}>{` ${h.label}`}</Text>
							</Text>
						))
					)}
				</Line>
			</Box>
			<Box width={me.length + 1} justifyContent="flex-end">
				<Text wrap="truncate-end" color={theme.colors.muted}>
					{me}
				</Text>
			</Box>
		</Box>
	);
});
