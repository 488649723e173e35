/**
 * What one line of a busy `--log-requests` log costs the pipeline's parse step (sanitize(), then
 * the engine's parser), by kind of line, under the V8 flags the app runs with (bin/infertop.js
 * START_FLAGS: no TurboFan, 1 MB young generation), in a child process: CPU µs a line.
 *
 *   npm run bench -- request-logs
 *
 * - vLLM `--enable-log-requests`: bench/traffic-writer.mjs's lines (`Received request …` with the
 *   prompt and SamplingParams, `Added request …`, the access line); then the same with the
 *   prompt_token_ids lists real servers log (vllm/entrypoints/logger.py @ 01ff126: `prompt_token_ids:
 *   %s`, 200–1,100 ids, 1.5–8 KB lines).
 * - SGLang `--log-requests` (default `--log-requests-level` 0): request_logger.py `Receive: obj=…` and
 *   `Finish: obj=…, out={'meta_info': {…}}` (the text and ids left out at level 0), the access line.
 *
 * Issue 32 (main 48848bc → this, the parsers alone, old and new interleaved in one process, best
 * of 8 rounds, two runs, a shared 2-core machine at load 6): vLLM Received (763 B) 0.95–1.30 →
 * 0.34–0.72 µs, with token ids (cut to 4 KB by sanitize) 1.9–3.6 → 0.70–1.30 µs, Added and access
 * lines unchanged (~0.3 and ~0.45 µs); SGLang Finish (913 B) 3.8–5.6 → 2.2–3.9 µs. Beside them,
 * sanitize() costs 0.3–0.75 µs a 760 B line and 4–8 µs a 5 KB one, and the tail's per-byte hash
 * (sources/log-tail.ts LineLedger.feed) ~40 ns a byte: 30 µs for a 760 B line (since then hashed 8
 * bytes a step, ~3.7 ns a byte without TurboFan, and now in WebAssembly, ~0.25 ns: sources/line-hash.ts).
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {createParser} from '../source/engines/index.js';
import type {EngineKind} from '../source/types/events.js';
import {sanitize} from '../source/util/sanitize.js';
import {prng} from '../test/helpers/fuzz.js';
import {runWhenMain} from './lib.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const APP_FLAGS = ['--no-opt', '--semi-space-growth-factor=1'];

interface Mix {
	readonly name: string;
	readonly engine: EngineKind;
	readonly lines: string[];
	readonly kind: (line: string) => string;
}

function vllmLines(dir: string): string[] {
	const file = path.join(dir, 'vllm.log');
	execFileSync(process.execPath, [path.join(repo, 'bench', 'traffic-writer.mjs'), file, 'vllm', '--burst', '3000', path.join(dir, 'w.json')]);
	return fs.readFileSync(file, 'utf8').split('\n').filter(l => l.length > 0);
}

const vllmKind = (l: string): string => (l.includes('] Received request ') ? 'Received' : l.includes('] Added request ') ? 'Added' : l.includes('INFO:  ') ? 'access' : 'other');

function sglangLines(): string[] {
	const out: string[] = [];
	for (let i = 0; i < 3000; i++) {
		const rid = (0x1a2b3c + i * 7919).toString(16).padStart(32, '0');
		const obj = `GenerateReqInput(validation_time=None, received_time=1733400000.${i}, received_time_perf=${1000 + i}.5, rid='${rid}', http_worker_ipc=None, video_data=None, return_logprob=False, logprob_start_len=-1, top_logprobs_num=0, token_ids_logprob=None, return_text_in_logprobs=True, stream=True, log_metrics=True, return_hidden_states=False, modalities=[], session_params=None, custom_logit_processor=None, bootstrap_host=None, bootstrap_port=None, bootstrap_room=None, data_parallel_rank=None, background=False, priority=None, no_logs=False, custom_labels=None)`;
		const at = `[2026-12-05 11:40:${String(i % 60).padStart(2, '0')}] `;
		out.push(
			`${at}Receive: obj=${obj}`,
			`${at}Finish: obj=${obj}, out={'meta_info': {'id': '${rid}', 'finish_reason': {'type': 'stop', 'matched': 151645}, 'prompt_tokens': ${1000 + (i % 500)}, 'weight_version': 'default', 'total_retractions': 0, 'completion_tokens': ${64 + (i % 300)}, 'cached_tokens': ${i % 900}, 'e2e_latency': 1.${i % 1000}, 'response_sent_to_client_ts': 1733400001.5}}`,
			`INFO:     127.0.0.1:${40000 + (i % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		);
	}
	return out;
}

const sglangKind = (l: string): string => (l.includes('] Finish: ') ? 'Finish' : l.includes('] Receive: ') ? 'Receive' : l.includes('INFO:  ') ? 'access' : 'other');

/** CPU µs per call of f over xs: the best of 3 rounds of 5 passes (the machine may be shared). */
function best(xs: readonly string[], f: (x: string) => unknown): number {
	let min = Infinity;
	for (let round = 0; round < 3; round++) {
		const c0 = process.cpuUsage();
		for (let r = 0; r < 5; r++) for (const x of xs) f(x);
		const c = process.cpuUsage(c0);
		min = Math.min(min, (c.user + c.system) / (5 * xs.length));
	}
	return min;
}

/** In the child: each kind of line through one parser (after sanitize(), as the pipeline does), and sanitize() alone. */
function measure(mix: Mix): string {
	const parser = createParser(mix.engine);
	// Flat strings, as the tail's splitter gives them (a rope would be flattened, a copy, on first use).
	const lines = mix.lines.join('\n').split('\n');
	const clean = lines.map(l => sanitize(l));
	for (const l of clean) parser.push(l);
	const kinds = [...new Set(lines.map(mix.kind))];
	const parts = kinds.map(k => {
		const own = lines.filter(l => mix.kind(l) === k);
		const ownClean = clean.filter((_l, i) => mix.kind(lines[i]!) === k);
		const bytes = own.reduce((n, l) => n + Buffer.byteLength(l), 0) / own.length;
		return `${k} (${Math.round(bytes)} B) ${best(ownClean, l => parser.push(l)).toFixed(2)} + ${best(own, l => sanitize(l)).toFixed(2)}`;
	});
	return `${mix.name}: ${parts.join(', ')}`;
}

function mixes(dir: string): Mix[] {
	const vllm = vllmLines(dir);
	const rnd = prng(32);
	const withIds = vllm.map(l => (vllmKind(l) === 'Received' ? l.replace('prompt_token_ids: None', () => `prompt_token_ids: [${Array.from({length: 200 + Math.floor(rnd() * 900)}, () => Math.floor(rnd() * 151_000)).join(', ')}]`) : l));
	return [
		{name: 'vLLM --enable-log-requests', engine: 'vllm', lines: vllm, kind: vllmKind},
		{name: 'vLLM, with prompt_token_ids', engine: 'vllm', lines: withIds, kind: vllmKind},
		{name: 'SGLang --log-requests (level 0)', engine: 'sglang', lines: sglangLines(), kind: sglangKind},
	];
}

export async function run(): Promise<string> {
	const tsx = path.join(repo, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
	const out = execFileSync(process.execPath, [...APP_FLAGS, '--import', tsx, fileURLToPath(import.meta.url), '--child'], {encoding: 'utf8'});
	return `${out.trim()}\n(CPU µs a line: the parser + sanitize() before it, best of 3; under the app's V8 flags ${APP_FLAGS.join(' ')}; load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`;
}

if (process.argv.includes('--child')) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-request-logs-'));
	try {
		for (const m of mixes(dir)) console.log(measure(m));
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
	}
} else {
	runWhenMain(import.meta.url, run);
}
