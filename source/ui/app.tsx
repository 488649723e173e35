/**
 * The interactive screen: one store subscription (the published snapshot, ≤ 4/s), view state in a
 * reducer, one key router, a layout planned from the terminal size. Panes only render.
 */
import {Box, renderToString, useInput, useStdin} from 'ink';
import {useCallback, useEffect, useMemo, useReducer, useRef, useSyncExternalStore} from 'react';
import stripAnsi from 'strip-ansi';
import {deriveServer, FIGURE_WINDOW_MS} from '../model/derive.js';
import type {MonitorStore} from '../model/store.js';
import type {MonitorState, PassSample, ServerState} from '../types/monitor.js';
import {sanitize} from '../util/sanitize.js';
import {stepRefresh} from './controller.js';
import type {Controller} from '../types/controller.js';
import {KEYMAP, keyName, resolveKey, type ActionId, type KeyBinding, type KeyScope} from './keymap.js';
import {planLayout} from './layout.js';
import {ContentionPane} from './panes/contention.js';
import {EmptyState} from './panes/empty.js';
import {EnginesPane, engineRows, type EngineRow} from './panes/engines.js';
import {Footer} from './panes/footer.js';
import {Header} from './panes/header.js';
import {LogPane} from './panes/log.js';
import {HelpOverlay, PromptOverlay, TooSmall} from './panes/overlays.js';
import {PassesPane} from './panes/passes.js';
import {ProbePane} from './panes/probe.js';
import {ComparePane} from './panes/compare.js';
import {RequestsPane, requestRows} from './panes/requests.js';
import {BUILTIN_THEMES, noColorTheme, type Theme} from './theme.js';
import {loadTheme, resolveTheme} from '../config/themes.js';
import {ThemeContext, useTheme} from './theme-context.js';
import {useTerminalSize} from './use-terminal-size.js';
import {initialView, PROMPT_KINDS, viewReducer, type ViewAction, type ViewState} from './view-state.js';

export type {Controller} from '../types/controller.js';

export interface DashboardProps {
	readonly state: MonitorState;
	readonly view: ViewState;
	readonly columns: number;
	readonly rows: number;
	readonly version: string;
	readonly keymap?: readonly KeyBinding[];
	/** stdin is not a TTY (or a one-shot snapshot): the footer says so instead of listing keys. */
	readonly readOnly?: boolean;
	/** Replaces the footer hints (the snapshot says what it is). */
	readonly footerNote?: string;
}

/** A notice stays in the footer this long (ms of state.now), like htop's messages. */
export const NOTICE_MS = 15_000;

/** The notice to show now: the newest one younger than NOTICE_MS. */
export function currentNotice(state: MonitorState): MonitorState['notices'][number] | undefined {
	const last = state.notices.at(-1);
	return last && state.now - last.t <= NOTICE_MS && last.t <= state.now + 1000 ? last : undefined;
}

/** Finished requests of a server inside the figure window at `now` (the window only shrinks as the clock moves). */
function windowCount(server: ServerState | undefined, now: number): number {
	let n = 0;
	if (server) for (const r of server.requests) if (r.done && now - r.lastSeen <= FIGURE_WINDOW_MS) n++;
	return n;
}

/**
 * Everything on screen that reads the clock, as one key: the store publishes a tick alone only when
 * it changes (a keep-alive's "4 minutes from now", a notice expiring, a request leaving the figure
 * window, a running probe's elapsed time). Pure.
 */
export function clockKey(state: MonitorState): string {
	const parts: string[] = [String(currentNotice(state)?.t ?? '')];
	for (const r of engineRows(state.servers, state.order, state.now)) parts.push(r.until);
	for (const id of state.order) parts.push(String(windowCount(state.servers[id], state.now)));
	if (state.probe.running) parts.push(String(state.now));
	return parts.join('\u0000');
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

/** The scopes whose bindings are live, most specific first (router and footer agree). */
export function activeScopes(view: ViewState, empty: boolean): KeyScope[] {
	if (view.filterEditing) return ['filter'];
	if (view.overlay === 'help') return ['help'];
	if (view.overlay === 'prompt') return ['prompt'];
	if (view.overlay === 'compare') return ['compare'];
	return empty ? ['empty', 'global'] : ['global'];
}

/** The selected server: the view's choice while it still exists, else the first. */
export function selectedServer(state: MonitorState, view: ViewState): string | undefined {
	return view.selectedId !== undefined && state.servers[view.selectedId] ? view.selectedId : state.order[0];
}

/** Whether the log pane is on screen for this size and view state. */
export function logVisible(columns: number, rows: number, view: ViewState, engineRowCount = 3): boolean {
	const plan = planLayout({columns, rows, showLog: view.showLog, engineRows: engineRowCount});
	return !plan.tooSmall && (plan.logBelow > 0 || plan.logBeside !== undefined);
}

/** The whole screen as a pure function of (snapshot, view state, size). */
export function Dashboard({state, view, columns, rows, version, keymap = KEYMAP, readOnly = false, footerNote}: DashboardProps) {
	const theme = useTheme();
	// Rows are rebuilt each render (cheap) and kept by reference while equal: the pane re-renders only when a row changed.
	const engineList: EngineRow[] = useStable(engineRows(state.servers, state.order, state.now));
	const plan = planLayout({columns, rows, showLog: view.showLog, engineRows: engineList.length});
	const selectedId = selectedServer(state, view);
	const server = selectedId !== undefined ? state.servers[selectedId] : undefined;
	// deriveServer reads servers, bandwidth, probe results and, through the figure window, the clock:
	// memoised on those, with the clock standing in as the window's size (it moves a few times a minute, not every tick).
	const inWindow = windowCount(server, state.now);
	const derived = useMemo(
		() => (selectedId !== undefined ? deriveServer(state, selectedId) : []),
		[selectedId, state.servers, state.bandwidth, state.probe.results, inWindow],
	);
	const figures = useStable(derived);
	const reqLimit = Math.max(0, plan.requests - 2);
	const reqRows = useMemo(() => requestRows(state.servers, state.order, reqLimit), [state.servers, state.order, reqLimit]);
	const reqTotal = useMemo(() => state.order.reduce((n, id) => n + (state.servers[id]?.requests.length ?? 0), 0), [state.servers, state.order]);

	const notice = currentNotice(state);
	// hooks before the early return: the same number of hooks every render
	const stableNote = {
		footer: useStable(footerNote !== undefined ? {text: footerNote, level: 'info' as const} : undefined),
		notice: useStable(notice ? {text: sanitize(notice.text, 300), level: notice.level} : undefined),
	};
	const scopes = useStable(activeScopes(view, state.order.length === 0));

	if (plan.tooSmall) return <TooSmall columns={columns} rows={rows} need={plan.need} />;

	const empty = state.order.length === 0;
	const demo = state.demo || state.order.some(id => state.servers[id]?.demo === true);
	const middle = plan.height - plan.header - plan.footer;
	const contention = state.system.contention.active ? state.system.contention.verdict : undefined;
	const chip = state.bandwidth.chip ?? state.system.gpus[0]?.name ?? state.system.cpuModel;
	const note = footerNote !== undefined ? stableNote.footer : stableNote.notice;
	const log = server ? (
		<LogPane
			log={server.log}
			label={server.logLabel ?? server.id}
			logState={server.logState}
			filter={view.filter}
			editing={view.filterEditing}
			draft={view.filterDraft}
			scroll={view.logScroll}
			width={plan.logBeside ? plan.logBeside.width - 2 : plan.mainWidth}
			height={plan.logBeside ? plan.logBeside.height : plan.logBelow}
		/>
	) : null;

	let main;
	if (view.overlay === 'help') {
		main = <HelpOverlay keymap={keymap} width={plan.mainWidth} height={middle} />;
	} else if (view.overlay === 'prompt') {
		main = <PromptOverlay cursor={view.promptCursor} current={state.probe.prompt} serverLabel={server?.url ?? selectedId} width={plan.mainWidth} height={middle} />;
	} else if (view.overlay === 'compare') {
		main = <ComparePane compare={state.compare} now={state.now} width={plan.mainWidth} height={middle} />;
	} else if (empty) {
		main = <EmptyState lookedFor={state.lookedFor} width={plan.mainWidth} height={middle} canType={!readOnly} />;
	} else {
		main = (
			<>
				<EnginesPane rows={engineList} selectedId={selectedId} width={plan.mainWidth} height={plan.engines} />
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
				/>
				{plan.requests > 0 ? <RequestsPane rows={reqRows} total={reqTotal} width={plan.mainWidth} height={plan.requests} /> : null}
				<ContentionPane system={state.system} width={plan.mainWidth} height={plan.contention} />
				<ProbePane probe={state.probe} now={state.probe.running ? state.now : 0} width={plan.mainWidth} height={plan.probe} readOnly={readOnly} />
				{plan.logBelow > 0 ? log : null}
			</>
		);
	}

	return (
		<Box flexDirection="column" width={columns} height={plan.height} overflow="hidden">
			<Header
				version={version}
				host={state.host}
				demo={demo}
				paused={view.paused}
				bandwidth={state.bandwidth}
				chip={chip}
				refreshMs={state.refreshMs}
			/>
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
			<Footer keymap={keymap} scopes={scopes} self={state.system.self} readOnly={readOnly} width={columns} note={note} />
		</Box>
	);
}

export interface AppProps {
	readonly store: MonitorStore;
	readonly controller: Controller;
	/** Theme name (`dark`, `light`, `high-contrast`) or a path to a theme JSON. @default 'dark' */
	readonly theme?: string;
	/** Force the no-colour theme (also chosen by NO_COLOR / TERM=dumb). @default false */
	readonly noColor?: boolean;
	readonly version: string;
	/** The key table (tests add bindings); footer, help and router all read it. @default KEYMAP */
	readonly keymap?: readonly KeyBinding[];
}

function themeCycle(name: string | undefined, noColor: boolean | undefined): Theme[] {
	const first = resolveTheme({name, noColor}).theme;
	if (first.noColor) return [first];
	const rest = BUILTIN_THEMES.filter(n => n !== first.name).flatMap(n => {
		try {
			return [loadTheme(n)];
		} catch {
			return [];
		}
	});
	return [first, ...rest];
}

export function App({store, controller, theme, noColor, version, keymap = KEYMAP}: AppProps) {
	const state = useSyncExternalStore(store.subscribe, store.getPublished, store.getPublished);
	const [view, dispatchView] = useReducer(viewReducer, initialView);
	// A mirror of the view state, advanced by the same reducer in the key handler, so several keys
	// arriving in one stdin chunk each see the state the previous one left (no stale closures).
	const viewRef = useRef<ViewState>(view);
	const act = useCallback((a: ViewAction) => {
		viewRef.current = viewReducer(viewRef.current, a);
		dispatchView(a);
	}, []);
	const size = useTerminalSize();
	const sizeRef = useRef(size);
	sizeRef.current = size;
	const themes = useMemo(() => themeCycle(theme, noColor), [theme, noColor]);
	const activeTheme = themes[view.themeIndex % themes.length] ?? noColorTheme();
	const {isRawModeSupported} = useStdin();
	// A tick alone reaches the screen only when a text that reads the clock changed.
	useEffect(() => {
		store.setClockKey(clockKey);
		return () => store.setClockKey(undefined);
	}, [store]);

	const run = useCallback(
		(id: ActionId) => {
			const s = store.getPublished();
			const v = viewRef.current;
			const sel = selectedServer(s, v);
			switch (id) {
				case 'help':
					act({type: 'overlay', overlay: v.overlay === 'help' ? 'none' : 'help'});
					return;
				case 'quit':
					controller.quit();
					return;
				case 'select-next':
				case 'select-prev':
					act({type: 'select', order: s.order, delta: id === 'select-next' ? 1 : -1});
					return;
				case 'refresh-faster':
				case 'refresh-slower':
					controller.setRefresh(stepRefresh(s.refreshMs, id === 'refresh-faster' ? -1 : 1));
					return;
				case 'pause': {
					const next = !store.isPaused();
					store.setPaused(next);
					act({type: 'paused', paused: next});
					return;
				}
				case 'toggle-log': {
					const rowsCount = engineRows(s.servers, s.order, s.now).length;
					act({type: 'toggle-log', visibleNow: logVisible(sizeRef.current.columns, sizeRef.current.rows, v, rowsCount)});
					return;
				}
				case 'filter':
					act({type: 'filter-start'});
					return;
				case 'filter-apply':
					act({type: 'filter-apply'});
					return;
				case 'log-up':
				case 'log-down': {
					const len = sel !== undefined ? (s.servers[sel]?.log.length ?? 0) : 0;
					act({type: 'log-scroll', delta: id === 'log-up' ? 10 : -10, max: Math.max(0, len - 1)});
					return;
				}
				case 'theme':
					if (controller.cycleTheme) controller.cycleTheme();
					else act({type: 'theme-next', count: themes.length});
					return;
				case 'escape':
					if (v.filterEditing) act({type: 'filter-cancel'});
					else if (v.overlay !== 'none') act({type: 'overlay', overlay: 'none'});
					else if (s.probe.running) controller.cancelProbe();
					else if (v.filter) act({type: 'filter-clear'});
					return;
				case 'probe':
					if (sel !== undefined) controller.probe(sel, s.probe.prompt);
					return;
				case 'probe-twice':
					if (sel !== undefined) controller.probe(sel, s.probe.prompt, 2);
					return;
				case 'choose-prompt': {
					const at = PROMPT_KINDS.indexOf(s.probe.prompt as (typeof PROMPT_KINDS)[number]);
					act({type: 'overlay', overlay: 'prompt', promptCursor: Math.max(0, at)});
					return;
				}
				case 'prompt-next':
				case 'prompt-prev':
					act({type: 'prompt-move', delta: id === 'prompt-next' ? 1 : -1});
					return;
				case 'prompt-run': {
					const kind = PROMPT_KINDS[v.promptCursor] ?? 'code';
					act({type: 'overlay', overlay: 'none'});
					if (sel !== undefined) controller.probe(sel, kind);
					return;
				}
				case 'demo':
					controller.startDemo();
					return;
				case 'compare':
					// From the screen: show the table (the first time, run it); in the table: run it again once finished.
					if (v.overlay !== 'compare') {
						act({type: 'overlay', overlay: 'compare'});
						if (!s.compare) controller.compare?.();
					} else if (!s.compare || s.compare.finished) controller.compare?.();
					return;
				case 'compare-close':
					if (s.compare && !s.compare.finished) controller.cancelCompare?.();
					else act({type: 'overlay', overlay: 'none'});
					return;
			}
		},
		[store, controller, act, themes.length],
	);

	useInput(
		(input, key) => {
			const name = keyName(input, key);
			const v = viewRef.current;
			if (name === 'ctrl+c') {
				controller.quit();
				return;
			}
			if (v.filterEditing) {
				const b = name !== undefined ? resolveKey(keymap, ['filter'], name) : undefined;
				if (b) run(b.id);
				else if (name === 'backspace') act({type: 'filter-backspace'});
				else if (!key.ctrl && !key.meta && input && !/[\u0000-\u001f\u007f]/.test(input)) act({type: 'filter-type', text: input});
				return;
			}
			if (name === undefined) return;
			const s = store.getPublished();
			const b = resolveKey(keymap, activeScopes(v, s.order.length === 0), name);
			if (b) run(b.id);
		},
		{isActive: isRawModeSupported === true},
	);

	return (
		<ThemeContext.Provider value={activeTheme}>
			<Dashboard state={state} view={view} columns={size.columns} rows={size.rows} version={version} keymap={keymap} readOnly={isRawModeSupported !== true} />
		</ThemeContext.Provider>
	);
}

/**
 * One frame as plain text, for the non-TTY path (`infertop snapshot`, piped stdout): the same
 * panes through ink's renderToString, no colour and no escape codes, at most rows − 1 lines.
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
