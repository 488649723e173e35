/**
 * Keys as data (ink-practices §6.4, lazygit Binding): one table drives the router, the footer hints
 * and the `?` help overlay. Pure; no Ink.
 */

export type ActionId =
	| 'help'
	| 'quit'
	| 'suspend'
	| 'select-next'
	| 'select-prev'
	| 'pin-model'
	| 'refresh-faster'
	| 'refresh-slower'
	| 'pause'
	| 'toggle-log'
	| 'filter'
	| 'log-up'
	| 'log-down'
	| 'log-left'
	| 'log-right'
	| 'log-wrap'
	| 'log-home'
	| 'log-end'
	| 'theme'
	| 'escape'
	| 'probe'
	| 'choose-prompt'
	| 'probe-twice'
	| 'history'
	| 'focus-table'
	| 'table-up'
	| 'table-down'
	| 'table-sort'
	| 'table-filter'
	| 'table-detail'
	| 'demo'
	| 'prompt-next'
	| 'prompt-prev'
	| 'prompt-run'
	| 'filter-apply'
	| 'filter-backspace'
	| 'compare'
	| 'compare-close'
	| 'agent';

/**
 * Where a binding applies. The router looks through the active scopes, first match wins:
 * always (Ctrl+C, F10, Ctrl+Z: every screen, even the too-small card) › filter (typing a query) ›
 * help / prompt / compare / detail / history (overlays) › table (the requests table has focus) › empty
 * (nothing found) › global. Behind the too-small card only `always` is live.
 */
export type KeyScope = 'always' | 'global' | 'empty' | 'help' | 'prompt' | 'filter' | 'table' | 'detail' | 'history' | 'compare' | 'agent';

export interface KeyBinding {
	readonly id: ActionId;
	/** Normalised key names: `q`, `P`, `?`, `ctrl+c`, `tab`, `shift+tab`, `up`, `down`, `escape`, `return`, `space`, `pageup`, `f1`. */
	readonly keys: readonly string[];
	readonly scope: KeyScope;
	/** One line for the help overlay. */
	readonly help: string;
	/** Short label for the footer hint bar; absent = help overlay only. */
	readonly footer?: string;
	/** The keys as the footer shows them, when not the first key's label (`+/-`). */
	readonly footerKeys?: string;
}

export const KEYMAP: readonly KeyBinding[] = [
	{id: 'quit', keys: ['ctrl+c', 'f10'], scope: 'always', help: 'Quit (also behind the too-small card)'},
	{id: 'suspend', keys: ['ctrl+z'], scope: 'always', help: 'Suspend to the shell (fg brings the screen back)'},
	{id: 'help', keys: ['?', 'f1'], scope: 'global', help: 'Show all keys', footer: 'help'},
	{id: 'quit', keys: ['q'], scope: 'global', help: 'Quit', footer: 'quit'},
	{id: 'select-next', keys: ['tab', 'down', 'j'], scope: 'global', help: 'Select the next engine', footer: 'engine'},
	{id: 'select-prev', keys: ['shift+tab', 'up', 'k'], scope: 'global', help: 'Select the previous engine'},
	{id: 'pin-model', keys: ['m'], scope: 'global', help: 'Pin a model for PASSES and the probe (each model in turn, then auto)', footer: 'model'},
	{id: 'probe', keys: ['p'], scope: 'global', help: 'Probe the model PASSES shows with the last prompt', footer: 'probe'},
	{id: 'choose-prompt', keys: ['P'], scope: 'global', help: 'Choose the probe prompt', footer: 'prompt'},
	{id: 'probe-twice', keys: ['r'], scope: 'global', help: 'Probe twice: first against second run (prefix-cache reuse)', footer: 'twice'},
	{id: 'compare', keys: ['c'], scope: 'global', help: 'Compare every server × model (code, prose, long; 2 runs each)', footer: 'compare'},
	{id: 'agent', keys: ['a'], scope: 'global', help: "Agent view: where an agent's time goes (queue, prefill, decode, idle)", footer: 'agent'},
	{id: 'escape', keys: ['escape'], scope: 'global', help: 'Close overlay / cancel the probe / clear the filter', footer: 'cancel'},
	{id: 'pause', keys: ['space'], scope: 'global', help: 'Pause the screen (collection goes on)', footer: 'pause'},
	{id: 'focus-table', keys: ['f'], scope: 'global', help: 'Focus the requests table (scroll, sort, filter, detail)', footer: 'table'},
	{id: 'history', keys: ['h'], scope: 'global', help: 'Probe history: the last probes per server (from the CSV)', footer: 'history'},
	{id: 'toggle-log', keys: ['l'], scope: 'global', help: 'Show / hide the log pane', footer: 'log'},
	{id: 'filter', keys: ['/'], scope: 'global', help: 'Filter the log (substring or /regex/)', footer: 'filter'},
	{id: 'log-up', keys: ['pageup', '['], scope: 'global', help: 'Scroll the log back (the view holds while new lines arrive)'},
	{id: 'log-down', keys: ['pagedown', ']'], scope: 'global', help: 'Scroll the log forward'},
	{id: 'log-home', keys: ['home'], scope: 'global', help: 'Log: jump to the oldest line'},
	{id: 'log-end', keys: ['end'], scope: 'global', help: 'Log: jump to the newest line (follow)'},
	{id: 'log-left', keys: ['left'], scope: 'global', help: 'Log: scroll sideways to the left'},
	{id: 'log-right', keys: ['right'], scope: 'global', help: 'Log: scroll sideways to the right'},
	{id: 'log-wrap', keys: ['w'], scope: 'global', help: 'Log: wrap long lines / cut them'},
	{id: 'refresh-faster', keys: ['+', '='], scope: 'global', help: 'Refresh faster', footer: 'rate', footerKeys: '+/-'},
	{id: 'refresh-slower', keys: ['-', '_'], scope: 'global', help: 'Refresh slower'},
	{id: 'theme', keys: ['t'], scope: 'global', help: 'Next colour theme (dark, light, high-contrast, no-color)', footer: 'theme'},
	{id: 'demo', keys: ['d'], scope: 'empty', help: 'Start the built-in demo engine', footer: 'demo'},
	{id: 'table-down', keys: ['down', 'j'], scope: 'table', help: 'Next request', footer: 'move'},
	{id: 'table-up', keys: ['up', 'k'], scope: 'table', help: 'Previous request'},
	{id: 'table-sort', keys: ['s'], scope: 'table', help: 'Sort by time, decode, prompt, cached', footer: 'sort'},
	{id: 'table-filter', keys: ['/'], scope: 'table', help: 'Filter the requests (engine, model, substring)', footer: 'filter'},
	{id: 'table-detail', keys: ['return'], scope: 'table', help: "One request's detail (every field, its log lines)", footer: 'detail'},
	{id: 'escape', keys: ['escape', 'f'], scope: 'table', help: 'Leave the table (back to the engines)', footer: 'back'},
	{id: 'escape', keys: ['escape', '?', 'q', 'f1'], scope: 'help', help: 'Close help', footer: 'close'},
	{id: 'escape', keys: ['escape', 'return', 'q'], scope: 'detail', help: 'Close the request detail', footer: 'close'},
	{id: 'escape', keys: ['escape', 'h', 'q'], scope: 'history', help: 'Close the probe history', footer: 'close'},
	{id: 'prompt-next', keys: ['down', 'j', 'tab'], scope: 'prompt', help: 'Next prompt'},
	{id: 'prompt-prev', keys: ['up', 'k', 'shift+tab'], scope: 'prompt', help: 'Previous prompt'},
	{id: 'prompt-run', keys: ['return'], scope: 'prompt', help: 'Probe with this prompt', footer: 'run'},
	{id: 'escape', keys: ['escape'], scope: 'prompt', help: 'Close without probing', footer: 'close'},
	{id: 'compare-close', keys: ['escape'], scope: 'compare', help: 'Cancel the comparison, or close the table', footer: 'cancel/close'},
	{id: 'compare', keys: ['c'], scope: 'compare', help: 'Run the comparison again (once finished)', footer: 'again'},
	{id: 'help', keys: ['?'], scope: 'compare', help: 'Show all keys'},
	{id: 'quit', keys: ['q'], scope: 'compare', help: 'Quit', footer: 'quit'},
	{id: 'agent', keys: ['a', 'escape'], scope: 'agent', help: 'Close the agent view', footer: 'close'},
	{id: 'select-next', keys: ['tab', 'down', 'j'], scope: 'agent', help: "The next engine's newest session", footer: 'engine'},
	{id: 'select-prev', keys: ['shift+tab', 'up', 'k'], scope: 'agent', help: "The previous engine's newest session"},
	{id: 'help', keys: ['?'], scope: 'agent', help: 'Show all keys'},
	{id: 'quit', keys: ['q'], scope: 'agent', help: 'Quit', footer: 'quit'},
	{id: 'filter-apply', keys: ['return'], scope: 'filter', help: 'Apply the filter', footer: 'apply'},
	{id: 'filter-backspace', keys: ['backspace'], scope: 'filter', help: 'Delete the last character'},
	{id: 'escape', keys: ['escape'], scope: 'filter', help: 'Stop editing the filter', footer: 'cancel'},
];

/** The subset of Ink's Key the router reads. */
export interface InkKeyLike {
	readonly upArrow?: boolean;
	readonly downArrow?: boolean;
	readonly leftArrow?: boolean;
	readonly rightArrow?: boolean;
	readonly pageUp?: boolean;
	readonly pageDown?: boolean;
	readonly home?: boolean;
	readonly end?: boolean;
	readonly return?: boolean;
	readonly escape?: boolean;
	readonly ctrl?: boolean;
	readonly shift?: boolean;
	readonly tab?: boolean;
	readonly backspace?: boolean;
	readonly delete?: boolean;
	readonly meta?: boolean;
}

/** Ink's (input, key) → one normalised key name, or undefined for keys no binding can name. */
export function keyName(input: string, key: InkKeyLike): string | undefined {
	if (key.tab) return key.shift ? 'shift+tab' : 'tab';
	if (key.upArrow) return 'up';
	if (key.downArrow) return 'down';
	if (key.leftArrow) return 'left';
	if (key.rightArrow) return 'right';
	if (key.pageUp) return 'pageup';
	if (key.pageDown) return 'pagedown';
	if (key.home) return 'home';
	if (key.end) return 'end';
	if (key.return) return 'return';
	if (key.escape) return 'escape';
	if (key.backspace || key.delete) return 'backspace';
	if (key.ctrl && input) return `ctrl+${input.toLowerCase()}`;
	if (input === ' ') return 'space';
	if (input.length === 1) return input;
	// A chunk such as a paste: no single binding matches.
	return undefined;
}

/**
 * Function keys from the raw input sequence (Ink's useInput hands them over as an empty string):
 * F1 as xterm (`ESC O P`), rxvt/VT220 (`ESC [ 11 ~`) and the Linux console (`ESC [ [ A`); F10 as `ESC [ 21 ~`.
 */
export function functionKey(raw: string): 'f1' | 'f10' | undefined {
	if (raw === '\u001bOP' || raw === '\u001b[11~' || raw === '\u001b[[A') return 'f1';
	if (raw === '\u001b[21~') return 'f10';
	return undefined;
}

/** Human label of a key for the footer and help: `Tab`, `S-Tab`, `↑`, `Esc`, `^C`, `Space`. */
export function keyLabel(k: string): string {
	const labels: Record<string, string> = {
		tab: 'Tab',
		'shift+tab': 'S-Tab',
		up: '↑',
		down: '↓',
		left: '←',
		right: '→',
		pageup: 'PgUp',
		pagedown: 'PgDn',
		home: 'Home',
		end: 'End',
		return: 'Enter',
		escape: 'Esc',
		space: 'Space',
		backspace: 'Bksp',
		f1: 'F1',
		f10: 'F10',
	};
	if (labels[k]) return labels[k];
	if (k.startsWith('ctrl+')) return `^${k.slice(5).toUpperCase()}`;
	return k;
}

/** The first binding in the active scopes (in order) that names the key. */
export function resolveKey(keymap: readonly KeyBinding[], scopes: readonly KeyScope[], name: string): KeyBinding | undefined {
	for (const scope of scopes) {
		const hit = keymap.find(b => b.scope === scope && b.keys.includes(name));
		if (hit) return hit;
	}
	return undefined;
}

export interface FooterHint {
	readonly keys: string;
	readonly label: string;
	readonly id: ActionId;
}

/** Footer hints for the active scopes (first scope first), one per binding with a footer label. */
export function footerHints(keymap: readonly KeyBinding[], scopes: readonly KeyScope[]): FooterHint[] {
	const out: FooterHint[] = [];
	for (const scope of scopes) {
		for (const b of keymap) {
			if (b.scope !== scope || b.footer === undefined) continue;
			out.push({keys: b.footerKeys ?? keyLabel(b.keys[0]!), label: b.footer, id: b.id});
		}
	}
	return out;
}

/** The hints that fit in `width` (whole hints only, two spaces apart). */
export function fitHints(hints: readonly FooterHint[], width: number): FooterHint[] {
	const out: FooterHint[] = [];
	let used = 0;
	for (const h of hints) {
		const len = (out.length > 0 ? 2 : 0) + Array.from(`${h.keys} ${h.label}`).length;
		if (used + len > width) break;
		out.push(h);
		used += len;
	}
	return out;
}

/** Footer hints as one line: `? help  q quit  Tab engine …`, cut at whole hints to fit `width`. */
export function footerText(hints: readonly FooterHint[], width: number): string {
	return fitHints(hints, width)
		.map(h => `${h.keys} ${h.label}`)
		.join('  ');
}

const SCOPE_TITLES: Record<KeyScope, string> = {
	always: 'On every screen',
	global: 'Everywhere',
	table: 'In the requests table (f)',
	detail: 'In a request detail',
	history: 'In the probe history',
	empty: 'When no engine is found',
	help: 'In this help',
	prompt: 'Choosing a probe prompt',
	filter: 'Typing a log filter',
	compare: 'In the comparison table',
	agent: 'In the agent view (a)',
};

/**
 * Help overlay lines, grouped by scope: `  q, ^C           Quit`. `compact` keeps the global keys one
 * per line and folds every other scope into one line (`Choosing a probe prompt: ↓/j/Tab next · …`),
 * so the whole table fits an 80×24 screen.
 */
export function helpLines(keymap: readonly KeyBinding[], options: {readonly compact?: boolean; readonly width?: number} = {}): string[] {
	const lines: string[] = [];
	const scopes: KeyScope[] = ['global', 'always', 'empty', 'table', 'prompt', 'filter', 'help', 'detail', 'history', 'compare', 'agent'];
	for (const scope of scopes) {
		const group = keymap.filter(b => b.scope === scope);
		if (group.length === 0) continue;
		if (options.compact && scope === 'global') {
			// Two columns: `keys label` cells, so the global keys take half the rows.
			const cell = Math.max(20, Math.floor((options.width ?? 80) / 2) - 1);
			const cells = group.map(b => {
				const keys = b.keys.map(keyLabel).join('/');
				return fitCell(`  ${keys.padEnd(11)} ${b.help}`, cell);
			});
			lines.push(SCOPE_TITLES[scope]);
			const half = Math.ceil(cells.length / 2);
			for (let i = 0; i < half; i++) lines.push(`${cells[i]!} ${cells[i + half] ?? ''}`.trimEnd());
			continue;
		}
		if (options.compact) {
			if (scope === 'help' || scope === 'detail' || scope === 'history' || scope === 'compare' || scope === 'agent') continue;
			lines.push(`${SCOPE_TITLES[scope]}: ${group.map(b => `${b.keys.map(keyLabel).join('/')} ${b.footer ?? b.help}`).join(' · ')}`);
			continue;
		}
		if (lines.length > 0) lines.push('');
		lines.push(SCOPE_TITLES[scope]);
		for (let i = 0; i < group.length; i++) {
			const b = group[i]!;
			const next = group[i + 1];
			// Compact: a footer-less binding that continues the one before (`Refresh faster` / `Refresh slower`) shares its line.
			if (options.compact && next && next.footer === undefined && b.help.split(' ')[0] === next.help.split(' ')[0]) {
				const words = next.help.split(' ');
				const same = b.help.split(' ').findIndex((w, k) => words[k] !== w);
				lines.push(`  ${`${b.keys.map(keyLabel).join(', ')} / ${next.keys.map(keyLabel).join(', ')}`.padEnd(16)} ${b.help} / ${words.slice(same < 0 ? words.length : same).join(' ')}`);
				i++;
				continue;
			}
			lines.push(`  ${b.keys.map(keyLabel).join(', ').padEnd(16)} ${b.help}`);
		}
	}
	return lines;
}

/** Cut to `width` code points with an ellipsis, padded to it. */
function fitCell(text: string, width: number): string {
	const chars = Array.from(text);
	const out = chars.length > width ? `${chars.slice(0, width - 1).join('')}…` : text;
	return out + ' '.repeat(Math.max(0, width - Array.from(out).length));
}
