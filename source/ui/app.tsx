/**
 * The interactive screen's root: providers only. One store subscription (the published snapshot,
 * ≤ 4/s, plus the store's pause and refresh), view state in a reducer, the theme context, then the
 * key router (key-router.tsx) and the dashboard (dashboard.tsx) side by side.
 */
import {useStdin} from 'ink';
import {useCallback, useEffect, useMemo, useReducer, useRef, useSyncExternalStore} from 'react';
import type {MonitorStore} from '../model/store.js';
import type {Controller} from '../types/controller.js';
import {Dashboard} from './dashboard.js';
import {KeyRouter} from './key-router.js';
import {clockKey, FLASH_MS, planFor} from './selectors.js';
import {KEYMAP, keymapOf, type KeyBinding} from './keymap.js';
import {overlayShowsLog, SCOPES, type ScopeTable} from './scopes.js';
import type {OverlayViews} from './overlay-views.js';
import {noColorTheme, type Theme} from './theme.js';
import {ThemeContext} from './theme-context.js';
import {useTerminalSize} from './use-terminal-size.js';
import {initialView, viewReducer, type ViewAction, type ViewState} from './view-state.js';

export type {Controller} from '../types/controller.js';
export {Dashboard, renderSnapshotText, type DashboardProps} from './dashboard.js';

export interface AppProps {
	readonly store: MonitorStore;
	readonly controller: Controller;
	/** The themes `t` cycles, the first shown first: loaded (and checked) by config/themes.ts, never here. @default [no-color] */
	readonly themes?: readonly Theme[];
	readonly version: string;
	/** The key scopes and overlays (ui/scopes.ts; tests add a row). @default SCOPES */
	readonly scopes?: ScopeTable;
	/** What each overlay shows (ui/overlay-views.tsx; a test's overlay adds its own). @default OVERLAY_VIEWS */
	readonly overlayViews?: OverlayViews;
	/** The key table (tests add bindings); footer, help and router all read it. @default the scopes' keys (KEYMAP) */
	readonly keymap?: readonly KeyBinding[];
	/** Agent view: the longest pause within one session (config `sessionGap`), ms. */
	readonly sessionGapMs?: number;
}

const FALLBACK_THEMES: readonly Theme[] = [noColorTheme()];

export function App({store, controller, themes = FALLBACK_THEMES, version, scopes = SCOPES, overlayViews, keymap: keys, sessionGapMs}: AppProps) {
	const keymap = useMemo(() => keys ?? (scopes === SCOPES ? KEYMAP : keymapOf(scopes)), [keys, scopes]);
	const state = useSyncExternalStore(store.subscribe, store.getPublished, store.getPublished);
	const paused = useSyncExternalStore(store.subscribe, store.isPaused, store.isPaused);
	const refreshMs = useSyncExternalStore(store.subscribe, () => store.getSnapshot().refreshMs);
	const [view, dispatchView] = useReducer(viewReducer, initialView);
	// A mirror of the view state, advanced by the same reducer in the key handler, so several keys
	// arriving in one stdin chunk each see the state the previous one left (no stale closures).
	const viewRef = useRef<ViewState>(view);
	const act = useCallback((a: ViewAction) => {
		viewRef.current = viewReducer(viewRef.current, a);
		dispatchView(a);
	}, []);
	const getView = useCallback(() => viewRef.current, []);
	const size = useTerminalSize();
	const sizeRef = useRef(size);
	sizeRef.current = size;
	const getSize = useCallback(() => sizeRef.current, []);
	const list = themes.length > 0 ? themes : FALLBACK_THEMES;
	const theme = list[view.themeIndex % list.length] ?? noColorTheme();
	const {isRawModeSupported} = useStdin();
	// A tick alone reaches the screen only when a text that reads the clock changed (the store's
	// clock key), or a key's flash in the footer expired (view state, read through the mirror).
	useEffect(() => {
		store.setClockKey(s => {
			const flash = viewRef.current.flash;
			return `${clockKey(s)}\u0000${flash && s.now - flash.t < FLASH_MS ? flash.t : ''}`;
		});
		return () => store.setClockKey(undefined);
	}, [store]);
	// No log on screen (too few rows, hidden with its key): a log line alone publishes nothing.
	const plan = planFor(state, view, size);
	const logShown = overlayShowsLog(view.overlay, scopes) || (!plan.tooSmall && (plan.logBelow > 0 || plan.logBeside !== undefined));
	useEffect(() => store.setLogShown(logShown), [store, logShown]);
	return (
		<ThemeContext.Provider value={theme}>
			<KeyRouter store={store} controller={controller} keymap={keymap} view={getView} act={act} size={getSize} themes={list} />
			<Dashboard
				state={state}
				view={view}
				columns={size.columns}
				rows={size.rows}
				version={version}
				keymap={keymap}
				paused={paused}
				refreshMs={refreshMs}
				readOnly={isRawModeSupported !== true}
				sessionGapMs={sessionGapMs}
				scopes={scopes}
				overlayViews={overlayViews}
			/>
		</ThemeContext.Provider>
	);
}
