import {afterEach, describe, expect, it} from 'vitest';
import {createCommandLog, splitArgs} from '../../source/sources/command-log.js';
import {parseLogSpec} from '../../source/config/config.js';
import {logInputOf} from '../../source/runtime.js';
import type {Collector} from '../../source/types/state.js';

async function until(pred: () => boolean, ms = 10_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!pred()) {
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise(r => setTimeout(r, 10));
	}
}

let collector: Collector | undefined;
afterEach(async () => {
	await collector?.stop();
	collector = undefined;
});

describe('createCommandLog', () => {
	it('streams stdout+stderr by line, buffers partial lines, restarts with doubling back-off', async () => {
		const lines: string[] = [];
		const states: string[] = [];
		// Writes a line in two pieces (partial line buffered), one on stderr, then exits 1.
		const script = 'process.stdout.write("slot pr");setTimeout(()=>{process.stdout.write("int_timing: a\\nsecond\\n");process.stderr.write("err line\\n");setTimeout(()=>process.exit(1),20)},30)';
		collector = createCommandLog({command: [process.execPath, '-e', script], onLine: l => lines.push(l), onState: s => states.push(s), minBackoffMs: 50, maxBackoffMs: 400});
		collector.start();
		await until(() => states.filter(s => s.includes('restarting')).length >= 2);
		expect(lines.slice(0, 3).sort()).toEqual(['err line', 'second', 'slot print_timing: a'].sort());
		const restarts = states.filter(s => s.includes('restarting'));
		expect(restarts[0]).toBe('node exited (code 1); restarting in 50 ms');
		expect(restarts[1]).toBe('node exited (code 1); restarting in 100 ms');
		// Ran again: the lines came a second time.
		await until(() => lines.filter(l => l === 'second').length >= 2);
	});

	it('a missing program is reported, not thrown', async () => {
		const states: string[] = [];
		collector = createCommandLog({command: ['infertop-no-such-program-xyz'], onLine: () => undefined, onState: s => states.push(s), minBackoffMs: 1000});
		collector.start();
		await until(() => states.some(s => s.includes('restarting')));
		expect(states.find(s => s.includes('restarting'))).toMatch(/^infertop-no-such-program-xyz (not found|failed|exited).*; restarting in 1 s$/);
	});

	it('stop() kills the running command', async () => {
		const lines: string[] = [];
		collector = createCommandLog({command: [process.execPath, '-e', 'setInterval(()=>console.log("tick"),20)'], onLine: l => lines.push(l), onState: () => undefined});
		collector.start();
		await until(() => lines.length >= 2);
		await collector.stop();
		const n = lines.length;
		await new Promise(r => setTimeout(r, 100));
		expect(lines.length).toBe(n);
	});
});

describe('log specs: parseLogSpec (config) → argv (splitArgs)', () => {
	it('forms', () => {
		expect(parseLogSpec('/var/log/ollama.log')).toEqual({ok: true, spec: {kind: 'file', path: '/var/log/ollama.log'}});
		expect(logInputOf('llamacpp=/tmp/server.log')).toEqual({engine: 'llamacpp', input: {kind: 'file', path: '/tmp/server.log'}});
		expect(logInputOf('cmd:journalctl -u ollama -f -o cat')).toEqual({engine: undefined, input: {kind: 'cmd', argv: ['journalctl', '-u', 'ollama', '-f', '-o', 'cat']}});
		expect(logInputOf('ollama=cmd:docker logs -f "my ollama"')).toEqual({engine: 'ollama', input: {kind: 'cmd', argv: ['docker', 'logs', '-f', 'my ollama']}});
		expect(logInputOf("vllm=cmd:sh -c 'tail -f a | grep x'")).toEqual({engine: 'vllm', input: {kind: 'cmd', argv: ['sh', '-c', 'tail -f a | grep x']}});
		expect(logInputOf('olama=/x')).toHaveProperty('error');
	});
	it('quotes and escapes', () => {
		expect(splitArgs(`a "b c" 'd "e"' f\\ g "" h`)).toEqual(['a', 'b c', 'd "e"', 'f g', '', 'h']);
		expect(splitArgs('  ')).toEqual([]);
	});
});
