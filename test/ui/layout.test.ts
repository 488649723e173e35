import {describe, expect, it} from 'vitest';
import {planLayout} from '../../source/ui/layout.js';

const total = (p: ReturnType<typeof planLayout>) => p.header + p.engines + p.passes + p.requests + p.contention + p.probe + p.logBelow + p.footer;

describe('planLayout', () => {
	it('80×24: essentials only, no graphs, requests or log', () => {
		const p = planLayout({columns: 80, rows: 24});
		expect(p.tooSmall).toBe(false);
		expect(p.height).toBe(23);
		expect(p.graphRows).toBe(0);
		expect(p.requests).toBe(0);
		expect(p.logBeside).toBeUndefined();
		expect(p.logBelow).toBe(0);
		expect(total(p)).toBe(23);
	});

	it('120×40 adds graphs and the requests table', () => {
		const p = planLayout({columns: 120, rows: 40});
		expect(p.graphRows).toBeGreaterThanOrEqual(3);
		expect(p.requests).toBeGreaterThanOrEqual(5);
		expect(p.logBeside).toBeUndefined();
		expect(total(p)).toBe(39);
	});

	it('160×50 puts the log pane beside; hiding it gives the width back', () => {
		const p = planLayout({columns: 160, rows: 50});
		expect(p.logBeside).toBeDefined();
		expect(p.mainWidth + p.logBeside!.width).toBe(160);
		expect(p.mainWidth).toBeGreaterThanOrEqual(96);
		expect(total(p)).toBe(49);
		const hidden = planLayout({columns: 160, rows: 50, showLog: false});
		expect(hidden.logBeside).toBeUndefined();
		expect(hidden.mainWidth).toBe(160);
	});

	it('a log pane asked for on a small screen goes below', () => {
		const p = planLayout({columns: 80, rows: 24, showLog: true});
		expect(p.logBelow).toBeGreaterThanOrEqual(4);
		expect(total(p)).toBe(23);
	});

	it('below 80×24 the screen is the too-small card', () => {
		expect(planLayout({columns: 79, rows: 24}).tooSmall).toBe(true);
		expect(planLayout({columns: 80, rows: 23}).tooSmall).toBe(true);
		expect(planLayout({columns: 79, rows: 24}).need).toEqual({columns: 80, rows: 24});
	});

	it('never plans a frame taller than rows − 1 at any size', () => {
		for (let columns = 80; columns <= 260; columns += 7) {
			for (let rows = 24; rows <= 90; rows += 3) {
				for (const showLog of [undefined, true, false]) {
					for (const engineRows of [1, 3, 12]) {
						const p = planLayout({columns, rows, showLog, engineRows});
						expect(total(p)).toBe(rows - 1);
						expect(Math.min(p.engines, p.passes, p.contention, p.probe)).toBeGreaterThan(0);
					}
				}
			}
		}
	});

	it('plans once per size: equal input gives the same plan object, another size a new one', () => {
		const a = planLayout({columns: 120, rows: 40, engineRows: 2});
		expect(planLayout({columns: 120, rows: 40, engineRows: 2})).toBe(a);
		const b = planLayout({columns: 120, rows: 41, engineRows: 2});
		expect(b).not.toBe(a);
		expect(b.height).toBe(40);
		expect(planLayout({columns: 120, rows: 40, engineRows: 2, showLog: false})).not.toBe(a);
		expect(planLayout({columns: 120, rows: 40, engineRows: 2})).toEqual(a);
	});
});
