/**
 * Writes test/fixtures/engines/golden/<engine>.json for the vLLM and SGLang log parsers: log lines
 * and what the parser made of each, line by line (null, [] or its events). Generated from the
 * parsers as they were at main 48848bc, before they were made cheaper for busy `--log-requests`
 * logs (issue 32): parser-golden.test.ts feeds the same lines to today's parsers and expects the
 * same output to the last field.
 *
 *   npx tsx test/engines/parser-golden.gen.ts SHARED_DIR [vllm|sglang]
 *
 * Regenerate only for a deliberate change of a parser's output (and say so in the commit).
 * Groups (each fed in order to one fresh parser: the parsers keep state across lines); those read
 * from files keep their lines in the golden file, so a change to the samples or the tests does not
 * move them; the generated ones are rebuilt by the test from the stored ones (their sha256 is kept):
 * - the engine's shipped samples;
 * - `tests`: the engine's lines quoted in the repository's tests;
 * - `reference`: its lines quoted in the shared engines reference (SHARED_DIR/reference/engines.md);
 * - `requests` (generated): `--log-requests` traffic (vLLM: `Received request …` with the prompt,
 *   the SamplingParams and prompt_token_ids lists of 0.2–9 KB, as bench/traffic-writer.mjs writes
 *   it, `Added request`, access lines, the stats line; SGLang: `Receive:`/`Finish:` at each
 *   `--log-requests-level`, with meta_info whole, partial, odd, quoted inside the prompt), every
 *   prefix form, and prompts that quote the phrases other lines are known by;
 * - `fuzz` (generated): all of the above mutated by the fuzz test's mutations (seeded);
 * - `messages` (generated): the message part alone, through the engine's message parser.
 */
import {createHash} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {createSglangParser, parseSglangMessage} from '../../source/engines/sglang.js';

/**
 * Deliberate changes of a parser's output since 48848bc, each regenerated from the parser of its day:
 * - sglang, issue 32's third round: a `Finish` line is read whole up to 64 KiB (was: lines past
 *   8,192 characters not at all, and past 4,096 cut before the parser), and its meta_info is the last
 *   in the line (was the first: a prompt quoting one stood for it). The requests of such lines are
 *   counted, so the keys after them (sglang#N) move up.
 */
const REGENERATED: Partial<Record<string, string>> = {sglang: ', regenerated for its long Finish lines (issue 32, third round)'};
import {createVllmParser, parseVllmMessage} from '../../source/engines/vllm.js';
import {mutate, prng} from '../helpers/fuzz.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const goldenFile = (engine: GoldenEngine): string => path.join(root, 'test', 'fixtures', 'engines', 'golden', `${engine}.json`);

export type GoldenEngine = 'vllm' | 'sglang';
export const GOLDEN_ENGINES: readonly GoldenEngine[] = ['vllm', 'sglang'];

const readLines = (f: string): string[] => fs.readFileSync(f, 'utf8').split('\n').filter(l => l.length > 0);

function unquote(body: string): string {
	return body.replace(/\\(u\{[\da-fA-F]+\}|u[\da-fA-F]{4}|x[\da-fA-F]{2}|.)/g, (_m, e: string) => {
		if (e.startsWith('u')) return String.fromCodePoint(parseInt(e.replace(/[u{}]/g, ''), 16));
		if (e.startsWith('x')) return String.fromCharCode(parseInt(e.slice(1), 16));
		return e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
	});
}

/** String literals (no interpolation) that look like the engine's lines, from the test sources. */
function testLines(looksLike: RegExp): string[] {
	const out = new Set<string>();
	const walk = (dir: string): string[] => fs.readdirSync(dir, {withFileTypes: true}).flatMap(d => (d.isDirectory() ? walk(path.join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [path.join(dir, d.name)] : []));
	for (const f of walk(path.join(root, 'test')).sort()) {
		if (f.includes('golden')) continue;
		const src = fs.readFileSync(f, 'utf8');
		for (const m of src.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/g)) {
			const body = unquote(m[1] ?? m[2] ?? m[3] ?? '');
			for (const l of body.split('\n')) if (looksLike.test(l)) out.add(l);
		}
	}
	return [...out];
}

/** Lines of the shared reference's section that look like the engine's lines. */
function referenceLines(shared: string, section: string, next: string, looksLike: RegExp): string[] {
	const f = path.join(shared, 'reference', 'engines.md');
	if (!fs.existsSync(f)) throw new Error(`no ${f}`);
	const text = fs.readFileSync(f, 'utf8');
	const start = text.indexOf(section);
	const part = text.slice(start, text.indexOf(next, start));
	const out = new Set<string>();
	for (const l of part.split('\n')) if (looksLike.test(l) && !/^(?:prefix|uvicorn|decode|keys) /.test(l)) out.add(l);
	for (const m of part.matchAll(/`([^`\n]+)`/g)) if (looksLike.test(m[1]!)) out.add(m[1]!);
	return [...out];
}

// ---- vLLM -----------------------------------------------------------------------------------------

const VLLM_LINE = /(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2} |INFO: +\S+:\d+ - "|Avg prompt throughput|SpecDecoding metrics|Speculative metrics|total_num_cumulative_preemption|vLLM API server|Uvicorn running on/;

const PARAMS = 'SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=512, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None)';

/** Phrases other vLLM lines are recognised by, as a user's prompt might quote them. */
const VLLM_QUOTED = [
	'vLLM API server version 0.11.0',
	'Starting vLLM API server 0 on http://0.0.0.0:8000',
	'Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
	'total_num_cumulative_preemption=51',
	'Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs',
	'SpecDecoding metrics: Mean acceptance length: 2.90, Accepted: 675 tokens, Drafted: 1784 tokens',
	'Error in extracting tool call from response.',
	'vLLM API server version',
	'Uvicorn running on',
	'Starting vLLM API server x on y',
	'total_num_cumulative_preemption=',
	'cumulative_preemption=3 num_cumulative_preemption=4',
	'vLLM API server',
	'vLLM API server 7 on x',
	'Starting vLLM API server on http://h',
	'Uvicorn running on',
	'uvicorn running on http://h',
];

function vllmRequests(): string[] {
	const rnd = prng(32);
	const out: string[] = [];
	const prefixes = ['(APIServer pid=4242) INFO 12-05 11:40:01 ', 'INFO 12-05 11:40:01 ', '(EngineCore_DP0 pid=312) DEBUG 12-05 11:40:01 ', 'WARNING 12-05 11:40:01 ', '(APIServer pid=1) ERROR 12-05 11:40:01 ', 'CRITICAL 12-05 11:40:01 '];
	const files = ['[logger.py:43] ', 'logger.py:43] ', '[async_llm.py:270] '];
	for (let i = 0; i < 240; i++) {
		const p = prefixes[i % prefixes.length]! + files[i % files.length]!;
		const id = `chatcmpl-${(0x5f3a00 + i).toString(16)}a1b2c3d4e5f60718293a4b5c`;
		const quote = i % 3 === 0 ? VLLM_QUOTED[i % VLLM_QUOTED.length]! : '';
		const prompt = `'<|im_start|>user\\nsummarise file ${i % 97} of the repository ${quote}<|im_end|>\\n<|im_start|>assistant\\n'`;
		// prompt_token_ids as real servers log them: from none to a list longer than what is parsed.
		const n = [0, 30, 200, 600, 1100, 1400][i % 6]!;
		const ids = n === 0 ? 'None' : `[${Array.from({length: n}, () => Math.floor(rnd() * 151_000)).join(', ')}]`;
		out.push(
			`${p}Received request ${id}: prompt: ${prompt}, params: ${PARAMS}, prompt_token_ids: ${ids}, prompt_embeds shape: None, lora_request: None, prompt_adapter_request: None.`,
			`${p}Added request ${id}.`,
			`(APIServer pid=4242) INFO:     127.0.0.1:${40000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		);
		if (quote) out.push(`${p}${quote}`, `${p}${quote} ${'x'.repeat(200)}`, `${p}note: ${quote}`);
		if (i % 10 === 9) {
			out.push(`(APIServer pid=4242) INFO 12-05 11:40:01 [loggers.py:123] Engine 000: Avg prompt throughput: ${i * 24}.0 tokens/s, Avg generation throughput: ${i * 180}.0 tokens/s, Running: 8 reqs, Waiting: 0 reqs, GPU KV cache usage: 31.5%, Prefix cache hit rate: 42.0%`);
		}
	}
	return out;
}

// ---- SGLang ---------------------------------------------------------------------------------------

const SGLANG_LINE = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}|INFO: +\S+:\d+ - "|(?:Decode|Prefill) batch|Finish: obj=|Receive: obj=|#retracted_reqs|'meta_info'/;

/**
 * `--log-requests` lines as request_logger.py writes them (`Receive: obj={…}{headers}`, `Finish:
 * obj={obj}{headers}, out={out}`, `_dataclass_to_string_truncated`): level 0 and 1 leave out the
 * text and ids (1 keeps sampling_params), level 2 cuts each string and list to 2,048 (half and half
 * with ` ... `), level 3 keeps all. The meta_info dict ends `out`.
 */
function sglangRequests(): string[] {
	const rnd = prng(5);
	const out: string[] = [];
	const stamps = ['[2026-12-05 11:40:01] ', '[2026-12-05 11:40:01 TP0] ', '[2026-12-05 11:40:01 DP1 TP3] '];
	const quotes = ["'meta_info': {'prompt_tokens': 7, 'e2e_latency': 9}", "'prompt_tokens': 3, 'completion_tokens': 4", "'finish_reason': {'type': 'abort'}", 'Decode batch, #running-req: 5', '#retracted_reqs: 3', "'cached_tokens': 'x 'spec_verify_ct': 5}", ''];
	const finishes = ["{'type': 'stop', 'matched': 151645}", "{'type': 'length', 'length': 64}", "{'type': 'abort', 'message': 'Client disconnected', 'status_code': 400}", 'None'];
	const metaValues = [
		(i: number) => `'prompt_tokens': ${1000 + i}, 'weight_version': 'default', 'total_retractions': 0, 'completion_tokens': ${64 + i}, 'cached_tokens': ${i * 3}, 'e2e_latency': 1.${i}`,
		(i: number) => `'prompt_tokens': ${200 + i}, 'completion_tokens': ${i}, 'cached_tokens': 0, 'spec_verify_ct': ${Math.ceil(i / 3)}, 'spec_accept_length': 2.9, 'e2e_latency': 0.${i}5`,
		(i: number) => `'prompt_tokens': ${i}, 'completion_tokens': None, 'cached_tokens': -${i}, 'e2e_latency': 1e-3`,
		(i: number) => `'prompt_tokens': ${i}.5, 'completion_tokens': 1e999, 'cached_tokens': nan, 'e2e_latency': inf, 'spec_verify_ct': '${i}'`,
		() => `'prompt_tokens': 12 , 'completion_tokens':  34}, 'cached_tokens': 5`,
		() => "'e2e_latency': 2.5",
		() => '',
	];
	for (let i = 0; i < 160; i++) {
		const stamp = stamps[i % stamps.length]!;
		const rid = (0x1a2b3c + i * 7919).toString(16).padStart(32, '0');
		const level = i % 4;
		const quote = quotes[i % quotes.length]!;
		const words = `summarise file ${i % 97} ${quote} `.repeat(level === 3 ? 40 : level === 2 ? 20 : 1);
		const text = level >= 2 ? (words.length > 2048 ? `'${words.slice(0, 1024)}' ... '${words.slice(-1024)}'` : `'${words}'`) : '';
		const ids = level >= 2 ? `[${Array.from({length: level === 3 ? 700 : 120}, () => Math.floor(rnd() * 151_000)).join(', ')}]` : '';
		const sampling = level >= 1 ? `, sampling_params={'max_new_tokens': 512, 'temperature': 0.7, 'top_p': 0.8, 'stop': ['}', ', ']}` : '';
		const obj = `GenerateReqInput(${level >= 2 ? `text=${text}, input_ids=${ids}, ` : ''}received_time=1733400000.${i}, rid='${rid}'${sampling}, return_logprob=False, logprob_start_len=-1, top_logprobs_num=0, stream=${i % 2 === 0 ? 'True' : 'False'}, log_metrics=True, modalities=[], custom_logit_processor=None, data_parallel_rank=None, priority=None, no_logs=False)`;
		const headers = i % 5 === 0 ? `, headers={'x-request-id': '${rid}'}` : '';
		const meta = `{'id': '${rid}', 'finish_reason': ${finishes[i % finishes.length]!}, ${metaValues[i % metaValues.length]!(i)}}`;
		const outText = level >= 2 ? `'text': '${`done ${quote} `.repeat(level === 3 ? 30 : 3)}', 'output_ids': [${Array.from({length: 40}, (_x, k) => k * 31).join(', ')}], ` : '';
		out.push(`${stamp}Receive: obj=${obj}${headers}`);
		out.push(`${stamp}Finish: obj=${obj}${headers}, out={${outText}'meta_info': ${meta}}`);
		out.push(`INFO:     127.0.0.1:${40000 + i} - "POST /v1/chat/completions HTTP/1.1" 200 OK`);
		if (i % 8 === 0) out.push(`${stamp}Decode batch, #running-req: ${i % 9}, #token: ${i * 40}, token usage: 0.${i % 10}${i % 7}, cuda graph: True, gen throughput (token/s): ${i}.5, #queue-req: ${i % 3}`);
		if (i % 8 === 4) out.push(`${stamp}Prefill batch, #new-seq: 1, #new-token: ${i * 3}, #cached-token: ${i * 5}, token usage: 0.05, #running-req: 0, #queue-req: 0, cuda graph: False, input throughput (token/s): ${i}.25`);
		if (i % 16 === 7) out.push(`${stamp}KV cache pool is full. Retract requests. #retracted_reqs: ${i % 4}, #new_tokens_gained: 646, #new_token_ratio: 0.0980 -> 0.3487`);
	}
	return out;
}

// ---- the file -------------------------------------------------------------------------------------

interface EngineSpec {
	readonly samples: readonly string[];
	readonly looksLike: RegExp;
	readonly section: readonly [string, string];
	readonly requests: () => string[];
	/** The log prefix, for the `messages` group. */
	readonly strip: RegExp;
	readonly seed: number;
	readonly push: () => (line: string) => unknown;
	readonly message: () => (msg: string) => unknown;
}

const SPECS: Record<GoldenEngine, EngineSpec> = {
	vllm: {
		samples: ['vllm.log', 'vllm-v0.log'],
		looksLike: VLLM_LINE,
		section: ['## 4. vLLM', '## 5.'],
		requests: vllmRequests,
		strip: /^(?:\([^)]*\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+ \S+ \S+ /,
		seed: 3232,
		push: () => {
			const p = createVllmParser();
			return l => p.push(l);
		},
		message: () => l => parseVllmMessage(l),
	},
	sglang: {
		samples: ['sglang.log'],
		looksLike: SGLANG_LINE,
		section: ['## 5. SGLang', '## 6.'],
		requests: sglangRequests,
		strip: /^\[[^\]]*\] /,
		seed: 3233,
		push: () => {
			const p = createSglangParser();
			return l => p.push(l);
		},
		message: () => {
			const state = {retracted: 0, finished: 0};
			return l => parseSglangMessage(l, state);
		},
	},
};

export interface GoldenGroup {
	readonly name: string;
	readonly via: 'push' | 'message';
	/** The lines themselves (groups read from files), or the sha256 of the generated ones joined by "\n". */
	readonly lines?: string[];
	readonly linesSha256?: string;
	readonly out: unknown[];
}

export interface Golden {
	readonly note: string;
	readonly groups: GoldenGroup[];
}

export const sha256 = (lines: readonly string[]): string => createHash('sha256').update(lines.join('\n')).digest('hex');

/** The parser's output for each line: one parser fed in order (push), or the message parser alone. */
export function runGroup(engine: GoldenEngine, lines: readonly string[], via: 'push' | 'message'): unknown[] {
	const f = via === 'push' ? SPECS[engine].push() : SPECS[engine].message();
	return lines.map(l => f(l));
}

/**
 * The generated groups, a pure function of the stored ones: `requests`, `fuzz` (the fuzz test's
 * mutations, seeded, over every line so far) and `messages` (the message part alone).
 */
export function generated(engine: GoldenEngine, stored: readonly string[]): {name: string; via: 'push' | 'message'; lines: string[]}[] {
	const spec = SPECS[engine];
	const requests = spec.requests();
	const all = [...stored, ...requests];
	const rnd = prng(spec.seed);
	const fuzzed = Array.from({length: 1500}, () => mutate(all[Math.floor(rnd() * all.length)]!, rnd));
	const messages = [...all, ...fuzzed.slice(0, 500)].map(l => l.replace(spec.strip, ''));
	return [
		{name: 'requests', via: 'push', lines: requests},
		{name: 'fuzz', via: 'push', lines: fuzzed},
		{name: 'messages', via: 'message', lines: messages},
	];
}

function build(engine: GoldenEngine, shared: string): Golden {
	const spec = SPECS[engine];
	const stored: [string, string[]][] = [
		...spec.samples.map((f): [string, string[]] => [`samples/${f}`, readLines(path.join(root, 'samples', f))]),
		['tests', testLines(spec.looksLike)],
		['reference', referenceLines(shared, spec.section[0], spec.section[1], spec.looksLike)],
	];
	const groups: GoldenGroup[] = stored.map(([name, lines]) => ({name, via: 'push', lines, out: runGroup(engine, lines, 'push')}));
	for (const g of generated(engine, stored.flatMap(([, l]) => l))) groups.push({name: g.name, via: g.via, linesSha256: sha256(g.lines), out: runGroup(engine, g.lines, g.via)});
	return {note: `Generated by test/engines/parser-golden.gen.ts from main at 48848bc${REGENERATED[engine] ?? ''}: the ${engine} parser's output for each line. Regenerate only for a deliberate change of that output.`, groups};
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
	const [shared, only] = process.argv.slice(2);
	if (!shared) throw new Error('usage: parser-golden.gen.ts SHARED_DIR [vllm|sglang]');
	for (const engine of GOLDEN_ENGINES.filter(e => only === undefined || e === only)) {
		const golden = build(engine, shared);
		fs.mkdirSync(path.dirname(goldenFile(engine)), {recursive: true});
		fs.writeFileSync(goldenFile(engine), `${JSON.stringify(golden)}\n`);
		for (const g of golden.groups) process.stdout.write(`${engine} ${g.name}: ${g.out.length} lines, ${g.out.filter(o => Array.isArray(o) && o.length > 0).length} with events\n`);
	}
}
