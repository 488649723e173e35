/**
 * The probe prompts. Greedy (temperature 0), fixed seed, so two probes of one prompt on one server
 * are comparable; the kinds span what speculative decoding makes easy (repeat) and hard (prose).
 */
import {existsSync} from 'node:fs';
import {readFile, stat} from 'node:fs/promises';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {ProbePromptKind} from '../types/probe.js';

export const PROBE_SEED = 42;
export const DEFAULT_MAX_TOKENS = 256;
export const PROMPT_KINDS: readonly ProbePromptKind[] = ['code', 'prose', 'repeat', 'hex', 'long', 'file'];

export interface ProbePrompt {
	readonly kind: ProbePromptKind;
	/** Short label for the screen and the CSV (`code`, `@notes.md`). */
	readonly label: string;
	readonly text: string;
}

const CODE =
	'Write a small Python class `Tower` for a tower defense game: a constructor taking position, range, damage and fire rate; ' +
	'a method that picks the nearest enemy in range from a list of (x, y, hp) tuples; a method that fires and returns the damage dealt; ' +
	'and a method that upgrades range and damage by 10 %. Include type hints and short docstrings. Reply with the code only.';

const PROSE =
	'Explain, in about 400 words of plain prose, how a tower defense game balances tower cost against damage: ' +
	'why cheap towers should be inefficient, how upgrade costs should grow, and how designers test the balance. No lists, no headings.';

const REPEAT = 'Repeat this sentence exactly 40 times, one per line: The quick brown fox jumps over the lazy dog.';

const HEX = 'Write 600 random hexadecimal digits (0-9, a-f) in groups of 8 separated by spaces. Output only the digits.';

const LONG_QUESTION =
	'\n\n---\nThe text above is the source of a terminal UI library. In a few sentences: how does it decide when to write a new frame ' +
	'to the terminal, and what does it do when the output is taller than the terminal?';

const SHORT: Record<Exclude<ProbePromptKind, 'long' | 'file'>, string> = {code: CODE, prose: PROSE, repeat: REPEAT, hex: HEX};

/** Where `samples/prompts/` is: beside source/ in the repo, beside dist/ when packed. */
export function samplesDir(): string | undefined {
	let dir = path.dirname(fileURLToPath(import.meta.url));
	for (let i = 0; i < 5; i++) {
		const candidate = path.join(dir, 'samples', 'prompts');
		if (existsSync(path.join(candidate, 'long-source.txt'))) return candidate;
		dir = path.dirname(dir);
	}
	return undefined;
}

/** Largest user file accepted for `@file` (bytes). */
export const MAX_FILE_BYTES = 2_000_000;

/** Parse `--prompt`: a kind, or `@path` for a user file. */
export function parsePromptArg(arg: string): ProbePromptKind | {file: string} | undefined {
	if (arg.startsWith('@') && arg.length > 1) return {file: arg.slice(1)};
	return (PROMPT_KINDS as readonly string[]).includes(arg) && arg !== 'file' ? (arg as ProbePromptKind) : undefined;
}

/** Build a prompt; rejects with a one-line reason (missing file, too big). */
export async function loadPrompt(p: ProbePromptKind | {file: string}): Promise<ProbePrompt> {
	if (typeof p === 'object') {
		let size: number;
		try {
			size = (await stat(p.file)).size;
		} catch {
			throw new Error(`cannot read prompt file ${p.file}`);
		}
		if (size > MAX_FILE_BYTES) throw new Error(`prompt file ${p.file} is ${size} bytes (limit ${MAX_FILE_BYTES})`);
		const text = await readFile(p.file, 'utf8');
		if (text.trim() === '') throw new Error(`prompt file ${p.file} is empty`);
		return {kind: 'file', label: `@${path.basename(p.file)}`, text};
	}
	if (p === 'long') {
		const dir = samplesDir();
		if (!dir) throw new Error('the long prompt text (samples/prompts/long-source.txt) is missing from this install');
		const text = await readFile(path.join(dir, 'long-source.txt'), 'utf8');
		return {kind: 'long', label: 'long', text: text + LONG_QUESTION};
	}
	if (p === 'file') throw new Error('prompt kind "file" needs a path: use @path');
	return {kind: p, label: p, text: SHORT[p]};
}

/**
 * Characters per token assumed when cutting the long prompt to a model's context. Source code runs
 * at about 3–4 characters per token in the BPE vocabularies of the models seed 004 compares; 2.5 is
 * on the short side, so a cut prompt leaves room rather than overflowing.
 */
export const CHARS_PER_TOKEN_LOW = 2.5;
/** Tokens kept free beside the answer (chat template, special tokens). */
const CONTEXT_MARGIN = 256;

/**
 * The long prompt cut to fit `contextTokens` with room for `maxTokens` of answer: the source is
 * shortened from its end, the question kept. Unknown context → the whole prompt (the server then
 * says whether it fits). Other prompts are returned as they are.
 */
export function fitToContext(p: ProbePrompt, contextTokens: number | undefined, maxTokens: number): ProbePrompt {
	if (p.kind !== 'long' || contextTokens === undefined || !Number.isFinite(contextTokens) || contextTokens <= 0) return p;
	const budgetChars = Math.floor((contextTokens - maxTokens - CONTEXT_MARGIN) * CHARS_PER_TOKEN_LOW);
	if (p.text.length <= budgetChars) return p;
	const q = p.text.lastIndexOf('\n\n---\n');
	const question = q >= 0 ? p.text.slice(q) : '';
	const source = q >= 0 ? p.text.slice(0, q) : p.text;
	const keep = Math.max(0, budgetChars - question.length);
	// Cut at a line end so the model reads whole lines.
	const cut = source.lastIndexOf('\n', keep);
	return {...p, label: 'long', text: source.slice(0, cut > 0 ? cut : keep) + question};
}
