/**
 * matchSlot (issue 32: the llama.cpp parser's most common line read without a regex match array)
 * gives what SLOT.exec gives, on every `slot …` line of the real llama-server captures and on
 * seeded mutations of them: the same fn and message, the same slot and task numbers (finite, as
 * the captures read by Number), and no match where the regex has none.
 */
import {readdirSync, readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {matchSlot, SLOT, SLOT_MATCH} from '../../source/engines/llamacpp.js';

const DIR = new URL('../fixtures/engines/llama.cpp/', import.meta.url);
const slotLines = (): string[] => {
	const out: string[] = [];
	for (const f of readdirSync(DIR)) {
		if (!f.endsWith('.log')) continue;
		for (const l of readFileSync(new URL(f, DIR), 'utf8').split('\n')) {
			const at = l.indexOf('slot ');
			if (at >= 0) out.push(l.slice(at));
		}
	}
	return out;
};

function viaRegex(line: string): {fn: string; msg: string; slot?: number; task?: number} | null {
	const m = SLOT.exec(line);
	if (!m) return null;
	const sn = m[2] === undefined ? undefined : Number(m[2]);
	const tn = m[3] === undefined ? undefined : Number(m[3]);
	return {fn: m[1]!, msg: m[4]!, slot: sn !== undefined && Number.isFinite(sn) ? sn : undefined, task: tn !== undefined && Number.isFinite(tn) ? tn : undefined};
}
function viaMatch(line: string): {fn: string; msg: string; slot?: number; task?: number} | null {
	return matchSlot(line) ? {fn: SLOT_MATCH.fn, msg: SLOT_MATCH.msg, slot: SLOT_MATCH.slot, task: SLOT_MATCH.task} : null;
}
const same = (line: string) => {
	const a = viaRegex(line);
	const b = viaMatch(line);
	expect(b, JSON.stringify(line)).toEqual(a);
	if (a && b) {
		expect(Object.is(a.task, b.task), JSON.stringify(line)).toBe(true);
		expect(Object.is(a.slot, b.slot), JSON.stringify(line)).toBe(true);
	}
};

/** mulberry32 */
function rng(seed: number): () => number {
	return () => {
		seed = (seed + 0x6d2b79f5) | 0;
		let t = seed;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
const PIECES = [' ', '  ', '\t', '\r', '\n', '\u2028', '\u2029', '\u00a0', '\u3000', '\ufeff', '\u180e', ':', ': ', '|', ' | ', '-', '-0', '0', '7', '42', '9'.repeat(20), '9'.repeat(400), 'id ', 'id  3 ', ' | task ', 'task ', 'x', 'é'];

describe('matchSlot', () => {
	it('every slot line of the real captures: as SLOT.exec', () => {
		const lines = slotLines();
		expect(lines.length).toBeGreaterThan(100);
		for (const l of lines) same(l);
	});

	it('hand-made edges: an empty fn, a tab, a colon in the fn, no space after the colon, a half id group, signs, huge and -0 ids, line terminators', () => {
		for (const l of ['slot : x', 'slot  a:b: id  1 | task 2 | m', 'slot f:x', 'slot f:', 'slot \tf: m', 'slot f: id 1 | task x | m', 'slot f: id 1 | task -0 |', 'slot f: id 1 | task -0 | m', 'slot f: id 01 | task 002 |  m', `slot f: id ${'9'.repeat(400)} | task 3 | m`, 'slot f: id 1 | task 2 |', 'slot f: id 1 | task 2 |x', 'slot f: id1 | task 2 | m', 'slot f: m\r', 'slot f: m\u2028n', 'slot f\u00a0: m', 'slot     print_timing: id  0 | task 5 | ', 'slot print_timing: ']) same(l);
	});

	it('30,000 seeded mutations of the captures: as SLOT.exec', () => {
		const lines = slotLines();
		const r = rng(32);
		for (let k = 0; k < 30_000; k++) {
			let l = lines[Math.floor(r() * lines.length)]!;
			const edits = 1 + Math.floor(r() * 3);
			for (let e = 0; e < edits; e++) {
				const at = Math.floor(r() * (l.length + 1));
				const piece = PIECES[Math.floor(r() * PIECES.length)]!;
				l = r() < 0.3 && at < l.length ? l.slice(0, at) + l.slice(at + 1 + Math.floor(r() * 3)) : l.slice(0, at) + piece + l.slice(at);
			}
			if (!l.startsWith('slot ')) l = `slot ${l}`;
			same(l);
		}
	});
});
