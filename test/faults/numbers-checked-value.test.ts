/**
 * util/numbers.ts checkedValue (the checker's verdict without an object, issue 32) agrees with
 * checkNumber on every kind of input, every kind of number and every option; numberCheck (now a
 * class) answers and records its problems as checkNumber words them.
 */
import {describe, expect, it} from 'vitest';
import {BOUNDS, checkNumber, checkedValue, INVALID, numberCheck, validNumber, type CheckOptions, type NumberKind} from '../../source/util/numbers.js';
import {prng} from '../helpers/fuzz.js';

const RAWS: unknown[] = [
	undefined, null, '', ' ', '  12 ', '12', '007', '0', '-0', 0, -0, '-1', -1, '1.5', 1.5, '1.', '.5', '-.5', '1e3', '1E3', '1e999', '-1e999',
	'0x10', '0b11', '0o7', '1_000', '12a', 'a12', '1.2.3', '--1', '+5', 'nan', '-nan', 'NaN', 'inf', '-inf', '+inf', 'Infinity', '-Infinity',
	'None', 'null', ' nan ', '\tinf\n', 'nan ', Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, '99999999999999999999',
	1e9, 1e9 + 1, '1000000000', '1000000001', 1e6, 1e6 + 0.5, 1e15, 1e13, 1e7, 100, 100.5, 1, 1.0000001, true, false, {}, [], [1], {n: 1},
	'\u001b]52;c;aGk=\u0007', '\u00a012\u00a0', '\ufeff12', '１２', BigInt(5) as unknown, Symbol('x') as unknown,
];
const KINDS = Object.keys(BOUNDS) as NumberKind[];
const OPTIONS: Array<CheckOptions | undefined> = [undefined, {}, {integer: true}, {nanIsUnknown: true}, {integer: true, nanIsUnknown: true}, {integer: false, nanIsUnknown: false}];

function agree(raw: unknown, kind: NumberKind, options: CheckOptions | undefined): void {
	let c: ReturnType<typeof checkNumber> | 'throws';
	try {
		c = checkNumber('f', raw, kind, options);
	} catch {
		c = 'throws';
	}
	if (c === 'throws') {
		expect(() => numberCheck().num('f', raw, kind, options)).toThrow();
		return;
	}
	const v = checkedValue(raw, kind, options);
	const what = `${String(raw)} ${kind} ${JSON.stringify(options)}`;
	if (c.ok) expect(v, what).toBe(c.value);
	else expect(v, what).toBe(INVALID);
	expect(validNumber(raw, kind, options), what).toBe(c.ok ? c.value : undefined);
	const check = numberCheck();
	expect(check.num('f', raw, kind, options), what).toBe(c.ok ? c.value : undefined);
	expect(check.problems, what).toEqual(c.ok ? [] : [c.problem]);
	expect(check.reason(), what).toBe(c.ok ? undefined : c.problem);
}

describe('checkedValue = checkNumber without the object', () => {
	it('on every listed input, kind and option', () => {
		for (const raw of RAWS) for (const kind of KINDS) for (const options of OPTIONS) agree(raw, kind, options);
	});

	it('on seeded random numbers and number-like strings around each bound', () => {
		const rnd = prng(32);
		for (let i = 0; i < 5000; i++) {
			const kind = KINDS[Math.floor(rnd() * KINDS.length)]!;
			const max = BOUNDS[kind];
			const x = (rnd() * 2.2 - 0.1) * max * (rnd() < 0.5 ? 1 : 1e-6);
			const n = rnd() < 0.3 ? Math.round(x) : x;
			const raw = rnd() < 0.5 ? n : rnd() < 0.5 ? String(n) : n.toFixed(Math.floor(rnd() * 4));
			agree(raw, kind, OPTIONS[Math.floor(rnd() * OPTIONS.length)]);
		}
	});

	it('a checker keeps every problem in order, count as a whole number of tokens', () => {
		const check = numberCheck();
		expect(check.problems).toEqual([]);
		expect(check.count('a', '12')).toBe(12);
		expect(check.count('b', '1.5')).toBeUndefined();
		expect(check.num('c', '-nan', 'tps', {nanIsUnknown: true})).toBeUndefined();
		expect(check.num('d', '-3', 'ms')).toBeUndefined();
		check.fail('e contradicts f');
		expect(check.problems).toEqual(['b=1.5 is not a whole number', 'd=-3 is negative', 'e contradicts f']);
		expect(check.reason()).toBe('b=1.5 is not a whole number; d=-3 is negative; e contradicts f');
	});
});
