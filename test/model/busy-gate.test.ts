/**
 * model/busy-gate.ts: when a busy log turns V8's optimizing compiler on (and a quiet one off), and
 * the runtime that asks it: the bin's hook is called on the way up and on the way down, never
 * at rest, and never from source without the bin.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BUSY_OFF_LINES, BUSY_OFF_SECONDS, BUSY_ON_LINES, BUSY_ON_SECONDS, createBusyGate} from '../../source/model/busy-gate.js';
import {startRuntime} from '../../source/runtime.js';
import {DEFAULTS, mergeConfig} from '../../source/config/config.js';
import {waitUntil} from '../helpers/wait.js';

/** A real llama-server b10587 request block (7 lines), from the shared fixtures. */
const BLOCK = `${fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '../fixtures/engines/llama.cpp/chat.log'), 'utf8').trimEnd().split('\n').slice(-7).join('\n')}\n`;
/** About `n` lines: whole blocks. */
const lines = (n: number): string => BLOCK.repeat(Math.ceil(n / 7));

/** `perSecond[i]` lines spread over second i (from t0), asking the gate after each second. */
function drive(perSecond: readonly number[], t0 = 1_700_000_000_000) {
	const gate = createBusyGate();
	const states: boolean[] = [];
	perSecond.forEach((n, i) => {
		for (let k = 0; k < 10; k++) gate.add(n / 10, t0 + i * 1000 + k * 100);
		states.push(gate.check(t0 + (i + 1) * 1000));
	});
	return states;
}

describe('busy gate', () => {
	it('turns on after two busy seconds in a row, not after one', () => {
		expect(BUSY_ON_LINES).toBe(4000);
		expect(BUSY_ON_SECONDS).toBe(2);
		expect(drive([8000, 500, 8000, 500, 8000])).toEqual([false, false, false, false, false]);
		expect(drive([8000, 8000, 8000])).toEqual([false, true, true]);
		// 1,000 req/s of llama.cpp request blocks: ~8,000 lines a second
		expect(drive([8068, 8068])).toEqual([false, true]);
		// 100 req/s: 800 lines a second, never
		expect(drive(Array.from({length: 30}, () => 800)).includes(true)).toBe(false);
		// just under the line, never; at it, yes
		expect(drive([3999, 3999, 3999]).includes(true)).toBe(false);
		expect(drive([4000, 4000])).toEqual([false, true]);
	});

	it('stays on through a lull, and turns off after ten quiet seconds in a row', () => {
		expect(BUSY_OFF_LINES).toBe(1000);
		expect(BUSY_OFF_SECONDS).toBe(10);
		const lull = [8000, 8000, ...Array.from({length: 9}, () => 0), 8000];
		expect(drive(lull).at(-1)).toBe(true);
		const quiet = drive([8000, 8000, ...Array.from({length: 10}, () => 999)]);
		expect(quiet.at(-2)).toBe(true);
		expect(quiet.at(-1)).toBe(false);
		// 2,000 lines a second keeps it on (between the two lines: no flapping)
		expect(drive([8000, 8000, ...Array.from({length: 30}, () => 2000)]).slice(1).every(Boolean)).toBe(true);
	});

	it('a long silence with no lines at all turns it off when asked', () => {
		const gate = createBusyGate();
		const t0 = 1_700_000_000_000;
		for (let s = 0; s < 3; s++) gate.add(9000, t0 + s * 1000);
		expect(gate.check(t0 + 3000)).toBe(true);
		expect(gate.check(t0 + 5000)).toBe(true);
		expect(gate.check(t0 + 3000 + 60_000)).toBe(false);
		expect(gate.isOn()).toBe(false);
	});

	it('ignores what is no count of lines or no time', () => {
		const gate = createBusyGate();
		const t0 = 1_700_000_000_000;
		for (const bad of [Number.NaN, -5, Infinity * 0, 0]) gate.add(bad, t0);
		gate.add(10_000, Number.NaN);
		gate.add(10_000, Number.POSITIVE_INFINITY);
		expect(gate.check(t0 + 10_000)).toBe(false);
		expect(gate.check(Number.NaN)).toBe(false);
	});
});

describe('the runtime and the bin\'s busy hook', () => {
	const hook = Symbol.for('infertop.busy');
	const dirs: string[] = [];
	afterEach(() => {
		delete (globalThis as Record<symbol, unknown>)[hook];
		for (const d of dirs.splice(0)) fs.rmSync(d, {recursive: true, force: true});
	});

	/** The runtime watching an empty llama.cpp log of its own (named with --log). */
	async function watchLog() {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-busy-'));
		dirs.push(dir);
		const log = path.join(dir, 'server.log');
		fs.writeFileSync(log, '');
		const config = mergeConfig(DEFAULTS, {}, {logs: [`llamacpp=${log}`], demo: false, history: '/dev/null'});
		return {log, runtime: await startRuntime({config, scan: false, system: false})};
	}

	it('a log busy for two seconds turns it on; the hook is never called while the log is quiet', async () => {
		const calls: boolean[] = [];
		(globalThis as Record<symbol, unknown>)[hook] = (on: boolean) => calls.push(on);
		const {log, runtime} = await watchLog();
		try {
			// a quiet log: a few lines a second for two seconds
			for (let i = 0; i < 4; i++) {
				fs.appendFileSync(log, lines(50));
				await new Promise(r => setTimeout(r, 500));
			}
			expect(calls).toEqual([]);
			// then a busy one: 3,000 lines each 250 ms (12,000 lines a second) until the hook is called
			let busy = true;
			const writer = (async () => {
				while (busy) {
					fs.appendFileSync(log, lines(3000));
					await new Promise(r => setTimeout(r, 250));
				}
			})();
			try {
				await waitUntil(() => calls.length > 0, {timeoutMs: 15_000, what: 'the busy hook'});
			} finally {
				busy = false;
				await writer;
			}
			expect(calls).toEqual([true]);
		} finally {
			await runtime.stop();
		}
	}, 30_000);

	it('without the bin (from source) nothing is called and nothing breaks', async () => {
		const {log, runtime} = await watchLog();
		try {
			fs.appendFileSync(log, lines(5000));
			await waitUntil(() => Object.values(runtime.store.getSnapshot().servers).some(s => (s.linesParsed ?? 0) >= 5000), {timeoutMs: 15_000, what: 'the lines'});
		} finally {
			await runtime.stop();
		}
	}, 30_000);
});
