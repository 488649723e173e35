/**
 * View state only (selection, pinned models, overlays, focus, log position and filter, requests
 * table, theme), as a reducer: key handlers dispatch actions and never read captured state
 * (ink-practices §4.3, stale closures). Pause is not here: the store owns it (store.isPaused()).
 */
import type {Profile} from '../types/whatif.js';
import type {ProbePromptKind} from '../types/probe.js';
import type {ProbeHistoryEntry} from '../types/probe.js';
import type {Overlay} from './scopes.js';

export type {Overlay} from './scopes.js';

export const PROMPT_KINDS: readonly Exclude<ProbePromptKind, 'file'>[] = ['code', 'prose', 'repeat', 'hex', 'long'];


/** Sort orders of the requests table, cycled by `s`. */
export const TABLE_SORTS = ['time', 'decode', 'prompt', 'cached'] as const;
export type TableSort = (typeof TABLE_SORTS)[number];

/** Columns the log pane moves sideways per ←/→ press. */
export const LOG_SIDE_STEP = 20;

export interface ViewState {
	/** Selected server id; undefined = the first one. */
	readonly selectedId?: string;
	/** Model pinned per server id (PASSES and the probe follow it); absent = automatic. */
	readonly pinned: Readonly<Record<string, string>>;
	readonly overlay: Overlay;
	/** Cursor in the prompt chooser. */
	readonly promptCursor: number;
	/** undefined: automatic (beside from 160 columns). */
	readonly showLog?: boolean;
	/**
	 * The log line at the bottom of the pane, as its absolute number (lines ever seen, counting from
	 * 0); undefined = follow the newest. Absolute, so the view does not drift while scrolled back.
	 */
	readonly logEnd?: number;
	/** Columns scrolled sideways (cut mode). */
	readonly logLeft: number;
	/** Wrap long log lines instead of cutting them. */
	readonly logWrap: boolean;
	/** The applied log filter (substring, or /regex/). */
	readonly filter: string;
	/** Typing a filter (for the log or the table): the draft shown above it. */
	readonly filterEditing: boolean;
	readonly filterTarget: 'log' | 'table';
	readonly filterDraft: string;
	/** Which pane the arrows move in. */
	readonly focus: 'engines' | 'table';
	readonly tableSort: TableSort;
	readonly tableFilter: string;
	/** Row cursor in the (sorted, filtered) requests table. */
	readonly tableCursor: number;
	/** The request the detail overlay shows (`serverId/key`). */
	readonly detailKey?: string;
	/** Probe history read for `h`. */
	readonly history?: {readonly loading: boolean; readonly entries: readonly ProbeHistoryEntry[]; readonly error?: string; readonly file?: string};
	/** What if (`w` in the agent view): the profiles read, and a measurement in progress. */
	readonly whatif?: {readonly loading: boolean; readonly profiles: readonly Profile[]; readonly file?: string; readonly error?: string; readonly measuring?: string};
	/** Index into the theme cycle. */
	readonly themeIndex: number;
	/** A short message in the footer (theme name, …) from the key handlers; shown a few seconds. */
	readonly flash?: {readonly text: string; readonly t: number};
	/** Ctrl+Z: the screen is blanked while the process is stopped. */
	readonly suspended: boolean;
	/** Agent findings up to this time were seen (the agent view or the findings list opened): the footer stops showing them. */
	readonly findingsSeenAt?: number;
}

export const initialView: ViewState = {
	pinned: {},
	overlay: 'none',
	promptCursor: 0,
	logLeft: 0,
	logWrap: false,
	filter: '',
	filterEditing: false,
	filterTarget: 'log',
	filterDraft: '',
	focus: 'engines',
	tableSort: 'time',
	tableFilter: '',
	tableCursor: 0,
	themeIndex: 0,
	suspended: false,
};

export type ViewAction =
	| {readonly type: 'select'; readonly order: readonly string[]; readonly delta: 1 | -1}
	| {readonly type: 'pin'; readonly serverId: string; readonly model?: string}
	| {readonly type: 'overlay'; readonly overlay: Overlay; readonly promptCursor?: number}
	| {readonly type: 'prompt-move'; readonly delta: 1 | -1}
	| {readonly type: 'toggle-log'; readonly visibleNow: boolean}
	| {readonly type: 'log-end'; readonly end?: number}
	| {readonly type: 'log-side'; readonly delta: number}
	| {readonly type: 'log-wrap'}
	| {readonly type: 'filter-start'; readonly target: 'log' | 'table'}
	| {readonly type: 'filter-type'; readonly text: string}
	| {readonly type: 'filter-backspace'}
	| {readonly type: 'filter-apply'}
	| {readonly type: 'filter-cancel'}
	| {readonly type: 'filter-clear'}
	| {readonly type: 'focus'; readonly focus: 'engines' | 'table'}
	| {readonly type: 'table-move'; readonly delta: number; readonly count: number}
	| {readonly type: 'table-sort'}
	| {readonly type: 'detail'; readonly key: string}
	| {readonly type: 'history'; readonly history: NonNullable<ViewState['history']>}
	| {readonly type: 'whatif'; readonly whatif: NonNullable<ViewState['whatif']>}
	| {readonly type: 'theme-next'; readonly count: number}
	| {readonly type: 'flash'; readonly text: string; readonly t: number}
	| {readonly type: 'suspended'; readonly suspended: boolean}
	| {readonly type: 'findings-seen'; readonly t: number};

export function viewReducer(state: ViewState, action: ViewAction): ViewState {
	switch (action.type) {
		case 'select': {
			const {order} = action;
			if (order.length === 0) return state;
			const at = state.selectedId === undefined ? 0 : Math.max(0, order.indexOf(state.selectedId));
			const next = (at + action.delta + order.length) % order.length;
			return {...state, selectedId: order[next], logEnd: undefined, logLeft: 0};
		}
		case 'pin': {
			const pinned = {...state.pinned};
			if (action.model === undefined) delete pinned[action.serverId];
			else pinned[action.serverId] = action.model;
			return {...state, pinned};
		}
		case 'overlay':
			return {...state, overlay: action.overlay, promptCursor: action.promptCursor ?? state.promptCursor};
		case 'prompt-move':
			return {...state, promptCursor: (state.promptCursor + action.delta + PROMPT_KINDS.length) % PROMPT_KINDS.length};
		case 'toggle-log':
			return {...state, showLog: !action.visibleNow, logEnd: undefined};
		case 'log-end':
			return {...state, logEnd: action.end};
		case 'log-side':
			return {...state, logLeft: Math.max(0, Math.min(1024, state.logLeft + action.delta))};
		case 'log-wrap':
			return {...state, logWrap: !state.logWrap, logLeft: 0};
		case 'filter-start': {
			const draft = action.target === 'table' ? state.tableFilter : state.filter;
			const showLog = action.target === 'log' && state.showLog === false ? true : state.showLog;
			return {...state, filterEditing: true, filterTarget: action.target, filterDraft: draft, showLog};
		}
		case 'filter-type':
			return {...state, filterDraft: state.filterDraft + action.text};
		case 'filter-backspace':
			return {...state, filterDraft: Array.from(state.filterDraft).slice(0, -1).join('')};
		case 'filter-apply':
			return state.filterTarget === 'table'
				? {...state, filterEditing: false, tableFilter: state.filterDraft, tableCursor: 0}
				: {...state, filterEditing: false, filter: state.filterDraft, logEnd: undefined};
		case 'filter-cancel':
			return {...state, filterEditing: false, filterDraft: state.filterTarget === 'table' ? state.tableFilter : state.filter};
		case 'filter-clear':
			return state.focus === 'table' ? {...state, tableFilter: '', tableCursor: 0} : {...state, filter: '', filterDraft: '', logEnd: undefined};
		case 'focus':
			return {...state, focus: action.focus};
		case 'table-move':
			return {...state, tableCursor: Math.max(0, Math.min(action.count - 1, state.tableCursor + action.delta))};
		case 'table-sort':
			return {...state, tableSort: TABLE_SORTS[(TABLE_SORTS.indexOf(state.tableSort) + 1) % TABLE_SORTS.length]!, tableCursor: 0};
		case 'detail':
			return {...state, overlay: 'detail', detailKey: action.key};
		case 'history':
			return {...state, history: action.history};
		case 'whatif':
			return {...state, whatif: action.whatif};
		case 'theme-next':
			return {...state, themeIndex: action.count > 0 ? (state.themeIndex + 1) % action.count : 0};
		case 'flash':
			return {...state, flash: {text: action.text, t: action.t}};
		case 'suspended':
			return {...state, suspended: action.suspended};
		case 'findings-seen':
			return state.findingsSeenAt !== undefined && state.findingsSeenAt >= action.t ? state : {...state, findingsSeenAt: action.t};
	}
}

/**
 * A log filter: `/re/flags` is a regular expression (case-insensitive unless flags say otherwise),
 * anything else a case-insensitive substring. An invalid regex falls back to a substring and says so.
 */
export interface LogFilter {
	readonly test: (line: string) => boolean;
	/** Match ranges [start, end) in a line, for highlighting. */
	readonly ranges: (line: string) => [number, number][];
	readonly error?: string;
}

export function compileFilter(query: string): LogFilter | undefined {
	if (query === '') return undefined;
	const m = /^\/(.+)\/([a-z]*)$/.exec(query);
	if (m) {
		try {
			const flags = (m[2] ?? '').replace(/[gy]/g, '');
			const re = new RegExp(m[1]!, `${flags.includes('i') || /[A-Z]/.test(m[1]!) ? flags : `${flags}i`}g`);
			return {
				test: line => {
					re.lastIndex = 0;
					return re.test(line);
				},
				ranges: line => {
					const out: [number, number][] = [];
					re.lastIndex = 0;
					for (const hit of line.matchAll(re)) {
						if (hit[0].length === 0) continue;
						out.push([hit.index, hit.index + hit[0].length]);
						if (out.length > 50) break;
					}
					return out;
				},
			};
		} catch (error) {
			const sub = substring(query);
			return {...sub, error: `bad regex: ${(error as Error).message}`};
		}
	}
	return substring(query);
}

function substring(query: string): LogFilter {
	const q = query.toLowerCase();
	return {
		test: line => line.toLowerCase().includes(q),
		ranges: line => {
			const out: [number, number][] = [];
			const low = line.toLowerCase();
			let i = low.indexOf(q);
			while (i >= 0 && out.length <= 50) {
				out.push([i, i + q.length]);
				i = low.indexOf(q, i + q.length);
			}
			return out;
		},
	};
}
