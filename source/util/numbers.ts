/**
 * Every number from outside (a log line, an API answer) is checked where it enters: a value that
 * is not a number, not finite, negative, or beyond a sane bound for what it measures is not a
 * figure. The field becomes unknown and the line or answer is counted as inconsistent, with its
 * reason (DESIGN §1: "counted, never shown"). Pure: no I/O.
 *
 *   const check = numberCheck();
 *   const n = check.count('eval_count', body.eval_count);   // undefined when absent or invalid
 *   if (check.problems.length > 0) → count the answer as inconsistent, reason check.reason()
 */
import {sanitize} from './sanitize.js';

/**
 * Upper bounds, far above anything real, far below what breaks arithmetic: one request or one
 * context never holds a billion tokens (the largest contexts are ~10^7), no single request takes
 * 11 days, no engine decodes a million tokens a second on one machine.
 */
export const BOUNDS = {
	/** Token counts (prompt, cached, generated, drafted, accepted), passes, positions. */
	tokens: 1e9,
	/** Durations in milliseconds (about 11.6 days). */
	ms: 1e9,
	/** Durations in seconds (a load, an uptime). */
	seconds: 1e7,
	/** Rates in tokens per second. */
	tps: 1e6,
	/** Shares 0..1 (acceptance, KV usage, progress). */
	ratio: 1,
	/** Percentages 0..100. */
	percent: 100,
	/** Memory in MiB (a petabyte). */
	mib: 1e9,
	/** Memory or file sizes in bytes (a petabyte). */
	bytes: 1e15,
	/** Requests running or waiting, slots, layers, parameters in billions… small counts. */
	count: 1e7,
	/** Parameter counts (10^13). */
	params: 1e13,
	/** Tokens per pass (a verify step accepts at most a draft's length + 1). */
	perPass: 1e3,
} as const;

export type NumberKind = keyof typeof BOUNDS;

export type Checked = {readonly ok: true; readonly value: number | undefined} | {readonly ok: false; readonly problem: string};

export interface CheckOptions {
	/** The engine itself prints `nan`/`inf` for "no value" (llama.cpp's ms per token over 0 tokens): unknown, not inconsistent. */
	readonly nanIsUnknown?: boolean;
	/** Only whole numbers (token counts, requests). */
	readonly integer?: boolean;
}

const NAN_WORDS = new Set(['nan', '-nan', 'inf', '-inf', '+inf', 'NaN', 'Infinity', '-Infinity', 'None', 'null']);

const show = (raw: unknown): string => {
	const s = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : JSON.stringify(raw) ?? String(raw);
	return sanitize(s, 24);
};

/**
 * One number as it entered: a JSON value or a string a regex captured. Absent (undefined, null,
 * '') → `{ok: true, value: undefined}`: unknown, nothing wrong. Anything else that is not a finite
 * number within 0..BOUNDS[kind] → `{ok: false, problem}`.
 */
export function checkNumber(field: string, raw: unknown, kind: NumberKind, options: CheckOptions = {}): Checked {
	if (raw === undefined || raw === null || raw === '') return {ok: true, value: undefined};
	let n: number;
	if (typeof raw === 'number') n = raw;
	else if (typeof raw === 'string') {
		const s = raw.trim();
		if (options.nanIsUnknown && NAN_WORDS.has(s)) return {ok: true, value: undefined};
		n = s === '' ? Number.NaN : Number(s);
	} else return {ok: false, problem: `${field}=${show(raw)} is not a number`};
	if (!Number.isFinite(n)) return {ok: false, problem: `${field}=${show(raw)} is not a finite number`};
	if (n < 0) return {ok: false, problem: `${field}=${show(raw)} is negative`};
	const max = BOUNDS[kind];
	if (n > max) return {ok: false, problem: `${field}=${show(raw)} is beyond ${max.toExponential().replace('e+', 'e')}`};
	if (options.integer && !Number.isInteger(n)) return {ok: false, problem: `${field}=${show(raw)} is not a whole number`};
	return {ok: true, value: n};
}

/** What `checkedValue` answers for a number checkNumber calls not ok. */
export const INVALID: unique symbol = Symbol('invalid number');

/**
 * checkNumber's verdict without its result object (nor the `{}` of its default options, nor the
 * problem's text): the value (`undefined` when absent or a no-value word), or INVALID where
 * checkNumber is not ok. The same rules in the same order; test/faults/numbers.test.ts checks that
 * both agree on every kind of input. Why: the log parsers read several numbers a line, and the app
 * runs V8 without its optimizing compiler, where each of those temporary objects costs (issue 32).
 */
export function checkedValue(raw: unknown, kind: NumberKind, options?: CheckOptions): number | undefined | typeof INVALID {
	if (raw === undefined || raw === null || raw === '') return undefined;
	let n: number;
	if (typeof raw === 'number') n = raw;
	else if (typeof raw === 'string') {
		const s = raw.trim();
		if (options !== undefined && options.nanIsUnknown && NAN_WORDS.has(s)) return undefined;
		n = s === '' ? Number.NaN : Number(s);
	} else return INVALID;
	if (!Number.isFinite(n) || n < 0 || n > BOUNDS[kind]) return INVALID;
	if (options !== undefined && options.integer && !Number.isInteger(n)) return INVALID;
	return n;
}

/** The valid value, or undefined (absent or invalid) — where the caller does not count problems. */
export function validNumber(raw: unknown, kind: NumberKind, options?: CheckOptions): number | undefined {
	const v = checkedValue(raw, kind, options);
	return v === INVALID ? undefined : v;
}

export interface NumberCheck {
	/** Problems found so far, in the order the fields were read. */
	readonly problems: readonly string[];
	/** A number of `kind`: undefined when absent or invalid (invalid ones are recorded). */
	num(field: string, raw: unknown, kind: NumberKind, options?: CheckOptions): number | undefined;
	/** A whole count of tokens. */
	count(field: string, raw: unknown): number | undefined;
	/** Record a problem found by other means (e.g. two numbers that contradict each other). */
	fail(problem: string): void;
	/** All problems as one line, or undefined when there were none. */
	reason(): string | undefined;
}

const WHOLE: CheckOptions = {integer: true};

/**
 * A checker as a class, not an object of closures: one object a line where there were six, and no
 * problems array until there is a problem (measured with the llama.cpp parser under --no-opt: see
 * source/engines/llamacpp.ts). Same answers, same problems in the same order.
 */
class Check implements NumberCheck {
	private list: string[] | undefined = undefined;
	get problems(): readonly string[] {
		return this.list ?? NO_PROBLEMS;
	}
	num(field: string, raw: unknown, kind: NumberKind, options?: CheckOptions): number | undefined {
		const v = checkedValue(raw, kind, options);
		if (v !== INVALID) return v;
		// Rare: the problem's text from checkNumber itself.
		const c = checkNumber(field, raw, kind, options);
		this.fail(c.ok ? `${field} is invalid` : c.problem);
		return undefined;
	}
	count(field: string, raw: unknown): number | undefined {
		return this.num(field, raw, 'tokens', WHOLE);
	}
	fail(problem: string): void {
		if (this.list === undefined) this.list = [problem];
		else this.list.push(problem);
	}
	reason(): string | undefined {
		return this.list === undefined ? undefined : this.list.join('; ');
	}
}

const NO_PROBLEMS: readonly string[] = Object.freeze([]);

/** A checker for one line or one answer: read every number through it, then ask for reason(). */
export function numberCheck(): NumberCheck {
	return new Check();
}
