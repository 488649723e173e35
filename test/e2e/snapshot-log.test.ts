/**
 * `infertop snapshot --json --log llamacpp=PATH` on a real llama-server capture reports its requests,
 * with the figures of the capture's own `timings` JSON.
 */
import {Writable} from 'node:stream';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {runSnapshot} from '../../source/commands/snapshot.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';

const sample = fileURLToPath(new URL('../../samples/llama-server.log', import.meta.url));

describe('snapshot --json --log llamacpp=PATH', () => {
	it('reports the captured requests with the counts rule applied', async () => {
		let out = '';
		const stdout = new Writable({
			write(chunk, _enc, done) {
				out += String(chunk);
				done();
			},
		});
		const config = mergeConfig(DEFAULTS, {}, {logs: [`llamacpp=${sample}`], demo: false, history: '/dev/null'});
		const code = await runSnapshot({config, scan: false, system: false, json: true, seconds: 0.5, stdout});
		expect(code).toBe(0);
		const snap = JSON.parse(out) as {servers: {engine: string; log: {linesUnparsed: number}}[]; requests: {tokensPerPass: number; engineTokensPerPass: number; decodeTps: number; acceptance: number}[]; demo: boolean};
		expect(snap.demo).toBe(false);
		expect(snap.servers[0]!.engine).toBe('llamacpp');
		// spec-trace capture: 128 tokens in 2888.32 ms at 43.97 t/s → 127 decoded, 99 accepted of 221 → 28 passes, 4.54
		const r = snap.requests.find(x => x.engineTokensPerPass === 4.54)!;
		expect(r).toBeDefined();
		expect(r.tokensPerPass).toBe(Math.round((127 / 28) * 1e4) / 1e4);
		expect(r.acceptance).toBe(Math.round((99 / 221) * 1e4) / 1e4);
		expect(r.decodeTps).toBeCloseTo(43.97, 2);
	});
});
