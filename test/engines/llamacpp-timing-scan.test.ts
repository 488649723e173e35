/**
 * The llama.cpp parser reads its two timing lines (`prompt eval time = …`, `eval time = …`) and its
 * live lines (`n_gen = …, tg = … t/s`) by hand
 * where they have their common form (issue 32: no match array, no captured strings, no checker a
 * line). scanTimes must say yes only where the regex matches and every number checks valid, and then
 * give the very numbers the regex's captures give through the number checker; everything else is
 * left to the regex. On the timing lines of every llama.cpp capture we ship, on seeded mutations of
 * them, and on numbers of every awkward form; and the parser as a whole against the frozen reference.
 */
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser, EVAL, LIVE, PROMPT_EVAL, scanLive, scanTimes, SCANNED} from '../../source/engines/llamacpp.js';
import {checkedValue, INVALID, type CheckOptions, type NumberKind} from '../../source/util/numbers.js';
import {createReferenceLlamaCppParser} from '../helpers/llamacpp-48848bc.js';
import {mutate, prng} from '../helpers/fuzz.js';
import {corpus, messages} from '../helpers/llamacpp-corpus.js';

const NUMS = ['0', '00', '-1', '-0', '.', '..', '1.', '.5', '0.125', '1.000', '1.2.3', '0.1', '0.3', '123456789012345', '1234567890123456', '99999999.999999', '9'.repeat(20), '9'.repeat(400), '1000000000', '1000000000.5', '1000001', '1e5', 'nan', '-nan', 'inf', '', ' 7', '7 ', '٣'];
const KINDS: ReadonlyArray<[NumberKind, CheckOptions | undefined]> = [['ms', undefined], ['tokens', {integer: true}], ['ms', {nanIsUnknown: true}], ['tps', {nanIsUnknown: true}]];

/** What the regex path reads: the four checked numbers where it matches and all are valid, else null. */
function viaRegex(msg: string, prompt: boolean): number[] | null {
	const m = (prompt ? PROMPT_EVAL : EVAL).exec(msg);
	if (!m) return null;
	const out: number[] = [];
	for (let k = 0; k < 4; k++) {
		const v = checkedValue(m[k + 1], KINDS[k]![0], KINDS[k]![1]);
		if (v === INVALID || v === undefined) return null;
		out.push(v);
	}
	return out;
}

function variants(lines: readonly string[], seed: number): string[] {
	const rnd = prng(seed);
	const out: string[] = [];
	for (const l of lines) {
		out.push(l, mutate(l, rnd));
		out.push(l.replace(/\d+(?:\.\d+)?/g, d => (rnd() < 0.4 ? NUMS[Math.floor(rnd() * NUMS.length)]! : d)));
		out.push(l.replace(/ +/g, s => (rnd() < 0.2 ? (rnd() < 0.5 ? '' : `${s} `) : s)));
		out.push(l.slice(0, Math.floor(rnd() * (l.length + 1))));
	}
	return out;
}

/** A timing line with each number drawn from NUMS or made at random (fractions of every length). */
function madeLine(rnd: () => number, prompt: boolean): string {
	const num = (whole = false): string => {
		const r = rnd();
		if (r < 0.08) return NUMS[Math.floor(rnd() * NUMS.length)]!;
		const int = String(Math.floor(rnd() * 10 ** Math.floor(rnd() * 8)));
		if (whole && r < 0.9) return int;
		const frac = Math.floor(rnd() * 10);
		return frac === 0 ? int : `${int}.${String(Math.floor(rnd() * 10 ** frac)).padStart(frac, '0')}`;
	};
	const pad = (): string => ' '.repeat(Math.floor(rnd() * 8));
	return prompt
		? `prompt eval time = ${pad()}${num()} ms / ${pad()}${num(true)} tokens (${pad()}${num()} ms per token, ${pad()}${num()} tokens per second)`
		: `       eval time = ${pad()}${num()} ms / ${pad()}${num(true)} ${rnd() < 0.2 ? 'runs ' : 'tokens'} ${pad()}(${pad()}${num()} ms per token, ${pad()}${num()} tokens per second)`;
}

/** A live line (n_gen or n_decoded; with tg_3s or not, or with a broken tg_3s part). */
function madeLive(rnd: () => number): string {
	const num = (whole: boolean): string => {
		if (rnd() < 0.08) return NUMS[Math.floor(rnd() * NUMS.length)]!;
		const int = String(Math.floor(rnd() * 10 ** Math.floor(rnd() * 7)));
		return whole || rnd() < 0.2 ? int : `${int}.${String(Math.floor(rnd() * 100)).padStart(2, '0')}`;
	};
	const pad = (): string => ' '.repeat(Math.floor(rnd() * 5));
	const tail = [``, `, tg_3s = ${pad()}${num(false)} t/s`, `, tg_3s =${pad()}${num(false)} t/s`, `, tg_3s = ${num(false)}`, `, tg_3s = ${num(false)} t/s, later`][Math.floor(rnd() * 5)];
	return `${rnd() < 0.8 ? 'n_gen' : 'n_decoded'} = ${pad()}${num(true)}, tg = ${pad()}${num(false)} t/s${tail}`;
}

/** What the regex path reads of a live line: [n_gen, tg] or [n_gen, tg, tg_3s] where it matches and all are valid, else null. */
function liveViaRegex(msg: string): number[] | null {
	const m = LIVE.exec(msg);
	if (!m) return null;
	const kinds: ReadonlyArray<[NumberKind, CheckOptions | undefined]> = [['tokens', {integer: true}], ['tps', undefined], ['tps', undefined]];
	const out: number[] = [];
	for (let k = 0; k < 3; k++) {
		const v = checkedValue(m[k + 1], kinds[k]![0], kinds[k]![1]);
		if (v === INVALID || (v === undefined && k < 2)) return null;
		if (v !== undefined) out.push(v);
	}
	return out;
}

describe('scanTimes: the timing lines read by hand as the regexes and the checker read them', () => {
	const msgs = messages(corpus()).map(m => m.replace(/^ +/, ''));
	const timingMsgs = msgs.filter(m => PROMPT_EVAL.test(m) || EVAL.test(m));
	const rnd = prng(41);
	const made = Array.from({length: 4000}, (_, i) => madeLine(rnd, i % 2 === 0).replace(/^ +/, ''));
	const all = [...timingMsgs, ...variants(timingMsgs, 21), ...variants(timingMsgs, 22), ...made];

	it('the corpus has the lines it reads, and the hand read takes most of them', () => {
		expect(timingMsgs.length).toBeGreaterThan(40);
		const taken = timingMsgs.filter(m => scanTimes(m, 0, m.startsWith('prompt')));
		expect(taken.length).toBeGreaterThan(timingMsgs.length * 0.9);
	});

	it('yes only where the regex matches with every number valid, and the same numbers (-0, NaN told apart)', () => {
		let yes = 0;
		for (const m of all) {
			for (const prompt of [true, false]) {
				const want = viaRegex(m, prompt);
				const got = scanTimes(m, 0, prompt) ? SCANNED.slice() : null;
				if (got === null) continue; // left to the regex path: the same answer whatever it is
				yes++;
				expect(want, JSON.stringify(m)).not.toBeNull();
				for (let k = 0; k < 4; k++) expect(Object.is(got[k], want![k]), `${JSON.stringify(m)} #${k}: ${got[k]} vs ${want![k]}`).toBe(true);
			}
		}
		expect(yes).toBeGreaterThan(1000);
	});

	it('from an offset: as on the message cut there', () => {
		const r = prng(7);
		for (const m of all) {
			const pad = 'x'.repeat(Math.floor(r() * 40));
			for (const prompt of [true, false]) {
				const a = scanTimes(m, 0, prompt) ? SCANNED.slice() : null;
				const b = scanTimes(`${pad}${m}`, pad.length, prompt) ? SCANNED.slice() : null;
				expect(b, JSON.stringify(m)).toEqual(a);
			}
		}
	});

	it('scanLive: yes only where LIVE matches with every number valid, and the same numbers', () => {
		const liveMsgs = msgs.filter(m => LIVE.test(m));
		expect(liveMsgs.length).toBeGreaterThan(5);
		const r = prng(43);
		const lines = [...liveMsgs, ...variants(liveMsgs, 23), ...Array.from({length: 4000}, () => madeLive(r))];
		let yes = 0;
		for (const m of lines) {
			const n = scanLive(m, 0);
			const b = `  ${m}`;
			expect(scanLive(b, 2), JSON.stringify(m)).toBe(n);
			if (n === 0) continue;
			yes++;
			const want = liveViaRegex(m);
			expect(want?.length, JSON.stringify(m)).toBe(n);
			for (let k = 0; k < n; k++) expect(Object.is(SCANNED[k], want![k]), `${JSON.stringify(m)} #${k}`).toBe(true);
		}
		expect(yes).toBeGreaterThan(1000);
	});

	it('the parser gives the frozen reference parser\'s events on made and mutated timing blocks', () => {
		const r = prng(99);
		const fast = createLlamaCppParser();
		const ref = createReferenceLlamaCppParser();
		const stamp = (n: number): string => `0.${String(n).padStart(2, '0')}.000.000 I `;
		for (let task = 0; task < 600; task++) {
			const slot = task % 4;
			const head = `slot print_timing: id  ${slot} | task ${task} | `;
			const block = [
				`${stamp(task % 60)}slot launch_slot_: id  ${slot} | task ${task} | processing task`,
				`${stamp(task % 60)}${head}`,
				`${stamp(task % 60)}${head}${madeLive(r)}`,
				`${stamp(task % 60)}${head}  ${madeLive(r)}`,
				`${stamp(task % 60)}${madeLine(r, true)}`,
				`${stamp(task % 60)}${madeLine(r, false)}`,
				`${stamp(task % 60)}${head}${madeLine(r, true)}`,
				`${stamp(task % 60)}${head}${madeLine(r, false)}`,
				`${stamp(task % 60)}slot      release: id  ${slot} | task ${task} | stop processing: n_tokens = ${task}, truncated = 0`,
			];
			for (const line of r() < 0.2 ? block.map(l => mutate(l, r)) : block) {
				expect(JSON.stringify(fast.push(line)), line).toBe(JSON.stringify(ref.push(line)));
			}
		}
	});
});
