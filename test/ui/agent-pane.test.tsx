import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {budgetOf, type Session, type Turn} from '../../source/model/sessions.js';
import {AgentPane, cellScale, turnBar} from '../../source/ui/panes/agent.js';

const turn = (i: number, parts: Partial<Pick<Turn, 'queueMs' | 'prefillMs' | 'decodeMs' | 'idleBeforeMs'>>): Turn => ({
	serverId: 'llamacpp@127.0.0.1:8080',
	key: `r${i}`,
	time: 1_764_000_000_000 + i * 10_000,
	promptEstimated: false,
	retries: 0,
	backlog: false,
	findings: [],
	...parts,
});

const session = (turns: readonly Turn[]): Session => ({
	id: 's1',
	serverId: 'llamacpp@127.0.0.1:8080',
	engine: 'llamacpp',
	model: 'qwen3-8b',
	turns,
	budget: budgetOf(turns, undefined),
});

describe('the agent bars\' scale', () => {
	it('is unknown when no turn shown has a known time, not "one cell ≈ 0.0 ms"', () => {
		const turns = [turn(0, {}), turn(1, {})];
		expect(cellScale(turns, true, 40)).toEqual({msPerCell: undefined, text: 'one cell ≈ -- (no known times)'});
		// the bars are only the unknown marks
		expect(turnBar(turns[1]!, undefined, false).map(p => p.glyph)).toEqual(['?', '?', '?', '?']);
	});

	it('the longest drawn turn fills the bar; the first turn\'s idle is not drawn, so not counted', () => {
		const turns = [turn(0, {queueMs: 0, prefillMs: 300, decodeMs: 600, idleBeforeMs: 50_000}), turn(1, {queueMs: 10, prefillMs: 90, decodeMs: 500, idleBeforeMs: 1_400})];
		// 10 + 90 + 500 + 1400 = 2000 ms over 40 - 4 cells
		expect(cellScale(turns, true, 40).msPerCell).toBeCloseTo(2000 / 36, 9);
		expect(cellScale(turns, true, 40).text).toBe('one cell ≈ 56 ms');
		// the same first turn, not the session's first: its idle is drawn
		expect(cellScale(turns, false, 40).msPerCell).toBeCloseTo(50_900 / 36, 9);
	});

	it('says "< 0.1 ms" for sub-millisecond turns, not 0.0', () => {
		expect(cellScale([turn(0, {queueMs: 0, prefillMs: 0.4, decodeMs: 0.6})], true, 44).text).toBe('one cell ≈ < 0.1 ms');
	});

	it('the pane shows -- for a session whose times are all unknown', () => {
		const s = session([turn(0, {}), turn(1, {}), turn(2, {})]);
		const {lastFrame, unmount} = render(<AgentPane view={{sessions: [s], withoutTime: 0}} serverId={s.serverId} demo={false} width={120} height={20} />);
		const frame = lastFrame() ?? '';
		unmount();
		expect(frame).toContain('one cell ≈ -- (no known times)');
		expect(frame).not.toMatch(/0\.0 ms/);
	});

	it('counts the backlog requests without a time, in words that agree with the count', () => {
		const frame = (n: number) => {
			const {lastFrame, unmount} = render(<AgentPane view={{sessions: [], withoutTime: n}} serverId="x" demo={false} width={120} height={10} />);
			const f = lastFrame() ?? '';
			unmount();
			return f;
		};
		expect(frame(1)).toContain("1 request of the log's backlog has no known time and is in no session");
		expect(frame(3)).toContain("3 requests of the log's backlog have no known time and are in no session");
		expect(frame(0)).not.toContain('backlog');
	});
});
