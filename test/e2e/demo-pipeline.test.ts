/**
 * The whole pipeline, for real: demo engine → HTTP → its log file → tail → Ollama parser → store →
 * derived figures → snapshot JSON. The expected values are computed here, independently, from the
 * demo's own log lines and API responses.
 */
import {readFileSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {waitUntil} from '../helpers/wait.js';

let runtime: Runtime;
let url: string;
let logPath: string;

beforeAll(async () => {
	const config = mergeConfig(DEFAULTS, {}, {demo: true, history: '/dev/null'});
	runtime = await startRuntime({config, scan: false, system: false, demoSpeed: 20, demoAgent: false, pollMs: 200});
	await runtime.ready;
	const demo = runtime.demo();
	if (!demo) throw new Error('demo engine did not start');
	url = demo.url;
	logPath = demo.logPath;
});

afterAll(async () => {
	await runtime?.stop();
});

interface OllamaFinal {
	eval_count: number;
	eval_duration: number;
	prompt_eval_count: number;
	done: boolean;
}

async function generate(model: string, prompt: string, numPredict: number): Promise<OllamaFinal> {
	const res = await fetch(`${url}/api/generate`, {
		method: 'POST',
		headers: {'content-type': 'application/json'},
		body: JSON.stringify({model, prompt, stream: false, options: {num_predict: numPredict, temperature: 0, seed: 1}}),
	});
	expect(res.status).toBe(200);
	return (await res.json()) as OllamaFinal;
}

const snapshot = () => toSnapshot(runtime.store.getSnapshot(), 'test');
const logLines = () => readFileSync(logPath, 'utf8').split('\n');

describe('demo engine end to end', () => {
	it('MLX-engine model: tokens per pass and acceptance equal its speculative decode stats line; decode tok/s unknown', async () => {
		await generate('qwen3.8:27b-mlx', 'Explain unified memory in 400 words.', 200);
		await waitUntil(() => snapshot().requests.some(r => r.runner === 'mlx'), {what: 'MLX request in the snapshot', timeoutMs: 20_000});
		const stats = logLines().filter(l => l.includes('msg="speculative decode stats"')).at(-1)!;
		const num = (k: string) => Number(new RegExp(`\\b${k}=([\\d.]+)`).exec(stats)![1]);
		const iterations = num('iterations');
		const drafted = num('drafted');
		const accepted = num('accepted');
		const model = snapshot().models.find(m => m.model === 'qwen3.8:27b-mlx')!;
		expect(model.tokensPerPass).toBe(Math.round(((iterations + accepted) / iterations) * 1e4) / 1e4);
		expect(model.acceptance).toBe(Math.round((accepted / drafted) * 1e4) / 1e4);
		expect(model.acceptance!.toFixed(2)).toBe(num('acceptance').toFixed(2));
		expect(model.decodeTps).toBeNull();
		expect(model.engine).toBe('ollama');
		expect(model.gpuResidency).toBe(1);
	});

	it('GGUF-engine model: counts rule on print_timing + draft acceptance; decode tok/s = eval_count / eval_duration within 1 %', async () => {
		const seenDifferentMeanLen: boolean[] = [];
		for (const [i, n] of [256, 203, 150].entries()) {
			const final = await generate('qwen3.8:latest', i === 0 ? 'Write a small TypeScript class for a ring buffer.' : `Tell me a story number ${i}.`, n);
			await waitUntil(() => snapshot().requests.filter(r => r.runner === 'gguf').length === i + 1, {what: `GGUF request ${i + 1} in the snapshot`, timeoutMs: 20_000});
			const lines = logLines();
			const evalLine = lines.filter(l => /print_timing: .*\|\s+eval time =/.test(l)).at(-1)!;
			const m = /eval time = +([\d.]+) ms \/ +(\d+) tokens \( *[\d.]+ ms per token, +([\d.]+) tokens per second\)/.exec(evalLine)!;
			const nGen = Number(m[2]);
			const decoded = nGen - 1; // b10424+: the first token comes out of the prompt pass
			expect(Math.abs((decoded * 1000) / Number(m[1]) - Number(m[3])) / Number(m[3])).toBeLessThan(0.01);
			const acc = /draft acceptance = [\d.]+ \( *(\d+) accepted \/ +(\d+) generated\), mean len = +([\d.]+)/.exec(lines.filter(l => l.includes('draft acceptance =')).at(-1)!)!;
			const accepted = Number(acc[1]);
			const expected = decoded / (decoded - accepted);
			const request = snapshot().requests.filter(r => r.runner === 'gguf').at(-1)!;
			expect(request.tokensPerPass).toBe(Math.round(expected * 1e4) / 1e4);
			expect(request.engineTokensPerPass).toBe(Number(acc[3]));
			seenDifferentMeanLen.push(Math.abs(Number(acc[3]) - expected) > 0.005);
			const apiTps = final.eval_count / (final.eval_duration / 1e9);
			expect(Math.abs(request.decodeTps! - apiTps) / apiTps).toBeLessThan(0.01);
		}
		// At least one request ended with plain passes, where llama.cpp's mean len and the counts rule differ.
		expect(seenDifferentMeanLen).toContain(true);
		const model = snapshot().models.find(m => m.model === 'qwen3.8:latest')!;
		expect(model.decodeTps).not.toBeNull();
		expect(model.bytesPerTokenSource).toMatch(/api\/show|gguf/);
	});

	it('the demo is labelled DEMO and its bytes per token and bandwidth reach the snapshot', () => {
		const snap = snapshot();
		const demo = runtime.demo()!;
		expect(snap.demo).toBe(true);
		expect(snap.servers[0]).toMatchObject({engine: 'ollama', demo: true, source: 'demo'});
		expect(snap.bandwidthGBs).toBe(demo.bandwidthGBs);
		for (const p of demo.models) {
			const m = snap.models.find(x => x.model === p.name)!;
			expect(m.bytesPerToken).toBe(p.bytesPerToken);
			expect(m.ceilingTps).toBeCloseTo((demo.bandwidthGBs * 1e9) / p.bytesPerToken, 1);
		}
	});
});
