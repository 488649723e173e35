import {describe, expect, it} from 'vitest';
import {initialState, reduce} from '../../source/model/reducer.js';
import type {Action, MonitorState} from '../../source/types/state.js';
import {engineRows} from '../../source/ui/panes/engines.js';

const run = (actions: Action[]): MonitorState => actions.reduce(reduce, initialState({now: 1000}));

describe('ENGINES rows', () => {
	it('a named server that is down: state down, engine unknown, the reason where the keep-alive goes', () => {
		const id = 'http://127.0.0.1:9';
		const s = run([{type: 'server-down', t: 1, server: {id, engine: 'openai', url: id, source: 'flag'}, error: 'connection refused'}]);
		expect(engineRows(s.servers, s.order, 2)).toEqual([
			{serverId: id, first: true, state: 'down', engine: '--', url: '127.0.0.1:9', model: '--', processor: '--', cpuShare: undefined, context: '--', until: 'connection refused', demo: false},
		]);
	});

	it('a --log that does not exist says so in its row; a log being followed says nothing there', () => {
		const id = 'log:/var/log/x.log';
		const s = run([
			{type: 'server-seen', t: 1, server: {id, engine: 'openai', source: 'log', logLabel: '/var/log/x.log'}},
			{type: 'log-state', serverId: id, text: 'no such file: /var/log/x.log (waiting for it)'},
		]);
		expect(engineRows(s.servers, s.order, 2)[0]!.until).toBe('no such file: /var/log/x.log (waiting for it)');
		const following = reduce(s, {type: 'log-state', serverId: id, text: 'following /var/log/x.log'});
		expect(engineRows(following.servers, following.order, 2)[0]!.until).toBe('');
	});

	it('a named server down with a missing log: both reasons in its row', () => {
		const id = 'http://127.0.0.1:9';
		const s = run([
			{type: 'server-seen', t: 1, server: {id, engine: 'openai', url: id, source: 'flag', logLabel: '/nope/x.log'}},
			{type: 'log-state', serverId: id, text: 'no such file: /nope/x.log (waiting for it)'},
			{type: 'server-down', t: 2, server: {id, engine: 'openai', url: id, source: 'flag'}, error: 'connection refused'},
		]);
		expect(engineRows(s.servers, s.order, 3)[0]!.until).toBe('connection refused · log: no such file: /nope/x.log (waiting for it)');
	});
});
