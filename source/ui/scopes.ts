/**
 * Every key scope of the screen in one table, in the help overlay's order: its title, whether it is
 * an overlay (and what an overlay needs: the log on screen, a place in the compact help), and its
 * keys. keymap.ts makes KEYMAP from it; the view state's overlays, the router's active scopes, the
 * footer and the help read it. An overlay is added here (its row and, in `opens`, the key that opens
 * it) plus its component in ui/overlay-views.tsx, which the compiler asks for. Pure; no Ink.
 *
 * The router looks through the active scopes, first match wins: always (Ctrl+C, F10, Ctrl+Z: every
 * screen, even the too-small card) › filter (typing a query) › the open overlay › table (the
 * requests table has focus) › empty (nothing found) › global. Behind the too-small card only
 * `always` is live (ui/selectors.ts activeScopes).
 */
import type {KeyBinding} from './keymap.js';

/** A binding as a scope's row lists it (its scope is the row's). */
export type ScopeBinding = Omit<KeyBinding, 'scope'>;

export interface ScopeRow {
	/** The help overlay's heading for this scope's keys. */
	readonly title: string;
	readonly keys: readonly ScopeBinding[];
	/** Listed in the compact help (80×24); default yes. The global scope takes two columns there. */
	readonly compactHelp?: boolean;
	/** The scope is an overlay's: open while `view.overlay` is its name. */
	readonly overlay?: {
		/** The log pane's lines are on screen while it is open (the request detail shows them). */
		readonly showsLog?: boolean;
		/** The key that opens (and closes) it, bound in `scope` (default global) after that scope's own keys. */
		readonly opens?: Omit<ScopeBinding, 'id' | 'overlay'> & {readonly scope?: 'global' | 'table' | 'empty'};
	};
}

export const SCOPES = {
	global: {
		title: 'Everywhere',
		keys: [
			{id: 'help', keys: ['?', 'f1'], help: 'Show all keys', footer: 'help'},
			{id: 'quit', keys: ['q'], help: 'Quit', footer: 'quit'},
			{id: 'select-next', keys: ['tab', 'down', 'j'], help: 'Select the next engine', footer: 'engine'},
			{id: 'select-prev', keys: ['shift+tab', 'up', 'k'], help: 'Select the previous engine'},
			{id: 'pin-model', keys: ['m'], help: 'Pin a model for PASSES and the probe (each model in turn, then auto)', footer: 'model'},
			{id: 'probe', keys: ['p'], help: 'Probe the model PASSES shows with the last prompt', footer: 'probe'},
			{id: 'choose-prompt', keys: ['P'], help: 'Choose the probe prompt', footer: 'prompt'},
			{id: 'probe-twice', keys: ['r'], help: 'Probe twice: first against second run (prefix-cache reuse)', footer: 'twice'},
			{id: 'compare', keys: ['c'], help: 'Compare every server × model (code, prose, long; 2 runs each)', footer: 'compare'},
			{id: 'agent', keys: ['a'], help: "Agent view: where an agent's time goes (queue, prefill, decode, idle)", footer: 'agent'},
			{id: 'escape', keys: ['escape'], help: 'Close overlay / cancel the probe / clear the filter', footer: 'cancel'},
			{id: 'pause', keys: ['space'], help: 'Pause the screen (collection goes on)', footer: 'pause'},
			{id: 'focus-table', keys: ['f'], help: 'Focus the requests table (scroll, sort, filter, detail)', footer: 'table'},
			{id: 'history', keys: ['h'], help: 'Probe history: the last probes per server (from the CSV)', footer: 'history'},
			{id: 'toggle-log', keys: ['l'], help: 'Show / hide the log pane', footer: 'log'},
			{id: 'filter', keys: ['/'], help: 'Filter the log (substring or /regex/)', footer: 'filter'},
			{id: 'log-up', keys: ['pageup', '['], help: 'Scroll the log back (the view holds while new lines arrive)'},
			{id: 'log-down', keys: ['pagedown', ']'], help: 'Scroll the log forward'},
			{id: 'log-home', keys: ['home'], help: 'Log: jump to the oldest line'},
			{id: 'log-end', keys: ['end'], help: 'Log: jump to the newest line (follow)'},
			{id: 'log-left', keys: ['left'], help: 'Log: scroll sideways to the left'},
			{id: 'log-right', keys: ['right'], help: 'Log: scroll sideways to the right'},
			{id: 'log-wrap', keys: ['w'], help: 'Log: wrap long lines / cut them'},
			{id: 'refresh-faster', keys: ['+', '='], help: 'Refresh faster', footer: 'rate', footerKeys: '+/-'},
			{id: 'refresh-slower', keys: ['-', '_'], help: 'Refresh slower'},
			{id: 'theme', keys: ['t'], help: 'Next colour theme (dark, light, high-contrast, no-color)', footer: 'theme'},
		],
	},
	always: {
		title: 'On every screen',
		keys: [
			{id: 'quit', keys: ['ctrl+c', 'f10'], help: 'Quit (also behind the too-small card)'},
			{id: 'suspend', keys: ['ctrl+z'], help: 'Suspend to the shell (fg brings the screen back)'},
		],
	},
	empty: {title: 'When no engine is found', keys: [{id: 'demo', keys: ['d'], help: 'Start the built-in demo engine', footer: 'demo'}]},
	table: {
		title: 'In the requests table (f)',
		keys: [
			{id: 'table-down', keys: ['down', 'j'], help: 'Next request', footer: 'move'},
			{id: 'table-up', keys: ['up', 'k'], help: 'Previous request'},
			{id: 'table-sort', keys: ['s'], help: 'Sort by time, decode, prompt, cached', footer: 'sort'},
			{id: 'table-filter', keys: ['/'], help: 'Filter the requests (engine, model, substring)', footer: 'filter'},
			{id: 'table-detail', keys: ['return'], help: "One request's detail (every field, its log lines)", footer: 'detail'},
			{id: 'escape', keys: ['escape', 'f'], help: 'Leave the table (back to the engines)', footer: 'back'},
		],
	},
	prompt: {
		title: 'Choosing a probe prompt',
		overlay: {},
		keys: [
			{id: 'prompt-next', keys: ['down', 'j', 'tab'], help: 'Next prompt'},
			{id: 'prompt-prev', keys: ['up', 'k', 'shift+tab'], help: 'Previous prompt'},
			{id: 'prompt-run', keys: ['return'], help: 'Probe with this prompt', footer: 'run'},
			{id: 'escape', keys: ['escape'], help: 'Close without probing', footer: 'close'},
		],
	},
	filter: {
		title: 'Typing a log filter',
		keys: [
			{id: 'filter-apply', keys: ['return'], help: 'Apply the filter', footer: 'apply'},
			{id: 'filter-backspace', keys: ['backspace'], help: 'Delete the last character'},
			{id: 'escape', keys: ['escape'], help: 'Stop editing the filter', footer: 'cancel'},
		],
	},
	help: {title: 'In this help', overlay: {}, compactHelp: false, keys: [{id: 'escape', keys: ['escape', '?', 'q', 'f1'], help: 'Close help', footer: 'close'}, {id: 'toggle-log', keys: ['l'], help: 'Show / hide the log pane beside it', footer: 'log'}]},
	detail: {title: 'In a request detail', overlay: {showsLog: true}, compactHelp: false, keys: [{id: 'escape', keys: ['escape', 'return', 'q'], help: 'Close the request detail', footer: 'close'}]},
	history: {title: 'In the probe history', overlay: {}, compactHelp: false, keys: [{id: 'escape', keys: ['escape', 'h', 'q'], help: 'Close the probe history', footer: 'close'}, {id: 'toggle-log', keys: ['l'], help: 'Show / hide the log pane beside it', footer: 'log'}]},
	compare: {
		title: 'In the comparison table',
		overlay: {},
		compactHelp: false,
		keys: [
			{id: 'compare-close', keys: ['escape'], help: 'Cancel the comparison, or close the table', footer: 'cancel/close'},
			{id: 'compare', keys: ['c'], help: 'Run the comparison again (once finished)', footer: 'again'},
			{id: 'toggle-log', keys: ['l'], help: 'Show / hide the log pane beside it', footer: 'log'},
			{id: 'help', keys: ['?'], help: 'Show all keys'},
			{id: 'quit', keys: ['q'], help: 'Quit', footer: 'quit'},
		],
	},
	agent: {
		title: 'In the agent view (a)',
		overlay: {},
		compactHelp: false,
		keys: [
			{id: 'agent', keys: ['a', 'escape'], help: 'Close the agent view', footer: 'close'},
			{id: 'whatif', keys: ['w'], help: 'What if: this session on each measured server × model', footer: 'what if'},
			{id: 'select-next', keys: ['tab', 'down', 'j'], help: "The next engine's newest session", footer: 'engine'},
			{id: 'select-prev', keys: ['shift+tab', 'up', 'k'], help: "The previous engine's newest session"},
			{id: 'toggle-log', keys: ['l'], help: 'Show / hide the log pane beside it', footer: 'log'},
			{id: 'help', keys: ['?'], help: 'Show all keys'},
			{id: 'quit', keys: ['q'], help: 'Quit', footer: 'quit'},
		],
	},
	findings: {
		title: 'In the findings list (!)',
		overlay: {opens: {keys: ['!'], help: 'Agent findings of every session, newest first', footer: 'findings'}},
		compactHelp: false,
		keys: [
			{id: 'escape', keys: ['escape', '!'], help: 'Close the findings', footer: 'close'},
			{id: 'agent', keys: ['a'], help: 'The agent view'},
			{id: 'quit', keys: ['q'], help: 'Quit', footer: 'quit'},
		],
	},
	whatif: {
		title: 'In the what-if table (w in the agent view)',
		overlay: {},
		compactHelp: false,
		keys: [
			{id: 'whatif-close', keys: ['escape', 'w'], help: 'Back to the agent view', footer: 'back'},
			{id: 'whatif-measure', keys: ['m'], help: 'Measure the servers × models without a profile, one at a time', footer: 'measure'},
			{id: 'help', keys: ['?'], help: 'Show all keys'},
			{id: 'quit', keys: ['q'], help: 'Quit', footer: 'quit'},
		],
	},
} as const satisfies Readonly<Record<string, ScopeRow>>;

export type KeyScope = keyof typeof SCOPES;
/** The overlays: the scopes with an `overlay` part. */
export type OverlayName = {[K in KeyScope]: (typeof SCOPES)[K] extends {readonly overlay: object} ? K : never}[KeyScope];
/** What the middle of the screen shows: the panes (`none`) or one overlay. */
export type Overlay = 'none' | OverlayName;

/** A scope table: SCOPES, or SCOPES and more (tests add a row). */
export type ScopeTable = Readonly<Record<string, ScopeRow>>;

/** Every scope of a table in its order, with its name. */
export function scopeList(scopes: ScopeTable = SCOPES): readonly (ScopeRow & {readonly name: KeyScope})[] {
	return Object.entries(scopes).map(([name, row]) => ({...row, name: name as KeyScope}));
}

/** The log pane's lines are on screen while this overlay is open. */
export function overlayShowsLog(overlay: Overlay, scopes: ScopeTable = SCOPES): boolean {
	return overlay !== 'none' && scopes[overlay]?.overlay?.showsLog === true;
}
