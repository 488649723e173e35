/**
 * What every part of one demo engine shares: its options as read, its log, its clock and running
 * work, its models, and the `session` agent's record of every try as the engine saw it.
 */
import type http from 'node:http';
import type {DemoTry, DemoTurnTrace} from './agent.js';
import type {DemoLog} from './engine-log.js';
import type {ModelState} from './engine-models.js';
import type {DemoScheduler} from './engine-schedule.js';

export interface DemoContext {
	/** Time scale (durations, rates and bandwidth scale with it). */
	readonly speed: number;
	readonly seed: number;
	/**
	 * The `session` agent's mode: a queue limit (`MAX_IN_QUEUE`), measured prompt and decode times in
	 * the log, the slot keeps what it generated, and each try is recorded in `traces`.
	 */
	readonly sessionMode: boolean;
	/** The `session` agent causes the faults of demo/agent.ts AGENT_FAULTS on purpose. */
	readonly agentFaults: boolean;
	readonly log: DemoLog;
	readonly sched: DemoScheduler;
	readonly models: readonly ModelState[];
	/** `session` agent: every turn's tries, by the turn id its requests carry (`x-demo-turn`). */
	readonly traces: Map<string, DemoTurnTrace>;
	readonly tryOf: WeakMap<http.IncomingMessage, DemoTry>;
	/** The models' modification time the API reports (three days before the start, as slog writes it). */
	readonly modifiedAt: string;
	/** The next OpenAI-compatible completion id. */
	nextId: number;
}

/** `session` agent: one running and one waiting; a third request is refused (Ollama ErrMaxQueue → 503). */
export const MAX_IN_QUEUE = 2;
