/**
 * Render budget (ink-practices §4.4): a real (non-debug) Ink render on a fake TTY at 120×40 fed by
 * the store ≤ 4 Hz path. No frame may reach the full-screen clear path (ink#450: a frame as tall as
 * the terminal makes ink 6.8 write clearTerminal on every update), and an update stays cheap.
 * CI=false before ink loads: with CI=true ink writes nothing until exit and this would pass for nothing.
 */
import {EventEmitter} from 'node:events';
import {afterAll, describe, expect, it} from 'vitest';

const savedCi = process.env['CI'];
process.env['CI'] = 'false';
afterAll(() => {
	if (savedCi === undefined) delete process.env['CI'];
	else process.env['CI'] = savedCi;
});

describe('render budget', () => {
	// Wall time on a shared 2-core box at load average 16+ runs past vitest's default (CPU per update is what is budgeted).
	it('never clears the terminal at 120×40 (the CPU per update is measured by the bench, not asserted here)', {timeout: 120_000}, async () => {
		const {render} = await import('ink');
		const {App} = await import('../../source/ui/app.js');
		const {richStore, OLLAMA, T0} = await import('../helpers/ui-state.js');
		const stdout = Object.assign(new EventEmitter(), {
			isTTY: true,
			columns: 120,
			rows: 40,
			bytes: 0,
			clears: 0,
			writes: 0,
			write(d: string) {
				this.bytes += Buffer.byteLength(d);
				this.writes++;
				if (d.includes('\u001b[2J') || d.includes('\u001b[3J')) this.clears++;
				return true;
			},
		});
		const stdin = Object.assign(new EventEmitter(), {isTTY: false, setEncoding() {}, setRawMode() {}, resume() {}, pause() {}, ref() {}, unref() {}, read: () => null});
		const store = richStore();
		const controller = {probe() {}, cancelProbe() {}, startDemo() {}, quit() {}, setRefresh() {}};
		const app = render(<App store={store} controller={controller} version="0.1.0" />, {
			stdout: stdout as unknown as NodeJS.WriteStream,
			stderr: stdout as unknown as NodeJS.WriteStream,
			stdin: stdin as unknown as NodeJS.ReadStream,
			patchConsole: false,
			exitOnCtrlC: false,
			maxFps: 1000,
		});
		const n = 120;
		const t0 = process.cpuUsage();
		for (let i = 0; i < n; i++) {
			const t = T0 + 70_000 + i * 250;
			store.dispatch({
				type: 'engine-event',
				serverId: OLLAMA,
				t,
				event: {type: 'request', key: `b${i}`, model: 'qwen3:8b', started: true, decodedTokens: 100 + (i % 7) * 10, accepted: 60, drafted: 90, decodeMs: 2000, done: true},
			});
			store.dispatch({type: 'log-line', serverId: OLLAMA, t, text: `budget line ${i}`, parsed: false});
			store.dispatch({type: 'tick', t});
			store.publish();
			await new Promise<void>(resolve => setImmediate(resolve));
		}
		const d = process.cpuUsage(t0);
		const msPerUpdate = (d.user + d.system) / 1000 / n;
		app.unmount();
		app.cleanup();
		if (process.env['INFERTOP_BENCH']) console.info(`ui render: ${msPerUpdate.toFixed(2)} ms CPU per update, ${stdout.writes} writes, ${(stdout.bytes / 1024).toFixed(0)} KiB`);
		expect(stdout.bytes).toBeGreaterThan(0);
		expect(stdout.clears).toBe(0);
		// 120 full renders with React's development build: ≈ 20 s of wall time at load 18 on 2 cores
	});
});
