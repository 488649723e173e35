/**
 * Render only what changed, checked on the renderer the CLI ships: the App in this process, on the
 * installed Ink (patched at install by patches/ink+6.8.0.patch: the ink#910 fix among them, the
 * same code the bundle holds), on a fake 120×40 terminal.
 *  - with nothing changing, N ticks make no publish, no React render and no byte on the terminal;
 *  - a publish whose texts come out the same makes no frame (no layout, no output);
 *  - one changed figure rewrites exactly one line;
 *  - the screen a virtual terminal shows after incremental updates is the one a full repaint
 *    shows (no ghost lines), while Ink 6.8 unpatched, the control, leaves the screen wrong.
 * Structure only: no timing is asserted.
 */
process.env.CI = 'false'; // Ink renders nothing until exit in CI (is-in-ci reads this at import)

import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {PATCH_MARKS, stockSource} from '../../scripts/patches.mjs';
import type {Mounted} from '../fixtures/render/incremental-entry.js';
import type {SystemState} from '../../source/types/system.js';
import {T0} from '../helpers/ui-state.js';
import {INCREMENTAL_ENTRY, bundleEntry} from '../helpers/stock-ink.js';

type Entry = {mount(columns: number, rows: number, incremental: boolean): Mounted; busySystem: SystemState};

const COLUMNS = 120;
const ROWS = 40;
const root = path.resolve(import.meta.dirname, '..', '..');
let dir: string;
let fixed: Entry;
let unpatched: Entry;


beforeAll(async () => {
	// imported here, after CI=false above (Ink reads it as it loads)
	fixed = (await import('../fixtures/render/incremental-entry.js')) as Entry;
	// the control: the same entry bundled on Ink 6.8 as published (every patched file loaded as it was)
	dir = mkdtempSync(path.join(tmpdir(), 'infertop-incremental-'));
	const outfile = path.join(dir, 'stock.mjs');
	await bundleEntry(INCREMENTAL_ENTRY, outfile, true);
	unpatched = (await import(pathToFileURL(outfile).href)) as Entry;
}, 120_000);

afterAll(() => {
	if (dir) rmSync(dir, {recursive: true, force: true});
});

/** A small virtual terminal: the escape sequences Ink's log-update writes, nothing more. */
function screenOf(writes: readonly string[], columns = COLUMNS, rows = ROWS): string[] {
	const blank = () => Array.from({length: columns}, () => ' ');
	const screen = Array.from({length: rows}, blank);
	let x = 0;
	let y = 0;
	const data = writes.join('');
	for (let i = 0; i < data.length; ) {
		const ch = data[i]!;
		if (ch === '\u001b') {
			const csi = /^\u001b\[([?0-9;]*)([A-Za-z])/.exec(data.slice(i, i + 16));
			if (!csi) {
				i += 1;
				continue;
			}
			const [all, params = '', op] = csi;
			const n = params.startsWith('?') ? NaN : Number(params || '1');
			if (op === 'A') y = Math.max(0, y - n);
			else if (op === 'B') y = Math.min(rows - 1, y + n);
			else if (op === 'E') [x, y] = [0, Math.min(rows - 1, y + n)];
			else if (op === 'G') x = n - 1;
			else if (op === 'K') {
				if (params === '2') screen[y] = blank();
				else for (let k = x; k < columns; k++) screen[y]![k] = ' ';
			} else if (op === 'J' && params === '2') for (let r = 0; r < rows; r++) screen[r] = blank();
			i += all.length;
			continue;
		}
		i += ch.length;
		if (ch === '\n') {
			x = 0;
			y++;
			if (y >= rows) {
				screen.shift();
				screen.push(blank());
				y = rows - 1;
			}
			continue;
		}
		if (ch === '\r') {
			x = 0;
			continue;
		}
		if (x < columns) screen[y]![x] = ch;
		x++;
	}
	return screen.map(r => r.join('').trimEnd());
}

const settle = () => new Promise(r => setTimeout(r, 120)); // longer than Ink's render throttle (33 ms)

async function until(check: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 200; i++) {
		if (check()) return;
		await new Promise(r => setTimeout(r, 25));
	}
	throw new Error(`timed out waiting for ${what}`);
}

/** Lines an incremental write rewrites: each is `cursorTo(0) + text + eraseEndLine`. */
const rewritten = (write: string): string[] => [...write.matchAll(/\u001b\[1G(.*?)\u001b\[K/g)].map(m => m[1]!);

/** The scripted session: first frame, a clock jump, 20 quiet ticks, one changed figure. */
async function session(entry: Entry, incremental: boolean) {
	const m = entry.mount(COLUMNS, ROWS, incremental);
	try {
		await until(() => m.writes.join('').includes('infertop 0.1.0'), 'the first frame');
		await settle();
		// the clock jumps 137 s: the keep-alive texts and the figure window change, so this publishes
		const drawn = m.renders();
		m.dispatch({type: 'tick', t: T0 + 200_000});
		m.publish();
		await until(() => m.renders() > drawn, 'the frame of the clock jump');
		await settle();
		const quiet = {writes: m.writes.length, renders: m.renders(), publishes: m.publishes()};
		for (let i = 1; i <= 20; i++) {
			m.dispatch({type: 'tick', t: T0 + 200_000 + i * 100});
			m.publish();
		}
		await settle();
		const afterTicks0 = {writes: m.writes.length, renders: m.renders(), publishes: m.publishes()};
		// a publish whose texts all come out the same (a new system object, the same figures): React
		// re-renders, but no host node changes, so Ink lays out and draws nothing
		m.dispatch({type: 'system', system: {...entry.busySystem, updatedAt: T0 + 300_000}});
		m.publish();
		await settle();
		const afterSame = {writes: m.writes.length, renders: m.renders(), publishes: m.publishes()};
		const afterTicks = afterSame;
		// one figure changes: infertop's own CPU in the footer
		m.dispatch({type: 'system', system: {...entry.busySystem, self: {...entry.busySystem.self, cpuPct: 7.7}}});
		m.publish();
		await until(() => m.writes.length > afterTicks.writes, 'the changed frame');
		await settle();
		return {quiet, afterTicks: afterTicks0, afterSame, changed: m.writes.slice(afterTicks.writes), writes: [...m.writes]};
	} finally {
		m.unmount();
	}
}

describe('render only what changed (the shipped renderer, in this process, 120×40)', () => {
	it('the installed Ink has the ink#910 fix; the stock one it was made from has the bug', () => {
		const file = 'node_modules/ink/build/log-update.js';
		const mark = PATCH_MARKS.find((m) => m.file === file)!.mark;
		const installed = readFileSync(path.join(root, file), 'utf8');
		expect(installed.split(mark)).toHaveLength(2);
		const stock = stockSource(file);
		expect(stock).not.toContain(mark);
		expect(stock.split('buffer.push(ansiEscapes.cursorUp(previousVisible - 1));')).toHaveLength(2);
	});

	it('N quiet ticks make no publish, no render, no byte; one changed figure rewrites one line; no ghost lines', async () => {
		const inc = await session(fixed, true);
		expect(inc.afterTicks).toEqual(inc.quiet);
		expect(inc.afterSame).toEqual({...inc.quiet, publishes: inc.quiet.publishes + 1});
		// one frame (Ink wraps each in synchronized-output marks, written apart)
		const frames = inc.changed.filter(w => w !== '\u001b[?2026h' && w !== '\u001b[?2026l');
		expect(frames).toHaveLength(1);
		const lines = rewritten(frames[0]!);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(/infertop CPU 7\.7% RSS 85 MB$/);
		expect(inc.writes.join('')).not.toContain('\u001b[2J');

		// the same session repainted in full (Ink's standard renderer) is the truth to compare with
		const full = await session(fixed, false);
		const expected = screenOf(full.writes);
		expect(expected.join('\n')).toContain('infertop CPU 7.7%');
		expect(screenOf(inc.writes)).toEqual(expected);
		// and a full repaint rewrites the whole frame for the same change
		expect(full.changed.join('').split('\n').length).toBeGreaterThan(30);
	}, 60_000);

	it('control: Ink 6.8 unpatched leaves the screen wrong after the same updates', async () => {
		const full = await session(fixed, false);
		const broken = await session(unpatched, true);
		expect(screenOf(broken.writes)).not.toEqual(screenOf(full.writes));
		// and unpatched Ink draws a frame for the publish that changed no text (log-update then writes nothing)
		expect(broken.afterSame.renders).toBe(broken.afterTicks.renders + 1);
	}, 60_000);
});
