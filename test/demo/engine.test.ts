import {mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {startDemoEngine, type DemoEngine} from '../../source/demo/engine.js';
import {ollamaProcessor} from '../../source/engines/ollama.js';

// Regexes from reference/engines.md (§1e, §2a), applied to the lines the demo writes.
const GIN = /^\[GIN\] (?<ts>\d{4}\/\d{2}\/\d{2} - \d{2}:\d{2}:\d{2}) \|\s*(?<status>\d{3})\s*\|\s*(?<lat>[\d.]+(?:ns|µs|μs|us|ms|s)|(?:\d+h)?(?:\d+m)?[\d.]+s)\s*\|\s*(?<ip>\S+)\s*\|\s*(?<method>[A-Z]+)\s+"(?<path>[^"]*)"$/u;
const SLOG = /^time=(?<time>\S+) level=(?<level>[A-Z]+) source=(?<src>\S+) msg=(?<msg>"(?:[^"\\]|\\.)*"|\S+)(?<attrs>.*)$/;
const SLOT = /^slot +(?<fn>\S+): id +(?<slot>\d+) \| task (?<task>-?\d+) \| (?<msg>.*)$/;
const EVAL = /^\s*eval time = +(?<ms>[\d.]+) ms \/ +(?<n>\d+) (?:tokens|runs) +\( *(?<msPer>[\d.]+) ms per token, +(?<tps>[\d.]+) tokens per second\)/;
const PROMPT = /^\s*prompt eval time = +(?<ms>[\d.]+) ms \/ +(?<n>\d+) tokens/;
const DRAFT = /draft acceptance(?: rate)? = (?<rate>[\d.]+) \( *(?<acc>\d+) accepted \/ +(?<gen>\d+) generated\)(?:, mean (?:len|acceptance length) = +(?<mean>[\d.]+))?/;
const CACHED = /cached n_tokens = (?<n>\d+), memory_seq_rm \[(?<p0>\d+), end\)/;
const GRAPHS = /^\s*graphs reused = +(?<n>\d+)/;
const STATS = /statistics +(?<type>[\w-]+): #calls\(b,g,a\) = +(?<b>\d+) +(?<g>\d+) +(?<a>\d+), #gen drafts = +(?<gd>\d+)/;

function attrs(s: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const m of s.matchAll(/(?<k>"(?:[^"\\]|\\.)*"|[\w.]+)=(?<v>"(?:[^"\\]|\\.)*"|\S*)/g)) {
		const k = m.groups!.k!.startsWith('"') ? (JSON.parse(m.groups!.k!) as string) : m.groups!.k!;
		const v = m.groups!.v!.startsWith('"') ? (JSON.parse(m.groups!.v!) as string) : m.groups!.v!;
		out[k] = v;
	}
	return out;
}

async function waitFor(pred: () => boolean, ms = 10_000): Promise<void> {
	const end = Date.now() + ms;
	while (!pred()) {
		if (Date.now() > end) throw new Error('condition not met in time');
		await new Promise((r) => setTimeout(r, 20));
	}
}

interface Ndjson {
	chunks: Array<Record<string, unknown>>;
	final: Record<string, unknown>;
}

async function ndjson(url: string, body: unknown): Promise<Ndjson> {
	const r = await fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
	expect(r.status).toBe(200);
	expect(r.headers.get('content-type')).toBe('application/x-ndjson');
	const lines = (await r.text()).split('\n').filter((l) => l !== '');
	const objs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
	const final = objs[objs.length - 1]!;
	const chunks = objs.slice(0, -1);
	for (const c of chunks) expect(c.done).toBe(false);
	expect(final.done).toBe(true);
	return {chunks, final};
}

/** GGUF request blocks of the log, keyed by task. */
function ggufTasks(log: string): Map<number, string[]> {
	const tasks = new Map<number, string[]>();
	for (const line of log.split('\n')) {
		const m = SLOT.exec(line);
		if (!m) continue;
		const t = Number(m.groups!.task);
		if (t < 0) continue;
		if (!tasks.has(t)) tasks.set(t, []);
		tasks.get(t)!.push(m.groups!.msg!);
	}
	return tasks;
}

describe('demo engine (speed 20, agent off)', () => {
	let dir: string;
	let engine: DemoEngine;
	let logPath: string;
	const read = (): string => readFileSync(logPath, 'utf8');

	beforeAll(async () => {
		dir = mkdtempSync(path.join(tmpdir(), 'infertop-demo-'));
		logPath = path.join(dir, 'server.log');
		engine = await startDemoEngine({logPath, speed: 20, agent: false, seed: 42});
	});
	afterAll(async () => {
		await engine.stop();
		rmSync(dir, {recursive: true, force: true});
	});

	it('answers like an Ollama 0.34 daemon on its plain endpoints', async () => {
		expect(engine.url).toBe(`http://127.0.0.1:${engine.port}`);
		const root = await fetch(engine.url + '/');
		expect(await root.text()).toBe('Ollama is running');
		const head = await fetch(engine.url + '/', {method: 'HEAD'});
		expect(head.status).toBe(200);
		expect(await (await fetch(engine.url + '/api/version')).json()).toEqual({version: '0.34.0'});
		const tags = (await (await fetch(engine.url + '/api/tags')).json()) as {models: Array<Record<string, unknown>>};
		expect(tags.models.map((m) => m.name).sort()).toEqual(['qwen3.8:27b-mlx', 'qwen3.8:latest']);
		for (const m of tags.models) {
			expect(typeof m.size).toBe('number');
			expect(String(m.digest)).toMatch(/^[0-9a-f]{64}$/);
		}
		const v1 = (await (await fetch(engine.url + '/v1/models')).json()) as {object: string; data: Array<Record<string, unknown>>};
		expect(v1.object).toBe('list');
		expect(v1.data.map((d) => d.id).sort()).toEqual(['qwen3.8:27b-mlx', 'qwen3.8:latest']);
		expect(v1.data[0]!.object).toBe('model');
		const nf = await fetch(engine.url + '/api/chat', {method: 'POST', body: JSON.stringify({model: 'nope:1b', messages: [{role: 'user', content: 'hi'}]})});
		expect(nf.status).toBe(404);
		expect(await nf.json()).toEqual({error: 'model "nope:1b" not found, try pulling it first'});
		const bad = await fetch(engine.url + '/api/generate', {method: 'POST', body: '{not json'});
		expect(bad.status).toBe(400);
		expect(typeof ((await bad.json()) as {error: unknown}).error).toBe('string');
		const v1nf = await fetch(engine.url + '/v1/chat/completions', {method: 'POST', body: JSON.stringify({model: 'nope', messages: [{role: 'user', content: 'x'}]})});
		expect(v1nf.status).toBe(404);
		expect(((await v1nf.json()) as {error: {message: string}}).error.message).toContain('not found');
		const missing = await fetch(engine.url + '/api/nothing');
		expect(missing.status).toBe(404);
		expect(await missing.text()).toBe('404 page not found');
		// Nothing is loaded before the first request, as in a fresh daemon.
		expect(await (await fetch(engine.url + '/api/ps')).json()).toEqual({models: []});
		expect(read()).toMatch(/^time=\S+ level=INFO source=routes\.go:\d+ msg="Listening on 127\.0\.0\.1:\d+ \(version 0\.34\.0\)"$/m);
	});

	it('/api/show verbose lists tensors whose DESIGN §1 sum is the simulated bytes per token', async () => {
		const sizes: Record<string, [number, number]> = {F32: [1, 4], F16: [1, 2], BF16: [1, 2], Q4_K: [256, 144], Q6_K: [256, 210], NVFP4: [16, 9]};
		for (const params of engine.models) {
			const r = await fetch(engine.url + '/api/show', {method: 'POST', body: JSON.stringify({model: params.name, verbose: true})});
			expect(r.status).toBe(200);
			const show = (await r.json()) as {details: {format: string}; model_info: Record<string, unknown>; tensors: Array<{name: string; type: string; shape: number[]}>};
			const arch = show.model_info['general.architecture'] as string;
			const blocks = show.model_info[`${arch}.block_count`] as number;
			const nextn = (show.model_info[`${arch}.nextn_predict_layers`] as number | undefined) ?? 0;
			// GGUF: block_count includes the MTP (nextn) block; MLX: the MTP head is mtp.*.
			expect(blocks - nextn).toBe(64);
			const mtpBlocks = new Set(show.tensors.filter((t) => /^blk\.\d+\.nextn\./.test(t.name)).map((t) => Number(t.name.split('.')[1])));
			expect([...mtpBlocks].every((b) => b >= blocks - nextn)).toBe(true);
			expect(show.details.format).toBe(params.runner === 'gguf' ? 'gguf' : 'safetensors');
			const bytes = (t: {type: string; shape: number[]}): number => {
				const [n, b] = sizes[t.type]!;
				return (t.shape.reduce((a, x) => a * x, 1) / n) * b;
			};
			const tied = !show.tensors.some((t) => t.name === 'output.weight');
			let sum = 0;
			let heads = 0;
			for (const t of show.tensors) {
				if (/^(?:mtp|v|mm)\./.test(t.name) || (t.name.startsWith('blk.') && mtpBlocks.has(Number(t.name.split('.')[1])))) {
					heads += bytes(t);
					continue;
				}
				sum += t.name === 'token_embd.weight' && !tied ? bytes(t) / t.shape[1]! : bytes(t);
			}
			expect(heads).toBeGreaterThan(0);
			expect(sum).toBeCloseTo(params.bytesPerToken, 0);
			expect(sum + heads).not.toBeCloseTo(params.bytesPerToken, 0);
		}
		const plain = (await (await fetch(engine.url + '/api/show', {method: 'POST', body: JSON.stringify({model: 'qwen3.8:latest'})})).json()) as Record<string, unknown>;
		expect(plain.tensors).toBeUndefined();
	});

	it('GGUF /api/generate: NDJSON stream agrees with llama-server print_timing lines', async () => {
		const {chunks, final} = await ndjson(engine.url + '/api/generate', {model: 'qwen3.8:latest', prompt: 'Print 256 random hexadecimal bytes.', options: {num_predict: 64, seed: 5}});
		const texts = chunks.map((c) => c.response as string).filter((t) => t !== '');
		expect(texts.length).toBe(64);
		expect(final.eval_count).toBe(64);
		expect(final.done_reason).toBe('length');
		for (const k of ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_duration']) expect(typeof final[k]).toBe('number');
		const log = read();
		expect(log).toMatch(/msg="starting llama-server" cmd=".*--no-log-prefix --no-log-timestamps/);
		expect(log).toMatch(/^load_tensors: offloaded 66\/66 layers to GPU$/m);
		expect(log).toMatch(/^common_speculative_init_result: creating MTP draft context against the target model '.+'$/m);
		expect(log).toMatch(/msg="llama-server started in \d+\.\d\d seconds"/);
		const tasks = ggufTasks(log);
		const lines = [...tasks.values()].at(-1)!;
		expect(lines[0]).toBe('processing task, is_child = 0');
		const cached = Number(CACHED.exec(lines.join('\n'))!.groups!.n);
		const ev = lines.map((l) => EVAL.exec(l)).find(Boolean)!.groups!;
		const pr = lines.map((l) => PROMPT.exec(l)).find(Boolean)!.groups!;
		expect(Number(ev.n)).toBe(final.eval_count);
		expect(Number(ev.ms)).toBeCloseTo((final.eval_duration as number) / 1e6, 2);
		// b10424+: ms per token and t/s over n_gen − 1.
		expect(Number(ev.msPer)).toBeCloseTo(Number(ev.ms) / 63, 2);
		expect(Number(pr.n) + cached).toBe(final.prompt_eval_count);
		expect(Number(pr.ms)).toBeCloseTo((final.prompt_eval_duration as number) / 1e6, 2);
		const draft = lines.map((l) => DRAFT.exec(l)).find(Boolean)!.groups!;
		const graphs = Number(lines.map((l) => GRAPHS.exec(l)).find(Boolean)!.groups!.n);
		// Counts rule: decoded (63) = passes + accepted; graphs reused = passes − 1 here.
		expect(63 - Number(draft.acc)).toBe(graphs + 1);
		expect(lines.at(-1)).toMatch(/^stop processing: n_tokens = \d+, truncated = 0$/);
		expect(lines).toContainEqual(expect.stringMatching(/^\s+acc per pos = \((?:\d\.\d{3}(?:, )?)+\)$/));
	});

	it('GGUF: a repeated prompt reuses its prefix (cached n_tokens) and prompt_eval_count includes it', async () => {
		const body = {model: 'qwen3.8:latest', prompt: 'Explain unified memory in 150 words, then explain it again for a child.', options: {num_predict: 24}};
		await ndjson(engine.url + '/api/generate', body);
		const {final} = await ndjson(engine.url + '/api/generate', body);
		const lines = [...ggufTasks(read()).values()].at(-1)!;
		const cached = Number(CACHED.exec(lines.join('\n'))!.groups!.n);
		const pr = lines.map((l) => PROMPT.exec(l)).find(Boolean)!.groups!;
		expect(cached).toBeGreaterThan(0);
		expect(Number(pr.n)).toBe(1);
		expect(cached + Number(pr.n)).toBe(final.prompt_eval_count);
	});

	it('GGUF: mean len skips plain passes, so it differs from the counts rule when a request ends with them', async () => {
		let differed = 0;
		let before = Number([...read().matchAll(new RegExp(STATS.source, 'g'))].at(-1)?.groups?.gd ?? 0);
		for (let i = 0; i < 16 && differed === 0; i++) {
			const {final} = await ndjson(engine.url + '/api/generate', {model: 'qwen3.8:latest', prompt: `Summarise paragraph ${i} of the essay on memory bandwidth.`, options: {num_predict: 30 + i}});
			const log = read();
			const lines = [...ggufTasks(log).values()].at(-1)!;
			const d = lines.map((l) => DRAFT.exec(l)).find(Boolean)!.groups!;
			const stats = [...log.matchAll(new RegExp(STATS.source, 'g'))].at(-1)!.groups!;
			const draftingPasses = Number(stats.gd) - before;
			before = Number(stats.gd);
			const decoded = (final.eval_count as number) - 1;
			const passes = decoded - Number(d.acc);
			const counts = decoded / passes;
			expect(Number(d.mean)).toBeCloseTo(1 + Number(d.acc) / draftingPasses, 2);
			if (draftingPasses < passes) {
				differed++;
				expect(Number(d.mean)).toBeGreaterThan(counts + 0.005);
			} else expect(Number(d.mean)).toBeCloseTo(counts, 2);
		}
		expect(differed).toBe(1);
	});

	it('MLX /api/chat: speculative decode stats count the streamed tokens; a repeat is a cache hit', async () => {
		const body = {model: 'qwen3.8:27b-mlx', messages: [{role: 'user', content: 'Explain unified memory in 150 words.'}], options: {num_predict: 120}};
		const first = await ndjson(engine.url + '/api/chat', body);
		const tokens = first.chunks.map((c) => (c.message as {content: string}).content).filter((t) => t !== '');
		expect(tokens.length).toBe(120);
		expect((first.final.message as {role: string}).role).toBe('assistant');
		const log = read();
		expect(log).toMatch(/msg="starting mlx runner subprocess" model=qwen3\.8:27b-mlx port=\d+/);
		expect(log).toMatch(/msg="MLX engine initialized" "MLX version"=\S+ device=gpu/);
		expect(log).toMatch(/msg="mlx runner is ready" port=\d+/);
		const statsLines = log.split('\n').filter((l) => l.includes('msg="speculative decode stats"'));
		const a = attrs(SLOG.exec(statsLines.at(-1)!)!.groups!.attrs!);
		expect(Number(a.iterations) + Number(a.accepted)).toBe(120);
		expect(Number(a.acceptance)).toBeCloseTo(Number(a.accepted) / Number(a.drafted), 2);
		expect(a.depth_over_time!.split(' ').length).toBeLessThanOrEqual(8);
		// Only the GGUF engine prints llama-server timings; the MLX runner has no decode timing line.
		expect(log.split('\n').filter((l) => EVAL.test(SLOT.exec(l)?.groups?.msg ?? ''))).toHaveLength(ggufTasks(log).size);
		const second = await ndjson(engine.url + '/api/chat', body);
		const cacheLine = read()
			.split('\n')
			.filter((l) => /msg="cache (?:hit|miss)"/.test(l))
			.at(-1)!;
		expect(cacheLine).toContain('msg="cache hit"');
		const c = attrs(SLOG.exec(cacheLine)!.groups!.attrs!);
		expect(Number(c.total)).toBe(second.final.prompt_eval_count);
		expect(Number(c.cached) + Number(c.left)).toBe(Number(c.total));
		expect(Number(c.cached)).toBeGreaterThan(0);
	});

	it('stream:false returns one object with the whole text', async () => {
		const r = await fetch(engine.url + '/api/generate', {method: 'POST', body: JSON.stringify({model: 'qwen3.8:27b-mlx', prompt: 'Repeat this sentence 3 times: the fox.', stream: false, options: {num_predict: 18}})});
		const o = (await r.json()) as Record<string, unknown>;
		expect(o.done).toBe(true);
		expect(o.eval_count).toBe(18);
		expect(typeof o.response).toBe('string');
		expect((o.response as string).length).toBeGreaterThan(0);
	});

	it('OpenAI chat completions: SSE chunks, usage chunk, [DONE]; and non-streaming', async () => {
		const r = await fetch(engine.url + '/v1/chat/completions', {
			method: 'POST',
			body: JSON.stringify({model: 'qwen3.8:latest', stream: true, stream_options: {include_usage: true}, max_tokens: 40, messages: [{role: 'user', content: 'Write a TypeScript function.'}]}),
		});
		expect(r.headers.get('content-type')).toBe('text/event-stream');
		const events = (await r.text()).split('\n\n').filter((e) => e !== '');
		for (const e of events) expect(e.startsWith('data: ')).toBe(true);
		expect(events.at(-1)).toBe('data: [DONE]');
		const objs = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)) as {object: string; choices: Array<{delta: {content: string}; finish_reason: string | null}>; usage?: Record<string, number>});
		const usage = objs.at(-1)!.usage!;
		expect(objs.at(-1)!.choices).toEqual([]);
		const content = objs.flatMap((o) => o.choices).filter((c) => c.delta.content !== '');
		expect(content.length).toBe(usage.completion_tokens);
		expect(usage.completion_tokens).toBe(40);
		expect(usage.total_tokens).toBe(usage.prompt_tokens! + 40);
		expect(objs.at(-2)!.choices[0]!.finish_reason).toBe('length');
		expect(objs[0]!.object).toBe('chat.completion.chunk');

		const n = (await (await fetch(engine.url + '/v1/chat/completions', {method: 'POST', body: JSON.stringify({model: 'qwen3.8:27b-mlx', max_tokens: 12, messages: [{role: 'user', content: 'hello'}]})})).json()) as {
			object: string;
			choices: Array<{message: {content: string}; finish_reason: string}>;
			usage: Record<string, number>;
		};
		expect(n.object).toBe('chat.completion');
		expect(n.usage.completion_tokens).toBe(12);
		expect(n.choices[0]!.message.content.length).toBeGreaterThan(0);
	});

	it('OpenAI completions: streaming and not', async () => {
		const r = await fetch(engine.url + '/v1/completions', {method: 'POST', body: JSON.stringify({model: 'qwen3.8:27b-mlx', stream: true, max_tokens: 10, prompt: 'Once upon a time'})});
		const events = (await r.text()).split('\n\n').filter((e) => e !== '');
		expect(events.at(-1)).toBe('data: [DONE]');
		const objs = events.slice(0, -1).map((e) => JSON.parse(e.slice(6)) as {object: string; choices: Array<{text: string; finish_reason: string | null}>});
		expect(objs.every((o) => o.object === 'text_completion')).toBe(true);
		expect(objs.flatMap((o) => o.choices).filter((c) => c.text !== '').length).toBe(10);
		const n = (await (await fetch(engine.url + '/v1/completions', {method: 'POST', body: JSON.stringify({model: 'qwen3.8:latest', max_tokens: 5, prompt: 'Hi'})})).json()) as {choices: Array<{text: string}>; usage: {completion_tokens: number}};
		expect(n.usage.completion_tokens).toBe(5);
	});

	it('/api/ps lists the loaded models with the exact ProcessModelResponse shape', async () => {
		const ps = (await (await fetch(engine.url + '/api/ps')).json()) as {models: Array<Record<string, unknown>>};
		expect(ps.models).toHaveLength(2);
		for (const m of ps.models) {
			expect(Object.keys(m).sort()).toEqual(['context_length', 'details', 'digest', 'expires_at', 'model', 'name', 'size', 'size_vram'].sort());
			expect(m.size_vram).toBe(m.size);
			expect(ollamaProcessor(m.size as number, m.size_vram as number)).toBe('100% GPU');
			expect(Date.parse(m.expires_at as string)).toBeGreaterThan(Date.now());
		}
		expect(ps.models.find((m) => m.name === 'qwen3.8:27b-mlx')!.digest).toMatch(/^5642e97495e1/);
	});

	it('writes a [GIN] line for every HTTP request, formatted as gin does', async () => {
		const before = read().split('\n').filter((l) => l.startsWith('[GIN]')).length;
		await fetch(engine.url + '/api/ps');
		await fetch(engine.url + '/api/version');
		await waitFor(() => read().split('\n').filter((l) => l.startsWith('[GIN]')).length >= before + 2);
		const gins = read()
			.split('\n')
			.filter((l) => l.startsWith('[GIN]'));
		for (const g of gins) expect(g).toMatch(GIN);
		const last = GIN.exec(gins.at(-1)!)!.groups!;
		expect(last.method).toBe('GET');
		expect(last.path).toBe('/api/version');
		expect(last.ip).toBe('127.0.0.1');
		expect(gins.some((g) => /\| 404 \|/.test(g))).toBe(true);
		expect(gins.some((g) => /POST {5}"\/api\/chat"/.test(g))).toBe(true);
		// The agent is off: every POST in the log is one of ours (none came from the engine itself).
		expect(gins.filter((g) => g.includes('POST')).length).toBeGreaterThan(10);
	});

	it('writes only line shapes a real Ollama log has (slog, gin, raw llama-server lines)', () => {
		const lines = read().split('\n').filter((l) => l !== '');
		const raw = /^(?:slot +\S+: id +\d+ \| task -?\d+ \| |srv  +\S+: |spec +\S+: |load_tensors: |llama_context: |llama_kv_cache: |sched_reserve: |common_speculative_init_result: )/;
		const odd = lines.filter((l) => !SLOG.test(l) && !GIN.test(l) && !raw.test(l));
		expect(odd).toEqual([]);
		const levels = new Set(lines.map((l) => SLOG.exec(l)?.groups?.level).filter(Boolean));
		expect([...levels]).toEqual(['INFO']);
	});
});

describe('demo engine options', () => {
	const engines: DemoEngine[] = [];
	const dirs: string[] = [];
	const newLog = (): string => {
		const d = mkdtempSync(path.join(tmpdir(), 'infertop-demo-'));
		dirs.push(d);
		return path.join(d, 'server.log');
	};
	afterEach(async () => {
		for (const e of engines.splice(0)) await e.stop();
		for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
	});

	it('split: part of the GGUF model on the CPU shows in /api/ps and the offload line', async () => {
		const logPath = newLog();
		const e = await startDemoEngine({logPath, speed: 20, agent: false, split: 0.35});
		engines.push(e);
		await ndjson(e.url + '/api/generate', {model: 'qwen3.8:latest', prompt: 'hi', options: {num_predict: 4}});
		const ps = (await (await fetch(e.url + '/api/ps')).json()) as {models: Array<{name: string; size: number; size_vram: number}>};
		const m = ps.models.find((x) => x.name === 'qwen3.8:latest')!;
		expect(m.size_vram).toBeLessThan(m.size);
		expect(ollamaProcessor(m.size, m.size_vram)).toBe('35%/65% CPU/GPU');
		const log = readFileSync(logPath, 'utf8');
		const off = /offloaded\s+(\d+)\/(\d+)\s+layers to GPU/.exec(log)!;
		expect(Number(off[1])).toBeLessThan(Number(off[2]));
		// Ollama's bufferSize regex: GPU = not CPU*, not *_Host.
		let gpu = 0;
		let all = 0;
		for (const b of log.matchAll(/([A-Za-z_][A-Za-z0-9_]*):\s+(\S+)\s+(model|KV|compute|RS)\s+buffer size\s*=\s*([\d.]+)\s*MiB/g)) {
			const mib = Number(b[4]);
			all += mib;
			if (!/^CPU/.test(b[2]!) && !/_Host$/.test(b[2]!)) gpu += mib;
		}
		expect(gpu / all).toBeCloseTo(m.size_vram / m.size, 3);
		const slow = e.models.find((p) => p.runner === 'gguf')!;
		expect(slow.split).toBeGreaterThan(0.3);
	});

	it('the agent sends requests through the HTTP API when on, and stop() ends it', async () => {
		const logPath = newLog();
		const e = await startDemoEngine({logPath, speed: 20, agentIntervalMs: 30, seed: 3});
		engines.push(e);
		await waitFor(() => /\[GIN\].*\| POST/.test(readFileSync(logPath, 'utf8')), 15_000);
		await e.stop();
		const size = readFileSync(logPath, 'utf8').length;
		await new Promise((r) => setTimeout(r, 150));
		expect(readFileSync(logPath, 'utf8').length).toBe(size);
	});

	it('a port already in use is a clear error, not a half-started engine', async () => {
		const a = await startDemoEngine({logPath: newLog(), speed: 20, agent: false});
		engines.push(a);
		await expect(startDemoEngine({logPath: newLog(), speed: 20, agent: false, port: a.port})).rejects.toThrow(/EADDRINUSE/);
	});

	it('stop() closes the server even mid-stream, and is idempotent', async () => {
		const logPath = newLog();
		const servers = (): number => process.getActiveResourcesInfo().filter((x) => x === 'TCPServerWrap').length;
		const e = await startDemoEngine({logPath, speed: 10, agent: false});
		const serversRunning = servers();
		expect(serversRunning).toBeGreaterThanOrEqual(1);
		const logOpen = (): boolean | undefined => {
			if (process.platform !== 'linux') return undefined;
			return readdirSync('/proc/self/fd').some((fd) => {
				try {
					return readlinkSync(`/proc/self/fd/${fd}`) === logPath;
				} catch {
					return false;
				}
			});
		};
		if (process.platform === 'linux') expect(logOpen()).toBe(true);
		const r = await fetch(e.url + '/api/generate', {method: 'POST', body: JSON.stringify({model: 'qwen3.8:27b-mlx', prompt: 'Explain unified memory.', options: {num_predict: 100000}})});
		const reader = r.body!.getReader();
		expect((await reader.read()).done).toBe(false);
		const pending = (async () => {
			try {
				for (;;) {
					const {done} = await reader.read();
					if (done) return 'ended';
				}
			} catch {
				return 'aborted';
			}
		})();
		await e.stop();
		await e.stop();
		expect(['ended', 'aborted']).toContain(await pending);
		await expect(fetch(e.url + '/')).rejects.toThrow();
		expect(servers()).toBeLessThanOrEqual(serversRunning - 1);
		if (process.platform === 'linux') expect(logOpen()).toBe(false);
	});
});
