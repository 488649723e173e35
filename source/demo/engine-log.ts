/**
 * The demo engine's log file: lines appended as a real Ollama writes them (slog lines through
 * `slog`, the runner's own lines through `write`). A log that cannot be written never takes the
 * engine down; after `close` nothing more is written.
 */
import {closeSync, openSync, writeSync} from 'node:fs';
import {slogLine, type SlogLevel} from './logfmt.js';

export type SlogAttrs = ReadonlyArray<readonly [string, string | number | boolean]>;

export interface DemoLog {
	write(lines: string | readonly string[]): void;
	slog(level: SlogLevel, source: string, msg: string, attrs?: SlogAttrs): void;
	/** Close the file once; later writes are dropped. */
	close(): void;
}

export function openDemoLog(logPath: string): DemoLog {
	const fd = openSync(logPath, 'a');
	let fdOpen = true;
	const write = (lines: string | readonly string[]): void => {
		if (!fdOpen) return;
		const text = (typeof lines === 'string' ? [lines] : lines).map((l) => `${l}\n`).join('');
		try {
			writeSync(fd, text);
		} catch {
			// a log that cannot be written must not take the engine down
		}
	};
	return {
		write,
		slog: (level, source, msg, attrs = []) => write(slogLine(new Date(), level, source, msg, attrs)),
		close: () => {
			if (!fdOpen) return;
			fdOpen = false;
			closeSync(fd);
		},
	};
}
