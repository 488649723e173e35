/**
 * What the dashboard and the key router both read from (snapshot, view state, size): one
 * definition each, so a key acts on exactly what the screen shows. Pure.
 */
import {deriveServer, FIGURE_WINDOW_MS} from '../model/derive.js';
import type {ModelFigures} from '../model/figure-table.js';
import type {MonitorState, ServerState} from '../types/state.js';
import type {KeyScope} from './scopes.js';
import {planLayout} from './layout.js';
import {macGpuLines, macGpuSummary, type MacGpuLine} from '../model/wired-limit.js';
import {engineRows, type EngineRow} from './view-model/engines.js';
import {shownFigures} from './view-model/passes.js';
import {requestEntries, tableEntries, type RequestEntry} from './view-model/requests.js';
import type {ViewState} from './view-state.js';

/** A notice stays in the footer this long (ms of state.now), like htop's messages. */
export const NOTICE_MS = 15_000;
/** A key's own message (theme name, pinned model) stays this long. */
export const FLASH_MS = 4000;

/** The notice to show now: the newest one younger than NOTICE_MS. */
export function currentNotice(state: MonitorState): MonitorState['notices'][number] | undefined {
	const last = state.notices.at(-1);
	return last && state.now - last.t <= NOTICE_MS && last.t <= state.now + 1000 ? last : undefined;
}

/** Finished requests of a server inside the figure window at `now` (the window only shrinks as the clock moves). */
export function windowCount(server: ServerState | undefined, now: number): number {
	let n = 0;
	if (server) for (const r of server.requests) if (r.done && now - r.lastSeen <= FIGURE_WINDOW_MS) n++;
	return n;
}

/**
 * Everything on screen that reads the store's clock, as one key: the store publishes a tick alone
 * only when it changes (a keep-alive's "4 minutes from now", a notice expiring, a request leaving
 * the figure window, a running probe's elapsed time). A key's flash lives in the view state: the
 * App adds it (app.tsx). Pure.
 */
export function clockKey(state: MonitorState): string {
	const parts: string[] = [String(currentNotice(state)?.t ?? '')];
	for (const r of engineRows(state.servers, state.order, state.now)) parts.push(r.until);
	for (const id of state.order) parts.push(String(windowCount(state.servers[id], state.now)));
	if (state.probe.running) parts.push(String(state.now));
	return parts.join('\u0000');
}

/** The scopes whose bindings are live, most specific first (router and footer agree): an open overlay's scope is its name (ui/scopes.ts). */
export function activeScopes(view: ViewState, empty: boolean, tooSmall = false): KeyScope[] {
	if (tooSmall) return ['always'];
	if (view.filterEditing) return ['always', 'filter'];
	if (view.overlay !== 'none') return ['always', view.overlay];
	if (empty) return ['always', 'empty', 'global'];
	return view.focus === 'table' ? ['always', 'table', 'global'] : ['always', 'global'];
}

/** The selected server: the view's choice while it still exists, else the first. */
export function selectedServer(state: MonitorState, view: ViewState): string | undefined {
	return view.selectedId !== undefined && state.servers[view.selectedId] ? view.selectedId : state.order[0];
}

/**
 * The log pane's setting for the layout: as the user set it (`l`), else automatic; while an overlay
 * is open it is hidden unless `l` asked for it, so that the overlay takes the width it needs.
 */
export function logSetting(view: ViewState): boolean | undefined {
	return view.overlay !== 'none' && view.showLog !== true ? false : view.showLog;
}

/** The lines of the ENGINES pane's body: a row per engine, then (macOS) the GPU busy share and wired-limit lines. */
export interface EngineLines {
	readonly rows: readonly EngineRow[];
	readonly gpu: readonly MacGpuLine[];
}

/** macOS: the GPU busy share and the wired-limit verdict (and its fix) under the engine rows; none elsewhere. */
export function macLines(state: MonitorState): MacGpuLine[] {
	return macGpuLines(macGpuSummary(state));
}

export function engineLines(state: MonitorState): EngineLines {
	return {rows: engineRows(state.servers, state.order, state.now), gpu: macLines(state)};
}

/** How many lines the ENGINES pane's body takes: what the layout, the log's visibility and its page size all count. */
export function engineLineCount(lines: EngineLines): number {
	return lines.rows.length + lines.gpu.length;
}

/** The layout for this state, view and size (`lines`: the ENGINES body, when the caller already has it). */
export function planFor(state: MonitorState, view: ViewState, size: {readonly columns: number; readonly rows: number}, lines: EngineLines = engineLines(state), footerRows?: number) {
	return planLayout({columns: size.columns, rows: size.rows, showLog: logSetting(view), engineRows: engineLineCount(lines), footerRows});
}

/** Whether the log pane is on screen for this state, view and size. */
export function logShownFor(state: MonitorState, view: ViewState, size: {readonly columns: number; readonly rows: number}): boolean {
	return logVisible(size.columns, size.rows, view, engineLineCount(engineLines(state)));
}

/** Whether the log pane is on screen for this size and view state. */
export function logVisible(columns: number, rows: number, view: ViewState, engineRowCount = 3): boolean {
	const plan = planLayout({columns, rows, showLog: logSetting(view), engineRows: engineRowCount});
	return !plan.tooSmall && (plan.logBelow > 0 || plan.logBeside !== undefined);
}

/** Rows of log text the pane shows for this plan (title and filter line excluded). */
export function logRows(plan: ReturnType<typeof planLayout>): number {
	return Math.max(1, (plan.logBeside ? plan.logBeside.height : plan.logBelow) - 2);
}

/** Models of a server the `m` key cycles through: listed ones, then ones only its requests name. */
export function modelsOf(figures: readonly ModelFigures[]): string[] {
	return [...new Set(figures.map(f => f.model).filter((m): m is string => m !== undefined))];
}

/** auto → first model → … → last → auto. */
export function nextPin(models: readonly string[], current: string | undefined): string | undefined {
	if (models.length === 0) return undefined;
	if (current === undefined) return models[0];
	const at = models.indexOf(current);
	return at < 0 || at + 1 >= models.length ? undefined : models[at + 1];
}

/** The figures PASSES shows for the selected server (and the model `p` probes). */
export function shownModel(state: MonitorState, view: ViewState): {serverId?: string; figures: ModelFigures[]; shown?: ModelFigures} {
	const serverId = selectedServer(state, view);
	if (serverId === undefined) return {figures: []};
	const figures = deriveServer(state, serverId);
	return {serverId, figures, shown: shownFigures(figures, view.pinned[serverId])};
}

/** The requests table as shown: every server's requests, sorted and filtered. */
export function tableFor(state: MonitorState, view: ViewState): {all: RequestEntry[]; rows: RequestEntry[]} {
	const all = requestEntries(state.servers, state.order);
	return {all, rows: tableEntries(all, view.tableSort, view.tableFilter)};
}

/** Lines ever seen on a server's log (the ring keeps the newest). */
export function logTotal(state: MonitorState, serverId: string | undefined): number {
	const s = serverId !== undefined ? state.servers[serverId] : undefined;
	return s ? Math.max(s.log.length, s.linesParsed + s.linesUnparsed) : 0;
}
