/**
 * Keys as data (ink-practices §6.4, lazygit Binding): one table (ui/scopes.ts, every scope and its
 * keys) drives the router, the footer hints and the `?` help overlay. Pure; no Ink.
 */
import {SCOPES, scopeList, type KeyScope, type OverlayName, type ScopeTable} from './scopes.js';

export type {KeyScope} from './scopes.js';

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
	| 'agent'
	| 'whatif'
	| 'whatif-close'
	| 'whatif-measure'
	/** Open the binding's `overlay` (or close it when open): an overlay's `opens` key (ui/scopes.ts). */
	| 'overlay';

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
	/** The overlay an `overlay` binding opens. */
	readonly overlay?: OverlayName;
}

/** Every binding of every scope of a table (ui/scopes.ts), scope by scope in its order; an overlay's opening key after its scope's own. */
export function keymapOf(scopes: ScopeTable = SCOPES): KeyBinding[] {
	const list = scopeList(scopes);
	return list.flatMap(row => [
		...row.keys.map(b => ({...b, scope: row.name})),
		...list.flatMap(o => {
			const opens = o.overlay?.opens;
			if (!opens || (opens.scope ?? 'global') !== row.name) return [];
			const {scope: _, ...binding} = opens;
			return [{...binding, id: 'overlay' as const, overlay: o.name as OverlayName, scope: row.name}];
		}),
	]);
}

export const KEYMAP: readonly KeyBinding[] = keymapOf(SCOPES);

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

/**
 * Help overlay lines, grouped by scope: `  q, ^C           Quit`. `compact` keeps the global keys one
 * per line and folds every other scope into one line (`Choosing a probe prompt: ↓/j/Tab next · …`),
 * so the whole table fits an 80×24 screen.
 */
export function helpLines(keymap: readonly KeyBinding[], options: {readonly compact?: boolean; readonly width?: number; readonly scopes?: ScopeTable; readonly oneColumn?: boolean} = {}): string[] {
	const lines: string[] = [];
	for (const {name: scope, title, compactHelp} of scopeList(options.scopes)) {
		const group = keymap.filter(b => b.scope === scope);
		if (group.length === 0) continue;
		if (options.compact && scope === 'global' && options.oneColumn === true) {
			// One column, each key on its own row (where the rows allow it and two columns would cut).
			lines.push(title);
			for (const b of group) lines.push(`  ${b.keys.map(keyLabel).join('/').padEnd(11)} ${b.help}`);
			continue;
		}
		if (options.compact && scope === 'global') {
			// Two columns: `keys label` cells, so the global keys take half the rows. Each column as wide
			// as its longest cell where the width allows (nothing cut on a wide screen), else halves.
			const width = options.width ?? 80;
			const texts = group.map(b => `  ${b.keys.map(keyLabel).join('/').padEnd(11)} ${b.help}`);
			const half = Math.ceil(texts.length / 2);
			const longest = (xs: readonly string[]) => xs.reduce((m, x) => Math.max(m, x.length), 0);
			const leftNeed = longest(texts.slice(0, half));
			const rightNeed = longest(texts.slice(half));
			const fits = leftNeed + 1 + rightNeed <= width;
			const left = fits ? leftNeed : Math.max(20, Math.floor(width / 2) - 1);
			const right = fits ? rightNeed : Math.max(20, width - left - 1);
			lines.push(title);
			for (let i = 0; i < half; i++) lines.push(`${fitCell(texts[i]!, left)} ${texts[i + half] === undefined ? '' : fitCell(texts[i + half]!, right)}`.trimEnd());
			continue;
		}
		if (options.compact) {
			if (compactHelp === false) continue;
			lines.push(`${title}: ${group.map(b => `${b.keys.map(keyLabel).join('/')} ${b.footer ?? b.help}`).join(' · ')}`);
			continue;
		}
		if (lines.length > 0) lines.push('');
		lines.push(title);
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
