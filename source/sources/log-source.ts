/**
 * One log attached to one server: a file tail, a command stream or a replay, feeding lines through
 * the sanitizer and the engine's parser into the store. Each line is kept for the log pane
 * (parsed or not) and its events are dispatched; nothing here computes a figure.
 */
import {createParser} from '../engines/index.js';
import {sanitize} from '../util/sanitize.js';
import type {Collector, Dispatch, EngineKind, LineParser} from '../types/monitor.js';
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
}

export function labelOf(input: LogInput): string {
	switch (input.kind) {
		case 'file':
			return input.path;
		case 'cmd':
			return `cmd: ${input.argv.join(' ')}`;
		case 'replay':
			return `replay: ${input.path}${input.speed === 1 ? '' : ` ×${input.speed}`}`;
	}
}

/** Feed one raw line through sanitize → parser → store. Exported for replays and tests. */
export function feedLine(parser: LineParser, serverId: string, raw: string, t: number, dispatch: Dispatch): void {
	const text = sanitize(raw);
	let events = null;
	try {
		events = parser.push(text);
	} catch {
		events = null; // A parser bug on odd input must never take the monitor down: count it as unparsed.
	}
	dispatch({type: 'log-line', serverId, t, text, parsed: events !== null});
	if (events) for (const event of events) dispatch({type: 'engine-event', serverId, t, event});
}

const SLOG_TIME = /^(?:\w{3} +\d+ [\d:]+ \S+ [^\s[]+\[\d+\]: )?time=(\S+) /;
const GIN_TIME = /^\[GIN\] (\d{4})\/(\d{2})\/(\d{2}) - (\d{2}):(\d{2}):(\d{2}) /;
const ISO_SPACE_TIME = /^\[?(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:[,.](\d{3}))?/;
const WEEK_MS = 7 * 24 * 3600 * 1000;

/**
 * The wall-clock time a log line says it was written, where it says so unambiguously (Ollama slog
 * `time=` with its offset, gin's local `YYYY/MM/DD - hh:mm:ss`, Python's local `YYYY-MM-DD hh:mm:ss`),
 * within the last week; else undefined (llama.cpp's timestamps count from process start).
 */
export function lineWallTime(line: string, now = Date.now()): number | undefined {
	let t: number | undefined;
	let m = SLOG_TIME.exec(line);
	if (m) t = Date.parse(m[1]!);
	else if ((m = GIN_TIME.exec(line))) t = new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!).getTime();
	else if ((m = ISO_SPACE_TIME.exec(line))) t = new Date(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, m[7] ? +m[7] : 0).getTime();
	if (t === undefined || !Number.isFinite(t) || t > now + 60_000 || t < now - WEEK_MS) return undefined;
	return t;
}

export function createLogSource(options: LogSourceOptions): Collector {
	const parser = createParser(options.engine);
	const {serverId, dispatch, input} = options;
	// An engine detected from the content names the server (a log given without ENGINE=).
	let named = options.engine;
	const feed = (line: string, t: number) => {
		feedLine(parser, serverId, line, t, dispatch);
		if (named === undefined && parser.detected !== undefined) {
			named = parser.detected;
			dispatch({type: 'server-seen', t, server: {id: serverId, engine: named, source: 'log'}});
		}
	};
	// Lines read at start-up (the last ~64 KB) happened earlier: they take the time the log gives
	// them (the last timestamp seen, for lines that carry none), not the time they were read.
	let backlog = true;
	let logTime: number | undefined;
	const onLine = (line: string, readAt: number) => {
		if (!backlog) return feed(line, readAt);
		logTime = lineWallTime(line, readAt) ?? logTime;
		feed(line, logTime ?? readAt);
	};
	const onState = (text: string) => dispatch({type: 'log-state', serverId, text});
	let inner: Collector;
	switch (input.kind) {
		case 'file':
			inner = createLogTail({path: input.path, onLine, onState, startBytes: input.startBytes});
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
				await inner.start();
			} finally {
				backlog = false;
			}
		},
		stop: () => inner.stop(),
	};
}
