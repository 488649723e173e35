/**
 * llama.cpp `llama-server` log parser (engines.md §2). Pure and stateful only for the pre-b9232
 * multi-line timings block and per-request bookkeeping. Requests are keyed `s<slot>/t<task>`
 * (router children: `<port>:s<slot>/t<task>`), so interleaved slots never mix figures.
 */
import type {EngineEvent, LineParser, OllamaRunner} from '../types/events.js';
import type {ModelInfo} from '../types/state.js';
import {BOUNDS, numberCheck, type CheckOptions} from '../util/numbers.js';
import {own} from '../util/sanitize.js';
import {bufferDevice, clean, finite, isRecord, MAX_PARSE_CHARS, OFFLOADED, offloaded, posInt, processBase, text, withCheck} from './answers.js';
import type {FingerprintEvidence} from './fingerprint.js';
import {OPENAI_MODEL_LIST, OPENAI_PROBE, type AnswerBlock, type AnswerStamp, type EngineDescriptor, type RestartMarker} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		llamacpp: true;
	}
}

type Ev = EngineEvent;

export interface LlamaCppParserOptions {
	/** Tag every request patch with this runner (Ollama ≥ 0.30 embeds llama-server). */
	readonly runner?: OllamaRunner;
	/** The model name the embedding process knows (Ollama's model name beats a blob path). */
	readonly model?: () => string | undefined;
}

/** The options of the checks, made once (an object literal in a call is a new object each time). */
const NAN_UNKNOWN: CheckOptions = {nanIsUnknown: true};
const WHOLE: CheckOptions = {integer: true};
/** timing's dispatch: the first character that is not a space (none: search gives -1, charCodeAt NaN). */
const NOT_SPACE = /[^ ]/;

const CHILD = /^\[\s*(\d+)\] /;
/**
 * `slot <fn>: id <slot> | task <task> | <msg>` (tools/server/server-context.cpp @ 3f545be, SLT_* macros
 * of server-common.h): what this regex matches is read by matchSlot without its match array and
 * its five strings (the line's most common shape: every line of a request block; issue 32).
 * Kept as the definition matchSlot follows (test/engines/llamacpp-slot-match.test.ts).
 */
export const SLOT = /^slot +(\S+): (?:id +(\d+) \| task (-?\d+) \| ?)?(.*)$/;
const TAGGED = /^[a-z]{3,4} +(\S+): (.*)$/;

// Numbers are captured with their sign (`-?`): a negative one is seen and counted as inconsistent,
// not silently skipped (util/numbers.ts checks every one).
export const PROMPT_EVAL = /^\s*prompt eval time = +(-?[\d.]+) ms \/ +(-?\d+) tokens \( *(-?[\d.]+|-?nan|inf) ms per token, +(-?[\d.]+|-?nan|inf) tokens per second\)/;
export const EVAL = /^\s*eval time = +(-?[\d.]+) ms \/ +(-?\d+) (?:tokens|runs) +\( *(-?[\d.]+|-?nan|inf) ms per token, +(-?[\d.]+|-?nan|inf) tokens per second\)/;
const TOTAL = /^\s*total time = +[\d.]+ ms \/ +\d+ tokens/;
const GRAPHS = /^\s*graphs reused = +\d+/;
const DRAFT = /draft acceptance(?: rate)? = (-?[\d.]+|-?nan) \( *(-?\d+) accepted \/ +(-?\d+) generated\)(?:, mean (?:len|acceptance length) = +(-?[\d.]+|-?nan))?/;
const ACC_POS = /^\s*acc per pos = \(/;
export const LIVE = /n_(?:gen|decoded) = +(-?\d+), tg = +(-?[\d.]+) t\/s(?:, tg_3s = +(-?[\d.]+) t\/s)?/;
const PROGRESS = /prompt processing(?: progress)?, n_(?:tokens|past) = +(-?\d+), (?:(?:batch\.)?n_tokens = +(-?\d+), )?progress = (-?[\d.]+)(?:, t = +(-?[\d.]+) s \/ (-?[\d.]+) tokens per second)?/;
const PROMPT_DONE = /prompt (?:processing )?done, n_(?:past|tokens) = +(-?\d+)/;
const NEW_PROMPT = /new prompt, n_ctx_slot = (-?\d+), n_keep = -?\d+, (?:task\.n_tokens|n_prompt_tokens) = (-?\d+)/;
const CACHED = /^(?:cached )?(?:n_tokens|n_past) = (-?\d+), memory_seq_rm \[(-?\d+), end\)|^kv cache rm \[(-?\d+), end\)/;
const N_PAST_SET = /^n_past was set to (-?\d+)/;
const NEED_EVAL = /need to evaluate at least 1 token .*task\.n_tokens\(\) = (-?\d+)\)/;
const NEW_SLOT = /new slot,? n_ctx(?:_slot)? = (\d+)/;
const INIT_SLOTS = /initializing(?: slots)?, n_slots = (\d+)(?:, n_ctx_slot = (\d+))?/;
const REQUEST = /(?:done )?request: ([A-Z]+) (\S+) (\S+) (\d{3})$/;
/** `SLT_INF(slot, "stop processing: n_tokens = %d, truncated = %d\n")` — tools/server/server-context.cpp @ 3f545be (b10573). */
export const STOP_N_TOKENS = /^stop processing: n_tokens = (\d+)/;
/** `"selected slot by LCP similarity, f_sim_best = %.3f (> %.3f thold), f_keep = %.3f\n"` — server-context.cpp @ 3f545be. */
export const F_SIM = /^selected slot by LCP similarity, f_sim_best = ([\d.]+)/;
/** `SRV_ERR("task id = %d, error: %s\n")` in `send_error` — server-context.cpp @ 3f545be. */
const SEND_ERROR = /^task id = (\d+), error: (.*)$/;
/** `SRV_WRN("cancel task, id_task = %d\n")` — tools/server/server-queue.cpp @ 3f545be. */
const CANCEL = /^cancel task, id_task = (\d+)/;
/**
 * Context refusals, in `send_error`'s message (server-context.cpp @ 3f545be, ERROR_TYPE_EXCEED_CONTEXT_SIZE
 * → `exceed_context_size_error`, server-common.cpp:52): `"request (%d tokens) exceeds the available
 * context size (%d tokens), try increasing it"` (:3082, PR #15780), `"input (%d tokens) is larger than
 * the max context size (%d tokens). skipping"` (:3073), and mid-generation `"context shift is disabled"` (:2790).
 */
const EXCEEDS = /^(?:request|input) \((\d+) tokens\) (?:exceeds the available context size|is larger than the max context size) \((\d+) tokens\)/;
/** `SLT_WRN(slot, "slot context shift, n_keep = %d, n_left = %d, n_discard = %d\n", …)` — server-context.cpp:2822 @ 3f545be. */
const CONTEXT_SHIFT = /^slot context shift, n_keep = (\d+), n_left = (\d+), n_discard = (\d+)/;
/** The release line's flag: `stop processing: n_tokens = %d, truncated = %d` (:502): 1 after a shift, or when generation ran into the window with shift off (:1776). */
const STOP_TRUNCATED = /, truncated = 1$/;
/** `SLT_DBG(slot, "stopped by limit, n_gen = %d, n_predict = %d\n", …)` — server-context.cpp:1789 @ 3f545be (`-v`). */
const STOPPED_BY_LIMIT = /^stopped by limit, n_gen = (\d+), n_predict = (-?\d+)/;
/**
 * A tool call (or any structured output) the chat parser could not read:
 * `LOG_WRN("%s: unparsed %s output: %s\n", __func__, common_chat_format_name(params.format), …)`, then
 * `"The model produced output that does not match the expected " + format + " format"` (HTTP 500) —
 * common/chat.cpp:3871-3873 @ 3f545be.
 */
const UNPARSED = /^common_chat_\w+: unparsed (\S+) output: /;
const DOES_NOT_MATCH = /The model produced output that does not match the expected (\S+) format/;
const DEFER = /^(?:no slot is available, defer|decoding, decline) task, id_task = (\d+)/;
const LISTEN = /listening on (\S+)/;
const LOADING = /loading model '([^']*)'/;
const STATS = /statistics +([\w-]+): #calls/;
const LIBRARY_LINE = /^~?[A-Za-z_][\w.()]*: /;

const BUFFER = /^[^:]*?([A-Za-z_][A-Za-z0-9_]*):\s+(\S+)\s+(model|KV|compute|output|RS)\s+buffer size\s*=\s*(-?[\d.]+)\s*MiB/;
/**
 * `GGML_LOG_INFO("%s: recommendedMaxWorkingSetSize  = %8.2f MB\n", __func__, dev->props.max_working_set_size / 1e6)`
 * — ggml/src/ggml-metal/ggml-metal-device.m @ a8fab2c (ngxson/llama.cpp): Metal's limit on what the GPU
 * may wire (MB = 10^6 bytes; it follows `iogpu.wired_limit_mb`). Ollama's runner logs the same line.
 */
const WORKING_SET = /^ggml_metal(?:_device)?_init: recommendedMaxWorkingSetSize\s+=\s+([\d.]+) MB$/;
const N_CTX = /^(?:llama_context|llama_init_from_model|llama_new_context_with_model): (n_ctx(?:_seq|_per_seq)?|n_seq_max) += (-?\d+)/;
const SPEC_TYPE = /(?:adding speculative implementation|auto-detected speculative type) '([^']+)'/;
const DRAFT_MODEL = /loading draft model '([^']*)'/;
const MTP = /creating MTP draft context against the target model '([^']*)'/;

/**
 * The hot lines' regexes, run on the whole line from where its message starts (`lastIndex`), not
 * on the message cut out of it (a new string a line; issue 32): an anchored one as a sticky twin
 * without its `^`, an unanchored one as a global twin that searches from there. Made from the
 * regexes above, so they match what those match on the message, with the same captures.
 */
const stickyOf = (re: RegExp): RegExp => new RegExp(re.source.replace(/^\^/, ''), 'y');
const fromOf = (re: RegExp): RegExp => new RegExp(re.source, 'g');
const PROMPT_EVAL_AT = stickyOf(PROMPT_EVAL);
const EVAL_AT = stickyOf(EVAL);
const TOTAL_AT = stickyOf(TOTAL);
const GRAPHS_AT = stickyOf(GRAPHS);
const ACC_POS_AT = stickyOf(ACC_POS);
const DRAFT_FROM = fromOf(DRAFT);
const LIVE_FROM = fromOf(LIVE);
const PROGRESS_FROM = fromOf(PROGRESS);
const STOP_TRUNCATED_FROM = fromOf(STOP_TRUNCATED);
const NOT_SPACE_FROM = fromOf(NOT_SPACE);

/** `re` run on `line` from `at` (a twin above). */
function execAt(re: RegExp, line: string, at: number): RegExpExecArray | null {
	re.lastIndex = at;
	return re.exec(line);
}
function testAt(re: RegExp, line: string, at: number): boolean {
	re.lastIndex = at;
	return re.test(line);
}

/**
 * Tokens decoded by the decode passes that `eval time` times. In every era the first of the n
 * printed tokens comes out of the prompt pass, and the eval time starts when it is sampled, so the
 * time covers n − 1 decode steps:
 * - before b10424, `t_token_generation` runs from `n_decoded == 1` and the line prints
 *   `1e3 / t_token_generation * n_decoded` (n tokens over n − 1 steps: the engine's t/s overstates)
 *   — tools/server/server-context.cpp @ decaf508b^ (b10423);
 * - since b10424 (PR #26920, commit decaf508b) `n_gen_steps() = n_gen − 1` is the divisor
 *   — tools/server/server-common.h @ 3f545be.
 * `eraOfEval` tells the two apart from the line's own figures.
 */
export function decodedFromEval(n: number): number {
	return n >= 1 ? n - 1 : n;
}

/** Which timing convention an `eval time` line follows: its t/s × ms is n (before b10424) or n − 1 (b10424+). */
export function eraOfEval(n: number, ms: number, tps: number | undefined, msPerToken: number | undefined): 'pre-b10424' | 'b10424+' | undefined {
	if (n < 2 || ms <= 0) return undefined;
	let est: number | undefined;
	if (tps !== undefined && tps > 0) est = (tps * ms) / 1000;
	else if (msPerToken !== undefined && msPerToken > 0) est = ms / msPerToken;
	if (est === undefined) return undefined;
	return Math.abs(est - (n - 1)) < Math.abs(est - n) ? 'b10424+' : 'pre-b10424';
}

/**
 * What one llama.cpp parser remembers between the lines of one log. The parser is this state and
 * the module functions below, each one kind of line; `createLlamaCppParser` ties them together.
 */
interface LlamaState {
	/** Tag every request patch with this runner (Ollama ≥ 0.30). */
	readonly runner?: OllamaRunner;
	/** The model name the embedding process knows. */
	readonly modelOf?: () => string | undefined;
	/** Slot/task remembered from an empty `print_timing` header (pre-b9232) for bare continuation lines. */
	pending: {key: string; slot?: number; task?: number} | undefined;
	/** Requests whose cached-prefix line was already seen (only the first counts). */
	readonly cacheSeen: Set<string>;
	/** Open request of each slot: a bare line without id/task goes to the newest one. */
	lastKey: string | undefined;
	modelName: string | undefined;
	/**
	 * Server runs within one log: task ids restart at 0 when llama-server restarts (Ollama starts a
	 * new one per model load), so keys of later runs carry `r<run>:` and never merge with old ones.
	 */
	run: number;
	requestsThisRun: boolean;
	/**
	 * Slot/task keys that closed in this run, the newest CLOSED_KEPT of them (`closedOrder` is the
	 * ring of their order): a run of a busy server closes a million requests an hour, and every key
	 * kept forever was ~47 bytes each (170 MB an hour at 1,000 req/s; issue 32).
	 */
	readonly closed: Set<string>;
	readonly closedOrder: string[];
	closedAt: number;
	readonly tally: Tallies;
	/**
	 * `f_sim_best` of the slot's last pick (a `task -1` line), taken by the slot's next task (which
	 * sets it to undefined: see slotKeyOf). Keyed by slotKeyOf.
	 */
	readonly fSimOfSlot: Map<string | number, number | undefined>;
	/** Request key of each task id (send_error and cancel name the task only); the newest 256. */
	readonly keyOfTask: Map<TaskId, string>;
	/** keyOfTask's keys in the order they were added (the oldest goes first). */
	readonly keyOfTaskOrder: KeyRing<TaskId>;
	/** Keys that closed with a print_timing block (a later cancel is not theirs to change); the newest 256. */
	readonly finished: Set<string>;
	readonly finishedOrder: KeyRing;
	/**
	 * Deferred tasks (`-v` only): when each waited for a slot, in ms since the process started (NaN
	 * when the line had no timestamp). Once a debug (`D`) line was seen, a task launched without a
	 * defer line did not wait for a slot: its queue time is 0, known.
	 */
	readonly deferredAt: Map<TaskId, number>;
	readonly declinedAt: Map<TaskId, number>;
	debugSeen: boolean;
	/**
	 * The line being parsed (its router-child prefix cut) where it starts with a stamp: its
	 * process-relative time (lineRel) is read from it only where a `-v` line needs it.
	 */
	stamped: string | undefined;
	/**
	 * The keys of the last slot/task a line named (keyOf): a request's lines come together, and a
	 * key built again is a new string, built and then hashed at each Map lookup (issue 32).
	 */
	kPrefix: string;
	kSlot: number | undefined;
	kTask: number | undefined;
	/** `<prefix>s<slot>/t<task>`: `closed`'s key, and the request's while `run` is 0. */
	kBase: string;
	/** The run kKey was made for (-1: none). */
	kRun: number;
	/** `<prefix>r<run>:s<slot>/t<task>`. */
	kKey: string;
}

/**
 * What a default-verbosity log says of each open request, for the prompt it does not state:
 * tokens evaluated (`prompt eval time … / N tokens`), generated (`eval time … / N tokens`),
 * whether the prompt / cached count was stated (`new prompt`, `cached n_tokens`, full-reuse W lines),
 * the LCP similarity the slot was picked by (`f_sim_best`), and how it ended.
 */
interface Tally {prefill?: number; generated?: number; promptStated?: boolean; cachedStated?: boolean; fSim?: number; outcome?: 'error' | 'cancelled'; shifted?: boolean}

function newLlamaState(options: LlamaCppParserOptions): LlamaState {
	return {
		runner: options.runner,
		modelOf: options.model,
		pending: undefined,
		cacheSeen: new Set(),
		lastKey: undefined,
		modelName: undefined,
		run: 0,
		requestsThisRun: false,
		closed: new Set(),
		closedOrder: [],
		closedAt: 0,
		tally: new Tallies(),
		fSimOfSlot: new Map(),
		keyOfTask: new Map(),
		keyOfTaskOrder: new KeyRing(KEPT_TASKS + 1),
		finished: new Set(),
		finishedOrder: new KeyRing(KEPT_TASKS + 1),
		deferredAt: new Map(),
		declinedAt: new Map(),
		debugSeen: false,
		stamped: undefined,
		kPrefix: '',
		kSlot: undefined,
		kTask: undefined,
		kBase: '',
		kRun: -1,
		kKey: '',
	};
}

/**
 * A task's id in keyOfTask, deferredAt and declinedAt: the task number itself in a log of one
 * server (no router child prefix), else `<prefix><task>` (the string it always was). The string
 * `${task}` made at every request start, and kept for 256 more, was ~20 B allocated and promoted a
 * request; a small number is no object at all. The same keys meet as before: taskIdOfText gives a
 * task's digits as written (send_error, cancel and defer lines) the number only where that number
 * prints as those very digits (`${n}`, which the old key compared), else the text itself (no match,
 * as before: `007`, digits past 2^53).
 */
type TaskId = string | number;
export function taskIdOf(keyPrefix: string, task: number): TaskId {
	return keyPrefix === '' ? task : `${keyPrefix}${task}`;
}
export function taskIdOfText(keyPrefix: string, digits: string): TaskId {
	if (keyPrefix !== '') return `${keyPrefix}${digits}`;
	const n = Number(digits);
	return `${n}` === digits ? n : digits;
}

/** Task ids and finished keys remembered (the newest of them). */
const KEPT_TASKS = 256;

/**
 * The keys of a Map or Set in the order they were added, where a key leaves only as the oldest (or
 * all at once): its first key is the Map's first key, found without `keys().next()` (an iterator
 * and a result object a request under the app's interpreter, issue 32). A ring of fixed size.
 */
export class KeyRing<K extends string | number = string> {
	private readonly slots: Array<K | undefined>;
	private first = 0;
	private count = 0;
	constructor(readonly capacity: number) {
		this.slots = new Array<K | undefined>(capacity).fill(undefined);
	}
	get size(): number {
		return this.count;
	}
	push(key: K): void {
		if (this.count === this.capacity) throw new Error('KeyRing full');
		let at = this.first + this.count;
		if (at >= this.capacity) at -= this.capacity;
		this.slots[at] = key;
		this.count++;
	}
	/** Take the oldest key out. */
	shift(): K | undefined {
		if (this.count === 0) return undefined;
		const key = this.slots[this.first];
		this.slots[this.first] = undefined;
		this.first = this.first + 1 === this.capacity ? 0 : this.first + 1;
		this.count--;
		return key;
	}
	clear(): void {
		this.slots.fill(undefined);
		this.first = 0;
		this.count = 0;
	}
}

/**
 * The key of a slot in fSimOfSlot: the slot's number itself for a log of one server (no router
 * child prefix), else `<prefix>s<slot>` (the string it always was). Either way one key a slot (a
 * number never equals a string key), and no string built twice a request. A slot's pick, once
 * taken, is set to undefined rather than deleted: a Map that empties and fills again each request
 * rehashes its table on each shrink (a new table each time); the keys left are the slots seen.
 */
function slotKeyOf(keyPrefix: string, slot: number | undefined): string | number {
	return keyPrefix === '' && slot !== undefined ? slot : `${keyPrefix}s${slot}`;
}

/**
 * The tallies of the open requests by key: a Map in insertion order (the oldest is dropped past 256),
 * whose newest entry is held apart while no newer one comes. A request's tally lives from its first
 * timing line (or its start) to its stop line, so in a log whose requests do not overlap the Map
 * itself is never written: a Map that fills and empties each request rebuilt its table at each
 * shrink (~150 B a request, issue 32). Same answers as the Map: the held entry goes into the Map
 * (after every entry there, as it is newer) before a newer one is added.
 */
export class Tallies {
	private readonly map = new Map<string, Tally>();
	private heldKey: string | undefined = undefined;
	private held: Tally | undefined = undefined;
	get size(): number {
		return this.map.size + (this.heldKey === undefined ? 0 : 1);
	}
	get(key: string): Tally | undefined {
		return key === this.heldKey ? this.held : this.map.get(key);
	}
	set(key: string, t: Tally): void {
		if (key === this.heldKey) this.held = t;
		else if (this.map.has(key)) this.map.set(key, t);
		else {
			if (this.heldKey !== undefined) this.map.set(this.heldKey, this.held!);
			this.heldKey = key;
			this.held = t;
		}
	}
	delete(key: string): void {
		if (key === this.heldKey) {
			this.heldKey = undefined;
			this.held = undefined;
		} else this.map.delete(key);
	}
	/** The key added first of those kept (a Map's first key). */
	oldest(): string | undefined {
		return this.map.size > 0 ? this.map.keys().next().value : this.heldKey;
	}
	clear(): void {
		this.map.clear();
		this.heldKey = undefined;
		this.held = undefined;
	}
}

function tallyOf(s: LlamaState, key: string): Tally {
	let t = s.tally.get(key);
	if (!t) {
		t = {};
		s.tally.set(key, t);
		if (s.tally.size > 256) s.tally.delete(s.tally.oldest()!);
	}
	return t;
}

function newRun(s: LlamaState): void {
	s.run += 1;
	s.requestsThisRun = false;
	s.closed.clear();
	s.closedOrder.length = 0;
	s.closedAt = 0;
	s.cacheSeen.clear();
	s.tally.clear();
	s.fSimOfSlot.clear();
	s.keyOfTask.clear();
	s.keyOfTaskOrder.clear();
	s.finished.clear();
	s.finishedOrder.clear();
	s.deferredAt.clear();
	s.declinedAt.clear();
	s.pending = undefined;
	s.lastKey = undefined;
}

/** An evidence line: one line, capped (the parser's input is already sanitized). */
const evidenceOf = (line: string): string => (line.length > 300 ? `${line.slice(0, 299)}…` : line);

/** A request patch of `key`, tagged with the runner and the embedding process's model name. */
function req(s: LlamaState, key: string, slot: number | undefined, task: number | undefined, fields: Record<string, unknown>): Ev {
	const ev: Record<string, unknown> = {type: 'request', key};
	if (slot !== undefined) ev.slot = slot;
	if (task !== undefined) ev.task = task;
	if (s.runner !== undefined) ev.runner = s.runner;
	for (const k in fields) if (fields[k] !== undefined) ev[k] = fields[k];
	if (s.modelOf !== undefined) {
		const m = s.modelOf();
		if (m !== undefined) ev.model = m;
	}
	return ev as unknown as Ev;
}

/**
 * Whether a request patch of this slot/task is what req makes of its fields alone (no runner, no
 * model of the embedding process, slot and task known): then the hot lines (a request's start,
 * timings and end) write their patch as one object literal, in req's key order, where req builds a
 * fields object and copies it key by key (~190 ns against ~35 ns a patch under the app's
 * interpreter, issue 32). Every other patch goes through req.
 */
function bare(s: LlamaState, slot: number | undefined, task: number | undefined): boolean {
	return slot !== undefined && task !== undefined && s.runner === undefined && s.modelOf === undefined;
}

/** Where the last plainDecimal stopped. */
let scanEnd = 0;

/**
 * The four numbers of a timing line, read by hand: SCANNED[0..3] = the regex's captures 1..4 of
 * PROMPT_EVAL (`prompt`) or EVAL, as the number checker reads them (ms, tokens, ms per token, tokens
 * per second). Only for the common form: each number a plain decimal within its bounds; anything
 * else (nan, inf, a minus sign, a number out of bounds, another layout) answers false and the line
 * goes through the regex and the checker as before, which then decide the match and the problems.
 * Why: these two lines are a quarter of a llama.cpp request's lines, and the regex's match array,
 * its four captured strings and the checker were ~250 B allocated a timing line (exec 15.4 MB and
 * the checker 2 MB in 20 s at 1,000 requests a second, 160,000 lines; V8's sampling heap profiler,
 * the app's flags). The numbers are left in SCANNED (a number returned under the interpreter is a
 * new heap number each time).
 * `at`: where the message's first non-space character is (the regexes' leading \s* skipped).
 * test/engines/llamacpp-timing-scan.test.ts compares it with the regexes and the checker.
 */
export function scanTimes(line: string, at: number, prompt: boolean): boolean {
	const head = prompt ? 'prompt eval time =' : 'eval time =';
	if (!line.startsWith(head, at)) return false;
	let i = spaces(line, at + head.length, 1);
	if (i < 0 || !plainDecimal(line, i, 0, BOUNDS.ms, false) || !line.startsWith(' ms /', scanEnd)) return false;
	i = spaces(line, scanEnd + 5, 1);
	if (i < 0 || !plainDecimal(line, i, 1, BOUNDS.tokens, true)) return false;
	i = scanEnd;
	if (prompt) {
		if (!line.startsWith(' tokens (', i)) return false;
		i += 9;
	} else {
		if (line.startsWith(' tokens', i)) i += 7;
		else if (line.startsWith(' runs', i)) i += 5;
		else return false;
		i = spaces(line, i, 1);
		if (i < 0 || line.charCodeAt(i) !== 40 /* ( */) return false;
		i++;
	}
	if (!plainDecimal(line, spaces(line, i, 0), 2, BOUNDS.ms, false) || !line.startsWith(' ms per token,', scanEnd)) return false;
	i = spaces(line, scanEnd + 14, 1);
	return i >= 0 && plainDecimal(line, i, 3, BOUNDS.tps, false) && line.startsWith(' tokens per second)', scanEnd);
}

/**
 * A live line (`n_gen = N, tg = X t/s[, tg_3s = Y t/s]`, LIVE) read by hand, as scanTimes reads the
 * timing lines: 2 (SCANNED[0] = n_gen, SCANNED[1] = tg) or 3 (and SCANNED[2] = tg_3s) where LIVE matches
 * at `at` (the message's first non-space character: LIVE, searched from before it, can start no
 * earlier) with every number a plain decimal within its bounds; 0 where anything else is there
 * (then the regex and the checker read it, as before). A tg_3s part that is there but not read
 * here is left to the regex too (it may be a capture the checker calls a problem).
 * Why: a busy server writes one every few tokens per slot; its match array, three captures, the
 * checker and its numbers were ~600 B allocated a line (the parser over the traffic bench's
 * llama.cpp lines, V8's sampling heap profiler).
 */
export function scanLive(line: string, at: number): 0 | 2 | 3 {
	let i: number;
	if (line.startsWith('n_gen =', at)) i = at + 7;
	else if (line.startsWith('n_decoded =', at)) i = at + 11;
	else return 0;
	i = spaces(line, i, 1);
	if (i < 0 || !plainDecimal(line, i, 0, BOUNDS.tokens, true) || !line.startsWith(', tg =', scanEnd)) return 0;
	i = spaces(line, scanEnd + 6, 1);
	if (i < 0 || !plainDecimal(line, i, 1, BOUNDS.tps, false) || !line.startsWith(' t/s', scanEnd)) return 0;
	if (!line.startsWith(', tg_3s =', scanEnd + 4)) return 2;
	i = spaces(line, scanEnd + 13, 1);
	return i >= 0 && plainDecimal(line, i, 2, BOUNDS.tps, false) && line.startsWith(' t/s', scanEnd) ? 3 : 0;
}

/**
 * The numbers the last scanTimes / scanLive read, each as Number() gives it (a whole value a small
 * integer, a fraction one heap number). An array of any values (made with undefined, so V8 never
 * keeps it as unboxed doubles): a read hands on the number stored, where a Float64Array read is a
 * new heap number each time, even for 12 (the interpreter), and a count held as one made the
 * store's sums and copies of it heap numbers too (+16 % allocated by the reducer over the same lines).
 */
export const SCANNED: Array<number | undefined> = [undefined, undefined, undefined, undefined];
const scanned = (k: number): number => SCANNED[k]!;

/** Exact powers of ten up to 10^9 (small integers: an array with a larger one holds them unboxed, a new heap number a read). */
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * The run of digits and dots at `i` of `line` into SCANNED[k], as the checker reads it, where it is a
 * plain decimal (`\d*(\.\d+)?`, 1 to 15 digits, at most 9 after the dot; `whole`, a count: digits
 * only) of at most `max`;
 * else false (the line is left to the regex). The digits as an integer (exact: below 10^15 < 2^53)
 * over an exact power of ten is one correctly rounded division: the double Number() gives (Clinger's
 * fast path). Non-negative, finite and (a count) whole by construction, so checkedValue's one other
 * rule is the bound. scanEnd: the end of the run.
 */
function plainDecimal(line: string, i: number, k: number, max: number, whole: boolean): boolean {
	let mantissa = 0;
	let digits = 0;
	let frac = -1;
	for (;; i++) {
		const c = line.charCodeAt(i);
		if (c >= 48 && c <= 57) {
			if (++digits > 15) return false;
			mantissa = mantissa * 10 + (c - 48);
			if (frac >= 0) frac++;
		} else if (c === 46 && frac < 0 && !whole) frac = 0;
		else break;
	}
	scanEnd = i;
	if (digits === 0 || frac === 0 || frac > 9) return false;
	const v = frac > 0 ? mantissa / POW10[frac]! : mantissa;
	SCANNED[k] = v;
	return v <= max;
}

/**
 * Past the spaces (U+0020 only, as the regexes' literal ` `) from `i`: at least `least` of them, else
 * -1. One native search (NOT_SPACE: `[^ ]`): the timing lines are padded with ~17 spaces, and a loop
 * over them was a tenth of the hand read's time under the interpreter.
 */
function spaces(line: string, i: number, least: number): number {
	const end = testAt(NOT_SPACE_FROM, line, i) ? NOT_SPACE_FROM.lastIndex - 1 : line.length;
	return end - i >= least ? end : -1;
}

/**
 * Timing/acceptance lines, shared by slot lines and bare continuation lines: the message of `line`
 * that starts at `at`.
 */
function timing(s: LlamaState, line: string, at: number, key: string, slot?: number, task?: number): Ev[] | null {
	// The first character that is not a space picks the one regex to try (a search is one native
	// call; a loop of charCodeAt calls costs several under the interpreter). The checker is made
	// only for a line that matched.
	const first = testAt(NOT_SPACE_FROM, line, at) ? NOT_SPACE_FROM.lastIndex - 1 : -1;
	const c = first >= 0 ? line.charCodeAt(first) : Number.NaN;
	if (c === 112 /* p */) {
		if (scanTimes(line, first, true)) {
			// the regex path's answer where it matches and every number is valid (no checker problem)
			const ms = scanned(0);
			const n = scanned(1);
			tallyOf(s, key).prefill = n;
			return [bare(s, slot, task) ? ({type: 'request', key, slot, task, prefillMs: ms, prefillTokens: n} as Ev) : req(s, key, slot, task, {prefillMs: ms, prefillTokens: n})];
		}
		const m = execAt(PROMPT_EVAL_AT, line, at);
		if (m) {
			const check = numberCheck();
			const ms = check.num('prompt eval time', m[1], 'ms');
			const n = check.count('prompt eval tokens', m[2]);
			check.num('prompt ms per token', m[3], 'ms', NAN_UNKNOWN);
			check.num('prompt tokens per second', m[4], 'tps', NAN_UNKNOWN);
			tallyOf(s, key).prefill = n;
			const ev = ms !== undefined && n !== undefined && bare(s, slot, task)
				? ({type: 'request', key, slot, task, prefillMs: ms, prefillTokens: n} as Ev)
				: req(s, key, slot, task, {prefillMs: ms, prefillTokens: n});
			return withCheck([ev], check);
		}
	} else if (c === 101 /* e */) {
		if (scanTimes(line, first, false)) {
			const n = scanned(1);
			const ms = scanned(0);
			const tps = scanned(3);
			tallyOf(s, key).generated = n;
			return [bare(s, slot, task)
				? ({type: 'request', key, slot, task, generatedTokens: n, decodedTokens: decodedFromEval(n), decodeMs: ms, engineTps: tps} as Ev)
				: req(s, key, slot, task, {generatedTokens: n, decodedTokens: decodedFromEval(n), decodeMs: ms, engineTps: tps})];
		}
		const m = execAt(EVAL_AT, line, at);
		if (m) {
			const check = numberCheck();
			const ms = check.num('eval time', m[1], 'ms');
			const n = check.count('eval tokens', m[2]);
			check.num('eval ms per token', m[3], 'ms', NAN_UNKNOWN);
			const tps = check.num('eval tokens per second', m[4], 'tps', NAN_UNKNOWN);
			tallyOf(s, key).generated = n;
			const ev = n !== undefined && ms !== undefined && tps !== undefined && bare(s, slot, task)
				? ({type: 'request', key, slot, task, generatedTokens: n, decodedTokens: decodedFromEval(n), decodeMs: ms, engineTps: tps} as Ev)
				: req(s, key, slot, task, {
					generatedTokens: n,
					decodedTokens: n !== undefined ? decodedFromEval(n) : undefined,
					decodeMs: ms,
					engineTps: tps,
				});
			return withCheck([ev], check);
		}
	} else if (c === 116 /* t */) {
		if (testAt(TOTAL_AT, line, at)) return [];
	} else if (c === 103 /* g */) {
		if (testAt(GRAPHS_AT, line, at)) return [];
	} else if (c === 100 /* d */) {
		const m = execAt(DRAFT_FROM, line, at);
		if (m) {
			const check = numberCheck();
			check.num('draft acceptance', m[1], 'ratio', NAN_UNKNOWN);
			const accepted = check.count('accepted', m[2]);
			const drafted = check.count('generated', m[3]);
			const meanLen = check.num('mean len', m[4], 'perPass', NAN_UNKNOWN);
			return withCheck([req(s, key, slot, task, {accepted, drafted, engineMeanLen: meanLen})], check);
		}
	} else if (c === 97 /* a */) {
		if (testAt(ACC_POS_AT, line, at)) return [];
	}
	return null;
}

/**
 * `s<slot>/t` of the first SLOT_HEADS slots, made once: a request's key is then one concatenation
 * (the head and the task's digits), where the template made `s<slot>`, then `s<slot>/t`, then the
 * key (~88 B allocated a request, ~40 B now; the parser over the traffic bench's llama.cpp lines).
 */
const SLOT_HEADS = 64;
const slotHeads: string[] = [];
function slotHead(slot: number): string {
	return (slotHeads[slot] ??= `s${slot}/t`);
}

/** `<prefix>s<slot>/t<task>`, the key of a task in `closed` (cached in the state, see kBase). */
function baseKey(s: LlamaState, keyPrefix: string, slot: number | undefined, task: number): string {
	if (task !== s.kTask || slot !== s.kSlot || keyPrefix !== s.kPrefix) {
		s.kPrefix = keyPrefix;
		s.kSlot = slot;
		s.kTask = task;
		s.kBase = keyPrefix === '' && slot !== undefined && slot >= 0 && slot < SLOT_HEADS && Number.isInteger(slot) ? slotHead(slot) + task : `${keyPrefix}s${slot}/t${task}`;
		s.kRun = -1;
	}
	return s.kBase;
}

/** The request key of a task in this run: `<prefix>s<slot>/t<task>`, with `r<run>:` after a restart. */
function keyOf(s: LlamaState, keyPrefix: string, slot: number | undefined, task: number): string {
	const base = baseKey(s, keyPrefix, slot, task);
	if (s.run === 0) return base;
	if (s.kRun !== s.run) {
		s.kRun = s.run;
		s.kKey = `${keyPrefix}r${s.run}:s${slot}/t${task}`;
	}
	return s.kKey;
}

/**
 * A `slot <fn>: id N | task T | <msg>` line (or `task -1`, no task: the slot itself); its message
 * starts at `at` (cut out only for the lines the hot ones are not).
 */
function slotMessage(s: LlamaState, fn: string, line: string, at: number, slot: number | undefined, task: number | undefined, keyPrefix: string): Ev[] | null {
	const empty = at === line.length;
	if (task === undefined || task < 0) {
		if (empty) return [];
		if (fn === 'print_timing') {
			const runPrefix = s.run === 0 ? keyPrefix : `${keyPrefix}r${s.run}:`;
			const key = slot === undefined && s.lastKey !== undefined ? s.lastKey : `${runPrefix}s${slot ?? '?'}/t${task ?? '?'}`;
			return printTiming(s, line, at, key, slot, task);
		}
		if (line.startsWith('processing task', at) || line.startsWith('stop processing', at)) return [];
		return slotIdle(s, line, at, slot, keyPrefix);
	}
	s.requestsThisRun = true;
	const starts = line.startsWith('processing task', at);
	// The same slot/task opening again after it closed: the server restarted.
	if (starts && s.closed.has(baseKey(s, keyPrefix, slot, task))) newRun(s);
	const key = keyOf(s, keyPrefix, slot, task);
	if (empty) {
		// Pre-b9232: the numbers follow on bare continuation lines.
		if (fn === 'print_timing') s.pending = {key, slot, task};
		return [];
	}
	if (fn === 'print_timing') return printTiming(s, line, at, key, slot, task);
	if (starts) return taskStart(s, key, slot, task, keyPrefix);
	if (line.startsWith('stop processing', at)) return taskStop(s, line, at, key, slot, task, keyPrefix);
	return taskLine(s, line.slice(at), key, slot, task);
}

/** `print_timing`: the timings block, the live rate, prompt progress. */
function printTiming(s: LlamaState, line: string, at: number, key: string, slot: number | undefined, task: number | undefined): Ev[] {
	const t = timing(s, line, at, key, slot, task);
	if (t) return t;
	const live = testAt(NOT_SPACE_FROM, line, at) ? scanLive(line, NOT_SPACE_FROM.lastIndex - 1) : 0;
	if (live !== 0) {
		// the regex path's answer where it matches and every number is valid (no checker problem)
		const generated = scanned(0);
		const tps = scanned(1);
		return [(live === 2 ? {type: 'live-rate', key, generated, tps} : {type: 'live-rate', key, generated, tps, tps3s: scanned(2)}) as Ev];
	}
	let m = execAt(LIVE_FROM, line, at);
	if (m) {
		const check = numberCheck();
		const generated = check.count('n_gen', m[1]);
		const tps = check.num('tg', m[2], 'tps');
		const tps3s = check.num('tg_3s', m[3], 'tps');
		// one literal for each shape (no array grown by a push, no field added to a made object)
		const out: Ev[] = generated === undefined || tps === undefined
			? []
			: [(tps3s === undefined ? {type: 'live-rate', key, generated, tps} : {type: 'live-rate', key, generated, tps, tps3s}) as Ev];
		return withCheck(out, check);
	}
	m = execAt(PROGRESS_FROM, line, at);
	if (m) return progress(key, m);
	return [];
}

/** `processing task`: a request starts on its slot (its queue time from the defer lines, where `-v` wrote them). */
function taskStart(s: LlamaState, key: string, slot: number | undefined, task: number, keyPrefix: string): Ev[] {
	s.lastKey = key;
	s.cacheSeen.delete(key);
	s.tally.delete(key);
	if (s.fSimOfSlot.size > 0) {
		const slotKey = slotKeyOf(keyPrefix, slot);
		const fSim = s.fSimOfSlot.get(slotKey);
		if (fSim !== undefined) {
			s.fSimOfSlot.set(slotKey, undefined);
			tallyOf(s, key).fSim = fSim;
		}
	}
	const taskId = taskIdOf(keyPrefix, task);
	if (!s.keyOfTask.has(taskId)) s.keyOfTaskOrder.push(taskId);
	s.keyOfTask.set(taskId, key);
	if (s.keyOfTask.size > KEPT_TASKS) s.keyOfTask.delete(s.keyOfTaskOrder.shift()!);
	// Defer and decline lines are `-v` only: most logs have none.
	let deferred: number | undefined;
	if (s.deferredAt.size > 0 || s.declinedAt.size > 0) {
		deferred = s.deferredAt.get(taskId) ?? s.declinedAt.get(taskId);
		s.deferredAt.delete(taskId);
		s.declinedAt.delete(taskId);
	}
	let queueMs: number | undefined;
	if (deferred !== undefined) {
		const rel = lineRel(s);
		queueMs = Number.isFinite(deferred) && rel !== undefined && rel >= deferred ? rel - deferred : undefined;
	}
	else if (s.debugSeen) queueMs = 0;
	if (queueMs === undefined && bare(s, slot, task)) {
		const model = s.modelName;
		return [(model === undefined ? {type: 'request', key, slot, task, started: true} : {type: 'request', key, slot, task, started: true, model}) as Ev];
	}
	return [req(s, key, slot, task, {started: true, model: s.modelName, queueMs})];
}

/**
 * Closed keys remembered: a task id opening again on its slot after it closed means the server
 * restarted (its ids count from 0 again). A restart writes its start lines too (`listening on`,
 * `loading model`: a new run), so this only matters where those were not in the log; a key that
 * closed more than CLOSED_KEPT requests ago is forgotten.
 *
 * 2,048, not 8,192 (issue 32): one set per log, full after CLOSED_KEPT requests, so its memory is
 * logs × CLOSED_KEPT. At 8,192 each held ~650 KB (the Set's 327 KB table and the keys), 5.2 MB for
 * eight busy logs (a heap snapshot 130 s into 8 × 100 req/s), and RSS rose with it for the first
 * 80 s. A restart whose start lines the log lacks is still told within 2,048 requests of the old run.
 */
export const CLOSED_KEPT = 2048;

function closeKey(s: LlamaState, k: string): void {
	if (s.closed.has(k)) return;
	s.closed.add(k);
	if (s.closedOrder.length < CLOSED_KEPT) {
		s.closedOrder.push(k);
		return;
	}
	// a ring: the oldest key goes (no iterator object a request, as Set's own order would take)
	s.closed.delete(s.closedOrder[s.closedAt]!);
	s.closedOrder[s.closedAt] = k;
	s.closedAt = (s.closedAt + 1) % CLOSED_KEPT;
}

/** `stop processing`: the request is done (with the prompt a default-verbosity log did not state, estimated). */
function taskStop(s: LlamaState, line: string, at: number, key: string, slot: number | undefined, task: number, keyPrefix: string): Ev[] {
	s.cacheSeen.delete(key);
	closeKey(s, baseKey(s, keyPrefix, slot, task));
	if (s.pending?.key === key) s.pending = undefined;
	const t = s.tally.get(key);
	s.tally.delete(key);
	if (t?.outcome === undefined && t?.generated !== undefined) {
		if (!s.finished.has(key)) {
			s.finished.add(key);
			s.finishedOrder.push(key);
			if (s.finished.size > KEPT_TASKS) s.finished.delete(s.finishedOrder.shift()!);
		}
	}
	if (t?.outcome !== undefined) s.tally.set(key, {outcome: t.outcome});
	const out: Ev[] = [closing(s, key, slot, task, t, line, at)];
	// Ran into the window while generating with context shift off (server-context.cpp:1776): cut at the window.
	if (t?.outcome === undefined && t?.shifted !== true && testAt(STOP_TRUNCATED_FROM, line, at)) {
		out.unshift(req(s, key, slot, task, {finishReason: 'length'}));
		out.push({type: 'agent-signal', signal: {kind: 'context-exceeded', key, evidence: evidenceOf(line.slice(at))}} as Ev);
	}
	return out;
}

const F_SIM_HEAD = 'selected slot by LCP similarity, f_sim_best = ';
/**
 * finite(F_SIM.exec(msg.slice(at))?.[1]) without the match array and its two strings (a line a request):
 * the run of digits and dots after F_SIM_HEAD, as a number. test/engines/llamacpp-hand-match.test.ts
 * compares the two.
 */
export function fSimOf(msg: string, at = 0): number | undefined {
	if (!msg.startsWith(F_SIM_HEAD, at)) return undefined;
	const a = at + F_SIM_HEAD.length;
	let b = a;
	let c = msg.charCodeAt(b);
	while ((c >= 48 && c <= 57) || c === 46) c = msg.charCodeAt(++b);
	return b > a ? finite(msg.slice(a, b)) : undefined;
}

const STOP_HEAD = 'stop processing: n_tokens = ';
/** Number(STOP_N_TOKENS.exec(msg.slice(at))?.[1]) without the match array (a line a request); undefined where it does not match. */
export function stopTokensOf(msg: string, at = 0): number | undefined {
	if (!msg.startsWith(STOP_HEAD, at)) return undefined;
	const a = at + STOP_HEAD.length;
	let b = a;
	let c = msg.charCodeAt(b);
	while (c >= 48 && c <= 57) c = msg.charCodeAt(++b);
	return b > a ? digitsValue(msg, a, b) : undefined;
}

/** A slot line without a task: the slot's LCP pick, its context. */
function slotIdle(s: LlamaState, line: string, at: number, slot: number | undefined, keyPrefix: string): Ev[] {
	if (line.startsWith('selected slot by LCP', at)) {
		const v = fSimOf(line, at);
		if (v !== undefined && v <= 1) s.fSimOfSlot.set(slotKeyOf(keyPrefix, slot), v);
		return [];
	}
	const m = NEW_SLOT.exec(line.slice(at));
	if (m) {
		const check = numberCheck();
		const n = check.count('n_ctx_slot', m[1]);
		return withCheck(n === undefined ? [] : [{type: 'context', nCtxPerSlot: n}], check);
	}
	return [];
}

/** A task's own lines: its prompt, the cached prefix, prompt progress. */
function taskLine(s: LlamaState, msg: string, key: string, slot: number | undefined, task: number | undefined): Ev[] {
	const check = numberCheck();
	let m: RegExpExecArray | null;
	if (msg.startsWith('new prompt')) {
		m = NEW_PROMPT.exec(msg);
		if (m) {
			const window = check.count('n_ctx_slot', m[1]);
			const tally = tallyOf(s, key);
			tally.promptStated = true;
			const prompt = check.count('task.n_tokens', m[2]);
			// f_sim_best = LCP ÷ this prompt (`%.3f`): the prefix it shares with what the slot held.
			const shared = tally.fSim !== undefined && prompt !== undefined ? Math.round(tally.fSim * prompt) : undefined;
			return withCheck([req(s, key, slot, task, {promptTokens: prompt, contextWindow: window, sharedPrefixTokens: shared})], check);
		}
		return [];
	}
	if (msg.includes('memory_seq_rm') || msg.startsWith('kv cache rm')) {
		m = CACHED.exec(msg);
		if (m && !s.cacheSeen.has(key)) {
			s.cacheSeen.add(key);
			if (m[2] !== undefined) check.count('memory_seq_rm', m[2]);
			tallyOf(s, key).cachedStated = true;
			return withCheck([req(s, key, slot, task, {cachedTokens: check.count('n_past', m[1] ?? m[3])})], check);
		}
		return [];
	}
	if (msg.startsWith('slot context shift')) {
		m = CONTEXT_SHIFT.exec(msg);
		if (m) {
			tallyOf(s, key).shifted = true;
			check.count('n_keep', m[1]);
			check.count('n_left', m[2]);
			const discarded = check.count('n_discard', m[3]);
			return withCheck([{type: 'agent-signal', signal: clean({kind: 'context-shifted', key, evidence: evidenceOf(msg), discarded})} as Ev], check);
		}
		return [];
	}
	if (msg.startsWith('stopped by limit')) {
		m = STOPPED_BY_LIMIT.exec(msg);
		if (m) {
			const limit = check.count('n_predict', m[2]);
			return withCheck([req(s, key, slot, task, {finishReason: 'length', outputLimit: limit !== undefined && limit > 0 ? limit : undefined})], check);
		}
		return [];
	}
	if (msg.startsWith('n_past was set')) {
		m = N_PAST_SET.exec(msg);
		if (m && !s.cacheSeen.has(key)) {
			s.cacheSeen.add(key);
			tallyOf(s, key).cachedStated = true;
			return withCheck([req(s, key, slot, task, {cachedTokens: check.count('n_past', m[1])})], check);
		}
		return [];
	}
	if (msg.startsWith('need to evaluate')) {
		m = NEED_EVAL.exec(msg);
		if (m) {
			tallyOf(s, key).promptStated = true;
			return withCheck([req(s, key, slot, task, {promptTokens: check.count('task.n_tokens', m[1])})], check);
		}
		return [];
	}
	if (msg.startsWith('prompt ')) {
		m = PROGRESS.exec(msg);
		if (m) return progress(key, m);
		m = PROMPT_DONE.exec(msg);
		if (m) {
			const processed = check.count('n_tokens', m[1]);
			return withCheck(processed === undefined ? [] : [{type: 'prefill-progress', key, processed, progress: 1}], check);
		}
	}
	return [];
}

function progress(key: string, m: RegExpExecArray): Ev[] {
	const check = numberCheck();
	const processed = check.count('n_tokens', m[1]);
	if (m[2] !== undefined) check.count('batch.n_tokens', m[2]);
	const share = check.num('progress', m[3], 'ratio');
	check.num('t', m[4], 'seconds');
	const tps = check.num('tokens per second', m[5], 'tps');
	if (processed === undefined) return withCheck([], check);
	const ev: Record<string, unknown> = {type: 'prefill-progress', key, processed};
	if (share !== undefined) ev.progress = share;
	if (tps !== undefined) ev.tps = tps;
	return withCheck([ev as unknown as Ev], check);
}

/** A library line (model loader, context, buffers, speculative set-up): stateless. */
function library(rest: string): Ev[] | null {
	// Cheap first/last-character gates first; regexes only on candidates (most library lines
	// are model-loader dumps that carry nothing for us).
	const last = rest.charCodeAt(rest.length - 1);
	if (last === 66 /* B: `… MiB` */ && rest.includes(' buffer size')) {
		const m = BUFFER.exec(rest);
		if (m) {
			const {device, onGpu} = bufferDevice(m[2]!);
			const check = numberCheck();
			const mib = check.num('buffer size', m[4], 'mib');
			return withCheck(mib === undefined ? [] : [{type: 'buffer', device, kind: m[3] as 'model', mib, onGpu}], check);
		}
	} else if (last === 66 /* B: `… MB` */ && rest.includes('recommendedMaxWorkingSetSize')) {
		const m = WORKING_SET.exec(rest);
		if (m) {
			const check = numberCheck();
			const mb = check.num('recommendedMaxWorkingSetSize', m[1], 'mib');
			return withCheck(mb === undefined || mb === 0 ? [] : [{type: 'gpu-limit', limitBytes: Math.round(mb * 1e6)}], check);
		}
	} else if (last === 85 /* U: `… to GPU` */) {
		const m = OFFLOADED.exec(rest);
		if (m) return offloaded(m);
		if (rest.includes('offloading')) return [];
	}
	const c = rest.charCodeAt(0);
	if (c === 108 /* l */ && (rest.includes(': n_ctx') || rest.includes(': n_seq_max'))) {
		const m = N_CTX.exec(rest);
		if (m) {
			const check = numberCheck();
			const n = check.count(m[1]!, m[2]);
			if (n === undefined) return withCheck([], check);
			if (m[1] === 'n_ctx') return [{type: 'context', nCtx: n}];
			if (m[1] === 'n_seq_max') return [{type: 'context', slots: n}];
			return [{type: 'context', nCtxPerSlot: n}];
		}
	}
	if (rest.includes("'") && (rest.includes('speculative') || rest.includes('draft'))) {
		let m = DRAFT_MODEL.exec(rest);
		if (m) return [{type: 'spec-init', kind: 'draft-model', detail: m[1]}];
		m = MTP.exec(rest);
		if (m) return [{type: 'spec-init', kind: 'mtp', detail: m[1]}];
		m = SPEC_TYPE.exec(rest);
		if (m) return [{type: 'spec-init', kind: specKind(m[1]!), detail: m[1]}];
	}
	if (c === 115 /* s */ && rest.startsWith('statistics')) {
		if (STATS.test(rest)) return [];
	} else if (c === 109 /* m */ && rest.startsWith('main: server is listening on')) {
		const m = LISTEN.exec(rest);
		return [{type: 'server-start', listen: m?.[1]}];
	}
	// `name: message` library lines (llama_model_loader:, print_info:, load_tensors: …).
	if (LIBRARY_LINE.test(rest)) return [];
	return null;
}

/** `send_error` / `stop: cancel task`: the task's request failed or was cancelled. */
function taskEnd(s: LlamaState, keyPrefix: string, task: string, outcome: 'error' | 'cancelled', error?: string): Ev[] {
	const key = s.keyOfTask.get(taskIdOfText(keyPrefix, task));
	if (key === undefined) return [];
	const t = tallyOf(s, key);
	// An error outranks the cancel llama-server sends after it (errors.log: send_error, release, cancel).
	if (t.outcome === 'error') return [];
	// A cancel after the request closed normally changes nothing (its figures are complete).
	if (outcome === 'cancelled' && s.finished.has(key)) return [];
	t.outcome = outcome;
	const fields: Record<string, unknown> = {outcome};
	if (error !== undefined) fields.error = error.slice(0, 200);
	const out: Ev[] = [req(s, key, undefined, undefined, fields)];
	if (error !== undefined) {
		const m = EXCEEDS.exec(error);
		if (m) out.push({type: 'agent-signal', signal: clean({kind: 'context-exceeded', key, evidence: evidenceOf(`error: ${error}`), prompt: finite(m[1]), window: finite(m[2])})} as Ev);
		else if (error.startsWith('context shift is disabled')) out.push({type: 'agent-signal', signal: {kind: 'context-exceeded', key, evidence: evidenceOf(`error: ${error}`)}} as Ev);
		else if (DOES_NOT_MATCH.test(error)) out.push({type: 'agent-signal', signal: {kind: 'tool-call-failed', key, evidence: evidenceOf(`error: ${error}`)}} as Ev);
	}
	return out;
}

/**
 * tools/server/server-context.cpp @ 3f545be (ngxson/llama.cpp; b10587, fixture verbose-overload.log),
 * debug level (`-v`) only: SRV_DBG("no slot is available, defer task, id_task = %d\n", task.id) and
 * SRV_DBG("decoding, decline task, id_task = %d\n", task.id) (offered again after the decode). The
 * first of them is when the task began to wait.
 * Every internal task is declined during each decode too, so declines live in a short FIFO of their
 * own; a defer (completion tasks only) takes the time of its task's decline, which came just before.
 */
function deferLine(s: LlamaState, msg: string, keyPrefix: string): Ev[] {
	const m = DEFER.exec(msg);
	if (!m) return [];
	const id = taskIdOfText(keyPrefix, m[1]!);
	const at = lineRel(s) ?? Number.NaN;
	if (msg.startsWith('decoding')) {
		if (!s.declinedAt.has(id)) s.declinedAt.set(id, at);
		if (s.declinedAt.size > 64) s.declinedAt.delete(s.declinedAt.keys().next().value!);
	} else if (!s.deferredAt.has(id)) {
		s.deferredAt.set(id, s.declinedAt.get(id) ?? at);
		if (s.deferredAt.size > 256) s.deferredAt.delete(s.deferredAt.keys().next().value!);
	}
	return [];
}

/** A `srv  <fn>: <msg>` / `que …` / `main: …` line: errors, cancels, defers, access lines, the server's start and model. */
function tagged(s: LlamaState, fn: string, msg: string, keyPrefix = ''): Ev[] | null {
	let m: RegExpExecArray | null;
	if (fn === 'send_error') {
		m = SEND_ERROR.exec(msg);
		return m ? taskEnd(s, keyPrefix, m[1]!, 'error', m[2]) : [];
	}
	if (fn === 'stop' && msg.startsWith('cancel task')) {
		m = CANCEL.exec(msg);
		return m ? taskEnd(s, keyPrefix, m[1]!, 'cancelled') : [];
	}
	if (fn === 'process_sing' && (msg.startsWith('no slot is available, defer task') || msg.startsWith('decoding, decline task'))) return deferLine(s, msg, keyPrefix);
	if (fn === 'log_server_r') {
		m = REQUEST.exec(msg);
		if (m) return [{type: 'http', method: m[1]!, path: m[2]!, client: m[3]!, status: Number(m[4])}];
		return [];
	}
	if (s.requestsThisRun && (msg.startsWith('listening on') || msg.startsWith('loading model') || msg.startsWith('model loaded'))) newRun(s);
	if (msg.startsWith('listening on')) {
		m = LISTEN.exec(msg);
		return [{type: 'server-start', listen: m?.[1]}];
	}
	if (msg.startsWith('model loaded')) return [{type: 'model-loaded', model: s.modelOf?.() ?? s.modelName, runner: s.runner}];
	if (msg.startsWith('loading model')) {
		m = LOADING.exec(msg);
		if (m) s.modelName = own(m[1]);
		return [];
	}
	if (msg.startsWith('initializing')) {
		m = INIT_SLOTS.exec(msg);
		if (m) {
			const check = numberCheck();
			const slots = check.num('n_slots', m[1], 'count', WHOLE);
			const perSlot = check.count('n_ctx_slot', m[2]);
			const ev: Record<string, unknown> = {type: 'context'};
			if (slots !== undefined) ev.slots = slots;
			if (perSlot !== undefined) ev.nCtxPerSlot = perSlot;
			return withCheck(Object.keys(ev).length > 1 ? [ev as unknown as Ev] : [], check);
		}
		return [];
	}
	if (msg.startsWith('statistics')) return [];
	const lib = library(msg);
	if (lib && lib.length > 0) return lib;
	return [];
}

/** One raw line: strip the router-child, timestamp and level prefixes, then hand it to its kind. */
/** What matchSlot read of the last line it matched (one object, reused: no allocation a line). */
export const SLOT_MATCH = {
	fn: '',
	/** The line matched, and where its message starts. */
	line: '',
	at: 0,
	slot: undefined as number | undefined,
	task: undefined as number | undefined,
	/** The message (cut out of the line when asked for: the parser reads it in place). */
	get msg(): string {
		return this.line.slice(this.at);
	},
};

/** `\s` of a regex without the u flag (what SLOT's `\S` excludes). */
function isSpace(c: number): boolean {
	return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
/** What `.` does not match (SLOT's `(.*)$`: a line with one of these matches not at all). */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/g;

/**
 * The function names of slot lines seen so far (the first FN_KEPT): a log has a handful
 * (`print_timing`, `launch_slot_`, `get_availabl`, `release`…), so matchSlot gives one string each
 * rather than a new slice a line (issue 32). `fnLast` is the last one given (a request's
 * print_timing lines come in a row).
 */
const FN_KEPT = 16;
const fnSeen: string[] = [];
let fnLast = '';

/** line.slice(a, b), or the equal string kept from an earlier line. */
function fnOf(line: string, a: number, b: number): string {
	const n = b - a;
	if (fnLast.length === n && line.startsWith(fnLast, a)) return fnLast;
	for (let k = 0; k < fnSeen.length; k++) {
		const f = fnSeen[k]!;
		if (f.length === n && line.startsWith(f, a)) return (fnLast = f);
	}
	const f = line.slice(a, b);
	if (fnSeen.length < FN_KEPT) fnSeen.push(f);
	return (fnLast = f);
}

/** The digits at [a, b) as a number (exact below 16 digits; longer through Number, as the regex's captures were). */
function digitsValue(line: string, a: number, b: number): number {
	if (b - a > 15) return Number(line.slice(a, b));
	let v = 0;
	for (let i = a; i < b; i++) v = v * 10 + (line.charCodeAt(i) - 48);
	return v;
}

/**
 * SLOT.exec(line.slice(from)) for a line that starts with `slot ` at `from`, without the regex's
 * match array (nor the cut of the line): true and SLOT_MATCH filled where the regex matches (the
 * same fn, msg, and slot and task as finite numbers of its captures), false where it does not.
 */
export function matchSlot(line: string, from = 0): boolean {
	const n = line.length;
	let i = from + 5;
	while (i < n && line.charCodeAt(i) === 32) i++;
	// `(\S+): `: the run of non-space characters must end in `:` and be followed by a space.
	let j = i;
	for (; j < n; j++) {
		// printable ASCII but the space is never `\s`: one comparison for a function name's letters, no call
		const c = line.charCodeAt(j);
		if (c > 32 && c < 127) continue;
		if (isSpace(c)) break;
	}
	if (j >= n || line.charCodeAt(j) !== 32 || j - 1 <= i || line.charCodeAt(j - 1) !== 58) return false;
	const fnEnd = j - 1;
	let p = j + 1;
	let slot: number | undefined;
	let task: number | undefined;
	// `(?:id +(\d+) \| task (-?\d+) \| ?)?`
	if (line.startsWith('id ', p)) {
		let q = p + 3;
		while (q < n && line.charCodeAt(q) === 32) q++;
		const sa = q;
		// the digits' value read as they are stepped over (digitsValue's, without a second pass)
		let sv = 0;
		for (let c = line.charCodeAt(q); q < n && c >= 48 && c <= 57; c = line.charCodeAt(++q)) sv = sv * 10 + (c - 48);
		if (q > sa && line.startsWith(' | task ', q)) {
			const sb = q;
			q += 8;
			const neg = line.charCodeAt(q) === 45;
			if (neg) q++;
			const ta = q;
			let tv = 0;
			for (let c = line.charCodeAt(q); q < n && c >= 48 && c <= 57; c = line.charCodeAt(++q)) tv = tv * 10 + (c - 48);
			if (q > ta && line.startsWith(' |', q)) {
				const tb = q;
				q += 2;
				if (line.charCodeAt(q) === 32) q++;
				// exact below 16 digits; longer through Number, as the regex's captures were
				if (sb - sa > 15) sv = Number(line.slice(sa, sb));
				if (tb - ta > 15) tv = Number(line.slice(ta, tb));
				slot = Number.isFinite(sv) ? sv : undefined;
				task = Number.isFinite(tv) ? (neg ? -tv : tv) : undefined;
				p = q;
			}
		}
	}
	// `(.*)$`: no line terminator in the message (searched from p in the line: no slice to search)
	LINE_TERMINATOR.lastIndex = p;
	if (LINE_TERMINATOR.test(line)) return false;
	SLOT_MATCH.fn = fnOf(line, i, fnEnd);
	SLOT_MATCH.line = line;
	SLOT_MATCH.at = p;
	SLOT_MATCH.slot = slot;
	SLOT_MATCH.task = task;
	return true;
}

function pushLine(s: LlamaState, raw: string): EngineEvent[] | null {
	if (raw.length === 0 || raw.length > MAX_PARSE_CHARS) return null;
	let line = raw;
	let keyPrefix = '';
	let c = line.charCodeAt(0);
	if (c === 91 /* [ */) {
		const m = CHILD.exec(line);
		if (m) {
			keyPrefix = `${m[1]}:`;
			line = line.slice(m[0].length);
			c = line.charCodeAt(0);
		}
	}
	// The stamp and the level are stepped over, and the line cut once (each cut is a new string).
	s.stamped = undefined;
	let at = 0;
	if (c >= 48 && c <= 57 /* digit */) {
		at = timestampLength(line);
		if (at > 0) {
			s.stamped = line;
			c = line.charCodeAt(at);
		}
	}
	// Level letter `I `/`W `/`E `/`D `.
	if ((c === 73 || c === 87 || c === 69 || c === 68) && line.charCodeAt(at + 1) === 32) {
		if (c === 68) s.debugSeen = true;
		at += 2;
		c = line.charCodeAt(at);
	}
	// A slot line is read where it starts (no cut of the stamp and level: matchSlot cuts its message once).
	if (c === 115 /* s */ && line.startsWith('slot ', at) && matchSlot(line, at)) {
		const m = SLOT_MATCH;
		if (s.pending && !(m.fn === 'print_timing' && m.at === line.length)) s.pending = undefined;
		return slotMessage(s, m.fn, line, m.at, m.slot, m.task, keyPrefix);
	}
	if (at > 0) line = line.slice(at);
	if (c >= 97 && c <= 122 && (line.charCodeAt(3) === 32 || line.charCodeAt(4) === 32)) {
		const m = TAGGED.exec(line);
		if (m) {
			s.pending = undefined;
			return tagged(s, m[1]!, m[2]!, keyPrefix);
		}
	}
	// Bare continuation lines of the pre-b9232 timings block.
	if (c === 32 || c === 112 || c === 101 || c === 116 || c === 100 || c === 103 || c === 97) {
		if (line.includes(' = ')) {
			const p = s.pending;
			const t = timing(s, line, 0, p?.key ?? s.lastKey ?? `${keyPrefix}s?/t?`, p?.slot, p?.task);
			if (t) return t;
		}
	}
	if (c === 9 /* tab: sampler params continuation */) return [];
	if (s.pending) s.pending = undefined;
	if (c === 99 /* c */ && line.includes(': unparsed ')) {
		const m = UNPARSED.exec(line);
		if (m) return [{type: 'agent-signal', signal: {kind: 'tool-call-failed', evidence: evidenceOf(line)}}];
	}
	return library(line);
}

export function createLlamaCppParser(options: LlamaCppParserOptions = {}): LineParser {
	const s = newLlamaState(options);
	return {
		engine: 'llamacpp',
		push(line) {
			const events = pushLine(s, line);
			// What the line was read from is let go once it is parsed: a line is a slice of its read's
			// decoded chunk (~25 KB at 100 requests a second), and a slice kept here until the next line
			// of this log (a read 250 ms later) kept the chunk alive through V8's scavenges (issue 32).
			s.stamped = undefined;
			SLOT_MATCH.line = '';
			return events;
		},
	};
}

/**
 * A leading llama.cpp stamp — common/log.cpp (ngxson/llama.cpp @ 3f545be): `"%d.%02d.%03d.%03d "`,
 * minutes.seconds.ms.µs since the process started — with at most 6 digits of minutes. A regex, not
 * a loop of character tests: under the app's interpreter (no TurboFan) a regex test costs ~35 ns, a
 * JS loop over the same twelve characters ~250 ns (issue 32). STAMP_AT is sticky (at lastIndex 0:
 * the start) so that `test` leaves the stamp's end in lastIndex: no match array.
 */
const STAMP_AT = /\d{1,6}\.\d{2}\.\d{3}\.\d{3} /y;
const STAMP = /^(\d{1,6})\.(\d{2})\.(\d{3})\.(\d{3}) /;

/** Length of a leading `M.SS.mmm.uuu ` timestamp, 0 if none. */
export function timestampLength(s: string): number {
	STAMP_AT.lastIndex = 0;
	return STAMP_AT.test(s) ? STAMP_AT.lastIndex : 0;
}

/**
 * The process-relative time of the line being parsed, in ms, where its stamp is followed by a
 * level letter: what log-time.ts processRelativeMs reads (its PROCESS_TIME: `[IWEDT] ` after the
 * stamp), the same sums of the same numbers in the same order, so the same double. Read only where
 * a line needs it (queue times of `-v` logs), not for every line.
 */
function lineRel(s: LlamaState): number | undefined {
	const line = s.stamped;
	if (line === undefined) return undefined;
	const m = STAMP.exec(line);
	if (m === null) return undefined;
	const n = m[0].length;
	const level = line.charCodeAt(n);
	if ((level === 73 || level === 87 || level === 69 || level === 68 || level === 84) && line.charCodeAt(n + 1) === 32) {
		return (+m[1]! * 60 + +m[2]!) * 1000 + +m[3]! + +m[4]! / 1000;
	}
	return undefined;
}

/** The closing patch's fields without an estimate (one object for every such close). */
const DONE: Readonly<Record<string, unknown>> = Object.freeze({done: true});

/**
 * The prompt a default-verbosity log does not state (engines.md §2a, v2 partial-reuse captures):
 * at `stop processing: n_tokens = N` the slot holds cached + evaluated + generated − 1 tokens, so
 * prompt = N + 1 − generated and cached = prompt − evaluated. Only for a request that finished
 * normally with both counts logged (a cancelled or failed one holds other tokens), only where the
 * log did not state them, cross-checked against `f_sim_best` (= LCP / prompt, `%.3f`) where the
 * slot was picked by similarity; an estimate (`~`), never a stated count.
 * The fields of the closing patch: `done`, then the estimate where there is one (made in one object,
 * not spread into another: issue 32).
 */
function doneFields(t: Tally | undefined, line: string, at: number): Readonly<Record<string, unknown>> {
	if (!estimate(t, line, at)) return DONE;
	const out: Record<string, unknown> = {done: true, promptEstimated: true};
	if (!t!.promptStated) out.promptTokens = estPrompt;
	if (!t!.cachedStated) out.cachedTokens = estCached;
	return out;
}

/** The estimate the last `estimate` that said yes made. */
let estPrompt = 0;
let estCached = 0;

/** Whether the closing line of a request with tally `t` gives an estimate (doneFields): then estPrompt and estCached. */
function estimate(t: Tally | undefined, line: string, at: number): boolean {
	if (!t || t.outcome !== undefined || t.prefill === undefined || t.generated === undefined) return false;
	if (t.promptStated && t.cachedStated) return false;
	const nTokens = stopTokensOf(line, at);
	if (nTokens === undefined) return false;
	const prompt = nTokens + 1 - t.generated;
	const cached = prompt - t.prefill;
	if (!Number.isFinite(prompt) || prompt < 1 || cached < 0) return false;
	// f_sim_best is the LCP share of the prompt; the cache reuses at most the LCP (full reuse keeps one token back).
	if (t.fSim !== undefined && Math.abs(cached / prompt - t.fSim) > 0.0005 + 1 / prompt) return false;
	estPrompt = prompt;
	estCached = cached;
	return true;
}

/**
 * The closing patch of a request: req(s, key, slot, task, doneFields(t, line, at)), and for a bare
 * patch (see `bare`) the same fields in the same order as one literal: the fields object and the
 * patch grown key by key from it were ~250 B allocated a request that closed with an estimate (the
 * busy log's usual close at default verbosity; the parser over the traffic bench's lines).
 */
function closing(s: LlamaState, key: string, slot: number | undefined, task: number | undefined, t: Tally | undefined, line: string, at: number): Ev {
	if (!bare(s, slot, task)) return req(s, key, slot, task, doneFields(t, line, at));
	if (!estimate(t, line, at)) return {type: 'request', key, slot, task, done: true} as Ev;
	const promptTokens = estPrompt;
	const cachedTokens = estCached;
	if (!t!.promptStated && !t!.cachedStated) return {type: 'request', key, slot, task, done: true, promptEstimated: true, promptTokens, cachedTokens} as Ev;
	return (t!.promptStated ? {type: 'request', key, slot, task, done: true, promptEstimated: true, cachedTokens} : {type: 'request', key, slot, task, done: true, promptEstimated: true, promptTokens}) as Ev;
}

function specKind(type: string): string {
	if (type.includes('dspark')) return 'dspark';
	if (type.includes('dflash')) return 'dflash';
	if (type.includes('mtp')) return 'mtp';
	if (type.includes('eagle')) return 'eagle3';
	if (type.startsWith('ngram')) return 'ngram';
	return type;
}

// ---- the engine unit ----------------------------------------------------------------------------

/** Largest `id_task` in `/slots`: it only grows within one llama-server process. */
export function maxSlotTask(slots: unknown): number | undefined {
	if (!Array.isArray(slots)) return undefined;
	let max: number | undefined;
	for (const s of slots) if (isRecord(s) && typeof s.id_task === 'number' && s.id_task >= 0) max = Math.max(max ?? -1, s.id_task);
	return max;
}

/** llama-server `/props` + `/slots` + `/v1/models` → the one model it serves. */
export function llamaServerModels(props: unknown, slots: unknown, models: unknown): ModelInfo[] | undefined {
	const p = isRecord(props) ? props : undefined;
	const list = isRecord(models) && Array.isArray(models.data) ? (models.data as unknown[]).filter(isRecord) : [];
	if (!p && list.length === 0) return undefined;
	const first = list[0];
	const meta = first && isRecord(first.meta) ? first.meta : {};
	const slotList = Array.isArray(slots) ? slots.filter(isRecord) : [];
	const dgs = p && isRecord(p.default_generation_settings) ? p.default_generation_settings : {};
	const perSlot = posInt(slotList[0]?.n_ctx, 'n_ctx') ?? posInt(dgs.n_ctx, 'n_ctx') ?? posInt(meta.n_ctx, 'n_ctx');
	const slotCount = posInt(p?.total_slots, 'total_slots', 'count') ?? (slotList.length > 0 ? slotList.length : undefined);
	const name = text(first?.id) ?? text(p?.model_alias) ?? text(p?.model_path);
	if (!name) return [];
	return [clean<ModelInfo>({
		name,
		modelPath: text(p?.model_path, 1024),
		format: 'gguf',
		quantization: text(p?.model_ftype, 32) ?? text(meta.ftype, 32),
		slots: slotCount,
		contextPerSlot: perSlot,
		contextLength: perSlot,
		modelBytes: posInt(meta.size, 'size', 'bytes'),
		parameterCount: posInt(meta.n_params, 'n_params', 'params'),
		loaded: true,
	})];
}

/** Parse `llamacpp:<name> <value>` counters out of Prometheus text. */
export function llamaMetricsCounters(body: string): Record<string, number> {
	const out: Record<string, number> = {};
	for (const line of body.split('\n')) {
		const m = /^llamacpp:([a-z_]+_total) ([0-9.eE+-]+)\s*$/.exec(line);
		if (m && m[1] !== undefined) {
			const v = Number(m[2]);
			if (Number.isFinite(v)) out[m[1]] = v;
		}
	}
	return out;
}

const LLAMA_SERVER_HEADER = /^llama\.cpp\b/i;
const BUILD_INFO = /^b\d+-[0-9a-f]+$/;

/** llama-server `/props` (with default_generation_settings). */
function llamaProps(e: FingerprintEvidence): Record<string, unknown> | undefined {
	const j = e.json('/props');
	return isRecord(j) && isRecord(j.default_generation_settings) ? j : undefined;
}

/** `/props` build_info of the form b<N>-<sha>. */
function llamaBuild(e: FingerprintEvidence): string | undefined {
	const props = llamaProps(e);
	return props && typeof props.build_info === 'string' && BUILD_INFO.test(props.build_info) ? props.build_info : undefined;
}

/**
 * llama-server's per-request `timings` (engines.md §2e: `server_slot_stats::to_json()`,
 * tools/server/server-common.cpp @ 3f545be): milliseconds and counts; its prompt = prompt_n + cache_n.
 */
export const LLAMA_TIMINGS: AnswerBlock = {
	field: 'timings',
	read: (t, {counts, num}) => {
		counts.source = 'timings';
		const predicted = num('timings.predicted_n', t.predicted_n, 'count');
		if (predicted !== undefined) counts.completionTokens = predicted;
		const cache = num('timings.cache_n', t.cache_n, 'count');
		const promptN = num('timings.prompt_n', t.prompt_n, 'count');
		if (cache !== undefined) counts.cachedTokens = cache;
		if (promptN !== undefined) {
			counts.prefillTokens = promptN;
			counts.promptTokens = promptN + (cache ?? 0);
		}
		counts.prefillMs = num('timings.prompt_ms', t.prompt_ms, 'ms') ?? counts.prefillMs;
		counts.decodeMs = num('timings.predicted_ms', t.predicted_ms, 'ms') ?? counts.decodeMs;
		counts.reportedTps = num('timings.predicted_per_second', t.predicted_per_second, 'rate') ?? counts.reportedTps;
		const dn = num('timings.draft_n', t.draft_n, 'count');
		const da = num('timings.draft_n_accepted', t.draft_n_accepted, 'count');
		if (dn !== undefined) counts.drafted = dn;
		if (da !== undefined) counts.accepted = da;
	},
	// The first of predicted_n comes out of the prompt pass in every build (decodedFromEval).
	passes: {label: 'timings', firstTokenFromPrompt: true, noDraftIsOnePerPass: true},
};

/** `b10587-3f545be` → 10587. */
export function llamaBuildNumber(fingerprint: string | undefined): number | undefined {
	const m = fingerprint === undefined ? null : /^b(\d+)(?:-|$)/.exec(fingerprint);
	return m ? Number(m[1]) : undefined;
}

/** llama-server's build in each answer's `system_fingerprint` (`b10587-3f545be`). */
export const LLAMA_BUILD_STAMP: AnswerStamp = {
	field: 'system_fingerprint',
	read: (value, counts) => {
		const build = llamaBuildNumber(value);
		if (build !== undefined) counts.llamaBuild = build;
	},
};

export const llamacpp: EngineDescriptor<'llamacpp'> = {
	kind: 'llamacpp',
	label: 'llama.cpp',
	logParser: () => createLlamaCppParser(),
	// Its timestamps count from process start: no wall-clock time in the line.
	logSignature: {
		rules: [
			{weight: 4, test: l => /^(?:\[\s*\d+\] )?(?:\d+\.\d{2}\.\d{3}\.\d{3} )?(?:[IWED] )?(?:slot +\S+: id +\d+ \| task|srv +\S+: |que +\S+: |spec +\S+: |cmn +\S+: )/.test(l)},
			{weight: 2, test: l => /^(?:llama_model_loader|load_tensors|llama_context|print_info|llama_kv_cache|sched_reserve|main): /.test(l)},
		],
	},
	logTimes: ['process'],
	poll: {
		paths: ['/props', '/slots', '/v1/models'],
		identityRaw: {path: '/metrics', maxBytes: 64 * 1024},
		read: ({json, raw}) => {
			const p = json['/props'];
			const s = json['/slots'];
			const version = isRecord(p) ? text(p.build_info, 64) : undefined;
			const marker: RestartMarker = raw
				? {taskId: maxSlotTask(s), version, startTime: raw.headers['process-start-time-unix'], counters: llamaMetricsCounters(raw.body)}
				: {taskId: maxSlotTask(s), version};
			return {models: llamaServerModels(p, s, json['/v1/models']), version, marker};
		},
	},
	probe: OPENAI_PROBE,
	answerBlocks: [LLAMA_TIMINGS],
	answerStamps: [LLAMA_BUILD_STAMP],
	apiKeyEnv: ['LLAMA_API_KEY'],
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	oneModel: true,
	slotContext: true,
	// common/arg.cpp @ 3f545be: `-c, --ctx-size`, `-np, --parallel`, `--context-shift`.
	agentFixes: {
		contextLength: (tokens) => `-c ${tokens}`,
		parallel: '-np 2 (with -c doubled: each slot gets -c ÷ -np)',
		contextShift: '--context-shift',
	},
	quickMarks: {serverHeader: /llama\.cpp/i, modelOwner: 'llamacpp'},
	defaultPorts: [8080],
	process: {
		names: ['llama-server'],
		candidates: [/llama/i],
		// llama-server and the llama.cpp tools that load a model (they compete for the same GPU).
		matches: ({nameLower: nl, exeLower: el}) => /^llama-(server|cli|bench|batched-bench|speculative|run)$/.test(el) || nl === 'llama-server',
		// llama.cpp tools other than llama-server, and the llama-server Ollama ≥ 0.30 runs from its install folder, are not servers.
		isServer: (name, cmd) => {
			const first = processBase(cmd.trim().split(/\s+/)[0] ?? '');
			if (processBase(name.trim()) !== 'llama-server' && first !== 'llama-server') return false;
			return !/[\\/](?:\.?ollama|Ollama\.app)[\\/]/i.test(cmd.trim());
		},
		childOf: 'ollama',
		logFileFlag: '--log-file',
	},
	modelBytes: {ggufFromProps: true, fileSizeFromModels: true},
	// `Server: llama.cpp`, or /props with build_info b<N>-<sha> + default_generation_settings.
	fingerprint: {
		rank: 50,
		paths: ['/props', '/v1/models'],
		marker: (e) => e.serverHeader(LLAMA_SERVER_HEADER) || llamaBuild(e) !== undefined || e.ownedBy('llamacpp'),
		identify: (e) => {
			if (!e.serverHeader(LLAMA_SERVER_HEADER) && llamaBuild(e) === undefined && !e.ownedBy('llamacpp')) return undefined;
			const props = llamaProps(e);
			return {version: llamaBuild(e) ?? (props ? text(props.build_info, 80) : undefined), models: e.modelIds};
		},
	},
};
