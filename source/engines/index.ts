/**
 * What the rest of infertop reads of the engines, all derived from the one registry
 * (engines/registry.ts: one line per engine). Discovery, pollers, the probe, derive and the UI read
 * it; none of them switches on an engine name (test/architecture/layers.test.ts checks that).
 *
 * `createParser(engine)` is what the log collectors use. Unknown engines get a detecting parser:
 * it buffers the first lines, detects, then parses them all.
 */
import type {EngineEvent, EngineKind, LineParser} from '../types/events.js';
import type {AnswerBlock, AnswerStamp, EngineDescriptor, PassesHeader, ProcessView} from './descriptor.js';
import {detectWith} from './detect.js';
import {fingerprintEvidence, type FingerprintAnswer, type Identity} from './fingerprint.js';
import {REGISTRY} from './registry.js';

export type {EngineDescriptor} from './descriptor.js';
export type {Identity} from './fingerprint.js';

/**
 * Every kind an engine file declares (types/events.ts `EngineKinds`) has its line in the registry:
 * a kind declared without one is a compile error here that names it. (A line without a declared
 * kind fails at the descriptor's `kind`.)
 */
type Unregistered = Exclude<EngineKind, (typeof REGISTRY)[number]['kind']>;
const everyKindRegistered: [Unregistered] extends [never] ? true : Unregistered = true;
void everyKindRegistered;

/** Every engine, in the order discovery lists them. */
export const ENGINES: Readonly<Record<EngineKind, EngineDescriptor>> = Object.fromEntries(REGISTRY.map(d => [d.kind, d])) as Record<EngineKind, EngineDescriptor>;

const LIST: readonly EngineDescriptor[] = REGISTRY;

/** Every engine's kind, in registry order (config's `ENGINE=PATH`, the architecture test). */
export const ENGINE_KINDS: readonly EngineKind[] = LIST.map(d => d.kind);

/** The kind of a server nobody has identified yet (any OpenAI-compatible server). */
export const UNKNOWN_ENGINE: EngineKind = ENGINES.openai.kind;

const SIGNATURES = LIST.flatMap(d => (d.logSignature ? [{kind: d.kind, signature: d.logSignature}] : []));

/** Which engine wrote a log, from its first lines (sanitized), by every engine's log signature; undefined when none. */
export function detectEngine(lines: readonly string[]): EngineKind | undefined {
	return detectWith(SIGNATURES, lines);
}

/** The descriptor of `kind`; an unknown string (an old config, a probe target) is OpenAI-compatible. */
export function engineOf(kind: EngineKind | string | undefined): EngineDescriptor {
	return (kind !== undefined && Object.hasOwn(ENGINES, kind) ? ENGINES[kind as EngineKind] : undefined) ?? ENGINES[UNKNOWN_ENGINE];
}

export const ENGINE_LABELS: Readonly<Record<EngineKind, string>> = Object.fromEntries(LIST.map(d => [d.kind, d.label])) as Record<EngineKind, string>;

/** Ports discovery scans by default: every engine's, once each, in registry order. */
export const DEFAULT_PORTS: readonly number[] = [...new Set(LIST.flatMap(d => d.defaultPorts))];

/**
 * Every engine's tensor quant types (Ollama's MLX INT4/INT8/MXFP8), upper case → [elements per
 * group, bytes per group], for model/bytes-per-token.ts; the first engine in registry order wins.
 */
export const TENSOR_QUANTS: ReadonlyMap<string, readonly [number, number]> = new Map(
	[...LIST].reverse().flatMap(d => Object.entries(d.tensorQuants ?? {})),
);

/** Every engine's blocks of per-request answers (llama.cpp `timings`, LM Studio `stats`, vLLM `metrics`), in registry order, for the probe. */
export const ANSWER_BLOCKS: readonly AnswerBlock[] = LIST.flatMap(d => d.answerBlocks ?? []);

/** Every engine's stamps on per-request answers (llama.cpp's build in `system_fingerprint`), in registry order, for the probe. */
export const ANSWER_STAMPS: readonly AnswerStamp[] = LIST.flatMap(d => d.answerStamps ?? []);

/** Every engine's header counting target passes (lithos-metal's Decode-Steps), in registry order. */
export const PASSES_HEADERS: readonly PassesHeader[] = LIST.flatMap(d => (d.passesHeader ? [d.passesHeader] : []));

/** The target passes the first engine's passes header of an answer says, with that header's label. */
export function passesFromHeaders(headers: {get(name: string): string | null}): {readonly passes: number; readonly label: string} | undefined {
	for (const h of PASSES_HEADERS) {
		const passes = h.read(headers);
		if (passes !== undefined) return {passes, label: h.label};
	}
	return undefined;
}

/** The answer block whose field a probe's counts came from (`counts.source`), if an engine's. */
export function answerBlockOf(source: string | undefined): AnswerBlock | undefined {
	return source === undefined ? undefined : ANSWER_BLOCKS.find(b => b.field === source);
}

const RULES = LIST.flatMap(d => (d.fingerprint ? [{kind: d.kind, rule: d.fingerprint}] : [])).sort((a, b) => a.rule.rank - b.rule.rank);
const MARKERS = RULES.flatMap(r => (r.rule.marker ? [r.rule.marker] : []));

/** Paths discovery asks of every candidate server: every engine's fingerprint paths, once each. */
export const FINGERPRINT_PATHS: readonly string[] = [...new Set(RULES.flatMap(r => r.rule.paths))];

/**
 * The engine that answers, from the answers to FINGERPRINT_PATHS: the first engine's rule (by rank)
 * that says yes; undefined when a rule must wait for a path that did not answer, or none says yes.
 */
export function identifyEngine(responses: Readonly<Record<string, FingerprintAnswer | undefined>>): Identity | undefined {
	const evidence = fingerprintEvidence(responses, FINGERPRINT_PATHS, MARKERS);
	for (const {kind, rule} of RULES) {
		const v = rule.identify(evidence);
		if (v === 'wait') return undefined;
		if (v !== undefined) return {engine: kind, ...v};
	}
	return undefined;
}

// ---- processes ----------------------------------------------------------------------------------

/** Process names discovery looks for (for the empty state). */
export const ENGINE_PROCESS_NAMES: readonly string[] = LIST.flatMap(d => d.process?.names ?? []);

/** Every engine's process rule, in registry order, catch-all folder rules (`matchLast`) at the end. */
export const ENGINE_PROCESS_RULES: readonly {readonly kind: EngineKind; readonly matches: (p: ProcessView) => boolean}[] = [
	...LIST.filter(d => d.process !== undefined && d.process.matchLast !== true),
	...LIST.filter(d => d.process?.matchLast === true),
].map(d => ({kind: d.kind, matches: d.process!.matches}));

const CANDIDATE = new RegExp([...new Set(LIST.flatMap(d => d.process?.candidates ?? []).map(r => r.source))].join('|') || '(?!)', 'i');

/** A process name whose command line is worth reading to decide whether it is an engine (every engine's `candidates`). */
export function isEngineCandidate(name: string): boolean {
	return CANDIDATE.test(name);
}

function base(p: string): string {
	const s = p.replace(/\\/g, '/');
	return s.slice(s.lastIndexOf('/') + 1);
}

const APP_BINARY = /^(.*?\.app\/Contents\/MacOS\/[^/]*?)(?:\s+-|$)/;

/** First word of a command line (the executable), basename only. */
function argv0(command: string): string {
	const t = command.trim();
	// macOS app paths contain spaces: `/Applications/LM Studio.app/Contents/MacOS/LM Studio --x`
	const app = APP_BINARY.exec(t);
	if (app) return base(app[1]!);
	return base(t.split(/\s+/)[0] ?? '');
}

/** One process as the process rules see it. */
export function processView(name: string, command: string): ProcessView {
	const n = base(name.trim()).replace(/\.exe$/i, '');
	const cmd = command.trim();
	const exe = (cmd === '' ? n : argv0(cmd)).replace(/\.exe$/i, '');
	const appPath = APP_BINARY.exec(cmd);
	const args = appPath ? cmd.slice(appPath[1]!.length).trim() : cmd.split(/\s+/).slice(1).join(' ');
	return {name: n, nameLower: n.toLowerCase(), exe, exeLower: exe.toLowerCase(), command: cmd, args};
}

/**
 * Recognise an inference engine process by name and command line: the first engine whose
 * descriptor's process rule matches (catch-all folder rules last). Returns the EngineKind or
 * undefined. Clients such as `ollama run` / `ollama ps` are not engines.
 */
export function engineProcessKind(name: string, command: string): EngineKind | undefined {
	const view = processView(name, command);
	for (const rule of ENGINE_PROCESS_RULES) if (rule.matches(view)) return rule.kind;
	return undefined;
}

// ---- logs ---------------------------------------------------------------------------------------

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

/** What a log nobody recognised is parsed as once DETECT_LINES have passed: llama.cpp's, the most common. */
const FALLBACK_PARSER: () => LineParser = ENGINES.llamacpp.logParser!;

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
			return inner?.engine ?? engine ?? UNKNOWN_ENGINE;
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
			inner = (guess && createKnown(guess)) || FALLBACK_PARSER();
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
