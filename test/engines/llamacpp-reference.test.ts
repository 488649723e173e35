/**
 * The llama.cpp log parser, rewritten for speed under the app's interpreter (issue 32), gives the
 * same events as the parser of main 48848bc (frozen in test/helpers/llamacpp-48848bc.ts), line by
 * line, field by field and in the same key order (an absent field and one set to `undefined` differ,
 * so do -0 and 0, NaN and null): on every llama.cpp capture we ship (test/fixtures/engines/llama.cpp,
 * copied unchanged from the shared real captures; samples/), on Ollama's logs (its runner lines go
 * through this parser), on structural variants (router-child prefixes, no stamp, other level letters,
 * a restarted server), and on seeded fuzzed variants of all of them.
 *
 * Why a frozen copy and not a golden file: the fuzzed inputs are generated, thousands of lines a
 * run; a copy of the old parser compares any input, and a golden file would only hold what it was
 * made from. The copy is retired (or given the same change) when the parser changes on purpose.
 */
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser, type LlamaCppParserOptions} from '../../source/engines/llamacpp.js';
import type {EngineEvent, LineParser} from '../../source/types/events.js';
import {sanitize} from '../../source/util/sanitize.js';
import {createReferenceLlamaCppParser} from '../helpers/llamacpp-48848bc.js';
import {mutate, prng} from '../helpers/fuzz.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = path.join(root, 'test', 'fixtures', 'engines', 'llama.cpp');
const lines = (f: string): string[] => fs.readFileSync(f, 'utf8').split('\n').filter(l => l.length > 0);

const fixtureFiles = fs.readdirSync(FIXTURES).filter(f => f.endsWith('.log')).sort().map(f => path.join(FIXTURES, f));
const sampleFiles = ['llama-server.log', 'llama-server-default.log', 'ollama-gguf.log', 'ollama-mlx.log', 'ollama-v024.log'].map(f => path.join(root, 'samples', f));
const CORPUS: Array<[string, string[]]> = [...fixtureFiles, ...sampleFiles].map(f => [path.relative(root, f), lines(f)]);

/** The events as text that keeps what toEqual would blur: key order, `undefined` fields, -0, NaN, ±Infinity. */
function dump(events: EngineEvent[] | null): string {
	return JSON.stringify(events, (_k, v: unknown) => {
		if (v === undefined) return '\u0000undefined';
		if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return `\u0000${Object.is(v, -0) ? '-0' : String(v)}`;
		return v;
	});
}

const OPTIONS: Array<[string, LlamaCppParserOptions]> = [
	['plain', {}],
	// Ollama ≥ 0.30: runner-tagged, with the model name the embedding process knows (or not yet).
	['ollama runner', {runner: 'gguf', model: () => 'qwen3.6:27b'}],
	['runner, model unknown', {runner: 'mlx', model: () => undefined}],
];

/** Feed `input` to both parsers; the lines whose events differ (at most 5), with both outputs. */
function differences(input: readonly string[], options: LlamaCppParserOptions): string[] {
	const fast: LineParser = createLlamaCppParser(options);
	const ref: LineParser = createReferenceLlamaCppParser(options);
	const out: string[] = [];
	for (const line of input) {
		let want: string;
		let got: string;
		try {
			want = dump(ref.push(line));
		} catch (e) {
			want = `throws ${String(e)}`;
		}
		try {
			got = dump(fast.push(line));
		} catch (e) {
			got = `throws ${String(e)}`;
		}
		if (got !== want && out.length < 5) out.push(`${JSON.stringify(line)}\n  want ${want}\n  got  ${got}`);
	}
	return out;
}

/** Structural variants of one line: what the prefixes and the router can do to it. */
function variants(line: string, rnd: () => number): string[] {
	const stamp = /^(\d+\.\d{2}\.\d{3}\.\d{3} )?([A-Z] )?(.*)$/.exec(line)!;
	const body = stamp[3]!;
	const level = stamp[2] ?? '';
	const minutes = ['', '0', '7', '12', '123456', '1234567', '99999999'][Math.floor(rnd() * 7)]!;
	const ts = `${minutes}.${String(Math.floor(rnd() * 100)).padStart(2, '0')}.${String(Math.floor(rnd() * 1000)).padStart(3, '0')}.${String(Math.floor(rnd() * 1000)).padStart(3, '0')} `;
	const lvl = ['I ', 'W ', 'E ', 'D ', 'T ', 'X ', 'I', ''][Math.floor(rnd() * 8)]!;
	return [
		body,
		`${level}${body}`,
		`${ts}${lvl}${body}`,
		`${ts}${body}`,
		`[${' '.repeat(Math.floor(rnd() * 3))}${8080 + Math.floor(rnd() * 3)}] ${line}`,
		`[x] ${line}`,
		`${ts.slice(0, Math.floor(rnd() * ts.length))}${lvl}${body}`,
		line.replace(/id +(\d+) \| task (\d+)/, (_m, slot: string, task: string) => `id  ${rnd() < 0.5 ? slot : Math.floor(rnd() * 9)} | task ${rnd() < 0.3 ? '-1' : rnd() < 0.5 ? task : Math.floor(rnd() * 4)}`),
	];
}

describe('llama.cpp parser: the same events as the parser of main 48848bc', () => {
	it('has the corpus (every llama.cpp capture, the llama-server and Ollama samples)', () => {
		expect(fixtureFiles.length).toBeGreaterThanOrEqual(50);
		expect(CORPUS.reduce((n, [, l]) => n + l.length, 0)).toBeGreaterThan(5000);
	});

	for (const [name, options] of OPTIONS) {
		it(`every capture, line by line (${name})`, () => {
			for (const [file, input] of CORPUS) expect(differences(input, options), file).toEqual([]);
			// One log holding them all in a row: restarts, task ids reused, state carried across.
			expect(differences(CORPUS.flatMap(([, l]) => l), options)).toEqual([]);
		});
	}

	it('sanitized lines, as the app feeds them', () => {
		for (const [file, input] of CORPUS) expect(differences(input.map(l => sanitize(l)), {}), file).toEqual([]);
	});

	it('structural variants: router-child prefixes, missing or odd stamps and levels, other slots and tasks', () => {
		const rnd = prng(32);
		for (const [file, input] of CORPUS) {
			const varied = input.flatMap(l => (rnd() < 0.5 ? variants(l, rnd) : [l]));
			expect(differences(varied, {}), file).toEqual([]);
			expect(differences(varied, {runner: 'gguf', model: () => 'm'}), file).toEqual([]);
		}
	});

	it('fuzzed variants (seeded): hostile numbers, cuts, repeats, junk, random text', () => {
		for (const seed of [1, 2, 3]) {
			const rnd = prng(seed);
			for (const [file, input] of CORPUS) {
				const fuzzed = input.map(l => (rnd() < 0.4 ? mutate(l, rnd) : l));
				expect(differences(fuzzed, {}), `${file} seed ${seed}`).toEqual([]);
				expect(differences(fuzzed.map(l => sanitize(l)), {runner: 'gguf', model: () => 'm'}), `${file} seed ${seed} sanitized`).toEqual([]);
			}
		}
	});

	it('the request lines of a busy server (the traffic bench), with hostile numbers in every field', () => {
		const rnd = prng(7);
		const block = [...lines(path.join(FIXTURES, 'chat.log')), ...lines(path.join(FIXTURES, 'completion-long.log'))];
		const NUM = ['0', '-0', '-1', '1e999', 'nan', '-nan', 'inf', '99999999999999999999', '1.5', '007', '', '1.', '.5', '-.5', '12345678901234567890123'];
		const out: string[] = [];
		for (let i = 0; i < 4000; i++) {
			const l = block[Math.floor(rnd() * block.length)]!;
			out.push(l.replace(/-?\d+(?:\.\d+)?/g, d => (rnd() < 0.1 ? NUM[Math.floor(rnd() * NUM.length)]! : d)));
		}
		expect(differences(out, {})).toEqual([]);
	});
});
