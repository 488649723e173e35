/**
 * The demo engine's simulated model: pure, deterministic for a given random source.
 *
 * A decode pass reads the model's weights once: it takes bytesPerToken / (bandwidth × efficiency)
 * seconds. With speculation a pass first drafts up to `draftMax` tokens with the MTP head (cheap),
 * then verifies them in one target pass that accepts a prefix of the drafts and yields one token of
 * its own on top. Verify passes reach a smaller share of the bandwidth than plain passes (a small
 * batch costs compute), as seed 000 measured. Nothing here touches time, files or the network.
 */

export type PromptKind = 'code' | 'prose' | 'repeat' | 'hex';
export const PROMPT_KINDS: readonly PromptKind[] = ['code', 'prose', 'repeat', 'hex'];

export type Runner = 'gguf' | 'mlx';

export interface DemoModelParams {
	/** Ollama model name (tag included). */
	readonly name: string;
	readonly runner: Runner;
	/** Bytes of weights one target pass reads (DESIGN §1 rules, equals the /api/show tensor sum). */
	readonly bytesPerToken: number;
	/** Simulated memory bandwidth, GB/s (already multiplied by the engine's speed factor). */
	readonly bandwidthGBs: number;
	/** Share of the bandwidth a verify (drafting) pass reaches. */
	readonly efficiency: number;
	/** Share of the bandwidth a plain (non-drafting) pass reaches. */
	readonly plainEfficiency: number;
	/** Most tokens drafted per pass. */
	readonly draftMax: number;
	/** Cost of drafting one token with the MTP head, ms (already divided by speed). */
	readonly draftMsPerToken: number;
	/** Prefill speed, tokens/s (already multiplied by speed). */
	readonly prefillTps: number;
	/** Time to load the model, ms (already divided by speed). */
	readonly loadMs: number;
	/** Share of the model on the CPU (GGUF only; 0 = all on the GPU). */
	readonly split: number;
	/** CPU memory bandwidth for the part on the CPU, GB/s (already multiplied by speed). */
	readonly cpuBandwidthGBs: number;
	/** Context length the model is loaded with. */
	readonly contextLength: number;
}

/** Target acceptance (accepted ÷ drafted) per prompt kind. */
export const TARGET_ACCEPTANCE: Readonly<Record<PromptKind, number>> = {
	repeat: 1,
	hex: 0.85,
	code: 0.75,
	prose: 0.63,
};

export type Rng = () => number;

/** mulberry32: small, fast, deterministic. */
export function createRng(seed: number): Rng {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** FNV-1a 32-bit hash of a string (seeds per request). */
export function hashString(text: string, seed = 0x811c9dc5): number {
	let h = seed >>> 0;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h >>> 0;
}

/** Classify a prompt: repetition, hexadecimal, code or prose. */
export function classifyPrompt(text: string): PromptKind {
	const t = text.toLowerCase();
	if (/\b(repeat|again|times|verbatim|copy)\b/.test(t)) return 'repeat';
	if (/\b(hex|hexadecimal|0x[0-9a-f]+|random bytes|sha256|uuid)\b/.test(t)) return 'hex';
	if (/\b(code|function|typescript|javascript|python|rust|class|refactor|bug|compile|implement|test)\b|[{};]|=>/.test(t)) return 'code';
	return 'prose';
}

/**
 * Per-position acceptance probability q such that, with prefix acceptance over `depth` drafts,
 * E[accepted] / depth = target. (q + q² + … + q^depth) / depth is increasing in q: bisection.
 */
export function positionProbability(target: number, depth: number): number {
	if (target >= 1) return 1;
	if (target <= 0 || depth <= 0) return 0;
	let lo = 0;
	let hi = 1;
	for (let i = 0; i < 50; i++) {
		const q = (lo + hi) / 2;
		let s = 0;
		let p = 1;
		for (let k = 0; k < depth; k++) {
			p *= q;
			s += p;
		}
		if (s / depth < target) lo = q;
		else hi = q;
	}
	return (lo + hi) / 2;
}

/**
 * Long-run acceptance (accepted ÷ drafted) of the MLX depth controller (depth = last accepted + 1,
 * at most draftMax) for a per-position probability q: the stationary distribution of the Markov
 * chain over "accepted in the last pass".
 */
export function adaptiveAcceptance(q: number, draftMax: number): number {
	if (draftMax <= 0) return 0;
	let dist = new Array<number>(draftMax + 1).fill(0);
	dist[1] = 1;
	let drafted = 0;
	let accepted = 0;
	for (let iter = 0; iter < 200; iter++) {
		const next = new Array<number>(draftMax + 1).fill(0);
		drafted = 0;
		accepted = 0;
		for (let last = 0; last <= draftMax; last++) {
			const w = dist[last] ?? 0;
			if (w === 0) continue;
			const d = Math.min(draftMax, last + 1);
			// P(accept exactly a of d) = q^a (1 − q) for a < d, q^d for a = d.
			for (let a = 0; a <= d; a++) {
				const p = a < d ? q ** a * (1 - q) : q ** d;
				next[a] = (next[a] ?? 0) + w * p;
				accepted += w * p * a;
			}
			drafted += w * d;
		}
		dist = next;
	}
	return drafted > 0 ? accepted / drafted : 0;
}

/** q such that the MLX depth controller's long-run acceptance equals the target (bisection). */
const adaptiveCache = new Map<string, number>();

export function adaptiveProbability(target: number, draftMax: number): number {
	if (target >= 1) return 1;
	if (target <= 0) return 0;
	const key = `${target}/${draftMax}`;
	const hit = adaptiveCache.get(key);
	if (hit !== undefined) return hit;
	const q = solveAdaptive(target, draftMax);
	adaptiveCache.set(key, q);
	return q;
}

function solveAdaptive(target: number, draftMax: number): number {
	let lo = 0;
	let hi = 1;
	for (let i = 0; i < 40; i++) {
		const q = (lo + hi) / 2;
		if (adaptiveAcceptance(q, draftMax) < target) lo = q;
		else hi = q;
	}
	return (lo + hi) / 2;
}

export interface SimPass {
	/** Tokens drafted before this pass (0 = plain pass). */
	readonly drafted: number;
	/** Drafted tokens the pass accepted (a prefix). */
	readonly accepted: number;
	/** Tokens the pass yielded: 1 + accepted. */
	readonly tokens: number;
	/** Wall time of the pass (draft + verify), ms. */
	readonly ms: number;
}

export interface SimResult {
	readonly runner: Runner;
	readonly kind: PromptKind;
	/** Tokens generated, as the engine counts them (llama.cpp n_gen, Ollama eval_count). */
	readonly nGen: number;
	/** Tokens produced by decode passes: llama.cpp (b10424+) n_gen − 1 (the first came from the prompt pass); MLX n_gen. */
	readonly decoded: number;
	readonly passes: readonly SimPass[];
	/** All passes (MLX `iterations`). */
	readonly iterations: number;
	/** Passes that drafted (llama.cpp's n_draft_verif_steps). */
	readonly draftingPasses: number;
	readonly plainPasses: number;
	readonly drafted: number;
	readonly accepted: number;
	/** accepted ÷ drafted; undefined when nothing was drafted. */
	readonly acceptance: number | undefined;
	/** llama.cpp's `mean len`: 1 + accepted ÷ drafting passes (skips the plain passes). */
	readonly meanLen: number | undefined;
	/** DESIGN §1 counts rule: decoded ÷ passes. */
	readonly tokensPerPass: number | undefined;
	/** Per draft position: share of drafting passes that accepted at least position i + 1. */
	readonly accPerPos: readonly number[];
	/** Largest draft depth used. */
	readonly maxDraft: number;
	/** Sum of pass times, ms (llama.cpp predicted_ms; Ollama eval_duration). */
	readonly decodeMs: number;
	/** Time of the plain pass and the verify pass for the full draft, ms (for reference). */
	readonly plainPassMs: number;
	readonly verifyPassMs: number;
}

/**
 * Speeds fall with context depth (issue 29: the agent's prompts are long), as attention over what
 * came before grows: a prompt token at position x costs 1 + x / PREFILL_DEPTH_TOKENS of one at the
 * start; a decode pass at context d costs 1 + d / DECODE_DEPTH_TOKENS of one at the start.
 */
export const PREFILL_DEPTH_TOKENS = 16_384;
export const DECODE_DEPTH_TOKENS = 32_768;

/** The time of one target pass reading the whole model at context `depth` (tokens), ms. */
export function passMs(params: DemoModelParams, drafted: number, depth = 0): number {
	const eff = drafted > 0 ? params.efficiency : params.plainEfficiency;
	const gpuBytes = params.bytesPerToken * (1 - params.split);
	const cpuBytes = params.bytesPerToken * params.split;
	const gpuMs = (gpuBytes / (params.bandwidthGBs * 1e9 * eff)) * 1000;
	const cpuMs = cpuBytes > 0 ? (cpuBytes / (params.cpuBandwidthGBs * 1e9 * eff)) * 1000 : 0;
	return (gpuMs + cpuMs) * (1 + Math.max(0, depth) / DECODE_DEPTH_TOKENS) + drafted * params.draftMsPerToken;
}

/**
 * Simulate the decode of one request of `nTokens` generated tokens.
 * GGUF (llama-server): the first token comes out of the prompt pass; each decode pass drafts
 * min(draftMax, remaining − 1) tokens and falls back to a plain pass when that is under 2.
 * MLX: every token comes out of an iteration; the draft depth adapts (one deeper than the last
 * pass accepted, at most draftMax), and a depth-0 round is a plain pass. Each pass at the request's
 * context (`contextTokens`, its prompt) costs more the deeper it is (DECODE_DEPTH_TOKENS).
 */
export function simulateRequest(params: DemoModelParams, kind: PromptKind, nTokens: number, rng: Rng, contextTokens = 0): SimResult {
	const nGen = Math.max(1, Math.floor(nTokens));
	const decoded = params.runner === 'gguf' ? nGen - 1 : nGen;
	const q = params.runner === 'gguf' ? positionProbability(TARGET_ACCEPTANCE[kind], params.draftMax) : adaptiveProbability(TARGET_ACCEPTANCE[kind], params.draftMax);
	const passes: SimPass[] = [];
	const accCount = new Array<number>(params.draftMax).fill(0);
	let produced = 0;
	let drafted = 0;
	let accepted = 0;
	let draftingPasses = 0;
	let maxDraft = 0;
	let decodeMs = 0;
	let lastAccepted = 1;
	const context = contextTokens;
	while (produced < decoded) {
		const remaining = decoded - produced;
		let depth: number;
		if (params.draftMax <= 0) depth = 0;
		else if (params.runner === 'gguf') {
			depth = Math.min(params.draftMax, remaining - 1);
			if (depth < 2) depth = 0;
		} else {
			depth = Math.min(params.draftMax, lastAccepted + 1, remaining - 1);
			if (depth < 1) depth = 0;
		}
		let acc = 0;
		while (acc < depth && (q >= 1 || rng() < q)) acc++;
		const ms = passMs(params, depth, context);
		passes.push({drafted: depth, accepted: acc, tokens: 1 + acc, ms});
		if (depth > 0) {
			draftingPasses++;
			for (let i = 0; i < acc; i++) accCount[i] = (accCount[i] ?? 0) + 1;
		}
		drafted += depth;
		accepted += acc;
		produced += 1 + acc;
		decodeMs += ms;
		maxDraft = Math.max(maxDraft, depth);
		lastAccepted = acc;
	}
	const iterations = passes.length;
	return {
		runner: params.runner,
		kind,
		nGen,
		decoded,
		passes,
		iterations,
		draftingPasses,
		plainPasses: iterations - draftingPasses,
		drafted,
		accepted,
		acceptance: drafted > 0 ? accepted / drafted : undefined,
		meanLen: draftingPasses > 0 ? 1 + accepted / draftingPasses : undefined,
		tokensPerPass: iterations > 0 ? decoded / iterations : undefined,
		accPerPos: draftingPasses > 0 ? accCount.map((c) => c / draftingPasses) : [],
		maxDraft,
		decodeMs,
		plainPassMs: passMs(params, 0),
		verifyPassMs: passMs(params, params.draftMax),
	};
}

/**
 * Prefill time of `processed` uncached prompt tokens after `cached` reused ones, ms (at least one
 * token is always processed): each at its position's cost (PREFILL_DEPTH_TOKENS).
 */
export function prefillMs(params: DemoModelParams, processed: number, cached = 0): number {
	const n = Math.max(1, processed);
	const c = Math.max(0, cached);
	const work = n + ((c + n) ** 2 - c ** 2) / (2 * PREFILL_DEPTH_TOKENS);
	return (work / params.prefillTps) * 1000;
}

/** The demo's tokenizer: roughly four characters per token. */
export function tokenize(text: string): string[] {
	return text.match(/[\s\S]{1,4}/g) ?? [];
}

/** Length of the common prefix of two token lists. */
export function commonPrefix(a: readonly string[], b: readonly string[]): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a[i] === b[i]) i++;
	return i;
}

const PROSE = (
	'the memory of a machine is read once for every pass and the weights move through the cache while ' +
	'a small head drafts the next words so that one pass can accept several of them at once when the text ' +
	'is easy to guess and only one when it is not which is why the rate you feel depends on what you ask'
).split(' ');
const CODE = [
	'const', ' x', ' =', ' await', ' fetch', '(url', ');', '\n', 'if', ' (!', 'res', '.ok', ')', ' throw', ' new', ' Error',
	'(', '`', 'HTTP', ' ${', 'res', '.status', '}`', ');', '\n', 'return', ' res', '.json', '();', '\n', 'function',
	' parse', '(line', ':', ' string', ')', ' {', '\n', '\t', 'const', ' m', ' =', ' RE', '.exec', '(line', ');', '\n', '}',
];
const REPEAT = 'The quick brown fox jumps over the lazy dog.\n'.match(/\S+\s*/g) ?? ['fox '];
const HEX = '0123456789abcdef';

/** The text of generated token `i` for a prompt kind (a small built-in vocabulary per kind). */
export function tokenText(kind: PromptKind, i: number, rng: Rng): string {
	switch (kind) {
		case 'repeat':
			return REPEAT[i % REPEAT.length] ?? ' ';
		case 'hex': {
			const a = HEX[Math.floor(rng() * 16)] ?? '0';
			const b = HEX[Math.floor(rng() * 16)] ?? '0';
			return (i % 16 === 15 ? '\n' : '') + a + b;
		}
		case 'code':
			return CODE[Math.floor(rng() * CODE.length)] ?? ' ';
		case 'prose':
		default: {
			const w = PROSE[Math.floor(rng() * PROSE.length)] ?? 'the';
			return (i === 0 ? '' : ' ') + (i === 0 ? w.charAt(0).toUpperCase() + w.slice(1) : w);
		}
	}
}
