/**
 * The demo's simulated coding agent (`--demo-agent`, issue 16): one client that works through a
 * task in turns over Ollama's `/api/chat` — each prompt is the last one plus the model's answer and
 * a tool's output (so the engine reuses its prompt cache at the message boundary), with a pause
 * while the "tool" runs; now and then two side requests (a title, a summary) go at once with the
 * main one, so turns queue behind each other and, past the demo's queue limit, are refused (503,
 * as Ollama's ErrMaxQueue) and retried.
 *
 * It keeps its own accounting from the engine's own clocks (demo/engine.ts records each try's
 * arrival, measured prefill and decode, and when its response finished — the moments its log lines
 * and `[GIN]` latency are written from), so a test can hold infertop's derived budget against it.
 * The accounting is pure (`agentAccounting`); the loop is the only I/O.
 */
import {drain, postJson} from './post.js';
import type {Rng} from './sim.js';

/** One HTTP try of a turn, as the engine saw it (hrtime ns; ms as logged). */
export interface DemoTry {
	readonly arriveNs: bigint;
	/** Set when the response finished (the `[GIN]` line's moment). */
	finishNs?: bigint;
	status?: number;
	/** Measured prompt time and decode time, exactly as the log line prints them (before rounding). */
	prefillMs?: number;
	decodeMs?: number;
	promptTokens?: number;
	cachedTokens?: number;
	processedTokens?: number;
	generatedTokens?: number;
	/** The engine cut the prompt to its window (and logged it). */
	truncated?: boolean;
	/** The model was loaded for this try. */
	loaded?: boolean;
}

/** One turn of the agent: its tries in order (the last accepted one carries the figures). */
export interface DemoTurnTrace {
	readonly id: string;
	/** A side request (a title, a summary) sent beside a main turn. */
	readonly side: boolean;
	readonly tries: DemoTry[];
}

/**
 * The faults the `session` agent causes on purpose (issue 28), by main turn: a changing nonce at the
 * start of its system prompt (as Claude Code's `cch=`), a short `keep_alive` and then a pause longer
 * than it (the model leaves memory and is loaded again), and a tool output that pushes the prompt
 * past the model's window (the engine cuts it).
 */
export const AGENT_FAULTS = {nonce: [8, 9, 10], shortKeepAlive: 12, reloadAfterIdle: 13, pastWindow: 14} as const;
/** The keep-alive the agent asks for before its long pause, and the pause (real ms, not scaled). */
export const FAULT_KEEP_ALIVE_MS = 1000;
export const FAULT_IDLE_MS = 3500;

/** What the agent did on purpose per main turn id (`t<n>`). */
export function faultsOf(id: string): {nonce: boolean; reload: boolean; pastWindow: boolean} {
	const n = Number(id.slice(1));
	const main = id.startsWith('t');
	return {nonce: main && (AGENT_FAULTS.nonce as readonly number[]).includes(n), reload: main && n === AGENT_FAULTS.reloadAfterIdle, pastWindow: main && n === AGENT_FAULTS.pastWindow};
}

export interface AccountedTurn {
	readonly id: string;
	readonly endNs: bigint;
	readonly promptTokens: number;
	readonly cachedTokens: number;
	readonly generatedTokens: number;
	readonly queueMs: number;
	/** Of queueMs: the part spent between refused tries. */
	readonly retryMs: number;
	readonly prefillMs: number;
	readonly decodeMs: number;
	/** undefined for the first turn. */
	readonly idleBeforeMs?: number;
	readonly retries: number;
	/** The engine cut its prompt to the window; the model was loaded for it (as the engine did it). */
	readonly truncated: boolean;
	readonly loaded: boolean;
	/** Its system prompt began with a changing nonce (on purpose). */
	readonly nonce: boolean;
}

export interface AgentAccounting {
	readonly turns: readonly AccountedTurn[];
	readonly queueMs: number;
	readonly retryMs: number;
	readonly prefillMs: number;
	readonly decodeMs: number;
	readonly idleMs: number;
	/** Σ cached ÷ (Σ processed ÷ Σ prefill time): the prefill time the cache saved, by the same rate. */
	readonly savedByCacheMs: number | undefined;
}

const ms = (ns: bigint): number => Number(ns) / 1e6;

/**
 * The simulation's own budget, by the definitions of readme "The agent view": a turn's queue is
 * its accepted try's wall time less its prefill and decode, plus the time from its first refused
 * try to the accepted one; idle is the time from the end of the turns before it to its first try.
 * Only finished turns count (an accepted try with figures), in the order they ended.
 */
export function agentAccounting(traces: readonly DemoTurnTrace[]): AgentAccounting {
	const done = traces
		.map((t) => ({t, ok: t.tries.at(-1)}))
		.filter((x): x is {t: DemoTurnTrace; ok: DemoTry} => x.ok !== undefined && x.ok.status === 200 && x.ok.finishNs !== undefined && x.ok.prefillMs !== undefined && x.ok.decodeMs !== undefined)
		.sort((a, b) => (a.ok.finishNs! < b.ok.finishNs! ? -1 : a.ok.finishNs! > b.ok.finishNs! ? 1 : 0));
	const turns: AccountedTurn[] = [];
	let prevEnd: bigint | undefined;
	let processed = 0;
	let prefillAll = 0;
	let cachedAll = 0;
	for (const {t, ok} of done) {
		const first = t.tries[0]!;
		const wall = ms(ok.finishNs! - ok.arriveNs);
		const retryMs = ms(ok.arriveNs - first.arriveNs);
		const slot = wall - ok.prefillMs! - ok.decodeMs!;
		const idle = prevEnd === undefined ? undefined : Math.max(0, ms(first.arriveNs - prevEnd));
		turns.push({
			id: t.id,
			endNs: ok.finishNs!,
			promptTokens: ok.promptTokens ?? 0,
			cachedTokens: ok.cachedTokens ?? 0,
			generatedTokens: ok.generatedTokens ?? 0,
			queueMs: slot + retryMs,
			retryMs,
			prefillMs: ok.prefillMs!,
			decodeMs: ok.decodeMs!,
			idleBeforeMs: idle,
			retries: t.tries.length - 1,
			truncated: ok.truncated === true,
			loaded: t.tries.some(x => x.loaded === true),
			nonce: faultsOf(t.id).nonce,
		});
		prevEnd = prevEnd === undefined || ok.finishNs! > prevEnd ? ok.finishNs! : prevEnd;
		processed += ok.processedTokens ?? 0;
		prefillAll += ok.prefillMs!;
		cachedAll += ok.cachedTokens ?? 0;
	}
	const total = (k: 'queueMs' | 'retryMs' | 'prefillMs' | 'decodeMs') => turns.reduce((a, x) => a + x[k], 0);
	const rate = prefillAll > 0 && processed > 0 ? (processed * 1000) / prefillAll : undefined;
	return {
		turns,
		queueMs: total('queueMs'),
		retryMs: total('retryMs'),
		prefillMs: total('prefillMs'),
		decodeMs: total('decodeMs'),
		idleMs: turns.reduce((a, x) => a + (x.idleBeforeMs ?? 0), 0),
		savedByCacheMs: rate === undefined ? undefined : (cachedAll * 1000) / rate,
	};
}

export interface AgentLoopOptions {
	readonly url: string;
	readonly model: string;
	/** Time scale: pauses are divided by it. */
	readonly speed: number;
	readonly rng: Rng;
	readonly signal: AbortSignal;
	readonly sleep: (ms: number) => Promise<void>;
	/** Context the model is loaded with (tokens ≈ chars / 4): the agent starts over before it fills. */
	readonly contextTokens: number;
	/** Stop after this many main turns (tests); default: run until stopped. */
	readonly maxTurns?: number;
	/** Cause the faults of AGENT_FAULTS on purpose (`--demo-agent`). */
	readonly faults?: boolean;
}

const SYSTEM =
	'You are a coding agent in a TypeScript repository: a terminal monitor for local inference engines whose figures must be true. ' +
	'Use the tools: read_file(path), grep(pattern), run_tests(). Answer with one tool call or a short patch. '.repeat(14);
const TASKS = [
	'The requests table shows 0 where the cached count is unknown. Find the cause and fix it.',
	'Add a parser for the uvicorn access line and its tests.',
	'The log pane wraps a long line past the terminal width. Fix the truncation.',
];
const TOOL_OUTPUT = 'export function figure(x: number | undefined): string { return x === undefined ? "--" : x.toFixed(1); }\n';

/** POST one chat turn, retrying while the server answers busy (503/429); returns the answer text. */
async function chatTurn(o: AgentLoopOptions, id: string, messages: readonly {role: string; content: string}[], numPredict: number, keepAlive?: string): Promise<string> {
	for (let attempt = 0; ; attempt++) {
		const res = await postJson(`${o.url}/api/chat`, JSON.stringify({model: o.model, messages, stream: true, options: {num_predict: numPredict, temperature: 0}, ...(keepAlive !== undefined ? {keep_alive: keepAlive} : {})}), o.signal, {'x-demo-turn': id});
		if (res.statusCode === 503 || res.statusCode === 429) {
			await drain(res);
			// Back off like a client library does, then try again.
			await o.sleep((150 + 100 * Math.min(attempt, 5)) / o.speed);
			continue;
		}
		let text = '';
		let rest = '';
		const decoder = new TextDecoder();
		for await (const chunk of res) {
			rest += decoder.decode(chunk as Buffer, {stream: true});
			let nl: number;
			while ((nl = rest.indexOf('\n')) >= 0) {
				const line = rest.slice(0, nl);
				rest = rest.slice(nl + 1);
				try {
					const o2 = JSON.parse(line) as {message?: {content?: unknown}};
					if (typeof o2.message?.content === 'string') text += o2.message.content;
				} catch {
					// a partial line waits for the rest
				}
			}
		}
		return text;
	}
}

/** The agent's loop: turns with tool pauses until stopped (or maxTurns main turns). */
export async function runAgentLoop(o: AgentLoopOptions): Promise<void> {
	let task = 0;
	let messages: {role: string; content: string}[] = [{role: 'system', content: SYSTEM}, {role: 'user', content: TASKS[0]!}];
	let n = 0;
	let side = 0;
	while (!o.signal.aborted && (o.maxTurns === undefined || n < o.maxTurns)) {
		const id = `t${n}`;
		const numPredict = 24 + Math.floor(o.rng() * 72);
		const fault = o.faults === true ? faultsOf(id) : {nonce: false, reload: false, pastWindow: false};
		// A nonce first in the system prompt, new each request (as Claude Code's attribution header).
		const sent = fault.nonce ? [{role: 'system', content: `x-anthropic-billing-header: cc_version=2.1.37; cch=${Math.floor(o.rng() * 0xfffff).toString(16).padStart(5, '0')};\n${messages[0]!.content}`}, ...messages.slice(1)] : messages;
		const shortKeepAlive = o.faults === true && n === AGENT_FAULTS.shortKeepAlive;
		const main = chatTurn(o, id, sent, numPredict, shortKeepAlive ? `${FAULT_KEEP_ALIVE_MS}ms` : undefined);
		// Every fourth turn the agent also asks for a title and a summary at once (they queue).
		const extras = n % 4 === 3
			? [0, 1].map((k) => chatTurn(o, `s${side++}`, [{role: 'system', content: SYSTEM}, {role: 'user', content: k === 0 ? `Give a five-word title for: ${TASKS[task % TASKS.length]}` : 'Summarise the last change in one line.'}], 12 + k * 8))
			: [];
		const [reply] = await Promise.all([main, ...extras]);
		n++;
		messages.push({role: 'assistant', content: reply ?? ''});
		// The tool's output grows the next prompt; the pause is the tool running. Before the fault turn
		// it is a whole file far larger than the model's window.
		const pastWindow = o.faults === true && n === AGENT_FAULTS.pastWindow;
		messages.push({role: 'tool', content: TOOL_OUTPUT.repeat(pastWindow ? Math.ceil((o.contextTokens * 4 * 1.02) / TOOL_OUTPUT.length) : 1 + Math.floor(o.rng() * 6))});
		const chars = messages.reduce((a, m) => a + m.content.length + 24, 0);
		if (chars / 4 > 0.7 * o.contextTokens && !pastWindow) {
			task++;
			messages = [{role: 'system', content: SYSTEM}, {role: 'user', content: TASKS[task % TASKS.length]!}];
		}
		// After the short keep-alive, a pause longer than it (real time: the engine's keep-alive is real time).
		await o.sleep(shortKeepAlive ? FAULT_IDLE_MS : (300 + o.rng() * 1500) / o.speed);
	}
}
