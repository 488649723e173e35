#!/usr/bin/env node
/**
 * The writer of the traffic benches: appends a busy engine's request lines to a log at a steady
 * rate, the way the engine itself would (small appends, many a second).
 *
 *   node bench/traffic-writer.mjs FILE FORMAT REQ_PER_S SECONDS [STATUS_FILE]
 *   node bench/traffic-writer.mjs FILE FORMAT --burst N          (N requests appended at once)
 *
 * FORMAT:
 * - `llama.cpp`: the request blocks of a real llama-server b10587 (ggml-org/llama.cpp 3f545be),
 *   as captured in the shared fixtures (chat.log: 7 lines; completion-long.log: 9 lines, its two
 *   `n_gen =` live lines included), alternating; slot ids 0–7 (8 slots), task ids and the
 *   process-relative stamps (common/log.cpp: minutes.seconds.ms.µs since start) advance.
 * - `vllm`: `vllm serve --enable-log-requests` (V1, `(APIServer pid=N) ` prefix, vllm/logger.py
 *   `_FORMAT`): per request the `Received request %s: prompt: %r, params: %s, prompt_token_ids: %s,
 *   prompt_embeds shape: %s, lora_request: %s, prompt_adapter_request: %s.` line
 *   (vllm/entrypoints/logger.py @ 01ff1262941ab5fce2c75eefa6443f53f4a4732d), `Added request %s.`
 *   (vllm/v1/engine/async_llm.py @ 8ef0b5f50994abaef30bca67b5ec167e5187b99b) and uvicorn's access
 *   line; every 10 s the stats line of vllm/v1/metrics/loggers.py.
 *
 * Each line is its own write, as the engines write them: llama.cpp's log worker flushes each entry
 * (common/log.cpp, `common_log_entry::print`, `fflush(fcur)`, ggml-org/llama.cpp 3f545be line 124),
 * and Python's logging.StreamHandler each record (vLLM, SGLang, uvicorn). The lines due are written
 * every 10 ms, one write a line (a burst: one write). INFERTOP_BENCH_WRITES=tick writes each 10 ms's
 * lines in one write, as this writer did up to the fifth round of issue 32 (its figures).
 *
 * Every 250 ms (and at the end) it writes `{"requests":N,"lines":N,"bytes":N}` to STATUS_FILE.
 * Plain JavaScript (no tsx): its own cost is part of what the bench shows.
 */
import fs from 'node:fs';

const [file, format, rateArg, secondsArg, statusFile] = process.argv.slice(2);
if (!file || (format !== 'llama.cpp' && format !== 'vllm')) {
	process.stderr.write('usage: traffic-writer.mjs FILE llama.cpp|vllm REQ_PER_S SECONDS [STATUS_FILE] | FILE FORMAT --burst N\n');
	process.exit(2);
}

const perLine = process.env.INFERTOP_BENCH_WRITES !== 'tick';
const t0 = Date.now();
let task = 1000;
let requests = 0;
let lines = 0;
let bytes = 0;
const pad = (n, w) => String(n).padStart(w, '0');
/** llama.cpp common/log.cpp stamp: time since the process started. */
function stamp(ms, us) {
	return `${Math.floor(ms / 60000)}.${pad(Math.floor(ms / 1000) % 60, 2)}.${pad(ms % 1000, 3)}.${pad(us % 1000, 3)}`;
}
const fix = (v, w) => v.toFixed(2).padStart(w);

function llamaBlock(i, ms) {
	const slot = i % 8;
	const id = task;
	task += 3;
	const s = `id  ${slot} | task ${id} |`;
	const long = i % 2 === 1;
	const promptN = 12 + (i % 20);
	const genN = long ? 400 : 64;
	const promptMs = 3.1 * promptN;
	const evalMs = (long ? 20.4 : 14.1) * genN;
	const t = n => `${stamp(ms, n * 7)} `;
	const out = [
		`${t(1)}I slot get_availabl: id  ${slot} | task -1 | selected slot by LCP similarity, f_sim_best = 0.125 (> 0.100 thold), f_keep = 0.029`,
		`${t(2)}I slot launch_slot_: ${s} processing task, is_child = 0`,
	];
	if (long) {
		out.push(`${t(3)}I slot print_timing: ${s} n_gen =    187, tg =  61.83 t/s, tg_3s =  62.16 t/s`);
		out.push(`${t(4)}I slot print_timing: ${s} n_gen =    315, tg =  52.13 t/s, tg_3s =  42.45 t/s`);
	}
	out.push(
		`${t(5)}I slot print_timing: ${s} prompt eval time = ${fix(promptMs, 10)} ms / ${String(promptN).padStart(5)} tokens (${fix(promptMs / promptN, 8)} ms per token, ${fix((promptN / promptMs) * 1000, 8)} tokens per second)`,
		`${t(6)}I slot print_timing: ${s}        eval time = ${fix(evalMs, 10)} ms / ${String(genN).padStart(5)} tokens (${fix(evalMs / genN, 8)} ms per token, ${fix((genN / evalMs) * 1000, 8)} tokens per second)`,
		`${t(7)}I slot print_timing: ${s}       total time = ${fix(promptMs + evalMs, 10)} ms / ${String(promptN + genN).padStart(5)} tokens`,
		`${t(8)}I slot print_timing: ${s}    graphs reused = ${String(100 + i).padStart(10)}`,
		`${t(9)}I slot      release: ${s} stop processing: n_tokens = ${promptN + genN}, truncated = 0`,
	);
	return out;
}

const vllmPid = 4242;
function vllmWhen(ms) {
	const d = new Date(t0 + ms);
	return `${pad(d.getMonth() + 1, 2)}-${pad(d.getDate(), 2)} ${pad(d.getHours(), 2)}:${pad(d.getMinutes(), 2)}:${pad(d.getSeconds(), 2)}`;
}
function vllmBlock(i, ms) {
	const id = `chatcmpl-${(0x5f3a00 + i).toString(16)}a1b2c3d4e5f60718293a4b5c`;
	const when = vllmWhen(ms);
	const p = `(APIServer pid=${vllmPid}) INFO ${when}`;
	const prompt = `'<|im_start|>user\\nsummarise file ${i % 97} of the repository<|im_end|>\\n<|im_start|>assistant\\n'`;
	const params = 'SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=512, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None)';
	return [
		`${p} [logger.py:43] Received request ${id}: prompt: ${prompt}, params: ${params}, prompt_token_ids: None, prompt_embeds shape: None, lora_request: None, prompt_adapter_request: None.`,
		`${p} [async_llm.py:270] Added request ${id}.`,
		`(APIServer pid=${vllmPid}) INFO:     127.0.0.1:${40000 + (i % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
	];
}
let lastStats = 0;
function vllmStats(ms, rate) {
	return `(APIServer pid=${vllmPid}) INFO ${vllmWhen(ms)} [loggers.py:123] Engine 000: Avg prompt throughput: ${(rate * 24).toFixed(1)} tokens/s, Avg generation throughput: ${(rate * 180).toFixed(1)} tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 31.5%, Prefix cache hit rate: 42.0%`;
}

const fd = fs.openSync(file, 'a');
function append(n, rate) {
	const ms = Date.now() - t0;
	const out = [];
	for (let k = 0; k < n; k++) {
		const block = format === 'llama.cpp' ? llamaBlock(requests, ms) : vllmBlock(requests, ms);
		for (const l of block) out.push(l);
		requests++;
	}
	if (format === 'vllm' && ms - lastStats >= 10_000) {
		lastStats = ms;
		out.push(vllmStats(ms, rate));
	}
	if (out.length === 0) return;
	if (perLine) {
		for (const l of out) {
			const line = `${l}\n`;
			fs.writeSync(fd, line);
			bytes += Buffer.byteLength(line);
		}
		lines += out.length;
		return;
	}
	const text = `${out.join('\n')}\n`;
	fs.writeSync(fd, text);
	lines += out.length;
	bytes += Buffer.byteLength(text);
}
/**
 * Written whole, then renamed into place: a bench that read the file while it was rewritten saw it
 * empty, took the count for 0, and divided every line since the start by its window (a run's
 * "23,933 lines/s" at 1,000 req/s, 3× what was written).
 */
function status() {
	if (!statusFile) return;
	fs.writeFileSync(`${statusFile}.tmp`, JSON.stringify({requests, lines, bytes}));
	fs.renameSync(`${statusFile}.tmp`, statusFile);
}

if (rateArg === '--burst') {
	// Made first, then appended in one write: the reader finds it all there at once.
	const n = Number(secondsArg);
	const parts = [];
	for (let k = 0; k < n; k++) {
		const block = format === 'llama.cpp' ? llamaBlock(requests, 0) : vllmBlock(requests, 0);
		for (const l of block) parts.push(l);
		requests++;
	}
	const text = Buffer.from(parts.length > 0 ? `${parts.join('\n')}\n` : '');
	parts.length = 0;
	for (let at = 0; at < text.length; ) at += fs.writeSync(fd, text, at);
	lines += n === 0 ? 0 : text.toString('latin1').split('\n').length - 1;
	bytes += text.length;
	status();
	fs.closeSync(fd);
} else {
	const rate = Number(rateArg);
	const seconds = Number(secondsArg);
	const TICK = 10;
	let owed = 0;
	let last = Date.now();
	let lastStatus = 0;
	const timer = setInterval(() => {
		const now = Date.now();
		owed += ((now - last) / 1000) * rate;
		last = now;
		const n = Math.floor(owed);
		owed -= n;
		append(n, rate);
		if (now - lastStatus >= 250) {
			lastStatus = now;
			status();
		}
		if (now - t0 >= seconds * 1000) {
			clearInterval(timer);
			status();
			fs.closeSync(fd);
		}
	}, TICK);
	process.on('SIGTERM', () => {
		clearInterval(timer);
		status();
		process.exit(0);
	});
}
