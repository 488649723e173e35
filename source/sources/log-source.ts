/**
 * One log attached to one server: a file tail, a command stream or a replay, feeding lines through
 * the sanitizer and the engine's parser into the store. Each line is kept for the log pane
 * (parsed or not) and its events are dispatched; nothing here computes a figure.
 */
import {createParser} from '../engines/index.js';
import {sanitize} from '../util/sanitize.js';
import type {Collector, Dispatch, EngineKind, LineParser} from '../model/types.js';
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

export function createLogSource(options: LogSourceOptions): Collector {
	const parser = createParser(options.engine ?? 'openai');
	const {serverId, dispatch, input} = options;
	const onLine = (line: string, t: number) => feedLine(parser, serverId, line, t, dispatch);
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
	return inner;
}
