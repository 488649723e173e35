/**
 * One log attached to one server: a file tail, a command stream or a replay, feeding lines through
 * the sanitizer and the engine's parser into the store. Each line is kept for the log pane
 * (parsed or not) and its events are dispatched; nothing here computes a figure.
 */
import {createParser, engineOf} from '../engines/index.js';
import {LOG_TIME_FORMATS, readLogTime} from '../engines/log-time.js';
import type {LogTimeFormat} from '../engines/descriptor.js';
import {MAX_LINE_CHARS, own, sanitize, sanitizeName} from '../util/sanitize.js';
import type {Collector, Dispatch, LogBatchLine} from '../types/state.js';
import type {EngineEvent, EngineKind, LineParser} from '../types/events.js';
import {createLogTail} from './log-tail.js';
import {createCommandLog} from './command-log.js';
import {createReplay} from './replay.js';

export type LogInput =
	| {readonly kind: 'file'; readonly path: string; readonly startBytes?: number}
	| {readonly kind: 'cmd'; readonly argv: readonly string[]}
	| {readonly kind: 'replay'; readonly path: string; readonly speed: number};

export interface LogSourceOptions {
	readonly serverId: string;
	/** Forced engine; undefined = detected from content. */
	readonly engine?: EngineKind;
	readonly input: LogInput;
	readonly dispatch: Dispatch;
	readonly onEnd?: () => void;
	/**
	 * When the process writing the log started (ms epoch), where known (e.g. from the process
	 * table): anchors process-relative stamps (llama.cpp) to wall-clock time.
	 */
	readonly processStartMs?: () => Promise<number | undefined>;
}

export function labelOf(input: LogInput): string {
	switch (input.kind) {
		case 'file':
			return sanitizeName(input.path);
		case 'cmd':
			return sanitizeName(`cmd: ${input.argv.join(' ')}`);
		case 'replay':
			return `replay: ${sanitizeName(input.path)}${input.speed === 1 ? '' : ` ×${input.speed}`}`;
	}
}

/**
 * The events whose text the state keeps for the rest of the run (the server's models, its start,
 * speculation, what went wrong and why): rare, a few a model load. A request's own events (the hot
 * ones under traffic) are left as they are: the parsers own the text they put in them where it is
 * cut from the line (a model's name, the block being read; util/sanitize.ts own()).
 */
const KEEPS_TEXT: ReadonlySet<EngineEvent['type']> = new Set(['offload', 'buffer', 'model-loaded', 'agent-signal', 'model-unloaded', 'server-start', 'busy', 'spec-init', 'inconsistent']);

/** `value` with every string in it a string of its own (own()): a new value, for the rare events (KEEPS_TEXT). */
function detached<T>(value: T): T {
	if (typeof value === 'string') return own(value) as T;
	if (value === null || typeof value !== 'object') return value;
	if (Array.isArray(value)) return value.map(detached) as T;
	return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, detached(v)])) as T;
}

/**
 * `events` with the text the state keeps (KEEPS_TEXT) copied out of the line. A log's line is a
 * view onto the piece of the read it came from (log-tail.ts, up to 32 KiB of text), and a cut of it
 * a view onto that: a model's name or an engine's line kept as evidence kept the whole piece alive
 * for the rest of the run (issue 32; test/engines/line-retention.test.ts). A request's own events
 * pass as they are (a loop of lookups: no copy, no closure).
 */
function keptText(events: EngineEvent[]): EngineEvent[] {
	for (let i = 0; i < events.length; i++) {
		if (KEEPS_TEXT.has(events[i]!.type)) return events.map(e => (KEEPS_TEXT.has(e.type) ? detached(e) : e));
	}
	return events;
}

/**
 * What the parser reads of a line: the kept text (`text`, cut at MAX_LINE_CHARS), or, for a longer
 * line and a parser that reads longer ones whole (LineParser.maxChars), the line sanitized up to that.
 */
function parsedText(parser: LineParser, raw: string, text: string): string {
	return parser.maxChars !== undefined && raw.length > MAX_LINE_CHARS ? sanitize(raw, parser.maxChars) : text;
}

/** Feed one raw line through sanitize → parser → store, an action each (readLine's line). Exported for replays and tests. */
export function feedLine(parser: LineParser, serverId: string, raw: string, t: number, dispatch: Dispatch, at?: 'backlog' | 'earlier'): void {
	const line = readLine(parser, raw, t, at);
	dispatch({type: 'log-line', serverId, t, text: line.text, parsed: line.parsed, ...(at === 'earlier' ? {at} : {})});
	if (line.events) for (const event of line.events) dispatch(at === undefined ? {type: 'engine-event', serverId, t, event} : {type: 'engine-event', serverId, t, event, at});
}

/** Time formats in the writing machine's local time, without a zone. */
const LOCAL_FORMATS: readonly LogTimeFormat[] = ['gin', 'iso', 'mmdd'];

/** The zone (minutes east of UTC) an Ollama slog `time=` stamp says, or undefined. */
export function zoneOf(line: string): number | undefined {
	const m = /(?:^|: )time=\d{4}-\d{2}-\d{2}T[\d:.]+(Z|([+-])(\d{2}):?(\d{2})) /.exec(line);
	if (!m) return undefined;
	if (m[1] === 'Z') return 0;
	return (m[2] === '-' ? -1 : 1) * (+m[3]! * 60 + +m[4]!);
}

/** An old log is still the log's own time; only a stamp older than this is taken as misread. */
const OLDEST_MS = 10 * 365 * 24 * 3600 * 1000;

/**
 * The wall-clock time a log line says it was written, where it says so unambiguously, in one of
 * `formats` (the engine's `logTimes`; all known formats when the engine is not known yet), within
 * the last ten years and not in the future; else undefined (llama.cpp's timestamps count from process start).
 */
export function lineWallTime(line: string, now = Date.now(), formats: readonly LogTimeFormat[] = LOG_TIME_FORMATS, processStartMs?: number): number | undefined {
	let t: number | undefined;
	for (const f of formats) {
		t = readLogTime(line, f, now, processStartMs);
		if (t !== undefined) break;
	}
	if (t === undefined || !Number.isFinite(t) || t > now + 60_000 || t < now - OLDEST_MS) return undefined;
	return t;
}

/** One raw line through sanitize → parser: what a `log-batch` carries for it. */
export function readLine(parser: LineParser, raw: string, t: number, at?: 'backlog' | 'earlier'): LogBatchLine {
	const text = sanitize(raw);
	let events = null;
	try {
		events = parser.push(parsedText(parser, raw, text));
		if (events !== null && events.length > 0) events = keptText(events);
	} catch {
		events = null; // A parser bug on odd input must never take the monitor down: count it as unparsed.
	}
	// one shape for every line (no spread of optional parts: no temporary objects, one hidden class)
	return {t, text, parsed: events !== null, events: events !== null && events.length > 0 ? events : undefined, at};
}

/**
 * Lines of one batch at most (a read step of a busy log is cut into batches of this many). A batch
 * is one read step (READ_CHUNK, 64 KiB: ~560 llama.cpp request lines) or this many lines, whichever
 * is less. Why small: a batch's line objects, events and texts live until the store has it, and the
 * app's young generation is 1 MB a semi-space (bin/infertop.js). A batch of 2,000 lines (~2.6 MB of
 * allocation at ~1.3 KB a line) lived through two scavenges, so all of it was promoted to the old
 * generation and copied twice: ~420 B a line promoted; batches of a 64 KiB step, ~260-300 B (the
 * rest is mostly the text the log ring keeps). Measured: 1,000 req/s of llama.cpp lines, the app's
 * V8 flags (issue 32, the lines helper's note in docs/measured.md).
 */
export const MAX_BATCH_LINES = 1000;

/** The generic stamps and a process-relative one (read only with the process's start). */
const WITH_PROCESS_TIME: readonly LogTimeFormat[] = [...LOG_TIME_FORMATS, 'process'];

export function createLogSource(options: LogSourceOptions): Collector {
	const parser = createParser(options.engine);
	const {serverId, dispatch, input} = options;
	// An engine detected from the content names the server (a log given without ENGINE=).
	let named = options.engine;
	// The lines of one read go to the store together, once the read's lines are all parsed (a
	// microtask after the first): one state change per read, not one per line and event.
	// The batch is made at the size the last two reached (and cut to its lines when it goes): an
	// array grown by a push a line was copied at each growth, ~30 B a line of a 560-line batch.
	let batch: LogBatchLine[] = [];
	let count = 0;
	let lastCount = 0;
	let flushQueued = false;
	const flush = () => {
		flushQueued = false;
		if (count === 0) return;
		const lines = batch;
		// cut in place to its lines (a length set well below the array's room trims its store)
		lines.length = count;
		batch = new Array<LogBatchLine>(Math.min(MAX_BATCH_LINES, Math.max(count, lastCount) + 64));
		lastCount = count;
		count = 0;
		dispatch({type: 'log-batch', serverId, lines});
	};
	const feed = (line: string, t: number, at?: 'backlog' | 'earlier') => {
		batch[count++] = readLine(parser, line, t, at);
		if (count >= MAX_BATCH_LINES) flush();
		else if (!flushQueued) {
			flushQueued = true;
			queueMicrotask(flush);
		}
		if (named === undefined && parser.detected !== undefined) {
			named = parser.detected;
			flush();
			dispatch({type: 'server-seen', t, server: {id: serverId, engine: named, source: 'log'}});
		}
	};
	// Lines read at start-up (the last ~64 KB) happened earlier: they take the time the log gives
	// them (the last timestamp seen, for lines that carry none), not the time they were read. A line
	// before any timestamp (or in a log without wall-clock stamps) is "earlier": never "now".
	let backlog = true;
	let logTime: number | undefined;
	let logZone: number | undefined;
	let processStart: number | undefined;
	// The backlog's lines in a function of their own: a function holding a closure over its
	// parameters (the `some` below) makes a context object at every call, ~48 B a line read
	// (measured: onLine was 5 % of the bytes a busy log allocates, its own work none; issue 32).
	const onBacklogLine = (line: string, readAt: number) => {
		const kind = parser.detected ?? named;
		// Before the engine is known from the lines: the generic stamps, and, where the process that
		// writes the log is known (a found server's --log-file), llama.cpp's time since it started: a
		// found llama-server's first lines were "earlier" (the LOG pane showed when they were read).
		const formats = kind !== undefined ? engineOf(kind).logTimes : processStart !== undefined ? WITH_PROCESS_TIME : LOG_TIME_FORMATS;
		let own = lineWallTime(line, readAt, formats, processStart);
		// Zone-less local stamps ([GIN], asctime) are the writing machine's local time: once the log
		// has said its zone (slog's offset), they are read in that zone, not this machine's.
		const zone = zoneOf(line);
		if (zone !== undefined) logZone = zone;
		else if (own !== undefined && logZone !== undefined && LOCAL_FORMATS.some(f => readLogTime(line, f, readAt) !== undefined)) {
			own += (-new Date(own).getTimezoneOffset() - logZone) * 60_000;
		}
		logTime = own ?? logTime;
		if (logTime === undefined) feed(line, readAt, 'earlier');
		else feed(line, logTime, 'backlog');
	};
	const onLine = (line: string, readAt: number) => {
		if (!backlog) feed(line, readAt);
		else onBacklogLine(line, readAt);
	};
	const onState = (text: string) => dispatch({type: 'log-state', serverId, text});
	let inner: Collector;
	switch (input.kind) {
		case 'file':
			inner = createLogTail({path: input.path, onLine, onState, startBytes: input.startBytes, onLag: lag => {
				flush();
				dispatch({type: 'log-lag', serverId, lag});
			}});
			break;
		case 'cmd':
			inner = createCommandLog({command: [...input.argv], onLine, onState});
			break;
		case 'replay':
			inner = createReplay({file: input.path, speed: input.speed, onLine, onEnd: () => {
				onState(`replay of ${input.path} finished`);
				options.onEnd?.();
			}});
			break;
	}
	return {
		async start() {
			try {
				processStart = await options.processStartMs?.().catch(() => undefined);
				await inner.start();
			} finally {
				backlog = false;
			}
		},
		async stop() {
			await inner.stop();
			flush();
		},
	};
}
