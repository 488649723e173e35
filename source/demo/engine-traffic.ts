/**
 * The demo engine's clients: the `session` agent of demo/agent.ts (`--demo-agent`), or background
 * requests every few seconds over `/api/chat`, `/api/generate` and `/v1/chat/completions` (one
 * client, or with `both` one per model so both are busy at once).
 */
import {runAgentLoop} from './agent.js';
import type {DemoContext} from './engine-context.js';
import type {Json} from './engine-http.js';
import {drain, postJson} from './post.js';
import {createRng, type PromptKind} from './sim.js';

export interface TrafficOptions {
	readonly agent?: boolean | 'both' | 'session';
	readonly agentTurns?: number;
	readonly agentIntervalMs?: number;
}

export interface DemoTraffic {
	/** `session` agent: resolves when its loop ended; otherwise already resolved. */
	readonly done: Promise<void>;
	/** No more requests: the timer cleared and requests in flight aborted. */
	stop(): void;
}

const SYSTEM =
	'You are a coding agent working in a TypeScript repository. Keep answers short and precise. ' +
	'The repository is a terminal monitor for local inference engines; its figures must be true. '.repeat(6);

const ASKS: Record<PromptKind, string[]> = {
	code: ['Implement a TypeScript function that parses a gin request line and returns its latency in ms.', 'Refactor this function so the parser never throws on malformed input: function parse(line) { return JSON.parse(line); }'],
	prose: ['Explain unified memory in 150 words.', 'Summarise why a verify pass costs more than a plain pass, in a paragraph.'],
	repeat: ['Repeat this sentence exactly 40 times, one per line: The quick brown fox jumps over the lazy dog.'],
	hex: ['Print 256 random hexadecimal bytes.'],
};

const KINDS: PromptKind[] = ['code', 'prose', 'code', 'repeat', 'code', 'hex'];

/** The `session` agent on the GGUF model, counted among the engine's tasks. */
function startSessionAgent(ctx: DemoContext, url: string, signal: AbortSignal, maxTurns: number | undefined): Promise<void> {
	const gguf = ctx.models.find((m) => m.spec.runner === 'gguf') ?? ctx.models[0]!;
	return ctx.sched.runTask(() =>
		runAgentLoop({
			url,
			model: gguf.spec.name,
			speed: ctx.speed,
			rng: createRng(ctx.seed ^ 0x2545f491),
			signal,
			sleep: ctx.sched.sleep,
			contextTokens: gguf.spec.contextLength,
			maxTurns,
			faults: ctx.agentFaults,
		}).catch(() => undefined),
	);
}

/** Background requests every `interval` ms, one at a time per client; returns the timer's canceller. */
function startBackground(ctx: DemoContext, url: string, signal: AbortSignal, both: boolean, interval: number): () => void {
	const {models, sched} = ctx;
	let timer: NodeJS.Timeout | undefined;
	const agentRng = createRng(ctx.seed ^ 0x9e3779b9);
	let n = 0;
	// One request at a time per agent; `both` runs one agent per model, so both are busy at once.
	const agents = both ? models.map((m) => m.spec.name) : [undefined];
	const busyOf = new Map<string | undefined, boolean>();
	const firstModel = Math.max(0, models.findIndex((m) => m.spec.runner === 'gguf'));
	const tickOne = async (pinned: string | undefined): Promise<void> => {
		if (sched.stopped || busyOf.get(pinned) === true) return;
		busyOf.set(pinned, true);
		try {
			const kind = KINDS[n % KINDS.length] ?? 'code';
			const list = ASKS[kind];
			// The first request is short, as an agent's first is (a title for the task), and goes to the
			// model whose log gives a decode time, so the first figures come within seconds of start.
			const first = n === 0;
			const ask = first ? `Give a five-word title for: ${ASKS.code[0]}` : (list[Math.floor(agentRng() * list.length)] ?? list[0] ?? 'Hello');
			const model = pinned ?? models[(n + firstModel) % models.length]?.spec.name ?? 'qwen3.8:latest';
			const numPredict = first ? 16 : 96 + Math.floor(agentRng() * 224);
			const endpoint = n % 3;
			n++;
			let reqPath: string;
			let reqBody: Json;
			if (endpoint === 0) {
				reqPath = '/api/chat';
				reqBody = {model, messages: [{role: 'system', content: SYSTEM}, {role: 'user', content: ask}], options: {num_predict: numPredict}};
			} else if (endpoint === 1) {
				reqPath = '/api/generate';
				reqBody = {model, system: SYSTEM, prompt: ask, options: {num_predict: numPredict}};
			} else {
				reqPath = '/v1/chat/completions';
				reqBody = {model, stream: true, stream_options: {include_usage: true}, max_tokens: numPredict, messages: [{role: 'system', content: SYSTEM}, {role: 'user', content: ask}]};
			}
			await drain(await postJson(url + reqPath, JSON.stringify(reqBody), signal));
		} catch {
			// the agent is best effort: a failed request is simply the next one's turn
		} finally {
			busyOf.set(pinned, false);
		}
	};
	const tick = async (): Promise<void> => {
		await Promise.all(agents.map((a) => tickOne(a)));
	};
	const schedule = (delay: number): void => {
		if (sched.stopped) return;
		timer = setTimeout(() => {
			void sched.runTask(tick);
			schedule(interval);
		}, delay);
	};
	schedule(Math.min(interval, 50));
	return () => {
		if (timer) clearTimeout(timer);
	};
}

export function startTraffic(ctx: DemoContext, url: string, o: TrafficOptions): DemoTraffic {
	const ctl = new AbortController();
	let done: Promise<void> = Promise.resolve();
	let cancelTimer = (): void => undefined;
	if (ctx.sessionMode) done = startSessionAgent(ctx, url, ctl.signal, o.agentTurns);
	else if (o.agent !== false) cancelTimer = startBackground(ctx, url, ctl.signal, o.agent === 'both', o.agentIntervalMs ?? Math.max(50, 4000 / ctx.speed));
	return {
		done,
		stop: () => {
			cancelTimer();
			ctl.abort();
		},
	};
}
