/**
 * How engines' log lines carry wall-clock time (pure). Each descriptor names the formats its lines
 * use (`logTimes`); sources/log-source.ts applies them to the backlog it reads at start-up.
 */
import type {LogTimeFormat} from './descriptor.js';

const SLOG_TIME = /^(?:\w{3} +\d+ [\d:]+ \S+ [^\s[]+\[\d+\]: )?time=(\S+) /;
const GIN_TIME = /^\[GIN\] (\d{4})\/(\d{2})\/(\d{2}) - (\d{2}):(\d{2}):(\d{2}) /;
const ISO_SPACE_TIME = /^\[?(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[,.](\d{3}))?/;

export const LOG_TIME_FORMATS: readonly LogTimeFormat[] = ['slog', 'gin', 'iso'];

/** The time `line` says in `format` (ms epoch), or undefined; no range check. */
export function readLogTime(line: string, format: LogTimeFormat): number | undefined {
	let m: RegExpExecArray | null;
	switch (format) {
		case 'slog':
			// Ollama slog `time=` with its offset.
			m = SLOG_TIME.exec(line);
			return m ? Date.parse(m[1]!) : undefined;
		case 'gin':
			// gin's local `YYYY/MM/DD - hh:mm:ss`.
			m = GIN_TIME.exec(line);
			return m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!).getTime() : undefined;
		case 'iso':
			// Python's local `YYYY-MM-DD hh:mm:ss[,mmm]` (logging asctime, SGLang `[date]`).
			m = ISO_SPACE_TIME.exec(line);
			return m ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7] ? +m[7] : 0).getTime() : undefined;
	}
}
