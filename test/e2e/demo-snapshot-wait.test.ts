/**
 * Issue 30: `snapshot --json --demo` (the readme's install check) has the demo's figures: it waits
 * (at most DEMO_WAIT_MS) for the demo's first finished request, where its default 3 s would end first.
 */
import {describe, expect, it} from 'vitest';
import {runSnapshot} from '../../source/commands/snapshot.js';
import {DEFAULTS, mergeConfig} from '../../source/config/config.js';
import {captureStreams} from '../helpers/streams.js';

describe('snapshot --json --demo', () => {
	it('waits for the demo\'s first finished request: a request and a decode rate, not all --', async () => {
		const config = mergeConfig(DEFAULTS, {}, {demo: true, history: '/dev/null'});
		const {stdout, stderr, out, err} = captureStreams();
		const code = await runSnapshot({config, scan: false, system: false, json: true, seconds: 0, stdout, stderr});
		expect(code).toBe(0);
		expect(err()).toBe('');
		const snap = JSON.parse(out()) as {demo: boolean; requests: {outcome: string | null; time: string | null}[]; models: {decodeTps: number | null}[]};
		expect(snap.demo).toBe(true);
		expect(snap.requests.filter(r => r.outcome === null && r.time !== null).length).toBeGreaterThanOrEqual(1);
		expect(snap.models.some(m => m.decodeTps !== null)).toBe(true);
	}, 60_000);
});
