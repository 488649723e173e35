/**
 * What each overlay of ui/scopes.ts shows in the middle of the screen: one entry per overlay (the
 * compiler asks for a new overlay's). Each takes the same props; an overlay that needs hooks is a
 * component of its own (these functions run inside the dashboard's render).
 */
import {useMemo, type ReactNode} from 'react';
import {deriveSessions} from '../model/sessions.js';
import type {MonitorState, ServerState} from '../types/state.js';
import type {KeyBinding} from './keymap.js';
import {AgentPane} from './panes/agent.js';
import {FindingsPane} from './panes/findings.js';
import {engineLabels, findingRows} from './view-model/findings.js';
import {WhatIfPane} from './panes/whatif.js';
import {whatIfOf} from '../model/whatif.js';
import {ComparePane} from './panes/compare.js';
import {HistoryOverlay} from './panes/history.js';
import {HelpOverlay, PromptOverlay} from './panes/overlays.js';
import {DetailOverlay} from './panes/requests.js';
import type {OverlayName, ScopeTable} from './scopes.js';
import type {RequestEntry} from './view-model/requests.js';
import type {ViewState} from './view-state.js';

export interface OverlayViewProps {
	readonly state: MonitorState;
	readonly view: ViewState;
	readonly keymap: readonly KeyBinding[];
	/** The scope table the keymap was made from (the help's headings). */
	readonly scopes: ScopeTable;
	readonly width: number;
	readonly height: number;
	readonly selectedId?: string;
	readonly server?: ServerState;
	/** Every request of every server, as the requests table lists them. */
	readonly requests: readonly RequestEntry[];
	/** The screen shows the demo's simulated engine. */
	readonly demo: boolean;
	/** Agent view: the longest pause within one session (config `sessionGap`), ms. */
	readonly sessionGapMs: number;
}

/** Sessions are memoised per server on its request ring (model/sessions.ts), computed only while the view is open. */
function AgentOverlay({state, sessionGapMs, selectedId, demo, width, height}: OverlayViewProps) {
	const sessions = useMemo(() => deriveSessions(state, sessionGapMs), [state.servers, state.order, state.system, sessionGapMs]);
	const labels = useMemo(() => engineLabels(state), [state.servers, state.order]);
	return <AgentPane view={sessions} serverId={selectedId} demo={demo} width={width} height={height} engineLabels={labels} />;
}

/** Every session's findings (issue 28), computed only while the list is open. */
function FindingsOverlay({state, sessionGapMs, width, height}: OverlayViewProps) {
	const rows = useMemo(() => findingRows(state, sessionGapMs), [state.servers, state.order, state.system, sessionGapMs]);
	return <FindingsPane rows={rows} width={width} height={height} />;
}

/** The agent view's session (the selected engine's newest) projected onto the profiles read. */
function WhatIfOverlay({state, view, sessionGapMs, selectedId, width, height}: OverlayViewProps) {
	const sessions = useMemo(() => deriveSessions(state, sessionGapMs), [state.servers, state.order, sessionGapMs]);
	const w = view.whatif;
	const profiles = w?.profiles;
	const projected = useMemo(() => {
		const mine = sessions.sessions.filter(s => s.serverId === selectedId);
		const pick = (mine.at(-1) ?? sessions.sessions.at(-1))?.id ?? 'last';
		return whatIfOf(sessions.sessions, state.servers, profiles ?? [], pick, [], state.now);
	}, [sessions, state.servers, profiles, selectedId, state.now]);
	return <WhatIfPane view={projected} loading={w?.loading ?? true} error={w?.error} measuring={w?.measuring} file={w?.file} now={state.now} width={width} height={height} />;
}

export type OverlayViews = {readonly [K in OverlayName]: (p: OverlayViewProps) => ReactNode};

export const OVERLAY_VIEWS: OverlayViews = {
	prompt: p => <PromptOverlay cursor={p.view.promptCursor} current={p.state.probe.prompt} serverLabel={p.server?.url ?? p.selectedId} width={p.width} height={p.height} />,
	help: p => <HelpOverlay keymap={p.keymap} scopes={p.scopes} width={p.width} height={p.height} />,
	detail: p => {
		const entry = p.requests.find(e => e.key === p.view.detailKey);
		return <DetailOverlay entry={entry} log={entry ? (p.state.servers[entry.record.serverId]?.log ?? []) : []} width={p.width} height={p.height} />;
	},
	history: p => <HistoryOverlay history={p.view.history} width={p.width} height={p.height} />,
	compare: p => <ComparePane compare={p.state.compare} now={p.state.now} width={p.width} height={p.height} />,
	agent: p => <AgentOverlay {...p} />,
	findings: p => <FindingsOverlay {...p} />,
	whatif: p => <WhatIfOverlay {...p} />,
};
