/**
 * Issue 15's panes and their pure parts, frame by frame with ink-testing-library (exact frames,
 * no colour) and value by value.
 */
import {render} from 'ink-testing-library';
import stripAnsi from 'strip-ansi';
import type {ReactElement} from 'react';
import {describe, expect, it} from 'vitest';
import {probeQueue} from '../../source/model/queue.js';
import {parseCsvLine, parseHistory, historyRow, HISTORY_HEADER} from '../../source/probe/history.js';
import type {RequestRecord} from '../../source/types/state.js';
import type {ProbeResult} from '../../source/types/probe.js';
import {functionKey} from '../../source/ui/keymap.js';
import {EnginesPane, engineColumns, keepAliveText} from '../../source/ui/panes/engines.js';
import {engineRows} from '../../source/ui/view-model/engines.js';
import {historyLines} from '../../source/ui/panes/history.js';
import {visibleLog} from '../../source/ui/panes/log.js';
import {logStep} from '../../source/ui/view-model/log.js';
import {lastPair, pairLines, ProbePane, ttftText} from '../../source/ui/panes/probe.js';
import {RequestsPane, windowStart} from '../../source/ui/panes/requests.js';
import {requestEntries, tableEntries} from '../../source/ui/view-model/requests.js';
import {requestFigures} from '../../source/model/figures.js';
import {nextPin} from '../../source/ui/selectors.js';
import {noColorTheme} from '../../source/ui/theme.js';
import {ThemeContext} from '../../source/ui/theme-context.js';
import {richState, T0} from '../helpers/ui-state.js';

const plain = (node: ReactElement) => render(<ThemeContext.Provider value={noColorTheme()}>{node}</ThemeContext.Provider>);

const req = (key: string, o: Partial<RequestRecord>): RequestRecord => ({serverId: 's', key, firstSeen: 0, lastSeen: 0, done: true, ...o});

describe('ENGINES', () => {
	it('at 80 columns: headers, whole model names, no keep-alive column (exact frame)', () => {
		const s = richState();
		const rows = engineRows(s.servers, s.order, s.now);
		const f = plain(<EnginesPane rows={rows} width={80} height={5} />);
		expect(f.lastFrame()).toBe(
			[
				'ENGINES  2 servers',
				'  state engine   server          model      residency                    ctx',
				'▸ ● up  ollama   127.0.0.1:11434 qwen3:8b   100% GPU                     8192',
				'                                 gemma3:27b 48%/52% CPU/GPU ⚠ 48% on CPU 4096',
				'  ● up  llamacpp 127.0.0.1:8080  --         --                           4×8192',
			].join('\n'),
		);
		f.unmount();
	});

	it('a long model name is cut last: keep-alive first, then server and residency', () => {
		const s = richState();
		const rows = engineRows(s.servers, s.order, s.now).map((r, i) => (i === 0 ? {...r, model: 'hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M'} : r));
		const c = engineColumns(rows, 100);
		expect(c.until).toBe(0);
		expect(c.model).toBe(Array.from('hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M').length);
		const narrow = engineColumns(rows, 80);
		expect(narrow.url).toBe(12);
		expect(narrow.model).toBeGreaterThanOrEqual(20);
	});

	it('keep-alive says what it is', () => {
		expect(keepAliveText('4 minutes from now')).toBe('keep-alive 4 minutes');
		expect(keepAliveText('About a minute from now')).toBe('keep-alive about a minute');
		expect(keepAliveText('Forever')).toBe('keep-alive forever');
		expect(keepAliveText('Stopping...')).toBe('unloading');
		expect(keepAliveText('--')).toBe('--');
	});
});

describe('REQUESTS', () => {
	it('sorts by a figure with unknowns last (never read as 0); live rows stay on top; filters by substring', () => {
		const s = richState();
		const all = requestEntries(s.servers, s.order);
		const byDecode = tableEntries(all, 'decode', '');
		expect(byDecode[0]!.record.done).toBe(false);
		expect(byDecode[1]!.figures.decodeTps).toBeCloseTo(52.22, 2);
		const withUnknown = tableEntries(
			[
				{key: 'a', record: req('a', {lastSeen: 3}), engine: 'x', model: 'm', figures: {decodeTps: undefined}},
				{key: 'b', record: req('b', {lastSeen: 2}), engine: 'x', model: 'm', figures: {decodeTps: 0.5}},
				{key: 'c', record: req('c', {lastSeen: 1}), engine: 'x', model: 'm', figures: {decodeTps: 9}},
			] as never,
			'decode',
			'',
		);
		expect(withUnknown.map(e => e.key)).toEqual(['c', 'b', 'a']);
		expect(tableEntries(all, 'time', 'LLAMACPP').map(e => e.key)).toEqual(['llamacpp@127.0.0.1:8080/s2/t8', 'llamacpp@127.0.0.1:8080/s1/t7']);
	});

	it('an unchanged record keeps its entry from one state to the next; a changed record or label gets a new one', () => {
		const s = richState();
		const first = requestEntries(s.servers, s.order);
		const again = requestEntries({...s.servers}, [...s.order]);
		expect(again).toHaveLength(first.length);
		for (let i = 0; i < first.length; i++) expect(again[i]).toBe(first[i]);
		// the reducer replaces a record that changes: its entry is made again, with the new figures
		const id = s.order[0]!;
		const server = s.servers[id]!;
		const old = server.requests.find(r => r.done)!;
		const changed = {...old, generatedTokens: (old.generatedTokens ?? 0) + 10};
		const next = requestEntries({...s.servers, [id]: {...server, requests: server.requests.map(r => (r === old ? changed : r))}}, s.order);
		const entry = next.find(e => e.record === changed)!;
		expect(entry).not.toBe(first.find(e => e.record === old));
		expect(entry.figures).toEqual(requestFigures(changed));
		// the same record under another engine label (a demo flag) is labelled again
		const relabelled = requestEntries({...s.servers, [id]: {...server, demo: true}}, s.order).find(e => e.record === old)!;
		expect(relabelled.engine).toBe(`${server.engine} demo`);
	});

	it('keeps the cursor on screen while it scrolls', () => {
		expect(windowStart(62, 0, 9)).toBe(0);
		expect(windowStart(62, 8, 9)).toBe(0);
		expect(windowStart(62, 9, 9)).toBe(1);
		expect(windowStart(62, 61, 9)).toBe(53);
		expect(windowStart(5, 4, 9)).toBe(0);
	});

	it('focused, sorted by prompt, filtered (exact frame)', () => {
		const s = richState();
		const rows = tableEntries(requestEntries(s.servers, s.order), 'prompt', 'llamacpp');
		const f = plain(<RequestsPane entries={rows} total={62} focused cursor={1} sort="prompt" filter="llamacpp" width={120} height={4} />);
		expect(stripAnsi(f.lastFrame() ?? '')).toBe(
			[
				'REQUESTS ▸  62 seen · sort prompt, largest first · filter "llamacpp": 2 match · ↑/↓ s / Enter · Esc leaves',
				'time     engine      model                 prompt  cached prefill/s decode/s tok/pass accept',
				'▶ live   llamacpp    --                   tg 51.3 tok/s, 120 tokens',
				'12:01:01 llamacpp    Qwen3-8B-Q4_K_M.gguf     300       0     750.0     52.2     5.22    76%',
			].join('\n'),
		);
		f.unmount();
	});
});

describe('PROBE: first against second, and the queue', () => {
	const base: ProbeResult = {t: T0, engine: 'ollama', url: 'http://127.0.0.1:11434', model: 'qwen3:8b', protocol: 'ollama', prompt: 'long'};
	const first: ProbeResult = {...base, run: 1, ttftMs: 1200, promptTokens: 812, cachedTokens: 0, decodeTps: 47.6};
	const second: ProbeResult = {...base, run: 2, t: T0 + 5000, ttftMs: 310, promptTokens: 812, cachedTokens: 800, decodeTps: 48.1};

	it('pairs run 1 and run 2 of one probe only', () => {
		expect(lastPair([first, second])).toEqual([first, second]);
		expect(lastPair([second, first])).toBeUndefined();
		expect(lastPair([first, {...second, model: 'other'}])).toBeUndefined();
		expect(lastPair([second])).toBeUndefined();
	});

	it('shows both runs side by side and the TTFT the cache saved (exact frame)', () => {
		const f = plain(<ProbePane probe={{results: [first, second], prompt: 'long'}} now={T0 + 6000} width={100} height={4} />);
		expect(f.lastFrame()).toBe(
			[
				'PROBE  prompt long · first against second run',
				'first   TTFT   1.20 s   cached       0/812   decode   47.6 tok/s',
				'second  TTFT   310 ms   cached     800/812   decode   48.1 tok/s',
				'cache saved 890 ms of TTFT (74%) · long · qwen3:8b · 12:00:05',
			].join('\n'),
		);
		f.unmount();
	});

	it('a saving needs both TTFTs; a longer second TTFT is no saving', () => {
		expect(pairLines(first, {...second, ttftMs: undefined})[2]).toMatch(/^cache saved -- of TTFT · /);
		expect(pairLines(first, {...second, ttftMs: 1300})[2]).toMatch(/^cache saved nothing \(second TTFT 100 ms longer\) · /);
	});

	it('issue 30: the saving compares prefill with prefill: a run\'s queue time is taken out, or the saving is unknown', () => {
		// The demo's case: 1.0 s of the first run's 1.29 s TTFT was waiting behind another request.
		const q1 = {...first, ttftMs: 1290, queuedBehind: 1, queuedMs: 1000};
		const q2 = {...second, ttftMs: 50};
		expect(pairLines(q1, q2)[2]).toMatch(/^cache saved 240 ms of TTFT, queue excluded \(83%\) · /);
		// Another request ran beside it for a time not known: the TTFT is not the prefill, and nothing says how much.
		expect(pairLines({...first, queuedBehind: 2}, second)[2]).toMatch(/^cache saved -- \(a run shared the server with other requests: its prefill is not known\) · /);
		expect(pairLines(first, {...second, queuedBehind: 1})[2]).toMatch(/^cache saved -- \(a run shared the server with other requests: its prefill is not known\) · /);
		// The tmux pass: 3 of 106 cached both times, the second queued 8.3 s: no saving, not 23 ms of queue-estimate noise.
		expect(pairLines({...first, ttftMs: 274, cachedTokens: 3, promptTokens: 106}, {...second, ttftMs: 8590, queuedBehind: 1, queuedMs: 8339, cachedTokens: 3, promptTokens: 106})[2]).toMatch(/^cache saved nothing \(the second prompt was no more cached: 3 of 106\) · /);
	});

	it('says the probe queued behind other requests instead of a bare TTFT', () => {
		expect(ttftText({...base, ttftMs: 3380, queuedBehind: 1, queuedMs: 3100})).toBe('TTFT 3.38 s (queued 3.1 s behind 1 request)');
		expect(ttftText({...base, ttftMs: 900, queuedBehind: 2})).toBe('TTFT 900 ms (2 other requests running)');
		expect(ttftText({...base, ttftMs: 900})).toBe('TTFT 900 ms');
		expect(pairLines({...first, queuedBehind: 1, queuedMs: 800}, second)[2]).toContain('queue excluded');
		expect(pairLines({...first, queuedBehind: 1}, second)[2]).not.toContain('queued');
	});

	it('probeQueue: requests in flight when the run left, finished before its first token, are the queue', () => {
		const left = 10_000;
		const before = [req('a', {done: false, lastSeen: 9_500}), req('old', {done: true, lastSeen: 1_000})];
		// a finishes 3.1 s after the probe left; the first token came at 3.38 s.
		expect(probeQueue(before, [req('a', {done: true, lastSeen: 13_100})], left, 3380)).toEqual({behind: 1, queuedMs: 3100});
		// a still running after the result: it shared the server, no queue time.
		expect(probeQueue(before, [req('a', {done: false, lastSeen: 14_000})], left, 3380)).toEqual({behind: 1});
		// a finished long after the first token: parallel, not a queue.
		expect(probeQueue(before, [req('a', {done: true, lastSeen: 20_000})], left, 3380)).toEqual({behind: 1});
		// nothing in flight, or a record not heard of for a minute: no queue.
		expect(probeQueue([req('old', {done: true})], [], left, 3380)).toBeUndefined();
		expect(probeQueue([req('z', {done: false, lastSeen: left - 61_000})], [], left, 3380)).toBeUndefined();
		// unknown TTFT: the count only.
		expect(probeQueue(before, [req('a', {done: true, lastSeen: 13_100})], left, undefined)).toEqual({behind: 1});
	});
});

describe('probe history', () => {
	it('reads back what it writes; unknown cells stay unknown; bad rows are skipped and counted', () => {
		const r: ProbeResult = {t: T0, engine: 'ollama', url: 'http://h:1', model: 'a,"b"', protocol: 'ollama', prompt: 'code', promptKind: 'code', ttftMs: 312.04, decodeTps: 47.61};
		const text = `${HISTORY_HEADER}\n${historyRow(r, '0.1.0')}not,a,row\n${HISTORY_HEADER.split(',').map(() => '').join(',')}\n`;
		const {entries, skipped} = parseHistory(text);
		expect(skipped).toBe(2);
		expect(entries).toEqual([
			{t: T0, server: 'http://h:1', engine: 'ollama', model: 'a,"b"', promptKind: 'code', promptTokens: undefined, cachedTokens: undefined, ttftMs: 312, decodeTps: 47.61, reportedTps: undefined, tokensPerPass: undefined, acceptance: undefined, ceilingTps: undefined, pctOfCeiling: undefined},
		]);
		expect(parseCsvLine('a,"b,c",,"d""e"')).toEqual(['a', 'b,c', '', 'd"e']);
		// A negative or impossible figure from a hand-edited file is unknown, not shown.
		const bad = parseHistory(`time,server,decode_tps_wall,acceptance\n2026-03-01T12:00:00Z,x,-3,1.7\n`).entries[0]!;
		expect(bad.decodeTps).toBeUndefined();
		expect(bad.acceptance).toBeUndefined();
		expect(parseHistory('garbage\n1,2\n')).toEqual({entries: [], skipped: 2});
	});

	it('groups the last probes per server, newest server first', () => {
		const e = (server: string, t: number, decodeTps?: number) => ({t, server, engine: 'ollama', promptKind: 'code', decodeTps});
		const lines = historyLines([e('A', T0, 10), e('B', T0 + 2000, 20), e('A', T0 + 1000, 20), e('A', T0 + 1500)], 100, 12);
		expect(lines[0]).toEqual({text: 'B  ollama · 1 probe · last 2026-03-01 12:00:02', kind: 'server'});
		expect(lines.find(l => l.text.startsWith('A'))?.text).toBe('A  ollama · 3 probes · last 2026-03-01 12:00:01');
		// The unknown decode is a gap in the sparkline, not a zero.
		expect(lines.filter(l => l.kind === 'spark').map(l => l.text)).toEqual([
			'  decode █  last 20.0 tok/s · range 20.0–20.0 over the last 1 (wall clock)',
			'  decode ▄█   last -- tok/s · range 10.0–20.0 over the last 3 (wall clock)',
		]);
	});
});

describe('LOG: held, sideways, wrapped', () => {
	const log = Array.from({length: 30}, (_, i) => ({t: T0, text: `line ${i} ${'x'.repeat(i)}`, parsed: false}));

	it('logStep moves the absolute bottom line; it holds however many lines arrive later', () => {
		const end = logStep(log, 100, '', undefined, 10, 5);
		// 100 lines seen, the ring keeps the last 30 (70..99): 10 back from 99 is 89.
		expect(end).toBe(89);
		expect(visibleLog(log, '', {total: 100, end}, 5, 80).lines.map(l => l.text.slice(11, 18))).toEqual(['line 15', 'line 16', 'line 17', 'line 18', 'line 19']);
		// Ten more lines arrive: the ring has moved on by ten, the view shows the same lines.
		const later = [...log.slice(10), ...Array.from({length: 10}, (_, i) => ({t: T0, text: `new ${i}`, parsed: false}))];
		expect(visibleLog(later, '', {total: 110, end}, 5, 80).lines.map(l => l.text.slice(11, 18))).toEqual(['line 15', 'line 16', 'line 17', 'line 18', 'line 19']);
		expect(visibleLog(later, '', {total: 110, end}, 5, 80).newer).toBe(20);
		expect(logStep(log, 100, '', end, -10, 5)).toBeUndefined();
		expect(logStep(log, 100, '', end, 'home', 5)).toBe(74);
		expect(logStep(log, 100, '', end, 'end', 5)).toBeUndefined();
	});

	it('scrolls sideways and wraps', () => {
		const long = [{t: T0, text: `${'a'.repeat(30)}${'b'.repeat(30)}`, parsed: true}];
		const cut = visibleLog(long, '', {}, 3, 41);
		expect(cut.lines.map(l => l.text.slice(9))).toEqual([`• ${'a'.repeat(29)}…`]);
		expect(cut.cut).toBe(true);
		const side = visibleLog(long, '', {left: 20}, 3, 41);
		expect(side.lines.map(l => l.text.slice(9))).toEqual([`• …${'a'.repeat(9)}${'b'.repeat(19)}…`]);
		const wrap = visibleLog(long, '', {wrap: true}, 3, 41);
		expect(wrap.lines.map(l => l.text.slice(9))).toEqual([`• ${'a'.repeat(30)}`, `  ${'b'.repeat(30)}`]);
	});
});

describe('small pure parts', () => {
	it('m cycles auto → each model → auto', () => {
		expect(nextPin(['a', 'b'], undefined)).toBe('a');
		expect(nextPin(['a', 'b'], 'a')).toBe('b');
		expect(nextPin(['a', 'b'], 'b')).toBeUndefined();
		expect(nextPin(['a', 'b'], 'gone')).toBeUndefined();
		expect(nextPin([], undefined)).toBeUndefined();
	});

	it('names F1 and F10 from their raw sequences', () => {
		expect(functionKey('\u001bOP')).toBe('f1');
		expect(functionKey('\u001b[11~')).toBe('f1');
		expect(functionKey('\u001b[[A')).toBe('f1');
		expect(functionKey('\u001b[21~')).toBe('f10');
		expect(functionKey('\u001b[20~')).toBeUndefined();
		expect(functionKey('q')).toBeUndefined();
	});
});
