/**
 * The whole screen as a pure function of (snapshot, view state, size): layout planned from the
 * terminal size, panes only render. No store, no keys, no I/O (app.tsx and key-router.tsx).
 */
import {Box, renderToString} from 'ink';
import {useMemo, useRef} from 'react';
import stripAnsi from 'strip-ansi';
import {deriveServer} from '../model/derive.js';
import type {MonitorState, PassSample} from '../types/state.js';
import {sanitize} from '../util/sanitize.js';
import {KEYMAP, type KeyBinding} from './keymap.js';
import {ContentionPane, contentionLines} from './panes/contention.js';
import {EmptyState} from './panes/empty.js';
import {EnginesPane} from './panes/engines.js';
import {engineRows, type EngineRow} from './view-model/engines.js';
import {Footer, noteRows, selfText} from './panes/footer.js';
import {findingRows, footerFinding, newestUnseen} from './view-model/findings.js';
import {Header} from './panes/header.js';
import {LogPane} from './panes/log.js';
import {TooSmall} from './panes/overlays.js';
import {PassesPane} from './panes/passes.js';
import {DEFAULT_SESSION_GAP_MS} from '../model/sessions.js';
import {OVERLAY_VIEWS, type OverlayViews} from './overlay-views.js';
import {SCOPES, type ScopeTable} from './scopes.js';
import {ProbePane} from './panes/probe.js';
import {RequestsPane} from './panes/requests.js';
import {requestEntries, requestsSeen, tableEntries, type RequestEntry} from './view-model/requests.js';
import {activeScopes, currentNotice, FLASH_MS, logTotal, macLines, planFor, selectedServer, windowCount} from './selectors.js';
import {noColorTheme} from './theme.js';
import {ThemeContext, useTheme} from './theme-context.js';
import {initialView, type ViewState} from './view-state.js';

/** How often the footer's newest agent finding is looked for (ms). */
const FINDINGS_EVERY_MS = 2000;

export interface DashboardProps {
	readonly state: MonitorState;
	readonly view: ViewState;
	readonly columns: number;
	readonly rows: number;
	readonly version: string;
	readonly keymap?: readonly KeyBinding[];
	/** The store holds its snapshot (space): the PAUSED badge. The store owns pause, not the view. */
	readonly paused?: boolean;
	/** The refresh interval now (the store's latest, so `+`/`-` show at once even while paused). */
	readonly refreshMs?: number;
	/** stdin is not a TTY (or a one-shot snapshot): the footer says so instead of listing keys. */
	readonly readOnly?: boolean;
	/** Replaces the footer hints (the snapshot says what it is). */
	readonly footerNote?: string;
	/** Agent view: the longest pause within one session (config `sessionGap`), ms. */
	readonly sessionGapMs?: number;
	/** The key scopes and overlays (ui/scopes.ts) and what each overlay shows (tests add one). */
	readonly scopes?: ScopeTable;
	readonly overlayViews?: OverlayViews;
}

/** The previous value while `next` is equal to it (by its JSON), so memoised panes see the same reference. */
function useStable<T>(next: T): T {
	const ref = useRef<{value: T; key: string; input: T} | undefined>(undefined);
	// the same input as last time (a memo that did not rerun): nothing to compare
	if (ref.current !== undefined && ref.current.input === next) return ref.current.value;
	const key = JSON.stringify(next);
	if (ref.current === undefined || ref.current.key !== key) ref.current = {value: next, key, input: next};
	else ref.current.input = next;
	return ref.current.value;
}

const NO_HISTORY: readonly PassSample[] = [];
const NO_ENTRIES: readonly RequestEntry[] = [];

export function Dashboard({state, view, columns, rows, version, keymap = KEYMAP, paused = false, refreshMs, readOnly = false, footerNote, sessionGapMs = DEFAULT_SESSION_GAP_MS, scopes = SCOPES, overlayViews = OVERLAY_VIEWS}: DashboardProps) {
	const theme = useTheme();
	// Rows are rebuilt each render (cheap) and kept by reference while equal: the pane re-renders only when a row changed.
	const engineList: EngineRow[] = useStable(engineRows(state.servers, state.order, state.now));
	// macOS: the GPU busy share and the wired-limit verdict under the engine rows (none elsewhere).
	const gpuLines = useStable(useMemo(() => macLines(state), [state.servers, state.order, state.system]));
	const notice = currentNotice(state);
	const flash = view.flash && state.now - view.flash.t < FLASH_MS ? view.flash : undefined;
	// The newest agent finding (issue 28), until the agent view or the findings list is opened.
	// Sessions are derived for it at most every FINDINGS_EVERY_MS (a busy log changes the rings every frame).
	const findingsRef = useRef<{at: number; rows: ReturnType<typeof findingRows>} | undefined>(undefined);
	if (findingsRef.current === undefined || state.now - findingsRef.current.at >= FINDINGS_EVERY_MS || state.now < findingsRef.current.at) {
		findingsRef.current = {at: state.now, rows: findingRows(state, sessionGapMs)};
	}
	const findings = findingsRef.current.rows;
	const unseen = view.overlay === 'none' ? newestUnseen(findings, view.findingsSeenAt) : undefined;
	const note = useStable(
		footerNote !== undefined
			? {text: footerNote, level: 'info' as const}
			: flash
				? {text: flash.text, level: 'info' as const}
				: unseen
					? {text: sanitize(footerFinding(unseen), 300), level: 'error' as const}
					: notice
						? {text: sanitize(notice.text, 300), level: notice.level}
						: undefined,
	);
	// A notice is read whole: the footer takes the rows it needs (up to 3) from the panes.
	const footerRows = note && noteRows(note, Math.max(1, columns - selfText(state.system.self).length - 1)) > 1 ? noteRows(note, columns) : 1;
	const plan = planFor(state, view, {columns, rows}, {rows: engineList, gpu: gpuLines}, footerRows);
	const selectedId = selectedServer(state, view);
	const server = selectedId !== undefined ? state.servers[selectedId] : undefined;
	// deriveServer reads servers, bandwidth, probe results and, through the figure window, the clock:
	// memoised on those, with the window's size standing in for the clock (it moves a few times a minute, not every tick).
	const inWindow = windowCount(server, state.now);
	const derived = useMemo(
		() => (selectedId !== undefined ? deriveServer(state, selectedId) : []),
		[selectedId, state.servers, state.bandwidth, state.probe.results, inWindow],
	);
	const figures = useStable(derived);
	const allRequests = useMemo(() => requestEntries(state.servers, state.order), [state.servers, state.order]);
	const seen = useMemo(() => requestsSeen(state.servers, state.order), [state.servers, state.order]);
	// The table is sorted only while REQUESTS is on screen (an overlay or a small terminal hides it).
	const tableShown = plan.requests > 0 && view.overlay === 'none' && state.order.length > 0;
	const table = useMemo(() => (tableShown ? tableEntries(allRequests, view.tableSort, view.tableFilter) : NO_ENTRIES), [tableShown, allRequests, view.tableSort, view.tableFilter]);

	// hooks before the early returns: the same number of hooks every render
	const active = useStable(activeScopes(view, state.order.length === 0).filter(s => s !== 'always'));

	if (view.suspended) return <Box height={1} />;
	if (plan.tooSmall) return <TooSmall columns={columns} rows={rows} need={plan.need} />;

	const empty = state.order.length === 0;
	const demo = state.demo || state.order.some(id => state.servers[id]?.demo === true);
	const middle = plan.height - plan.header - plan.footer;
	const contention = state.system.contention.active ? state.system.contention.verdict : undefined;
	const chip = state.bandwidth.chip ?? state.system.gpus[0]?.name ?? state.system.cpuModel;
	const tableFocused = view.focus === 'table' && plan.requests > 0;
	const editingLog = view.filterEditing && view.filterTarget === 'log';
	const log = server ? (
		<LogPane
			log={server.log}
			total={logTotal(state, selectedId)}
			label={server.logLabel ?? server.id}
			logState={server.logState}
			filter={view.filter}
			editing={editingLog}
			draft={view.filterDraft}
			end={view.logEnd}
			left={view.logLeft}
			wrap={view.logWrap}
			width={plan.logBeside ? plan.logBeside.width - 2 : plan.mainWidth}
			height={plan.logBeside ? plan.logBeside.height : plan.logBelow}
		/>
	) : null;

	// CONTENTION's rows beyond its lines go to PROBE (its lines wrap there instead of being cut).
	const spareContention = Math.max(0, plan.contention - 1 - contentionLines(state.system).length);
	let main;
	if (view.overlay !== 'none') {
		main = overlayViews[view.overlay]({state, view, keymap, scopes, width: plan.mainWidth, height: middle, selectedId, server, requests: allRequests, demo, sessionGapMs});
	} else if (empty) {
		main = <EmptyState lookedFor={state.lookedFor} width={plan.mainWidth} height={middle} canType={!readOnly} />;
	} else {
		main = (
			<>
				<EnginesPane rows={engineList} selectedId={selectedId} width={plan.mainWidth} height={plan.engines} gpuLines={gpuLines} />
				<PassesPane
					figures={figures}
					history={server?.history ?? NO_HISTORY}
					load={server?.load}
					serverLabel={selectedId}
					contention={contention}
					demo={server?.demo === true}
					width={plan.mainWidth}
					height={plan.passes}
					graphRows={plan.graphRows}
					pinnedModel={selectedId !== undefined ? view.pinned[selectedId] : undefined}
				/>
				{plan.requests > 0 ? (
					<RequestsPane
						entries={table}
						total={allRequests.length}
						seen={seen.requests}
						lag={seen.lag}
						withoutFigures={seen.withoutFigures}
						focused={tableFocused}
						cursor={view.tableCursor}
						sort={view.tableSort}
						filter={view.tableFilter}
						draft={view.filterEditing && view.filterTarget === 'table' ? view.filterDraft : undefined}
						width={plan.mainWidth}
						height={plan.requests}
					/>
				) : null}
				<ContentionPane system={state.system} width={plan.mainWidth} height={plan.contention - spareContention} />
				<ProbePane probe={state.probe} now={state.probe.running ? state.now : 0} width={plan.mainWidth} height={plan.probe + spareContention} readOnly={readOnly} />
				{plan.logBelow > 0 ? log : null}
			</>
		);
	}

	return (
		<Box flexDirection="column" width={columns} height={plan.height} overflow="hidden">
			<Header version={version} host={state.host} demo={demo} paused={paused} bandwidth={state.bandwidth} chip={chip} refreshMs={refreshMs ?? state.refreshMs} />
			<Box width={columns} height={middle} overflow="hidden">
				<Box flexDirection="column" width={plan.mainWidth} height={middle} overflow="hidden">
					{main}
				</Box>
				{plan.logBeside && !empty ? (
					<Box
						width={plan.logBeside.width}
						height={middle}
						overflow="hidden"
						paddingLeft={1}
						borderStyle="single"
						borderTop={false}
						borderRight={false}
						borderBottom={false}
						borderColor={theme.colors.border}
					>
						{log}
					</Box>
				) : null}
			</Box>
			<Footer keymap={keymap} scopes={active} self={state.system.self} readOnly={readOnly} width={columns} note={note} />
		</Box>
	);
}

/**
 * One frame as plain text, for the non-TTY path (`infertop snapshot`, piped stdout, TERM=dumb):
 * the same panes through ink's renderToString, no colour and no escape codes, at most rows − 1 lines.
 */
export function renderSnapshotText(state: MonitorState, size: {readonly columns: number; readonly rows: number}, version = ''): string {
	const out = renderToString(
		<ThemeContext.Provider value={noColorTheme()}>
			<Dashboard state={state} view={initialView} columns={size.columns} rows={size.rows} version={version} readOnly footerNote="snapshot · run infertop in a terminal to watch" />
		</ThemeContext.Provider>,
		{columns: size.columns},
	);
	return stripAnsi(out)
		.split('\n')
		.map(l => l.replace(/\s+$/, ''))
		.join('\n')
		.replace(/\n+$/, '');
}
