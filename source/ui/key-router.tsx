/**
 * The key router: one useInput, keys resolved through the keymap's active scopes, and one handler
 * per action in a table the compiler checks (`Record<ActionId, Handler>`: an action without a
 * handler, or a handler without an action, does not build). Ctrl+C, F10 and Esc come through the
 * keymap like every other key. Handlers read the newest store and view state (no stale closures)
 * and ask for I/O only through the controller.
 */
import {useInput, useStdin} from 'ink';
import {useEffect, useRef} from 'react';
import type {MonitorStore} from '../model/store.js';
import type {Controller} from '../types/controller.js';
import type {MonitorState} from '../types/state.js';
import {stepRefresh} from './controller.js';
import {functionKey, keyName, resolveKey, type ActionId, type KeyBinding} from './keymap.js';
import {logStep} from './view-model/log.js';
import {activeScopes, logRows, logShownFor, logTotal, modelsOf, nextPin, planFor, selectedServer, shownModel, tableFor} from './selectors.js';
import type {Theme} from './theme.js';
import {LOG_SIDE_STEP, PROMPT_KINDS, type ViewAction, type ViewState} from './view-state.js';

export interface RouterContext {
	readonly store: MonitorStore;
	readonly controller: Controller;
	/** The view state as the last action left it. */
	readonly view: () => ViewState;
	readonly act: (action: ViewAction) => void;
	readonly size: () => {readonly columns: number; readonly rows: number};
	readonly themes: readonly Theme[];
}

/** What a key does; `b` is the binding that matched (an `overlay` binding names its overlay). */
export type Handler = (c: RouterContext, b: KeyBinding) => void;

/** The published snapshot (what the screen shows): keys act on what the user sees. */
const shown = (c: RouterContext): MonitorState => c.store.getPublished();

/** Time for a key's message: the snapshot's clock, so the footer's age test agrees with it. */
const flashAt = (c: RouterContext): number => shown(c).now;

function refresh(c: RouterContext, dir: 1 | -1): void {
	// The store's newest value, not the published one: several presses in a row each take a step.
	const next = stepRefresh(c.store.getSnapshot().refreshMs, dir);
	c.controller.setRefresh(next);
	// Show it at once: the header reads the store's latest refresh value on this notification.
	c.store.notify();
}

function logScroll(c: RouterContext, step: number | 'home' | 'end'): void {
	const s = shown(c);
	const v = c.view();
	const sel = selectedServer(s, v);
	const server = sel !== undefined ? s.servers[sel] : undefined;
	if (!server) return;
	const rows = logRows(planFor(s, v, c.size()));
	c.act({type: 'log-end', end: logStep(server.log, logTotal(s, sel), v.filter, v.logEnd, step, rows)});
}

function tableMove(c: RouterContext, delta: number): void {
	c.act({type: 'table-move', delta, count: tableFor(shown(c), c.view()).rows.length});
}

function probe(c: RouterContext, runs: number, prompt?: (typeof PROMPT_KINDS)[number]): void {
	const s = shown(c);
	const {serverId, shown: f} = shownModel(s, c.view());
	if (serverId !== undefined) c.controller.probe(serverId, prompt ?? s.probe.prompt, runs, f?.model);
}

/** Read the measured profiles into the view (the what-if table). */
function loadProfiles(c: RouterContext): void {
	const {loadProfiles: load} = c.controller;
	if (!load) {
		c.act({type: 'whatif', whatif: {loading: false, profiles: [], error: 'no profiles here'}});
		return;
	}
	c.act({type: 'whatif', whatif: {loading: true, profiles: c.view().whatif?.profiles ?? []}});
	load().then(
		r => c.act({type: 'whatif', whatif: {loading: false, profiles: r.profiles, file: r.file}}),
		(error: unknown) => c.act({type: 'whatif', whatif: {loading: false, profiles: [], error: `profiles not read: ${error instanceof Error ? error.message : String(error)}`}}),
	);
}

export const HANDLERS: Record<ActionId, Handler> = {
	compare: c => {
		// From the screen: show the table (the first time, run it); in the table: run it again once finished.
		const s = shown(c);
		if (c.view().overlay !== 'compare') {
			c.act({type: 'overlay', overlay: 'compare'});
			if (!s.compare) c.controller.compare?.();
		} else if (!s.compare || s.compare.finished) c.controller.compare?.();
	},
	'compare-close': c => {
		const s = shown(c);
		if (s.compare && !s.compare.finished) c.controller.cancelCompare?.();
		else c.act({type: 'overlay', overlay: 'none'});
	},
	agent: c => {
		if (c.view().overlay !== 'agent') c.act({type: 'findings-seen', t: flashAt(c)});
		c.act({type: 'overlay', overlay: c.view().overlay === 'agent' ? 'none' : 'agent'});
	},
	whatif: c => {
		c.act({type: 'overlay', overlay: 'whatif'});
		loadProfiles(c);
	},
	'whatif-close': c => c.act({type: 'overlay', overlay: 'agent'}),
	'whatif-measure': c => {
		const {measureProfiles} = c.controller;
		const w = c.view().whatif;
		if (w?.measuring !== undefined) return;
		if (!measureProfiles) {
			c.act({type: 'flash', text: 'measuring is not available here', t: flashAt(c)});
			return;
		}
		const base = {loading: false, profiles: w?.profiles ?? [], file: w?.file};
		c.act({type: 'whatif', whatif: {...base, measuring: 'starting: one server × model at a time'}});
		measureProfiles(line => c.act({type: 'whatif', whatif: {...base, ...c.view().whatif, measuring: line}})).then(
			r => {
				c.act({type: 'flash', text: r.measured === 0 && r.problems.length === 0 ? 'every server × model here has a profile' : `measured ${r.measured}${r.problems.length > 0 ? `; ${r.problems[0]}` : ''}`, t: flashAt(c)});
				loadProfiles(c);
			},
			(error: unknown) => c.act({type: 'whatif', whatif: {...base, error: `not measured: ${error instanceof Error ? error.message : String(error)}`}}),
		);
	},
	overlay: (c, b) => {
		if (b.overlay === 'findings' && c.view().overlay !== 'findings') c.act({type: 'findings-seen', t: flashAt(c)});
		if (b.overlay !== undefined) c.act({type: 'overlay', overlay: c.view().overlay === b.overlay ? 'none' : b.overlay});
	},
	help: c => c.act({type: 'overlay', overlay: c.view().overlay === 'help' ? 'none' : 'help'}),
	quit: c => c.controller.quit(),
	suspend: c => {
		const {controller} = c;
		if (!controller.suspend) {
			c.act({type: 'flash', text: 'suspend (Ctrl+Z) is not available here', t: flashAt(c)});
			return;
		}
		// Blank the screen first (the next frame), then stop; fg brings a full frame back.
		c.act({type: 'suspended', suspended: true});
		setTimeout(() => controller.suspend?.(() => c.act({type: 'suspended', suspended: false})), 150);
	},
	'select-next': c => c.act({type: 'select', order: shown(c).order, delta: 1}),
	'select-prev': c => c.act({type: 'select', order: shown(c).order, delta: -1}),
	'pin-model': c => {
		const s = shown(c);
		const v = c.view();
		const {serverId, figures} = shownModel(s, v);
		if (serverId === undefined) return;
		const models = modelsOf(figures);
		const next = nextPin(models, v.pinned[serverId]);
		c.act({type: 'pin', serverId, model: next});
		c.act({
			type: 'flash',
			text: next === undefined ? `PASSES follows the running model again (${models.length} model${models.length === 1 ? '' : 's'})` : `PASSES and p stay on ${next} (m: next model)`,
			t: flashAt(c),
		});
	},
	'refresh-faster': c => refresh(c, -1),
	'refresh-slower': c => refresh(c, 1),
	pause: c => c.store.setPaused(!c.store.isPaused()),
	'toggle-log': c => {
		const s = shown(c);
		const {columns, rows} = c.size();
		c.act({type: 'toggle-log', visibleNow: logShownFor(s, c.view(), {columns, rows})});
	},
	filter: c => {
		// The log pane comes into view for its filter (below the panes when the screen is narrower than 160).
		const s = shown(c);
		const {columns, rows} = c.size();
		if (!logShownFor(s, c.view(), {columns, rows})) c.act({type: 'toggle-log', visibleNow: false});
		c.act({type: 'filter-start', target: 'log'});
	},
	'filter-apply': c => c.act({type: 'filter-apply'}),
	'filter-backspace': c => c.act({type: 'filter-backspace'}),
	'log-up': c => logScroll(c, 10),
	'log-down': c => logScroll(c, -10),
	'log-home': c => logScroll(c, 'home'),
	'log-end': c => logScroll(c, 'end'),
	'log-left': c => c.act({type: 'log-side', delta: -LOG_SIDE_STEP}),
	'log-right': c => c.act({type: 'log-side', delta: LOG_SIDE_STEP}),
	'log-wrap': c => c.act({type: 'log-wrap'}),
	theme: c => {
		const count = c.themes.length;
		c.act({type: 'theme-next', count});
		const next = c.themes[c.view().themeIndex % Math.max(1, count)];
		c.act({type: 'flash', text: `theme ${next?.name ?? '--'} (${(c.view().themeIndex % Math.max(1, count)) + 1} of ${count}, t: next)`, t: flashAt(c)});
	},
	escape: c => {
		const v = c.view();
		if (v.filterEditing) c.act({type: 'filter-cancel'});
		else if (v.overlay !== 'none') c.act({type: 'overlay', overlay: 'none'});
		else if (v.focus === 'table' && v.tableFilter) c.act({type: 'filter-clear'});
		else if (v.focus === 'table') c.act({type: 'focus', focus: 'engines'});
		else if (shown(c).probe.running) c.controller.cancelProbe();
		else if (v.filter) c.act({type: 'filter-clear'});
	},
	probe: c => probe(c, 1),
	'probe-twice': c => probe(c, 2),
	'choose-prompt': c => {
		const at = PROMPT_KINDS.indexOf(shown(c).probe.prompt as (typeof PROMPT_KINDS)[number]);
		c.act({type: 'overlay', overlay: 'prompt', promptCursor: Math.max(0, at)});
	},
	'prompt-next': c => c.act({type: 'prompt-move', delta: 1}),
	'prompt-prev': c => c.act({type: 'prompt-move', delta: -1}),
	'prompt-run': c => {
		const kind = PROMPT_KINDS[c.view().promptCursor] ?? 'code';
		c.act({type: 'overlay', overlay: 'none'});
		probe(c, 1, kind);
	},
	history: c => {
		c.act({type: 'overlay', overlay: 'history'});
		const {loadProbeHistory} = c.controller;
		if (!loadProbeHistory) {
			c.act({type: 'history', history: {loading: false, entries: [], error: 'no probe history here'}});
			return;
		}
		c.act({type: 'history', history: {loading: true, entries: c.view().history?.entries ?? []}});
		loadProbeHistory().then(
			h => c.act({type: 'history', history: {loading: false, entries: h.entries, file: h.file}}),
			(error: unknown) => c.act({type: 'history', history: {loading: false, entries: [], error: `probe history not read: ${error instanceof Error ? error.message : String(error)}`}}),
		);
	},
	'focus-table': c => {
		const s = shown(c);
		const plan = planFor(s, c.view(), c.size());
		if (plan.requests <= 0) {
			c.act({type: 'flash', text: 'the requests table needs a taller terminal (from 40 rows at 120 columns)', t: flashAt(c)});
			return;
		}
		c.act({type: 'focus', focus: 'table'});
	},
	'table-up': c => tableMove(c, -1),
	'table-down': c => tableMove(c, 1),
	'table-sort': c => c.act({type: 'table-sort'}),
	'table-filter': c => c.act({type: 'filter-start', target: 'table'}),
	'table-detail': c => {
		const v = c.view();
		const entry = tableFor(shown(c), v).rows[v.tableCursor];
		if (entry) c.act({type: 'detail', key: entry.key});
	},
	demo: c => c.controller.startDemo(),
};

export interface KeyRouterProps {
	readonly store: MonitorStore;
	readonly controller: Controller;
	readonly keymap: readonly KeyBinding[];
	readonly view: () => ViewState;
	readonly act: (action: ViewAction) => void;
	readonly size: () => {readonly columns: number; readonly rows: number};
	readonly themes: readonly Theme[];
}

/** Resolve one key name in the scopes live now and run its handler; false when nothing is bound. */
export function routeKey(ctx: RouterContext, keymap: readonly KeyBinding[], name: string): boolean {
	const s = shown(ctx);
	const plan = planFor(s, ctx.view(), ctx.size());
	const binding = resolveKey(keymap, activeScopes(ctx.view(), s.order.length === 0, plan.tooSmall), name);
	if (!binding) return false;
	HANDLERS[binding.id](ctx, binding);
	return true;
}

/** Renders nothing: it owns the keyboard. */
export function KeyRouter({store, controller, keymap, view, act, size, themes}: KeyRouterProps) {
	const {isRawModeSupported, internal_eventEmitter: events} = useStdin();
	const ctx = useRef<RouterContext>({store, controller, view, act, size, themes});
	ctx.current = {store, controller, view, act, size, themes};
	const active = isRawModeSupported === true;

	useInput(
		(input, key) => {
			const c = ctx.current;
			const name = keyName(input, key);
			if (name !== undefined && routeKey(c, keymap, name)) return;
			const printable = !key.ctrl && !key.meta && input !== '' && !/[\u0000-\u001f\u007f]/.test(input);
			if (!printable) return;
			// Typing a filter: printable text goes into the draft.
			if (c.view().filterEditing) {
				c.act({type: 'filter-type', text: input});
				return;
			}
			// Keys typed faster than one read (a held j, `a?` in one burst) reach us as one chunk: each
			// is a key of its own, as in htop; a key that opens the filter takes the rest as its text.
			if (input.length > 1) {
				const chars = [...input];
				for (let i = 0; i < chars.length; i++) {
					if (c.view().filterEditing) {
						c.act({type: 'filter-type', text: chars.slice(i).join('')});
						return;
					}
					const one = chars[i]!;
					const k = keyName(one, {});
					if (k !== undefined) routeKey(c, keymap, k);
				}
			}
		},
		{isActive: active},
	);

	// Function keys reach useInput as an empty string: read them from the raw input event.
	useEffect(() => {
		if (!active || !events) return;
		const onInput = (raw: unknown) => {
			const name = typeof raw === 'string' ? functionKey(raw) : undefined;
			if (name) routeKey(ctx.current, keymap, name);
		};
		events.on('input', onInput);
		return () => {
			events.off('input', onInput);
		};
	}, [active, events, keymap]);
	return null;
}
