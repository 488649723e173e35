/**
 * View state only (selection, overlays, log scroll and filter, theme, pause badge), as a reducer:
 * key handlers dispatch actions and never read captured state (ink-practices §4.3, stale closures).
 */
import type {ProbePromptKind} from '../types/probe.js';

export const PROMPT_KINDS: readonly Exclude<ProbePromptKind, 'file'>[] = ['code', 'prose', 'repeat', 'hex', 'long'];

export type Overlay = 'none' | 'help' | 'prompt' | 'compare';

export interface ViewState {
	/** Selected server id; undefined = the first one. */
	readonly selectedId?: string;
	readonly overlay: Overlay;
	/** Cursor in the prompt chooser. */
	readonly promptCursor: number;
	/** undefined: automatic (beside from 160 columns). */
	readonly showLog?: boolean;
	/** Lines scrolled back from the newest. */
	readonly logScroll: number;
	/** The applied log filter (substring, or /regex/). */
	readonly filter: string;
	/** Typing a filter: the draft shown above the log. */
	readonly filterEditing: boolean;
	readonly filterDraft: string;
	readonly paused: boolean;
	/** Index into the theme cycle. */
	readonly themeIndex: number;
}

export const initialView: ViewState = {
	overlay: 'none',
	promptCursor: 0,
	logScroll: 0,
	filter: '',
	filterEditing: false,
	filterDraft: '',
	paused: false,
	themeIndex: 0,
};

export type ViewAction =
	| {readonly type: 'select'; readonly order: readonly string[]; readonly delta: 1 | -1}
	| {readonly type: 'overlay'; readonly overlay: Overlay; readonly promptCursor?: number}
	| {readonly type: 'prompt-move'; readonly delta: 1 | -1}
	| {readonly type: 'toggle-log'; readonly visibleNow: boolean}
	| {readonly type: 'log-scroll'; readonly delta: number; readonly max: number}
	| {readonly type: 'filter-start'}
	| {readonly type: 'filter-type'; readonly text: string}
	| {readonly type: 'filter-backspace'}
	| {readonly type: 'filter-apply'}
	| {readonly type: 'filter-cancel'}
	| {readonly type: 'filter-clear'}
	| {readonly type: 'paused'; readonly paused: boolean}
	| {readonly type: 'theme-next'; readonly count: number};

export function viewReducer(state: ViewState, action: ViewAction): ViewState {
	switch (action.type) {
		case 'select': {
			const {order} = action;
			if (order.length === 0) return state;
			const at = state.selectedId === undefined ? 0 : Math.max(0, order.indexOf(state.selectedId));
			const next = (at + action.delta + order.length) % order.length;
			return {...state, selectedId: order[next]};
		}
		case 'overlay':
			return {...state, overlay: action.overlay, promptCursor: action.promptCursor ?? state.promptCursor};
		case 'prompt-move':
			return {...state, promptCursor: (state.promptCursor + action.delta + PROMPT_KINDS.length) % PROMPT_KINDS.length};
		case 'toggle-log':
			return {...state, showLog: !action.visibleNow, logScroll: 0};
		case 'log-scroll':
			return {...state, logScroll: Math.max(0, Math.min(action.max, state.logScroll + action.delta))};
		case 'filter-start':
			return {...state, filterEditing: true, filterDraft: state.filter, showLog: state.showLog === false ? true : state.showLog};
		case 'filter-type':
			return {...state, filterDraft: state.filterDraft + action.text};
		case 'filter-backspace':
			return {...state, filterDraft: Array.from(state.filterDraft).slice(0, -1).join('')};
		case 'filter-apply':
			return {...state, filterEditing: false, filter: state.filterDraft, logScroll: 0};
		case 'filter-cancel':
			return {...state, filterEditing: false, filterDraft: state.filter};
		case 'filter-clear':
			return {...state, filter: '', filterDraft: '', logScroll: 0};
		case 'paused':
			return {...state, paused: action.paused};
		case 'theme-next':
			return {...state, themeIndex: action.count > 0 ? (state.themeIndex + 1) % action.count : 0};
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
