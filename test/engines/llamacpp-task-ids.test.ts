/**
 * Task ids in the llama.cpp parser (keyOfTask, deferredAt, declinedAt) are numbers in a log of one
 * server (issue 32: no string made and kept a request). The keys must meet exactly where the old
 * string keys met: a task started as number n and a line naming it with the digits d (send_error,
 * cancel, defer/decline) are the same task iff d === `${n}`. Checked directly on awkward digits, and
 * the parser as a whole against the frozen reference parser on made logs with errors, cancels and
 * defers naming tasks in every form, with and without a router child's `[port] ` prefix. And the
 * request keys (`s<slot>/t<task>`, the slot's head made once) of slots in every form.
 */
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser, taskIdOf, taskIdOfText} from '../../source/engines/llamacpp.js';
import {createReferenceLlamaCppParser} from '../helpers/llamacpp-48848bc.js';
import {mutate, prng} from '../helpers/fuzz.js';

const sameKey = (a: unknown, b: unknown): boolean => new Map([[a, 1]]).has(b);

describe('llama.cpp task ids', () => {
	const DIGITS = ['0', '00', '007', '7', '10', '1073741823', '1073741824', '4294967296', '9007199254740992', '9007199254740993', '1' + '0'.repeat(21), '9'.repeat(400), '-1', '-0'];
	const NUMBERS = [0, 7, 10, 2 ** 30 - 1, 2 ** 30, 2 ** 32, 2 ** 53, 1e21, Number('9'.repeat(400))];

	it('a number and digits meet iff the digits are how the number prints (as the string keys did)', () => {
		for (const prefix of ['', 'qwen/']) {
			for (const n of NUMBERS) {
				for (const d of DIGITS) {
					expect(sameKey(taskIdOf(prefix, n), taskIdOfText(prefix, d)), `${prefix} ${n} ${d}`).toBe(`${prefix}${n}` === `${prefix}${d}`);
				}
			}
			for (const a of DIGITS) for (const b of DIGITS) expect(sameKey(taskIdOfText(prefix, a), taskIdOfText(prefix, b))).toBe(a === b);
		}
	});

	it('the parser gives the frozen reference parser\'s events on made logs of errors, cancels and defers', () => {
		const r = prng(1234);
		const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
		for (const child of ['', '[8081] ']) {
			const fast = createLlamaCppParser();
			const ref = createReferenceLlamaCppParser();
			const lines: string[] = [];
			for (let task = 0; task < 700; task++) {
				const slot = task % 3;
				const named = (): string => (r() < 0.7 ? String(task - Math.floor(r() * 3)) : pick(DIGITS));
				if (r() < 0.2) lines.push(`${child}0.01.000.000 D srv  update_slots: no slot is available, defer task, id_task = ${named()}`);
				if (r() < 0.2) lines.push(`${child}0.01.000.000 D srv  update_slots: decoding, decline task, id_task = ${named()}`);
				lines.push(`${child}0.01.000.${String(task % 1000).padStart(3, '0')} I slot launch_slot_: id  ${slot} | task ${task} | processing task`);
				lines.push(`${child}0.01.000.000 I slot print_timing: id  ${slot} | task ${task} | `);
				lines.push(`${child}0.01.000.000 I        eval time =      10.00 ms /     5 tokens (    2.00 ms per token,   500.00 tokens per second)`);
				if (r() < 0.15) lines.push(`${child}0.01.000.000 E srv    send_error: task id = ${named()}, error: request (3002 tokens) exceeds the available context size (1024 tokens), try increasing it`);
				if (r() < 0.15) lines.push(`${child}0.01.000.000 W srv          stop: cancel task, id_task = ${named()}`);
				lines.push(`${child}0.01.000.000 I slot      release: id  ${slot} | task ${task} | stop processing: n_tokens = 40, truncated = 0`);
			}
			for (const line of lines.map(l => (r() < 0.05 ? mutate(l, r) : l))) {
				expect(JSON.stringify(fast.push(line)), line).toBe(JSON.stringify(ref.push(line)));
			}
		}
	});

	it('request keys of every slot (the first 64 from a head made once, the rest as before) are the reference parser\'s', () => {
		for (const child of ['', '[8081] ']) {
			const fast = createLlamaCppParser();
			const ref = createReferenceLlamaCppParser();
			for (const slot of ['0', '00', '7', '63', '64', '65', '100', '4294967296', '9'.repeat(30)]) {
				for (const task of [0, 5, 1_000_000]) {
					for (const line of [
						`${child}0.01.000.000 I slot launch_slot_: id  ${slot} | task ${task} | processing task`,
						`${child}0.01.000.000 I slot release: id  ${slot} | task ${task} | stop processing: n_tokens = 4, truncated = 0`,
					]) expect(JSON.stringify(fast.push(line)), line).toBe(JSON.stringify(ref.push(line)));
				}
			}
		}
	});
});
