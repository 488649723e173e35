/**
 * How engines' log lines carry wall-clock time (pure). Each descriptor names the formats its lines
 * use (`logTimes`); sources/log-source.ts applies them to the backlog it reads at start-up.
 */
import type {LogTimeFormat} from './descriptor.js';

const SLOG_TIME = /^(?:\w{3} +\d+ [\d:]+ \S+ [^\s[]+\[\d+\]: )?time=(\S+) /;
const GIN_TIME = /^\[GIN\] (\d{4})\/(\d{2})\/(\d{2}) - (\d{2}):(\d{2}):(\d{2}) /;
const ISO_SPACE_TIME = /^\[?(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[,.](\d{3}))?/;
// vLLM's logger format `%(levelname)s %(asctime)s` with datefmt `%m-%d %H:%M:%S`
// (vllm/logger.py _FORMAT / _DATE_FORMAT), after an optional `(APIServer pid=1) ` prefix.
const MMDD_TIME = /^(?:\([^)]*\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))? /;
// llama.cpp common/log.cpp prefix: `%d.%02d.%03d.%03d ` minutes.seconds.ms.us since the process started.
const PROCESS_TIME = /^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) [IWEDT] /;

export const LOG_TIME_FORMATS: readonly LogTimeFormat[] = ['slog', 'gin', 'iso', 'mmdd'];

/** Milliseconds since the process started, from a llama.cpp prefix; undefined without one. */
export function processRelativeMs(line: string): number | undefined {
	const m = PROCESS_TIME.exec(line);
	return m ? (+m[1]! * 60 + +m[2]!) * 1000 + +m[3]! + +m[4]! / 1000 : undefined;
}

/**
 * The time `line` says in `format` (ms epoch), or undefined; no range check. `now` places a
 * year-less stamp (the latest such date not after now); `processStartMs` anchors a process-relative one.
 */
export function readLogTime(line: string, format: LogTimeFormat, now = Date.now(), processStartMs?: number): number | undefined {
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
		case 'mmdd': {
			m = MMDD_TIME.exec(line);
			if (!m) return undefined;
			const year = new Date(now).getFullYear();
			const at = (y: number) => new Date(y, +m![1]! - 1, +m![2]!, +m![3]!, +m![4]!, +m![5]!, m![6] ? +m![6] : 0).getTime();
			const t = at(year);
			return t > now + 60_000 ? at(year - 1) : t;
		}
		case 'process': {
			const rel = processRelativeMs(line);
			return rel === undefined || processStartMs === undefined ? undefined : processStartMs + rel;
		}
	}
}
