/**
 * The llama.cpp parser's hand matches of its per-request lines (issue 32: no regex match array, no
 * cut of the line, no iterator a request under the app's interpreter) give what the regexes and
 * Map orders they replace give: `fSimOf` as F_SIM, `stopTokensOf` as STOP_N_TOKENS, `matchSlot`
 * from an offset as on the cut line, and the KeyRing that finds the oldest task id and finished key
 * as a Map's own order would. On the real captures and on seeded mutations of them; the parser as a
 * whole is compared with the frozen reference in llamacpp-reference.test.ts (and below, on a log
 * long enough to forget task ids).
 */
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser, F_SIM, fSimOf, KeyRing, matchSlot, SLOT_MATCH, STOP_N_TOKENS, stopTokensOf, Tallies} from '../../source/engines/llamacpp.js';
import {finite} from '../../source/engines/answers.js';
import {createReferenceLlamaCppParser} from '../helpers/llamacpp-48848bc.js';
import {mutate, prng} from '../helpers/fuzz.js';
import {corpus, messages} from '../helpers/llamacpp-corpus.js';

const NUMS = ['0', '00', '-1', '.', '..', '1.', '.5', '0.125', '1.000', '9'.repeat(20), '9'.repeat(400), '1e5', 'nan', '', ' 7', '7 ', '٣'];

function variants(lines: readonly string[], seed: number): string[] {
	const rnd = prng(seed);
	const out: string[] = [];
	for (const l of lines) {
		out.push(l, mutate(l, rnd));
		out.push(l.replace(/\d+(?:\.\d+)?/g, d => (rnd() < 0.3 ? NUMS[Math.floor(rnd() * NUMS.length)]! : d)));
		out.push(l.slice(0, Math.floor(rnd() * (l.length + 1))));
	}
	return out;
}

describe('hand matches of the per-request lines', () => {
	const lines = corpus();
	const msgs = messages(lines);
	const all = [...msgs, ...variants(msgs, 11), ...variants(msgs, 12)];

	it('the corpus has the lines they read', () => {
		expect(msgs.filter(m => F_SIM.test(m)).length).toBeGreaterThan(20);
		expect(msgs.filter(m => STOP_N_TOKENS.test(m)).length).toBeGreaterThan(20);
	});

	it('fSimOf: as finite(F_SIM.exec(msg)?.[1])', () => {
		for (const m of [...all, 'selected slot by LCP similarity, f_sim_best = ', 'selected slot by LCP similarity, f_sim_best = 1.2.3 (', 'selected slot by LCP similarity, f_sim_best = .']) {
			const want = finite(F_SIM.exec(m)?.[1]);
			expect(Object.is(fSimOf(m), want), JSON.stringify(m)).toBe(true);
		}
	});

	it('fSimOf and stopTokensOf from an offset: as on the message cut there', () => {
		const rnd = prng(17);
		for (const m of all) {
			const pad = 'x'.repeat(Math.floor(rnd() * 40));
			expect(Object.is(fSimOf(`${pad}${m}`, pad.length), fSimOf(m)), JSON.stringify(m)).toBe(true);
			expect(Object.is(stopTokensOf(`${pad}${m}`, pad.length), stopTokensOf(m)), JSON.stringify(m)).toBe(true);
		}
	});

	it('stopTokensOf: as Number(STOP_N_TOKENS.exec(msg)?.[1])', () => {
		for (const m of [...all, 'stop processing: n_tokens = ', 'stop processing: n_tokens = 0007, truncated = 1', `stop processing: n_tokens = ${'9'.repeat(30)}`]) {
			const r = STOP_N_TOKENS.exec(m);
			const want = r ? Number(r[1]) : undefined;
			expect(Object.is(stopTokensOf(m), want), JSON.stringify(m)).toBe(true);
		}
	});

	it('matchSlot from an offset: as on the line cut there', () => {
		const rnd = prng(5);
		const slotLines = [...lines, ...variants(lines, 13)].flatMap(l => {
			const at = l.indexOf('slot ');
			return at < 0 ? [] : [{l, at}];
		});
		expect(slotLines.length).toBeGreaterThan(1000);
		for (const {l, at} of slotLines) {
			for (const cut of [at, Math.max(0, at - Math.floor(rnd() * 3))]) {
				const rest = l.slice(cut);
				if (!rest.startsWith('slot ')) continue;
				const read = () => ({fn: SLOT_MATCH.fn, msg: SLOT_MATCH.msg, slot: SLOT_MATCH.slot, task: SLOT_MATCH.task});
				const a = matchSlot(rest) ? read() : null;
				const b = matchSlot(l, cut) ? read() : null;
				// where the message starts in the line it was read from
				if (b) expect(SLOT_MATCH.line.slice(SLOT_MATCH.at)).toBe(b.msg);
				expect(b, JSON.stringify(l)).toEqual(a);
				if (a && b) expect(Object.is(a.task, b.task) && Object.is(a.slot, b.slot)).toBe(true);
			}
		}
	});

	it('matchSlot gives the same function name text (one string kept for each)', () => {
		const line = 'slot print_timing: id  0 | task 7 | n_gen = 1, tg = 2.00 t/s';
		expect(matchSlot(line)).toBe(true);
		const first = SLOT_MATCH.fn;
		expect(matchSlot(`0.00.001.002 I ${line}`, 15)).toBe(true);
		expect(SLOT_MATCH.fn).toBe('print_timing');
		expect(SLOT_MATCH.fn).toBe(first);
		// a name of the same length is not taken for it
		expect(matchSlot('slot print_timinG: id  0 | task 7 | x')).toBe(true);
		expect(SLOT_MATCH.fn).toBe('print_timinG');
		expect(matchSlot('slot launch_slot_: id  0 | task 7 | processing task')).toBe(true);
		expect(SLOT_MATCH.fn).toBe('launch_slot_');
		// many distinct names (past those kept): each still its own text
		for (let i = 0; i < 40; i++) {
			expect(matchSlot(`slot fn${i}: id  0 | task 7 | x`)).toBe(true);
			expect(SLOT_MATCH.fn).toBe(`fn${i}`);
		}
	});
});

describe('KeyRing: the oldest key first, as a Map that only loses its oldest', () => {
	it('in order, bounded, cleared', () => {
		const ring = new KeyRing(3);
		expect(ring.shift()).toBeUndefined();
		ring.push('a');
		ring.push('b');
		ring.push('c');
		expect(() => ring.push('d')).toThrow();
		expect(ring.shift()).toBe('a');
		ring.push('d');
		expect([ring.shift(), ring.shift(), ring.shift(), ring.shift()]).toEqual(['b', 'c', 'd', undefined]);
		ring.push('e');
		ring.clear();
		expect(ring.size).toBe(0);
		ring.push('f');
		expect(ring.shift()).toBe('f');
	});

	it('as Map order, seeded: adds of new and known keys, the oldest dropped past a size', () => {
		const rnd = prng(21);
		const map = new Map<string, number>();
		const ring = new KeyRing(65);
		for (let i = 0; i < 20_000; i++) {
			const k = `t${Math.floor(rnd() * 200)}`;
			if (!map.has(k)) ring.push(k);
			map.set(k, i);
			if (map.size > 64) {
				const oldest = map.keys().next().value!;
				expect(ring.shift()).toBe(oldest);
				map.delete(oldest);
			}
			if (rnd() < 0.001) {
				map.clear();
				ring.clear();
			}
		}
	});
});

describe('Tallies: a Map whose newest entry is held apart', () => {
	it('as a Map, seeded: gets, adds, re-adds, deletes, clears, the oldest dropped past a size', () => {
		const rnd = prng(23);
		const map = new Map<string, {prefill: number}>();
		const t = new Tallies();
		const oldest = () => map.keys().next().value;
		for (let i = 0; i < 50_000; i++) {
			const k = `k${Math.floor(rnd() * (rnd() < 0.5 ? 6 : 80))}`;
			const r = rnd();
			if (r < 0.4) expect(t.get(k)).toBe(map.get(k));
			else if (r < 0.7) {
				const v = {prefill: i};
				map.set(k, v);
				t.set(k, v);
			} else if (r < 0.95) {
				map.delete(k);
				t.delete(k);
			} else if (r < 0.999) {
				if (map.size > 20) {
					expect(t.oldest()).toBe(oldest());
					map.delete(oldest()!);
					t.delete(t.oldest()!);
				}
			} else {
				map.clear();
				t.clear();
			}
			expect(t.size).toBe(map.size);
		}
		expect(t.oldest()).toBe(oldest());
	});
});

describe('the parser on a log long enough to forget task ids and finished keys', () => {
	it('the same events as the reference: 300 requests open at once on 300 slots (tallies past 256), closed in another order', () => {
		const rnd = prng(31);
		const input: string[] = [];
		const open: number[] = [];
		for (let i = 0; i < 1200; i++) {
			const slot = i % 300;
			const task = 5000 + i;
			input.push(`slot get_availabl: id  ${slot} | task -1 | selected slot by LCP similarity, f_sim_best = 0.${100 + (i % 800)} (> 0.100 thold), f_keep = 0.029`);
			input.push(`slot launch_slot_: id  ${slot} | task ${task} | processing task, is_child = 0`);
			input.push(`slot print_timing: id  ${slot} | task ${task} | prompt eval time =      37.20 ms /    ${12 + (i % 30)} tokens (    3.10 ms per token,   322.58 tokens per second)`);
			open.push(i);
			if (open.length > 280 || rnd() < 0.2) {
				const j = open.splice(Math.floor(rnd() * open.length), 1)[0]!;
				const s = `id  ${j % 300} | task ${5000 + j} |`;
				input.push(`slot print_timing: ${s}        eval time =     902.40 ms /    64 tokens (   14.10 ms per token,    70.92 tokens per second)`);
				input.push(`slot      release: ${s} stop processing: n_tokens = ${110 + (j % 9)}, truncated = 0`);
				if (rnd() < 0.1) input.push(`srv          stop: cancel task, id_task = ${5000 + j}`);
			}
		}
		const fast = createLlamaCppParser();
		const ref = createReferenceLlamaCppParser();
		let differ = 0;
		for (const l of input) if (JSON.stringify(fast.push(l)) !== JSON.stringify(ref.push(l))) differ++;
		expect(differ).toBe(0);
	});

	it('the same events as the reference: errors and cancels of tasks 1 to 400 requests old', () => {
		const rnd = prng(9);
		const block = (i: number): string[] => {
			const slot = i % 4;
			const task = 1000 + i * 3;
			const s = `id  ${slot} | task ${task} |`;
			return [
				`slot get_availabl: id  ${slot} | task -1 | selected slot by LCP similarity, f_sim_best = 0.${String(100 + (i % 800)).padStart(3, '0')} (> 0.100 thold), f_keep = 0.029`,
				`slot launch_slot_: ${s} processing task, is_child = 0`,
				`slot print_timing: ${s} prompt eval time =      37.20 ms /    12 tokens (    3.10 ms per token,   322.58 tokens per second)`,
				`slot print_timing: ${s}        eval time =     902.40 ms /    64 tokens (   14.10 ms per token,    70.92 tokens per second)`,
				`slot      release: ${s} stop processing: n_tokens = ${75 + (i % 7)}, truncated = ${i % 13 === 0 ? 1 : 0}`,
			];
		};
		const input: string[] = [];
		for (let i = 0; i < 1500; i++) {
			input.push(...block(i));
			// an error or a cancel of a task some requests back (kept or forgotten)
			if (rnd() < 0.3) {
				const back = 1000 + 3 * Math.max(0, i - Math.floor(rnd() * 400));
				input.push(rnd() < 0.5 ? `srv    send_error: task id = ${back}, error: request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it` : `srv          stop: cancel task, id_task = ${back}`);
			}
		}
		const fast = createLlamaCppParser();
		const ref = createReferenceLlamaCppParser();
		let differ = 0;
		for (const l of input) if (JSON.stringify(fast.push(l)) !== JSON.stringify(ref.push(l))) differ++;
		expect(differ).toBe(0);
	});
});
