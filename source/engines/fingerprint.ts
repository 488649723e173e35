/**
 * What the answers of one base URL say, shared by every engine's fingerprint rule (pure). Which
 * engine answers is decided from unambiguous markers (engines.md §8), never from "the port
 * answered": each descriptor's `fingerprint.identify` reads this evidence; the registry tries the
 * rules by `rank` (engines that imitate others first).
 */
import type {EngineKind} from '../types/events.js';
import {sanitize} from '../util/sanitize.js';
import {isRecord, parseJsonText, text} from './answers.js';

/** One HTTP answer, any status. */
export interface FingerprintAnswer {
	readonly status: number;
	readonly headers: Readonly<Record<string, string>>;
	readonly body: string;
	/** A long list read streaming: the document with its list cut to the first items (the body is only its start). */
	readonly json?: unknown;
}

export interface Identity {
	readonly engine: EngineKind;
	readonly version?: string;
	/** Model ids the server listed, where it lists them. */
	readonly models?: readonly string[];
}

export interface FingerprintEvidence {
	/** The answer of `path` (any status), undefined = no answer (error or timeout). */
	answer(path: string): FingerprintAnswer | undefined;
	/** Parsed JSON of a 2xx answer of `path`. */
	json(path: string): unknown;
	/** `version` string of the 2xx JSON of `path`. */
	version(path: string): string | undefined;
	/** Every one of `paths` answered (any status). */
	answered(paths: readonly string[]): boolean;
	/** Every path asked answered: decisions that rest on a marker being absent need this. */
	readonly all: boolean;
	/** `/v1/models` `data` when it is a valid OpenAI model list. */
	readonly models?: readonly Record<string, unknown>[];
	readonly modelIds?: string[];
	ownedBy(owner: string): boolean;
	/** Some answer's `Server` header matches. */
	serverHeader(test: RegExp): boolean;
	/** Some engine's own marker (its rule's `marker`) is present: LocalAI's /version + /readyz rule needs its absence. */
	readonly otherMarker: boolean;
}

/** What a descriptor's rule answers: this engine (with what it learned), `wait` (a needed path did not answer), or not this engine. */
export type FingerprintVerdict = Omit<Identity, 'engine'> | 'wait' | undefined;

export interface FingerprintRule {
	/** Lower first. */
	readonly rank: number;
	/** GET paths (side-effect free) whose answers this rule reads; discovery asks the union of all rules'. */
	readonly paths: readonly string[];
	readonly identify: (e: FingerprintEvidence) => FingerprintVerdict;
	/** Its own unambiguous marker in the answers (an `owned_by` of its own, its header or document): what `otherMarker` looks for. */
	readonly marker?: (e: FingerprintEvidence) => boolean;
}

export function ok(r: FingerprintAnswer | undefined): r is FingerprintAnswer {
	return r !== undefined && r.status >= 200 && r.status < 300;
}

/**
 * Build the shared evidence from the answers to `asked` paths; `markers` are every engine's own
 * marker test (the registry passes them), for `otherMarker`.
 */
export function fingerprintEvidence(
	responses: Readonly<Record<string, FingerprintAnswer | undefined>>,
	asked: readonly string[],
	markers: readonly ((e: FingerprintEvidence) => boolean)[],
): FingerprintEvidence {
	const json = (path: string): unknown => {
		const r = responses[path];
		return ok(r) ? (r.json !== undefined ? r.json : parseJsonText(r.body)) : undefined;
	};
	const version = (path: string): string | undefined => {
		const j = json(path);
		return isRecord(j) ? text(j.version, 80) : undefined;
	};
	const list = (() => {
		const j = json('/v1/models');
		if (!isRecord(j) || !Array.isArray(j.data)) return undefined;
		const items = j.data as unknown[];
		if (!items.every((m) => isRecord(m) && typeof m.id === 'string')) return undefined;
		if (j.object !== 'list' && !items.some((m) => isRecord(m) && m.object === 'model')) return undefined;
		return items as Record<string, unknown>[];
	})();
	const ownedBy = (owner: string) => list !== undefined && list.length > 0 && list.some((m) => m.owned_by === owner);
	const serverHeader = (test: RegExp) => Object.values(responses).some((r) => r !== undefined && test.test(r.headers.server ?? ''));
	const answered = (paths: readonly string[]) => paths.every((p) => responses[p] !== undefined);
	let other: boolean | undefined;
	const evidence: FingerprintEvidence = {
		answer: (path) => responses[path],
		json,
		version,
		answered,
		all: answered(asked),
		models: list,
		modelIds: list?.map((m) => sanitize(String(m.id), 200)),
		ownedBy,
		serverHeader,
		get otherMarker() {
			return (other ??= markers.some((m) => m(evidence)));
		},
	};
	return evidence;
}
