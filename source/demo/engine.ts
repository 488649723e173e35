/**
 * The demo engine (DESIGN §5): a real HTTP server on 127.0.0.1 that imitates an Ollama 0.34 daemon
 * with two models (seed 000) — one on the GGUF engine (llama-server lines in the log) and one on the
 * MLX engine — generating tokens at the pace of a simulated model and appending the log lines a
 * real Ollama writes to a log file. Everything downstream (log tail, parsers, pollers, probe) is
 * infertop's real code path.
 */
import type http from 'node:http';
import type {AddressInfo} from 'node:net';
import {agentAccounting, type AgentAccounting, type DemoTry, type DemoTurnTrace} from './agent.js';
import type {DemoContext} from './engine-context.js';
import {openDemoLog} from './engine-log.js';
import {createModels} from './engine-models.js';
import {DEMO_OLLAMA_VERSION} from './engine-ollama.js';
import {createScheduler} from './engine-schedule.js';
import {createDemoServer} from './engine-server.js';
import {startTraffic} from './engine-traffic.js';
import {slogTime} from './logfmt.js';
import {DEMO_BANDWIDTH_GBS} from './models.js';
import type {DemoModelParams} from './sim.js';

export type {DemoModelParams, PromptKind, SimResult, SimPass, Rng} from './sim.js';
export {classifyPrompt, createRng, simulateRequest, positionProbability, TARGET_ACCEPTANCE} from './sim.js';
export {DEMO_SPECS, DEMO_BANDWIDTH_GBS, baseParams, scaleParams, ggufLayout, bytesPerTokenFromTensors, tensorBytes, isDraftOrTower, type DemoTensor, type DemoModelSpec} from './models.js';

export {DEMO_OLLAMA_VERSION} from './engine-ollama.js';

export interface DemoOptions {
	logPath: string;
	host?: '127.0.0.1';
	/** 0 (default) = a free port. */
	port?: number;
	/** 0..1 share of the GGUF model on the CPU; default 0. */
	split?: number;
	/**
	 * Background requests every few seconds; default true. `both`: one agent per model, both models busy at once.
	 * `session`: the simulated coding agent of demo/agent.ts on the GGUF model (`--demo-agent`): growing
	 * prompts, tool pauses, side requests that queue, a queue limit of one waiting request (503 past it,
	 * as Ollama's OLLAMA_MAX_QUEUE), measured prompt/eval times in the log, and its own accounting.
	 */
	agent?: boolean | 'both' | 'session';
	/** `session` agent: stop after this many main turns (tests). */
	agentTurns?: number;
	/** `session` agent: cause its faults on purpose (AGENT_FAULTS; default on). */
	agentFaults?: boolean;
	/** Agent period in ms; default 4000 / speed. */
	agentIntervalMs?: number;
	/** Time scale (tests use e.g. 20); default 1. Durations, rates and bandwidth all scale with it. */
	speed?: number;
	seed?: number;
}

export interface DemoEngine {
	readonly url: string;
	readonly port: number;
	readonly logPath: string;
	/** Simulation parameters per model, already scaled by `speed`. */
	readonly models: readonly DemoModelParams[];
	/** The demo's simulated memory bandwidth (GB/s, × speed). */
	readonly bandwidthGBs: number;
	/** `session` agent: every turn's tries as the engine saw them, and the simulation's own budget. */
	readonly agentTraces: () => readonly DemoTurnTrace[];
	readonly agentAccounting: () => AgentAccounting;
	/** `session` agent: resolves when its loop ended (maxTurns reached or stopped). */
	readonly agentDone: Promise<void>;
	stop(): Promise<void>;
}

/**
 * Start the demo engine: its log opened, its models (none loaded), its server listening, and its
 * clients started. The parts are the `engine-*.ts` modules beside this one: the log
 * (engine-log.ts), the clock and running work (engine-schedule.ts), the models and their queues
 * (engine-models.ts), a load (engine-load.ts), a generation (engine-generate.ts), the two APIs
 * (engine-ollama.ts, engine-openai.ts), the server (engine-server.ts) and the clients
 * (engine-traffic.ts).
 */
export async function startDemoEngine(opts: DemoOptions): Promise<DemoEngine> {
	const speed = opts.speed && opts.speed > 0 ? opts.speed : 1;
	const seed = opts.seed ?? 1;
	const split = Math.min(1, Math.max(0, opts.split ?? 0));
	const host = '127.0.0.1';
	const log = openDemoLog(opts.logPath);
	const sched = createScheduler();
	const models = createModels(split, speed, seed);
	const ctx: DemoContext = {
		speed,
		seed,
		sessionMode: opts.agent === 'session',
		agentFaults: opts.agent === 'session' && opts.agentFaults !== false,
		log,
		sched,
		models,
		traces: new Map<string, DemoTurnTrace>(),
		tryOf: new WeakMap<http.IncomingMessage, DemoTry>(),
		modifiedAt: slogTime(new Date(Date.now() - 3 * 86_400_000)),
		nextId: 1,
	};
	const server = createDemoServer(ctx);

	try {
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(opts.port ?? 0, host, () => {
				server.off('error', reject);
				resolve();
			});
		});
	} catch (e) {
		log.close();
		server.close(() => undefined);
		throw e;
	}
	const port = (server.address() as AddressInfo).port;
	const url = `http://${host}:${port}`;
	log.slog('INFO', 'routes.go:1809', `Listening on ${host}:${port} (version ${DEMO_OLLAMA_VERSION})`);

	const traffic = startTraffic(ctx, url, opts);

	let stopping: Promise<void> | undefined;
	const stop = (): Promise<void> => {
		if (stopping) return stopping;
		stopping = (async () => {
			sched.markStopped();
			traffic.stop();
			sched.wakeSleepers();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await sched.settle();
			await closed;
			log.close();
		})();
		return stopping;
	};

	return {
		url,
		port,
		logPath: opts.logPath,
		models: models.map((m) => m.params),
		bandwidthGBs: DEMO_BANDWIDTH_GBS * speed,
		agentTraces: () => [...ctx.traces.values()],
		agentAccounting: () => agentAccounting([...ctx.traces.values()]),
		agentDone: traffic.done,
		stop,
	};
}
