import {describe, expect, it} from 'vitest';
import {inconsistentLine, runningLine} from '../../source/ui/panes/probe.js';

describe('probe pane lines', () => {
	const run = {serverId: 's1', startedAt: 1000, prompt: 'code', tokens: 12, liveTps: 40, ttftMs: 150};

	it('shows the overall limit while the probe runs', () => {
		expect(runningLine({...run, timeoutMs: 300_000}, 13_300)).toBe('▶ 12 tokens · 40.0 tok/s live · TTFT 150 ms · 12.3 s elapsed (limit 5 min)   Esc cancels');
		expect(runningLine({...run, timeoutMs: 45_000, runs: 2, run: 2, status: 'second run (cache reuse)'}, 2000)).toBe(
			'▶ 12 tokens · 40.0 tok/s live · TTFT 150 ms · 1.0 s elapsed (limit 45 s a run) · run 2/2 · second run (cache reuse)   Esc cancels',
		);
		expect(runningLine(run, 2000)).toBe('▶ 12 tokens · 40.0 tok/s live · TTFT 150 ms · 1.0 s elapsed   Esc cancels');
	});

	it('names what was inconsistent in the answer', () => {
		expect(inconsistentLine(['eval_count -5', 'prompt_eval_count -30'])).toBe("⚠ the server's answer was inconsistent (eval_count -5, prompt_eval_count -30): those figures are --");
	});
});
