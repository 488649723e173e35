/**
 * Seeded fuzzing of every log parser and the probe's NDJSON/SSE stream readers (issue 14): lines
 * from the shipped samples and the engine fixtures, mutated (numbers swapped for negative, huge,
 * non-finite or malformed ones; control and bidi characters; cuts, repeats, random bytes). What
 * must hold: no exception, and no figure — in an event, in the store's state through the reducer,
 * in `snapshot --json`, or in a stream reader's counts — that is negative or not finite.
 * Used by test/faults/fuzz.test.ts (fixed seed, a few thousand lines) and bench/fuzz.bench.ts (long).
 */
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {createParser} from '../../source/engines/index.js';
import {initialState, reduce} from '../../source/model/reducer.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import type {EngineKind} from '../../source/types/events.js';
import type {MonitorState} from '../../source/types/state.js';
import {createStreamParser} from '../../source/probe/protocols.js';
import {sanitize} from '../../source/util/sanitize.js';
import {createRng} from '../../source/demo/sim.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A small seeded PRNG (the demo's mulberry32), so a failure is reproducible from its seed. */
export const prng: (seed: number) => () => number = createRng;

function filesUnder(dir: string, ext: string): string[] {
	if (!fs.existsSync(dir)) return [];
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(d => (d.isDirectory() ? filesUnder(path.join(dir, d.name), ext) : d.name.endsWith(ext) ? [path.join(dir, d.name)] : []));
}

const readLines = (f: string): string[] => fs.readFileSync(f, 'utf8').split('\n').filter(l => l.length > 0);

/** Every log line we ship or test against. */
export function logCorpus(): string[] {
	const files = [...filesUnder(path.join(root, 'samples'), '.log'), ...filesUnder(path.join(root, 'test', 'fixtures', 'engines'), '.log')];
	return files.flatMap(readLines);
}

const SAMPLE_OF: Record<string, readonly string[]> = {
	ollama: ['ollama-gguf.log', 'ollama-mlx.log'],
	llamacpp: ['llama-server.log'],
	mlxlm: ['mlxlm.log'],
	lithos: ['lithos.log'],
	vllm: ['vllm.log'],
	sglang: ['sglang.log'],
};

/** The lines of an engine's own samples that carry figures (events) when parsed as they are. */
export function figureLines(engine: EngineKind): string[] {
	const lines = (SAMPLE_OF[engine] ?? []).flatMap(f => readLines(path.join(root, 'samples', f)));
	const parser = createParser(engine);
	return lines.filter(l => (parser.push(sanitize(l)) ?? []).length > 0);
}

/** Stream bodies: the captured SSE streams and Ollama NDJSON lines. */
export function streamCorpus(): {sse: string[]; ndjson: string[]} {
	const sse = filesUnder(path.join(root, 'test', 'fixtures', 'probe'), '.sse').map(f => fs.readFileSync(f, 'utf8'));
	const ndjson = [
		'{"model":"qwen3.8:27b-mlx","created_at":"2026-08-21T18:48:00Z","response":"def ","done":false}',
		'{"model":"qwen3.8:27b-mlx","created_at":"2026-08-21T18:48:00Z","response":"","done":true,"done_reason":"length","total_duration":5000000000,"load_duration":1000000,"prompt_eval_count":30,"prompt_eval_duration":20000000,"eval_count":256,"eval_duration":4900000000}',
		'{"model":"m","message":{"role":"assistant","content":"x"},"done":false}',
		'{"error":"model is busy"}',
	];
	return {sse, ndjson};
}

const NUMBERS = ['-5', '-287', '-1500', '-0', '0', '1e308', '-1e308', '1e999', 'NaN', 'nan', '-nan', 'inf', 'Infinity', '99999999999999999999', '1.2.3', '--1', '0x10', '4294967296', '-2147483648', '3.5', '007', ''];
const JUNK = ['\u001b]52;c;aGk=\u0007', '\u001b[2J', '\u009b6n', '\u202e', '\u2066', '\u0000', '\r', '\t', '\ufffd', '"', "'", '{', '}', '[', ']', ', ', ': ', '=', '|', '/'];

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** One mutation of a line; several may apply. */
export function mutate(line: string, rnd: () => number): string {
	let s = line;
	const rounds = 1 + Math.floor(rnd() * 3);
	for (let r = 0; r < rounds; r++) {
		const k = rnd();
		if (k < 0.45) {
			// Replace one number with a hostile one.
			const spots = [...s.matchAll(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi)];
			if (spots.length > 0) {
				const m = pick(rnd, spots);
				s = s.slice(0, m.index) + pick(rnd, NUMBERS) + s.slice(m.index! + m[0].length);
			}
		} else if (k < 0.6) {
			const at = Math.floor(rnd() * (s.length + 1));
			s = s.slice(0, at) + pick(rnd, JUNK) + s.slice(at);
		} else if (k < 0.7) {
			s = s.slice(0, Math.floor(rnd() * s.length));
		} else if (k < 0.78) {
			const at = Math.floor(rnd() * s.length);
			s = s.slice(0, at) + s.slice(at, at + 1 + Math.floor(rnd() * 40)).repeat(2 + Math.floor(rnd() * 4)) + s.slice(at);
		} else if (k < 0.84) {
			s = Array.from({length: 1 + Math.floor(rnd() * 80)}, () => String.fromCharCode(Math.floor(rnd() * 0x3000))).join('');
		} else if (k < 0.9) {
			// Swap a `= value` / `: value` for another kind of value.
			s = s.replace(/([=:] *)([^ ,)}\]]+)/, (_m, sep: string) => sep + pick(rnd, [...NUMBERS, 'None', 'null', 'true', '"x"', '{}']));
		}
		// else: keep (real lines must still parse)
	}
	return s;
}

/** Every number anywhere in a value, with its path. */
function numbersIn(v: unknown, at: string, out: [string, number][]): void {
	if (typeof v === 'number') out.push([at, v]);
	else if (Array.isArray(v)) v.forEach((x, i) => numbersIn(x, `${at}[${i}]`, out));
	else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) numbersIn(x, at ? `${at}.${k}` : k, out);
}

/** Numbers that may legitimately be negative: none are figures. */
const SIGNED = /(?:^|\.)(?:task|slot)$/;

export function badNumbers(v: unknown, at = ''): string[] {
	const found: [string, number][] = [];
	numbersIn(v, at, found);
	return found.filter(([p, n]) => !Number.isFinite(n) || (n < 0 && !SIGNED.test(p))).map(([p, n]) => `${p}=${n}`);
}

export interface FuzzReport {
	readonly lines: number;
	readonly events: number;
	readonly inconsistent: number;
	readonly streamChunks: number;
	/** Failures: exceptions and impossible figures, each with the input that caused it. */
	readonly failures: string[];
}

const ENGINES: (EngineKind | undefined)[] = ['ollama', 'llamacpp', 'mlxlm', 'lithos', 'vllm', 'sglang', undefined];

export function fuzz(seed: number, linesPerEngine: number, streamBodies: number): FuzzReport {
	const rnd = prng(seed);
	const corpus = logCorpus();
	const failures: string[] = [];
	let lines = 0;
	let events = 0;
	let inconsistent = 0;
	const fail = (what: string, input: string) => {
		if (failures.length < 20) failures.push(`${what} ← ${JSON.stringify(input.slice(0, 300))}`);
	};
	const allFigureLines = ENGINES.flatMap(e => (e ? figureLines(e) : []));
	for (const engine of ENGINES) {
		const parser = createParser(engine);
		const own = engine ? figureLines(engine) : allFigureLines;
		let state: MonitorState = initialState({host: 'fuzz', demo: false});
		const serverId = `fuzz:${engine ?? 'detect'}`;
		state = reduce(state, {type: 'server-seen', t: 0, server: {id: serverId, engine: engine ?? 'openai', source: 'log', logLabel: 'fuzz.log'}});
		for (let i = 0; i < linesPerEngine; i++) {
			// Mostly lines that carry figures for this parser, so the mutations hit the numbers.
			const input = mutate(rnd() < 0.7 ? pick(rnd, own) : pick(rnd, corpus), rnd);
			const text = sanitize(input);
			lines++;
			let out;
			try {
				out = parser.push(text);
			} catch (error) {
				fail(`${engine ?? 'detect'} parser threw ${String(error)}`, input);
				continue;
			}
			const t = 1_000_000 + i * 10;
			try {
				state = reduce(state, {type: 'log-line', serverId, t, text, parsed: out !== null});
				for (const event of out ?? []) {
					events++;
					if (event.type === 'inconsistent') inconsistent++;
					const bad = badNumbers(event, event.type);
					if (bad.length > 0) fail(`${engine ?? 'detect'} event ${bad.join(', ')}`, input);
					state = reduce(state, {type: 'engine-event', serverId, t, event});
				}
			} catch (error) {
				fail(`${engine ?? 'detect'} reducer threw ${String(error)}`, input);
			}
			if (i % 97 === 0 || i === linesPerEngine - 1) {
				try {
					const bad = badNumbers(JSON.parse(JSON.stringify(toSnapshot({...state, now: t}, 'fuzz'))) as unknown, 'snapshot');
					if (bad.length > 0) fail(`${engine ?? 'detect'} snapshot ${bad.slice(0, 4).join(', ')}`, input);
				} catch (error) {
					fail(`${engine ?? 'detect'} snapshot threw ${String(error)}`, input);
				}
			}
		}
	}
	// The probe's stream readers: mutated bodies fed in random chunk sizes.
	const {sse, ndjson} = streamCorpus();
	let streamChunks = 0;
	for (let b = 0; b < streamBodies; b++) {
		const ollama = rnd() < 0.5;
		const body = ollama
			? Array.from({length: 1 + Math.floor(rnd() * 12)}, () => mutate(pick(rnd, ndjson), rnd)).join('\n') + '\n'
			: pick(rnd, sse).split('\n').map(l => (rnd() < 0.3 ? mutate(l, rnd) : l)).join('\n');
		const parser = createStreamParser(ollama ? 'ollama' : 'openai-chat');
		try {
			for (let at = 0; at < body.length; ) {
				const n = 1 + Math.floor(rnd() * 200);
				parser.feed(body.slice(at, at + n));
				streamChunks++;
				at += n;
			}
			parser.end();
			const bad = badNumbers(parser.counts, 'counts');
			if (bad.length > 0) fail(`${ollama ? 'ndjson' : 'sse'} reader ${bad.join(', ')}`, body);
		} catch (error) {
			fail(`${ollama ? 'ndjson' : 'sse'} reader threw ${String(error)}`, body);
		}
	}
	return {lines, events, inconsistent, streamChunks, failures};
}

// ---- names: paths, process arguments, command and model names (issue 34) ---------------------

/** Characters no name may carry out to a screen, stderr, JSON or CSV (raw or JSON-escaped). */
export function unsafeIn(text: string): string[] {
	const found: string[] = [];
	if (/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(text)) found.push('control');
	if (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/.test(text)) found.push('bidi or separator');
	if (/\u034f|\u17b4|\u17b5|\u200d|[\u00ad\u115f\u1160\u180e\u200b\u200c\u2060-\u2064\u206a-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]/.test(text)) found.push('zero-width or filler');
	if (/\\u00[01][0-9a-f]|\\u00[89][0-9a-f]|\\u007f|\\u20(?:0[b-f]|2[89a-e]|6[0-9a-f])|\\u061c|\\u115f|\\u1160|\\u3164|\\ufeff/i.test(text)) found.push('JSON-escaped control');
	if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)) found.push('lone surrogate');
	return found;
}

const NAME_BASES = ['/var/log/llama/server.log', 'C:/logs/ollama.log', 'qwen3.8:27b-mlx', 'llama-server', '--log-file', 'hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M', '=HYPERLINK("http://e/","x")', 'http://alice:S3cr3t@127.0.0.1:8080'];
const NAME_JUNK = [...JUNK, '\n', '\u001b]0;PWNED\u0007', '\u001b[31m', '\u001bP1$qm\u001b\\', '\u200b', '\u200d', '\u115f', '\u1160', '\u3164', '\ufeff', '\u00ad', '\u034f', '\u2028', '\u2060', '\ud800', '\udc00', '+', '-', '@', '=', '\t='];

/** One hostile name: a base with junk put in, cut or doubled. */
export function hostileName(rnd: () => number): string {
	let s = pick(rnd, NAME_BASES);
	const rounds = 1 + Math.floor(rnd() * 4);
	for (let r = 0; r < rounds; r++) {
		const at = Math.floor(rnd() * (s.length + 1));
		const k = rnd();
		if (k < 0.7) s = s.slice(0, at) + pick(rnd, NAME_JUNK) + s.slice(at);
		else if (k < 0.8) s = pick(rnd, NAME_JUNK) + s;
		else if (k < 0.9) s = s.slice(0, at);
		else s = Array.from({length: 1 + Math.floor(rnd() * 30)}, () => String.fromCharCode(Math.floor(rnd() * 0x10000))).join('');
	}
	return s;
}

export interface NameFuzzReport {
	readonly names: number;
	readonly failures: string[];
}

/**
 * Hostile paths, process arguments and model names through every way they leave infertop: a log's
 * label (screen, JSON), a process's `--log-file` found by discovery, a model name read from an
 * Ollama answer into the state and the snapshot JSON, a CSV cell, stderr lines (sanitizeName) and
 * the JSON sink (sanitizeDeep). No output may carry a control, bidi, zero-width or filler
 * character, raw or JSON-escaped; no CSV cell may start a formula; no password of a URL may show.
 */
export async function fuzzNames(seed: number, count: number): Promise<NameFuzzReport> {
	const [{labelOf}, {findEngineProcesses}, {ollamaPsModels}, {csvField, parseCsvLine}, {sanitizeDeep, sanitizeName, redactUserinfo}] = await Promise.all([
		import('../../source/sources/log-source.js'),
		import('../../source/sources/discovery/processes.js'),
		import('../../source/engines/ollama.js'),
		import('../../source/probe/history.js'),
		import('../../source/util/sanitize.js'),
	]);
	const rnd = prng(seed);
	const failures: string[] = [];
	const fail = (what: string, input: string) => {
		if (failures.length < 20) failures.push(`${what} ← ${JSON.stringify(input.slice(0, 200))}`);
	};
	const check = (what: string, out: string, input: string) => {
		const bad = unsafeIn(out);
		if (bad.length > 0) fail(`${what}: ${bad.join(', ')}`, input);
	};
	for (let i = 0; i < count; i++) {
		const name = hostileName(rnd);
		try {
			check('file label', labelOf({kind: 'file', path: name}), name);
			check('cmd label', labelOf({kind: 'cmd', argv: ['sh', '-c', name]}), name);
			check('replay label', labelOf({kind: 'replay', path: name, speed: 1}), name);
			check('stderr line', sanitizeName(`--log ${name}: no such file`), name);
			const found = findEngineProcesses([{pid: 4242, name: 'llama-server', command: `llama-server --port 8080 --log-file ${name}`}]);
			for (const p of found) if (p.logFile !== undefined) check('found --log-file label', labelOf({kind: 'file', path: p.logFile}), name);
			const models = ollamaPsModels({models: [{name, model: name, size: 1, size_vram: 1, details: {family: name, quantization_level: name}}]}) ?? [];
			let state: MonitorState = initialState({host: name, demo: false});
			state = reduce(state, {type: 'server-seen', t: 0, server: {id: `log:${labelOf({kind: 'file', path: name})}`, engine: 'ollama', source: 'log', logLabel: labelOf({kind: 'file', path: name})}});
			state = reduce(state, {type: 'server-models', t: 1, serverId: Object.keys(state.servers)[0]!, models});
			const json = JSON.stringify(sanitizeDeep(toSnapshot({...state, now: 2}, 'fuzz')));
			check('snapshot JSON', json, name);
			check('JSON sink', JSON.stringify(sanitizeDeep({[name]: [name, {name}]})), name);
			const cell = csvField(name);
			check('CSV cell', cell, name);
			const unquoted = parseCsvLine(cell)[0] ?? '';
			if (/^[\t\r]|^\s*[=+\-@]/.test(unquoted)) fail('CSV cell starts a formula', name);
			// A password in what reads as a URL's userinfo (scheme://…@), as shown after sanitizing.
			const shown = redactUserinfo(sanitizeName(name));
			if (/\b[a-z][a-z0-9+.-]*:\/\/[^\s/@]*S3cr3t[^\s/@]*@/i.test(shown)) fail('password shown', name);
		} catch (error) {
			fail(`threw ${String(error)}`, name);
		}
	}
	return {names: count, failures};
}
