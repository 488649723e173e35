/**
 * Chart renderers as pure string functions (ink-practices §5.3): each returns plain strings with no
 * ANSI; colour is applied by the caller through <Text color>. Empty braille cells are spaces, not
 * U+2800 (some fonts draw it as dots). Newest sample sits at the right edge.
 */

/** [row 0..3][col 0..1] → braille dot bit (U+2800 block layout). */
const DOT: readonly (readonly [number, number])[] = [
	[0x01, 0x08],
	[0x02, 0x10],
	[0x04, 0x20],
	[0x40, 0x80],
];

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

const known = (x: number | undefined | null): x is number => typeof x === 'number' && Number.isFinite(x);

export interface BrailleOptions {
	/** Width in cells (2 samples per cell). */
	readonly width: number;
	/** Height in rows (4 dot levels per row). */
	readonly height: number;
	/** The value drawn at the top row. */
	readonly max: number;
	/** Drawn as a dashed horizontal line (one dot every cell) when 0 < ceiling ≤ max. */
	readonly ceiling?: number;
}

function cellsToRows(cells: Uint8Array, width: number, height: number): string[] {
	const rows: string[] = [];
	for (let r = 0; r < height; r++) {
		let s = '';
		for (let c = 0; c < width; c++) {
			const b = cells[r * width + c]!;
			s += b ? String.fromCharCode(0x2800 + b) : ' ';
		}
		rows.push(s);
	}
	return rows;
}

/** Pixel row (0 = top) of a value on a graph `pxH` dots tall, bottom row = 0. */
function yOf(v: number, max: number, pxH: number): number {
	const level = Math.round((Math.max(0, v) / max) * (pxH - 1));
	return pxH - 1 - Math.min(pxH - 1, Math.max(0, level));
}

/**
 * A braille line graph: 2 samples per cell, 4 dot levels per row. Unknown samples leave a gap;
 * consecutive known samples are joined by a vertical stroke so steep changes stay visible.
 */
export function brailleLine(values: readonly (number | undefined)[], options: BrailleOptions): string[] {
	const width = Math.max(0, Math.floor(options.width));
	const height = Math.max(0, Math.floor(options.height));
	if (width === 0 || height === 0) return Array.from({length: height}, () => '');
	const pxW = width * 2;
	const pxH = height * 4;
	const max = known(options.max) && options.max > 0 ? options.max : 1;
	const cells = new Uint8Array(width * height);
	const set = (x: number, y: number) => {
		cells[(y >> 2) * width + (x >> 1)]! |= DOT[y & 3]![x & 1]!;
	};
	if (known(options.ceiling) && options.ceiling > 0 && options.ceiling <= max) {
		const yc = yOf(options.ceiling, max, pxH);
		for (let x = 0; x < pxW; x += 2) set(x, yc);
	}
	const data = values.slice(-pxW);
	const x0 = pxW - data.length;
	let prevY: number | undefined;
	for (const [i, v] of data.entries()) {
		const x = x0 + i;
		if (!known(v)) {
			prevY = undefined;
			continue;
		}
		const y = yOf(v, max, pxH);
		const from = prevY === undefined ? y : Math.min(prevY, y);
		const to = prevY === undefined ? y : Math.max(prevY, y);
		for (let yy = from; yy <= to; yy++) set(x, yy);
		prevY = y;
	}
	return cellsToRows(cells, width, height);
}

export interface SparkOptions {
	readonly width: number;
	readonly max: number;
	/** Samples folded into one cell (mean of the known ones); 2 aligns with brailleLine. @default 1 */
	readonly samplesPerCell?: number;
}

/** One row of `▁…█`; a cell with no known sample is a space. */
export function sparkline(values: readonly (number | undefined)[], options: SparkOptions): string {
	const width = Math.max(0, Math.floor(options.width));
	const per = Math.max(1, Math.floor(options.samplesPerCell ?? 1));
	const max = known(options.max) && options.max > 0 ? options.max : 1;
	const sums = new Float64Array(width);
	const counts = new Uint16Array(width);
	const data = values.slice(-width * per);
	const x0 = width * per - data.length;
	for (const [i, v] of data.entries()) {
		if (!known(v)) continue;
		const c = Math.floor((x0 + i) / per);
		sums[c]! += v;
		counts[c]!++;
	}
	let s = '';
	for (let c = 0; c < width; c++) {
		if (counts[c] === 0) {
			s += ' ';
			continue;
		}
		const mean = sums[c]! / counts[c]!;
		const idx = Math.min(BLOCKS.length, Math.max(1, Math.ceil((Math.max(0, mean) / max) * BLOCKS.length))) - 1;
		s += BLOCKS[idx];
	}
	return s;
}

export interface MarkerOptions {
	readonly width: number;
	/** @default 2 (aligned with brailleLine) */
	readonly samplesPerCell?: number;
	/** @default '!' */
	readonly mark?: string;
}

/** A row marking cells where any sample is flagged (contention moments under the tok/s graph). */
export function markerRow(flags: readonly (boolean | undefined)[], options: MarkerOptions): string {
	const width = Math.max(0, Math.floor(options.width));
	const per = Math.max(1, Math.floor(options.samplesPerCell ?? 2));
	const mark = options.mark ?? '!';
	const out = Array.from({length: width}, () => ' ');
	const data = flags.slice(-width * per);
	const x0 = width * per - data.length;
	for (const [i, f] of data.entries()) if (f) out[Math.floor((x0 + i) / per)] = mark;
	return out.join('');
}

/** Scale steps per decade: fine enough that a graph uses most of its height. */
const NICE = [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 10] as const;

/**
 * The smallest "nice" number (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8 × 10^k) ≥ x: the printed scale
 * only changes when the underlying scale (model/verdict.ts nextScale) crosses a step.
 */
export function niceCeil(x: number): number {
	if (!known(x) || x <= 0) return 1;
	const exp = Math.floor(Math.log10(x));
	const base = 10 ** exp;
	for (const m of NICE) {
		const v = m * base;
		if (v >= x * (1 - 1e-12)) return Number(v.toPrecision(12));
	}
	return 10 * base;
}

export interface GraphBlockOptions {
	/** Total width in columns, gutter and labels included. */
	readonly width: number;
	readonly height: number;
	readonly max: number;
	readonly ceiling?: number;
	/** Left gutter width (scale max on the top row, 0 on the bottom row). @default 6 */
	readonly gutter?: number;
	/** Text beside the graph, one entry per row (current value, ceiling, scale). */
	readonly labels?: readonly string[];
	/** Width kept for the labels. @default 18 */
	readonly labelWidth?: number;
	/** Decimals of the scale numbers in the gutter. @default 0 */
	readonly decimals?: number;
}

/** Width of the braille part of a graphBlock (so marker and sparkline rows can line up). */
export function graphPlotWidth(options: Pick<GraphBlockOptions, 'width' | 'gutter' | 'labelWidth'>): number {
	return Math.max(1, options.width - (options.gutter ?? 6) - 1 - 1 - (options.labelWidth ?? 18));
}

/**
 * The braille line graph with its scale printed in a left gutter and labels on the right, so it
 * reads without colour: `    60 ⠀…⠀ 47.6 tok/s now`. Every row is exactly `width` columns.
 */
export function graphBlock(values: readonly (number | undefined)[], options: GraphBlockOptions): string[] {
	const gutter = options.gutter ?? 6;
	const labelWidth = options.labelWidth ?? 18;
	const plotWidth = graphPlotWidth(options);
	const plot = brailleLine(values, {width: plotWidth, height: options.height, max: options.max, ceiling: options.ceiling});
	const decimals = options.decimals ?? 0;
	return plot.map((row, r) => {
		let g = '';
		if (r === 0) g = options.max.toFixed(decimals);
		else if (r === plot.length - 1) g = (0).toFixed(decimals);
		const gut = g.length >= gutter ? g.slice(0, gutter) : ' '.repeat(gutter - g.length) + g;
		const label = options.labels?.[r] ?? '';
		const lab = label.length > labelWidth ? `${label.slice(0, labelWidth - 1)}…` : label.padEnd(labelWidth);
		return `${gut} ${row} ${lab}`;
	});
}

/** The row (0 = top) on which brailleLine draws a ceiling, or undefined when it is not drawn. */
export function ceilingRow(ceiling: number | undefined, max: number, height: number): number | undefined {
	if (!known(ceiling) || ceiling <= 0 || !known(max) || max <= 0 || ceiling > max || height <= 0) return undefined;
	return yOf(ceiling, max, height * 4) >> 2;
}

/**
 * Labels beside a graph: the current value on the top row, the ceiling label on the row where the
 * ceiling line is drawn (or the nearest free one), the scale on the bottom row (or the nearest free).
 */
export function placeLabels(height: number, wanted: readonly {readonly row: number; readonly text: string}[]): string[] {
	const out: (string | undefined)[] = Array.from({length: height}, () => undefined);
	for (const w of wanted) {
		const start = Math.min(height - 1, Math.max(0, w.row));
		let placed = false;
		for (let d = 0; d < height && !placed; d++) {
			for (const r of [start + d, start - d]) {
				if (r >= 0 && r < height && out[r] === undefined) {
					out[r] = w.text;
					placed = true;
					break;
				}
			}
		}
	}
	return out.map(x => x ?? '');
}
