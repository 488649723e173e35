/**
 * Writes test/fixtures/engines/vllm-golden.json: vLLM log lines and what the vLLM parser made of
 * each, line by line (null, [] or its events). Generated once from main at 48848bc, before the
 * parser was made cheaper for busy `--enable-log-requests` logs (issue 32): vllm-golden.test.ts
 * feeds the same lines to today's parser and expects the same output to the last field.
 *
 *   npx tsx test/engines/vllm-golden.gen.ts [SHARED_DIR]
 *
 * Regenerate only for a deliberate change of the parser's output (and say so in the commit).
 * Groups (each fed in order to one fresh parser: the parser keeps state across lines); those read
 * from files keep their lines in the golden file, so a change to the samples or the tests does not
 * move them; the generated ones are rebuilt by the test from the stored ones (their sha256 is kept):
 * - `samples/vllm.log`, `samples/vllm-v0.log`: the shipped samples;
 * - `tests`: vLLM lines quoted in the repository's tests;
 * - `reference`: vLLM lines quoted in the shared engines reference (SHARED_DIR/reference/engines.md);
 * - `requests` (generated): `--enable-log-requests` traffic as bench/traffic-writer.mjs writes it
 *   (`Received request …` with the prompt, the SamplingParams and, as real servers log them,
 *   prompt_token_ids lists of 0.2–9 KB; `Added request`; uvicorn access lines; the stats line),
 *   every level and prefix form, and prompts that quote the phrases other vLLM lines are known by;
 * - `fuzz` (generated): all of the above mutated by the fuzz test's mutations (seeded);
 * - `messages` (generated): the message part alone, through parseVllmMessage without state.
 */
import {createHash} from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {createVllmParser, parseVllmMessage} from '../../source/engines/vllm.js';
import {mutate, prng} from '../helpers/fuzz.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const GOLDEN = path.join(root, 'test', 'fixtures', 'engines', 'vllm-golden.json');

const VLLM_LINE = /(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d{2}-\d{2} \d{2}:\d{2}:\d{2} |INFO: +\S+:\d+ - "|Avg prompt throughput|SpecDecoding metrics|Speculative metrics|total_num_cumulative_preemption|vLLM API server|Uvicorn running on/;

const readLines = (f: string): string[] => fs.readFileSync(f, 'utf8').split('\n').filter(l => l.length > 0);

function unquote(body: string): string {
	return body.replace(/\\(u\{[\da-fA-F]+\}|u[\da-fA-F]{4}|x[\da-fA-F]{2}|.)/g, (_m, e: string) => {
		if (e.startsWith('u')) return String.fromCodePoint(parseInt(e.replace(/[u{}]/g, ''), 16));
		if (e.startsWith('x')) return String.fromCharCode(parseInt(e.slice(1), 16));
		return e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
	});
}

/** String literals (no interpolation) that look like vLLM lines, from the test sources. */
function testLines(): string[] {
	const out = new Set<string>();
	const walk = (dir: string): string[] => fs.readdirSync(dir, {withFileTypes: true}).flatMap(d => (d.isDirectory() ? walk(path.join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [path.join(dir, d.name)] : []));
	for (const f of walk(path.join(root, 'test')).sort()) {
		if (f.includes('vllm-golden')) continue;
		const src = fs.readFileSync(f, 'utf8');
		for (const m of src.matchAll(/'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\$]|\\.)*)`/g)) {
			const body = unquote(m[1] ?? m[2] ?? m[3] ?? '');
			for (const l of body.split('\n')) if (VLLM_LINE.test(l)) out.add(l);
		}
	}
	return [...out];
}

/** Lines quoted in backticks or code blocks of the shared reference that look like vLLM lines. */
function referenceLines(shared: string | undefined): string[] {
	const f = shared ? path.join(shared, 'reference', 'engines.md') : '';
	if (!f || !fs.existsSync(f)) return [];
	const text = fs.readFileSync(f, 'utf8');
	const start = text.indexOf('## 4. vLLM');
	const end = text.indexOf('## 5.', start);
	const part = text.slice(start, end);
	const out = new Set<string>();
	for (const l of part.split('\n')) if (VLLM_LINE.test(l) && !l.startsWith('prefix ') && !l.startsWith('uvicorn ')) out.add(l);
	for (const m of part.matchAll(/`([^`\n]+)`/g)) if (VLLM_LINE.test(m[1]!)) out.add(m[1]!);
	return [...out];
}

const PARAMS = 'SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=0.8, top_k=20, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=512, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, truncate_prompt_tokens=None, guided_decoding=None, extra_args=None)';

/** Phrases other vLLM lines are recognised by, as a user's prompt might quote them. */
const QUOTED = [
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

function requestLines(): string[] {
	const rnd = prng(32);
	const out: string[] = [];
	const prefixes = ['(APIServer pid=4242) INFO 12-05 11:40:01 ', 'INFO 12-05 11:40:01 ', '(EngineCore_DP0 pid=312) DEBUG 12-05 11:40:01 ', 'WARNING 12-05 11:40:01 ', '(APIServer pid=1) ERROR 12-05 11:40:01 ', 'CRITICAL 12-05 11:40:01 '];
	const files = ['[logger.py:43] ', 'logger.py:43] ', '[async_llm.py:270] '];
	for (let i = 0; i < 240; i++) {
		const p = prefixes[i % prefixes.length]! + files[i % files.length]!;
		const id = `chatcmpl-${(0x5f3a00 + i).toString(16)}a1b2c3d4e5f60718293a4b5c`;
		const quote = i % 3 === 0 ? QUOTED[i % QUOTED.length]! : '';
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

/** The parser's output for each line: one parser, fed in order (push), or parseVllmMessage alone. */
export function runGroup(lines: readonly string[], via: 'push' | 'message'): unknown[] {
	const p = createVllmParser();
	return lines.map(l => (via === 'push' ? p.push(l) : parseVllmMessage(l)));
}

const STRIP = /^(?:\([^)]*\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+ \S+ \S+ /;

/**
 * The generated groups, a pure function of the stored ones: `requests`, `fuzz` (the fuzz test's
 * mutations, seeded, over every line so far) and `messages` (the message part alone).
 */
export function generated(stored: readonly string[]): {name: string; via: 'push' | 'message'; lines: string[]}[] {
	const requests = requestLines();
	const all = [...stored, ...requests];
	const rnd = prng(3232);
	const fuzzed = Array.from({length: 1500}, () => mutate(all[Math.floor(rnd() * all.length)]!, rnd));
	const messages = [...all, ...fuzzed.slice(0, 500)].map(l => l.replace(STRIP, ''));
	return [
		{name: 'requests', via: 'push', lines: requests},
		{name: 'fuzz', via: 'push', lines: fuzzed},
		{name: 'messages', via: 'message', lines: messages},
	];
}

function build(shared: string | undefined): Golden {
	const stored: [string, string[]][] = [
		['samples/vllm.log', readLines(path.join(root, 'samples', 'vllm.log'))],
		['samples/vllm-v0.log', readLines(path.join(root, 'samples', 'vllm-v0.log'))],
		['tests', testLines()],
		['reference', referenceLines(shared)],
	];
	const groups: GoldenGroup[] = stored.map(([name, lines]) => ({name, via: 'push', lines, out: runGroup(lines, 'push')}));
	for (const g of generated(stored.flatMap(([, l]) => l))) groups.push({name: g.name, via: g.via, linesSha256: sha256(g.lines), out: runGroup(g.lines, g.via)});
	return {note: 'Generated by test/engines/vllm-golden.gen.ts from main at 48848bc: the vLLM parser\'s output for each line. Regenerate only for a deliberate change of that output.', groups};
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
	const golden = build(process.argv[2]);
	fs.writeFileSync(GOLDEN, `${JSON.stringify(golden)}\n`);
	for (const g of golden.groups) process.stdout.write(`${g.name}: ${g.out.length} lines, ${g.out.filter(o => Array.isArray(o) && o.length > 0).length} with events\n`);
}
