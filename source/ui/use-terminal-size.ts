import {useEffect, useState} from 'react';
import {useStdout} from 'ink';

export interface TerminalSize {
	readonly columns: number;
	readonly rows: number;
}

/** Ink 6.8 has no useWindowSize: keep the size in state and follow stdout 'resize' (ink-practices §4.5). */
export function useTerminalSize(fallback: TerminalSize = {columns: 80, rows: 24}): TerminalSize {
	const {stdout} = useStdout();
	const read = (): TerminalSize => ({columns: stdout.columns || fallback.columns, rows: stdout.rows || fallback.rows});
	const [size, setSize] = useState(read);
	useEffect(() => {
		const onResize = () => {
			setSize(prev => {
				const next = read();
				return next.columns === prev.columns && next.rows === prev.rows ? prev : next;
			});
		};
		stdout.on('resize', onResize);
		onResize();
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}
