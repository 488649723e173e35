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

/** The valid value, or undefined (absent or invalid) — where the caller does not count problems. */
export function validNumber(raw: unknown, kind: NumberKind, options?: CheckOptions): number | undefined {
	const c = checkNumber('', raw, kind, options);
	return c.ok ? c.value : undefined;
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

/** A checker for one line or one answer: read every number through it, then ask for reason(). */
export function numberCheck(): NumberCheck {
	const problems: string[] = [];
	const num = (field: string, raw: unknown, kind: NumberKind, options?: CheckOptions): number | undefined => {
		const c = checkNumber(field, raw, kind, options);
		if (c.ok) return c.value;
		problems.push(c.problem);
		return undefined;
	};
	return {
		problems,
		num,
		count: (field, raw) => num(field, raw, 'tokens', {integer: true}),
		fail: problem => {
			problems.push(problem);
		},
		reason: () => (problems.length === 0 ? undefined : problems.join('; ')),
	};
}
