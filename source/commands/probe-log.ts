/**
 * `infertop probe --log ENGINE=PATH`: follow the engine's log while the probe runs, as the monitor
 * does, and find the probe's own request in it (model/derive.ts matchProbeRequest: by its time
 * window and the answer's counts; `2 candidates` or `no log line for this request` otherwise).
 */
import {createLogSource} from '../sources/log-source.js';
import {logInputOf} from '../runtime.js';
import {initialState, reduce} from '../model/reducer.js';
import {matchProbeRequest} from '../model/derive.js';
import type {Action, Collector, MonitorState} from '../types/state.js';
import {UNKNOWN_ENGINE} from '../engines/index.js';
import type {LogFiguresFn} from '../probe/timing.js';

export interface ProbeLogs {
	readonly logFigures: LogFiguresFn;
	stop(): Promise<void>;
}

export async function followProbeLogs(specs: readonly string[]): Promise<ProbeLogs | {error: string}> {
	let state: MonitorState = initialState({now: Date.now()});
	const dispatch = (a: Action): void => {
		state = reduce(state, a);
	};
	const sources: {id: string; source: Collector}[] = [];
	for (const [i, spec] of specs.entries()) {
		const parsed = logInputOf(spec);
		if ('error' in parsed) return {error: parsed.error};
		const id = `probe-log:${i}`;
		dispatch({type: 'server-seen', t: Date.now(), server: {id, engine: parsed.engine ?? UNKNOWN_ENGINE, source: 'log'}});
		sources.push({id, source: createLogSource({serverId: id, engine: parsed.engine, input: parsed.input, dispatch})});
	}
	await Promise.all(sources.map(s => s.source.start()));
	return {
		logFigures: (q) => {
			state = reduce(state, {type: 'tick', t: Date.now()});
			// One log: its answer. Several: the one that found the request (or the first one's reason).
			const answers = sources.map(s => matchProbeRequest(state, s.id, q)).filter(a => a !== undefined);
			return answers.find(a => a.reason === undefined) ?? answers[0];
		},
		stop: async () => {
			await Promise.all(sources.map(s => s.source.stop().catch(() => undefined)));
		},
	};
}
