/**
 * The llama.cpp parser's memory of closed slot/task keys is bounded (issue 32: kept forever it grew
 * ~47 bytes a request, 170 MB an hour at 1,000 req/s), and the restart it tells still holds for
 * keys within CLOSED_KEPT. Lines: llama-server b10587 (tools/server/server-context.cpp @ 3f545be,
 * the request block of the shared fixtures: `processing task` … `stop processing`).
 */
import {describe, expect, it} from 'vitest';
import {CLOSED_KEPT, createLlamaCppParser} from '../../source/engines/llamacpp.js';
import type {EngineEvent} from '../../source/types/events.js';

const open = (task: number) => `0.01.160.120 I slot launch_slot_: id  0 | task ${task} | processing task, is_child = 0`;
const close = (task: number) => `0.01.300.100 I slot      release: id  0 | task ${task} | stop processing: n_tokens = 42, truncated = 0`;
const keyOf = (events: EngineEvent[] | null): string | undefined => {
	const e = events?.find(x => x.type === 'request');
	return e && e.type === 'request' ? e.key : undefined;
};

describe('llama.cpp closed keys', () => {
	it('a task id that closed within the last CLOSED_KEPT requests opening again is a restart (a new run)', () => {
		const p = createLlamaCppParser();
		for (let t = 0; t < 100; t++) {
			p.push(open(t));
			p.push(close(t));
		}
		expect(keyOf(p.push(open(100)))).toBe('s0/t100');
		p.push(close(100));
		// task 50 again: its ids count from 0 again after a restart
		expect(keyOf(p.push(open(50)))).toBe('r1:s0/t50');
	});

	it('after 3 × CLOSED_KEPT requests only the newest CLOSED_KEPT are remembered: the newest still tells a restart, the oldest no longer', () => {
		const n = 3 * CLOSED_KEPT;
		const p = createLlamaCppParser();
		for (let t = 0; t < n; t++) {
			p.push(open(t));
			p.push(close(t));
		}
		// task 3 closed 3 × CLOSED_KEPT requests ago: forgotten (a restart without its start lines, that long after, is not seen)
		expect(keyOf(p.push(open(3)))).toBe('s0/t3');
		p.push(close(3));
		// the newest closed task opening again: a restart
		expect(keyOf(p.push(open(n - 2)))).toBe('r1:s0/t' + String(n - 2));
	});
});
