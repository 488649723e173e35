import {describe, expect, it} from 'vitest';
import {brailleLine, ceilingRow, graphBlock, graphPlotWidth, markerRow, niceCeil, placeLabels, sparkline} from '../../source/ui/charts.js';

describe('brailleLine', () => {
	it('draws a rising line with vertical joins, 2 samples per cell', () => {
		// x0 v0 → dot row 3 left; x1 v1 → rows 2..3 right; x2 v2 → rows 1..2 left; x3 v3 → rows 0..1 right.
		expect(brailleLine([0, 1, 2, 3], {width: 2, height: 1, max: 3})).toEqual(['⣠⠞']);
		expect(String.fromCharCode(0x2800 + 0x40 + 0x20 + 0x80)).toBe('⣠');
	});

	it('leaves gaps for unknown samples and puts the newest sample at the right edge', () => {
		expect(brailleLine([1, undefined, 1, 1], {width: 2, height: 1, max: 1})).toEqual(['⠁⠉']);
		expect(brailleLine([1], {width: 3, height: 1, max: 1})).toEqual(['  ⠈']);
	});

	it('draws the ceiling as a dashed horizontal line', () => {
		expect(brailleLine([], {width: 3, height: 1, max: 4, ceiling: 4})).toEqual(['⠁⠁⠁']);
		// Two rows: ceiling at half height lands on the top dot of the lower row.
		expect(brailleLine([], {width: 2, height: 2, max: 7, ceiling: 3})).toEqual(['  ', '⠁⠁']);
		// A ceiling above the scale is not drawn (the caller includes it in the scale).
		expect(brailleLine([], {width: 2, height: 1, max: 4, ceiling: 9})).toEqual(['  ']);
	});

	it('renders empty cells as spaces, never U+2800', () => {
		const rows = brailleLine([], {width: 4, height: 2, max: 1});
		expect(rows).toEqual(['    ', '    ']);
		expect(rows.join('')).not.toContain('\u2800');
	});
});

describe('sparkline and markers', () => {
	it('maps values to ▁…█ and unknown to a space', () => {
		expect(sparkline([0, 4, 8, undefined], {width: 4, max: 8})).toBe('▁▄█ ');
	});

	it('folds 2 samples per cell to line up with the braille graph', () => {
		expect(sparkline([2, 6, 8, 8], {width: 2, max: 8, samplesPerCell: 2})).toBe('▄█');
		expect(sparkline([8], {width: 3, max: 8, samplesPerCell: 2})).toBe('  █');
	});

	it('marks contention moments under the graph', () => {
		expect(markerRow([false, true, false, false, true], {width: 3})).toBe(' !!');
		expect(markerRow([], {width: 3})).toBe('   ');
	});
});

describe('scale', () => {
	it('rounds up to nice numbers', () => {
		expect(niceCeil(55.7)).toBe(60);
		expect(niceCeil(4.54)).toBe(5);
		expect(niceCeil(101)).toBe(120);
		expect(niceCeil(61.27)).toBe(70);
		expect(niceCeil(60)).toBe(60);
		expect(niceCeil(0)).toBe(1);
	});
});

describe('graphBlock', () => {
	it('prints the scale in a gutter and labels beside, each row exactly width wide', () => {
		const rows = graphBlock([0, 1, 2, 3], {width: 14, height: 1, max: 3, gutter: 6, labelWidth: 4, labels: ['now']});
		expect(rows).toEqual(['     3 ⣠⠞ now ']);
		expect(graphPlotWidth({width: 14, gutter: 6, labelWidth: 4})).toBe(2);
		const two = graphBlock([3, 3], {width: 20, height: 2, max: 3, gutter: 3, labelWidth: 8, labels: ['now 3.0', '┄ ceil']});
		expect(two).toEqual(['  3       ⠉ now 3.0 ', '  0         ┄ ceil  ']);
		for (const r of two) expect(Array.from(r)).toHaveLength(20);
	});
});

describe('graph labels', () => {
	it('puts the ceiling label on the row where the ceiling line is drawn', () => {
		expect(ceilingRow(55.7, 70, 5)).toBe(1);
		expect(ceilingRow(70, 70, 5)).toBe(0);
		expect(ceilingRow(90, 70, 5)).toBeUndefined();
		expect(ceilingRow(undefined, 70, 5)).toBeUndefined();
		expect(placeLabels(5, [{row: 0, text: 'now'}, {row: 1, text: 'ceil'}, {row: 4, text: 'scale'}])).toEqual(['now', 'ceil', '', '', 'scale']);
		// A ceiling on the top row moves to the nearest free row.
		expect(placeLabels(3, [{row: 0, text: 'now'}, {row: 0, text: 'ceil'}, {row: 2, text: 'scale'}])).toEqual(['now', 'ceil', 'scale']);
		expect(placeLabels(2, [{row: 0, text: 'a'}, {row: 1, text: 'b'}, {row: 1, text: 'c'}])).toEqual(['a', 'b']);
	});
});
