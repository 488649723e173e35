/**
 * The ENGINES pane's body is counted once (ui/selectors.ts engineLines/engineLineCount): the layout
 * the dashboard draws, the plan the key router pages the log by, and whether the log is on screen
 * all count the engine rows and, on a Mac, the GPU lines under them.
 */
import {describe, expect, it} from 'vitest';
import {planLayout} from '../../source/ui/layout.js';
import {engineLineCount, engineLines, logShownFor, logVisible, planFor} from '../../source/ui/selectors.js';
import {initialView} from '../../source/ui/view-state.js';
import {emptySystem} from '../../source/types/system.js';
import type {MonitorState} from '../../source/types/state.js';
import {richState} from '../helpers/ui-state.js';

/** The rich state on a Mac whose GPU limit is set (one line under the engine rows: busy share and limit). */
function onMac(): MonitorState {
	const s = richState();
	return {...s, system: {...emptySystem(), gpus: [{index: 0, name: 'Apple M4 Max', unified: true, source: 'ioreg'}], mac: {memsizeBytes: 64 * 2 ** 30, wiredLimitMb: 40960}}};
}

describe('the ENGINES body, counted once', () => {
	it('is the engine rows, then the Mac GPU lines', () => {
		const mac = onMac();
		const lines = engineLines(mac);
		expect(lines.rows.length).toBe(engineLines(richState()).rows.length);
		expect(lines.gpu.length).toBeGreaterThan(0);
		expect(engineLineCount(lines)).toBe(lines.rows.length + lines.gpu.length);
		// off a Mac: the rows alone
		expect(engineLines(richState()).gpu).toEqual([]);
	});

	it('the plan and the log on screen count the Mac lines at every size (and one size shows the difference)', () => {
		const mac = onMac();
		const lines = engineLines(mac);
		const n = engineLineCount(lines);
		let differs = 0;
		for (let rows = 24; rows <= 70; rows++) {
			for (const columns of [80, 120, 200]) {
				const size = {columns, rows};
				expect(planFor(mac, initialView, size)).toEqual(planLayout({columns, rows, showLog: initialView.showLog, engineRows: n}));
				expect(logShownFor(mac, initialView, size)).toBe(logVisible(columns, rows, initialView, n));
				if (logVisible(columns, rows, initialView, n) !== logVisible(columns, rows, initialView, lines.rows.length)) differs++;
				if (JSON.stringify(planLayout({columns, rows, showLog: initialView.showLog, engineRows: lines.rows.length})) !== JSON.stringify(planFor(mac, initialView, size))) differs++;
			}
		}
		expect(differs).toBeGreaterThan(0);
	});
});
