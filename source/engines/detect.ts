/**
 * Which engine wrote a log, from a few of its lines: each engine's descriptor holds its
 * `logSignature` (weighted line tests); the evidence is added up over the lines. An engine whose
 * signature is `decisive` wins at that weight whatever else the log holds (an Ollama log carries
 * raw llama-server lines since Ollama 0.30; lithos-metal writes uvicorn lines too).
 */
import type {EngineKind} from '../types/events.js';
import type {LogSignature} from './descriptor.js';

const JOURNALD = /^\w{3} +\d+ \d{2}:\d{2}:\d{2} \S+ ([^[\s]+)\[\d+\]: /;

/** Given the first lines of an unknown log (sanitized) and every engine's signature, say which engine wrote it, or undefined. */
export function detectWith(signatures: readonly {readonly kind: EngineKind; readonly signature: LogSignature}[], lines: readonly string[]): EngineKind | undefined {
	const score = new Map<EngineKind, number>();
	const add = (k: EngineKind, w: number) => score.set(k, (score.get(k) ?? 0) + w);
	for (const raw of lines) {
		if (raw.length === 0 || raw.length > 8192) continue;
		let line = raw;
		const j = JOURNALD.exec(line);
		if (j) {
			for (const {kind, signature} of signatures) if (signature.journaldUnit?.test.test(j[1]!)) add(kind, signature.journaldUnit.weight);
			line = line.slice(j[0].length);
		}
		for (const {kind, signature} of signatures) for (const r of signature.rules) if (r.test(line)) add(kind, r.weight);
	}
	const decisive = signatures.filter(s => s.signature.decisive).sort((a, b) => a.signature.decisive!.rank - b.signature.decisive!.rank);
	for (const {kind, signature} of decisive) if ((score.get(kind) ?? 0) >= signature.decisive!.atLeast) return kind;
	let best: EngineKind | undefined;
	let bestScore = 0;
	for (const [k, v] of score) {
		if (v > bestScore) {
			best = k;
			bestScore = v;
		}
	}
	return best;
}
