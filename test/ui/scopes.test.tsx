/**
 * An overlay is one row of ui/scopes.ts and its component (issue 31): a made-up `~` bookmarks list (the real `!` is the findings list of issue 28),
 * added to a copy of the table and of the overlay views and handed to the real App, opens with its
 * key, lists that key and its own in the footer and the help, and closes like every overlay.
 */
import {Box} from 'ink';
import {afterEach, describe, expect, it} from 'vitest';
import {App} from '../../source/ui/app.js';
import type {Controller} from '../../source/types/controller.js';
import {keymapOf} from '../../source/ui/keymap.js';
import {OVERLAY_VIEWS, type OverlayViewProps, type OverlayViews} from '../../source/ui/overlay-views.js';
import {Line, Title} from '../../source/ui/panes/common.js';
import {SCOPES, scopeList, type ScopeRow, type ScopeTable} from '../../source/ui/scopes.js';
import {activeScopes} from '../../source/ui/selectors.js';
import {initialView} from '../../source/ui/view-state.js';
import {richStore} from '../helpers/ui-state.js';
import {renderTui, settle, waitFor, type Tui} from '../helpers/render-tui.js';

/** The made-up overlay's component: the servers it would list bookmarks for. */
function BookmarksList({state, width, height}: OverlayViewProps) {
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Title title="BOOKMARKS" detail="made up in a test" />
			{state.order.map(id => (
				<Line key={id}>{`no bookmarks on ${id}`}</Line>
			))}
		</Box>
	);
}

/** Its row: title, the key that opens it, its own keys. */
const BOOKMARKS: ScopeRow = {
	title: 'In the bookmarks list (~)',
	overlay: {opens: {keys: ['~'], help: 'Bookmarks of every session, newest first', footer: 'bookmarks'}},
	compactHelp: false,
	keys: [{id: 'escape', keys: ['escape', '~', 'q'], help: 'Close the bookmarks', footer: 'close'}],
};
const SCOPES_PLUS: ScopeTable = {...SCOPES, bookmarks: BOOKMARKS};
const VIEWS_PLUS = {...OVERLAY_VIEWS, bookmarks: (p: OverlayViewProps) => <BookmarksList {...p} />} as OverlayViews;

const idle: Controller = {probe: () => undefined, cancelProbe: () => undefined, startDemo: () => undefined, quit: () => undefined, setRefresh: () => undefined};

let tui: Tui | undefined;
afterEach(() => {
	tui?.unmount();
	tui = undefined;
});

describe('an overlay is one row and its component', () => {
	it('the table gives its keys (the opening one after its scope\'s own) and its scope while open', () => {
		const keymap = keymapOf(SCOPES_PLUS);
		const globalKeys = keymap.filter(b => b.scope === 'global');
		expect(globalKeys.at(-1)).toEqual({id: 'overlay', overlay: 'bookmarks', scope: 'global', keys: ['~'], help: 'Bookmarks of every session, newest first', footer: 'bookmarks'});
		expect(keymap.filter(b => (b.scope as string) === 'bookmarks')).toEqual([{id: 'escape', keys: ['escape', '~', 'q'], help: 'Close the bookmarks', footer: 'close', scope: 'bookmarks'}]);
		expect(activeScopes({...initialView, overlay: 'bookmarks' as never}, false)).toEqual(['always', 'bookmarks']);
		expect(scopeList(SCOPES_PLUS).map(s => s.name).at(-1)).toBe('bookmarks');
		// Without the row, nothing of it anywhere.
		expect(keymapOf(SCOPES).some(b => b.keys.includes('~'))).toBe(false);
	});

	it('~ opens it, its footer and the help list it, Esc closes it', async () => {
		tui = renderTui(<App store={richStore()} controller={idle} version="0.1.0" scopes={SCOPES_PLUS} overlayViews={VIEWS_PLUS} />, {columns: 220, rows: 120});
		await waitFor(() => tui!.frame().includes('infertop 0.1.0'), 'first frame');
		await settle();
		expect(tui.frame()).toContain('~ bookmarks');
		tui.stdin.write('~');
		await waitFor(() => tui!.frame().includes('BOOKMARKS  made up in a test'), 'the overlay');
		expect(tui.frame()).toContain('no bookmarks on ollama@127.0.0.1:11434');
		expect(tui.frame()).toContain('Esc close');
		expect(tui.frame()).not.toContain('PASSES');
		tui.stdin.write('\u001b');
		await waitFor(() => tui!.frame().includes('PASSES'), 'back to the panes');
		tui.stdin.write('?');
		await waitFor(() => tui!.frame().includes('In the bookmarks list (~)'), 'its heading in the help');
		const help = tui.frame().split('\n');
		expect(help.some(l => / {2}~ {16}Bookmarks of every session, newest first/.test(l))).toBe(true);
		expect(help.some(l => l.includes('Esc, ~, q') && l.includes('Close the bookmarks'))).toBe(true);
	});
});
