/**
 * One parser per engine; `createParser(engine)` is what the log collectors use.
 * Unknown engines get a detecting parser: it buffers the first lines, detects, then parses them all.
 */
import type {EngineEvent, EngineKind, LineParser} from '../types/monitor.js';
import {detectEngine} from './detect.js';
import {createLithosParser} from './lithos.js';
import {createLlamaCppParser} from './llamacpp.js';
import {createMlxLmParser} from './mlxlm.js';
import {createOllamaParser} from './ollama.js';
import {createSglangParser} from './sglang.js';
import {createVllmParser} from './vllm.js';

export {detectEngine} from './detect.js';
export {createLlamaCppParser} from './llamacpp.js';
export {createOllamaParser} from './ollama.js';
export {createVllmParser} from './vllm.js';
export {createSglangParser} from './sglang.js';
export {createMlxLmParser} from './mlxlm.js';
export {createLithosParser} from './lithos.js';

export const ENGINE_LABELS: Readonly<Record<EngineKind, string>> = {
	ollama: 'Ollama',
	llamacpp: 'llama.cpp',
	mlxlm: 'mlx-lm',
	lithos: 'lithos-metal',
	vllm: 'vLLM',
	sglang: 'SGLang',
	lmstudio: 'LM Studio',
	llamaswap: 'llama-swap',
	koboldcpp: 'KoboldCpp',
	localai: 'LocalAI',
	openai: 'OpenAI-compatible',
	'demo-ollama': 'Ollama (demo)',
};

/** Engines whose logs we can parse. */
export function parserEngine(engine: EngineKind): EngineKind | undefined {
	switch (engine) {
		case 'ollama':
		case 'demo-ollama':
			return 'ollama';
		case 'llamacpp':
		case 'llamaswap':
		case 'koboldcpp':
			// llama-swap passes llama-server output through; KoboldCpp is llama.cpp underneath.
			return 'llamacpp';
		case 'mlxlm':
		case 'vllm':
		case 'sglang':
		case 'lithos':
			return engine;
		default:
			return undefined;
	}
}

function createKnown(engine: EngineKind): LineParser | undefined {
	switch (parserEngine(engine)) {
		case 'ollama': return createOllamaParser();
		case 'llamacpp': return createLlamaCppParser();
		case 'mlxlm': return createMlxLmParser();
		case 'vllm': return createVllmParser();
		case 'sglang': return createSglangParser();
		case 'lithos': return createLithosParser();
		default: return undefined;
	}
}

/** Lines a detecting parser waits for before it decides (it decides earlier on strong evidence). */
export const DETECT_LINES = 20;

/**
 * A parser for `engine`; `undefined` → a detecting parser. While it is still detecting, push()
 * returns `[]` and keeps the line; once decided, the buffered lines' events come out with the
 * line that decided it.
 */
export function createParser(engine?: EngineKind): LineParser & {readonly detected?: EngineKind} {
	const known = engine === undefined ? undefined : createKnown(engine);
	if (known) return known;
	let inner: LineParser | undefined;
	const buffer: string[] = [];
	const self = {
		get engine(): EngineKind {
			return inner?.engine ?? engine ?? 'openai';
		},
		get detected(): EngineKind | undefined {
			return inner?.engine;
		},
		push(line: string): EngineEvent[] | null {
			if (inner) return inner.push(line);
			buffer.push(line);
			const guess = detectEngine(buffer);
			const strong = guess !== undefined && buffer.length >= 3;
			if (!strong && buffer.length < DETECT_LINES) return [];
			inner = (guess && createKnown(guess)) || createLlamaCppParser();
			const out: EngineEvent[] = [];
			let any = false;
			for (const l of buffer.splice(0)) {
				const ev = inner.push(l);
				if (ev) {
					any = true;
					out.push(...ev);
				}
			}
			return any ? out : null;
		},
	};
	return self;
}
