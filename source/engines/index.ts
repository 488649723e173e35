/**
 * The one registry of engines: every `source/engines/<engine>.ts` exports one descriptor
 * (engines/descriptor.ts) and is listed here. Discovery, pollers, the probe, derive and the UI read
 * the registry; none of them switches on an engine name. Adding an engine = one file + its tests,
 * plus its line in ENGINES (and its kind in types/events.ts `EngineKind`).
 *
 * `createParser(engine)` is what the log collectors use. Unknown engines get a detecting parser:
 * it buffers the first lines, detects, then parses them all.
 */
import type {EngineEvent, EngineKind, LineParser} from '../types/events.js';
import type {EngineDescriptor, ProcessView} from './descriptor.js';
import {detectWith} from './detect.js';
import {fingerprintEvidence, type FingerprintAnswer, type Identity} from './fingerprint.js';
import {koboldcpp} from './koboldcpp.js';
import {lithos} from './lithos.js';
import {createLlamaCppParser, llamacpp} from './llamacpp.js';
import {llamaswap} from './llamaswap.js';
import {lmstudio} from './lmstudio.js';
import {localai} from './localai.js';
import {mlxlm} from './mlxlm.js';
import {omlx} from './omlx.js';
import {ollama} from './ollama.js';
import {openai} from './openai.js';
import {sglang} from './sglang.js';
import {vllm} from './vllm.js';

export type {EngineDescriptor} from './descriptor.js';
export type {Identity} from './fingerprint.js';
export {createLlamaCppParser} from './llamacpp.js';
export {createOllamaParser} from './ollama.js';
export {createVllmParser} from './vllm.js';
export {createSglangParser} from './sglang.js';
export {createMlxLmParser} from './mlxlm.js';
export {createLithosParser} from './lithos.js';
export {createOmlxParser} from './omlx.js';

/** Every engine, in the order discovery lists them. */
export const ENGINES: Readonly<Record<EngineKind, EngineDescriptor>> = {
	ollama,
	llamacpp,
	mlxlm,
	lithos,
	vllm,
	sglang,
	lmstudio,
	llamaswap,
	koboldcpp,
	localai,
	omlx,
	openai,
};

const SIGNATURES = Object.values(ENGINES).flatMap(d => (d.logSignature ? [{kind: d.kind, signature: d.logSignature}] : []));

/** Which engine wrote a log, from its first lines (sanitized), by every engine's log signature; undefined when none. */
export function detectEngine(lines: readonly string[]): EngineKind | undefined {
	return detectWith(SIGNATURES, lines);
}

/** The descriptor of `kind`; an unknown string (an old config, a probe target) is OpenAI-compatible. */
export function engineOf(kind: EngineKind | string | undefined): EngineDescriptor {
	return (kind !== undefined && Object.hasOwn(ENGINES, kind) ? ENGINES[kind as EngineKind] : undefined) ?? ENGINES.openai;
}

export const ENGINE_LABELS: Readonly<Record<EngineKind, string>> = Object.fromEntries(
	Object.values(ENGINES).map(d => [d.kind, d.label]),
) as Record<EngineKind, string>;

/** Ports discovery scans by default: every engine's, once each, in registry order. */
export const DEFAULT_PORTS: readonly number[] = [...new Set(Object.values(ENGINES).flatMap(d => d.defaultPorts))];

const RULES = Object.values(ENGINES)
	.flatMap(d => (d.fingerprint ? [{kind: d.kind, rule: d.fingerprint}] : []))
	.sort((a, b) => a.rule.rank - b.rule.rank);

/** Paths discovery asks of every candidate server: every engine's fingerprint paths, once each. */
export const FINGERPRINT_PATHS: readonly string[] = [...new Set(RULES.flatMap(r => r.rule.paths))];

/**
 * The engine that answers, from the answers to FINGERPRINT_PATHS: the first engine's rule (by rank)
 * that says yes; undefined when a rule must wait for a path that did not answer, or none says yes.
 */
export function identifyEngine(responses: Readonly<Record<string, FingerprintAnswer | undefined>>): Identity | undefined {
	const evidence = fingerprintEvidence(responses, FINGERPRINT_PATHS);
	for (const {kind, rule} of RULES) {
		const v = rule.identify(evidence);
		if (v === 'wait') return undefined;
		if (v !== undefined) return {engine: kind, ...v};
	}
	return undefined;
}

/** Process names discovery looks for (for the empty state). */
export const ENGINE_PROCESS_NAMES: readonly string[] = Object.values(ENGINES).flatMap(d => d.process?.names ?? []);

/** Every engine's process rule, in registry order, catch-all folder rules (`matchLast`) at the end. */
export const ENGINE_PROCESS_RULES: readonly {readonly kind: EngineKind; readonly matches: (p: ProcessView) => boolean}[] = [
	...Object.values(ENGINES).filter(d => d.process !== undefined && d.process.matchLast !== true),
	...Object.values(ENGINES).filter(d => d.process?.matchLast === true),
].map(d => ({kind: d.kind, matches: d.process!.matches}));

/** The engine whose log format `engine`'s logs use (llama-swap, KoboldCpp → llama.cpp), or undefined when none is parsed. */
export function parserEngine(engine: EngineKind): EngineKind | undefined {
	const make = ENGINES[engine]?.logParser;
	return make ? make().engine : undefined;
}

function createKnown(engine: EngineKind): LineParser | undefined {
	return ENGINES[engine]?.logParser?.();
}

/** The name shown for a server: its kind, marked when it is the built-in demo engine. */
export function engineName(server: {readonly engine: EngineKind; readonly demo?: boolean}): string {
	return server.demo === true ? `${server.engine} demo` : server.engine;
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
