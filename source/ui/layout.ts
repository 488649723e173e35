/**
 * Screen layout as a pure function of the terminal size (ink-practices §6.5, nvitop compact steps).
 * The frame is never as tall as the terminal: ink 6.8 clears the whole terminal on every update
 * once a frame reaches `rows` (ink#450), so everything is planned inside `rows − 1`.
 */

/** Smallest usable terminal: the essentials fit in 80×24 (DESIGN §6). */
export const MIN_COLUMNS = 80;
export const MIN_ROWS = 24;

/** Graphs and the requests table from here (columns, rows). */
export const RICH_COLUMNS = 120;
export const RICH_ROWS = 40;

/** The log pane sits beside the main column from here. */
export const WIDE_COLUMNS = 160;

export interface LayoutInput {
	readonly columns: number;
	readonly rows: number;
	/** Rows the engines list would like (one per model row); default 3. */
	readonly engineRows?: number;
	/** undefined: automatic (beside from 160 columns); true: shown (beside or below); false: hidden. */
	readonly showLog?: boolean;
	/** Rows of the footer: 1, or up to 3 while a notice needs them to be read whole. */
	readonly footerRows?: number;
}

export interface LayoutPlan {
	readonly columns: number;
	readonly rows: number;
	readonly tooSmall: boolean;
	readonly need: {readonly columns: number; readonly rows: number};
	/** Height of the root box: rows − 1. */
	readonly height: number;
	/** Width of the main column (columns minus the log pane when it sits beside). */
	readonly mainWidth: number;
	/** Pane heights in rows, titles included; 0 = not shown. Their sum (main column) = height. */
	readonly header: number;
	readonly engines: number;
	readonly passes: number;
	/** Height of the tok/s braille graph inside the passes pane; 0 = no graphs. */
	readonly graphRows: number;
	readonly requests: number;
	readonly contention: number;
	readonly probe: number;
	/** Log pane below the main panes (rows), when not beside. */
	readonly logBelow: number;
	readonly footer: number;
	/** Log pane beside the main column; undefined when not beside. */
	readonly logBeside?: {readonly width: number; readonly height: number};
}

/** Passes pane without graphs: title, three figure lines, verdict. */
const PASSES_BASE = 5;
/** Graph block: tok/s graph rows + contention marker row + tokens-per-pass sparkline row. */
const GRAPH_EXTRA = 2;

/** The last plan and what it was made from: every render plans (the dashboard, the key router), almost always for the same size. */
let last: {columns: number; rows: number; engineRows: number | undefined; showLog: boolean | undefined; footerRows: number | undefined; plan: LayoutPlan} | undefined;

/** The plan for a terminal size. Pure: equal input gives the same (frozen-by-convention) plan object. */
export function planLayout(input: LayoutInput): LayoutPlan {
	if (last !== undefined && last.columns === input.columns && last.rows === input.rows && last.engineRows === input.engineRows && last.showLog === input.showLog && last.footerRows === input.footerRows) return last.plan;
	const plan = makePlan(input);
	last = {columns: input.columns, rows: input.rows, engineRows: input.engineRows, showLog: input.showLog, footerRows: input.footerRows, plan};
	return plan;
}

function makePlan(input: LayoutInput): LayoutPlan {
	const columns = Math.max(0, Math.floor(input.columns));
	const rows = Math.max(0, Math.floor(input.rows));
	const need = {columns: MIN_COLUMNS, rows: MIN_ROWS};
	const height = Math.max(0, rows - 1);
	const footer = Math.min(3, Math.max(1, Math.floor(input.footerRows ?? 1)));
	const base = {columns, rows, need, height, header: 1, footer};
	if (columns < MIN_COLUMNS || rows < MIN_ROWS) {
		return {...base, tooSmall: true, mainWidth: columns, engines: 0, passes: 0, graphRows: 0, requests: 0, contention: 0, probe: 0, logBelow: 0};
	}
	const wantEngines = Math.max(1, input.engineRows ?? 3);
	const beside = (input.showLog ?? true) && columns >= WIDE_COLUMNS && rows >= RICH_ROWS;
	const logWidth = beside ? Math.max(50, columns - Math.max(100, Math.round(columns * 0.6))) : 0;
	const mainWidth = columns - logWidth;
	const rich = mainWidth >= 96 && columns >= RICH_COLUMNS && rows >= RICH_ROWS;
	const below = input.showLog === true && !beside;

	let free = height - 1 - footer; // header, footer
	const probe = rich ? 4 : 3;
	let contention = rich ? 5 : 3;
	let graphRows = rich ? Math.min(6, Math.max(3, Math.floor((rows - 30) / 2))) : 0;
	const passes = PASSES_BASE + (graphRows > 0 ? graphRows + GRAPH_EXTRA : 0);
	free -= probe + contention + passes;

	// Engines: title + column headers + rows wanted, at least title + 1, at most title + headers + 8.
	let engines = 2 + Math.min(8, wantEngines);
	let logBelow = 0;
	if (below) {
		// A log pane asked for on a narrow/short screen takes what is left, at least 4 rows.
		engines = Math.min(engines, Math.max(2, free - 4));
		logBelow = Math.max(0, free - engines);
	} else if (rich) {
		engines = Math.min(engines, Math.max(2, free - 6));
	} else {
		engines = Math.min(engines, free);
	}
	free -= engines + logBelow;
	let requests = 0;
	if (rich && !below) {
		requests = Math.max(0, free);
		free = 0;
	}
	// Whatever is left goes to the probe pane (first against second needs 3 lines), the contention
	// pane (more hot processes), then the requests table; never blank rows under ENGINES.
	let probeRows = probe;
	if (free > 0) {
		const p = Math.min(free, Math.max(0, 4 - probe));
		probeRows += p;
		free -= p;
		const more = Math.min(free, 3);
		contention += more;
		free -= more;
		// Room to spare between the sizes (e.g. 110×34): the requests table.
		if (free >= 4 && !below) requests = free;
		else contention += free;
		free = 0;
	}
	if (free < 0 && graphRows > 0) graphRows = Math.max(0, graphRows + free);
	return {
		...base,
		tooSmall: false,
		mainWidth,
		engines,
		passes: PASSES_BASE + (graphRows > 0 ? graphRows + GRAPH_EXTRA : 0),
		graphRows,
		requests,
		contention,
		probe: probeRows,
		logBelow,
		logBeside: beside ? {width: logWidth, height: height - 2} : undefined,
	};
}
