/**
 * What the answers of one base URL say, shared by every engine's fingerprint rule (pure). Which
 * engine answers is decided from unambiguous markers (engines.md §8), never from "the port
 * answered": each descriptor's `fingerprint.identify` reads this evidence; the registry tries the
 * rules by `rank` (engines that imitate others first).
 */
import type {EngineKind} from '../types/events.js';
import {sanitize} from '../util/sanitize.js';
import {isRecord} from './descriptor.js';

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
	/** Any answer carried `Server: llama.cpp`. */
	readonly llamaHeader: boolean;
	/** llama-server `/props` (with default_generation_settings). */
	readonly llamaProps?: Record<string, unknown>;
	/** `/props` build_info of the form b<N>-<sha>. */
	readonly llamaBuild?: string;
	/** SGLang `/get_model_info` {"model_path": …}. */
	readonly sglangInfo: boolean;
	/** Some other engine's own marker is present (LocalAI's /version + /readyz rule needs its absence). */
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
}

export function ok(r: FingerprintAnswer | undefined): r is FingerprintAnswer {
	return r !== undefined && r.status >= 200 && r.status < 300;
}

export function parseJsonText(text: string | undefined): unknown {
	if (text === undefined) return undefined;
	const s = text.trim();
	if (!s.startsWith('{') && !s.startsWith('[')) return undefined;
	try {
		return JSON.parse(s) as unknown;
	} catch {
		return undefined;
	}
}

export function str(v: unknown): string | undefined {
	return typeof v === 'string' && v.trim() !== '' ? sanitize(v.trim(), 80) : undefined;
}

const BUILD_INFO = /^b\d+-[0-9a-f]+$/;

/** Build the shared evidence from the answers to `asked` paths. */
export function fingerprintEvidence(responses: Readonly<Record<string, FingerprintAnswer | undefined>>, asked: readonly string[]): FingerprintEvidence {
	const json = (path: string): unknown => {
		const r = responses[path];
		return ok(r) ? (r.json !== undefined ? r.json : parseJsonText(r.body)) : undefined;
	};
	const version = (path: string): string | undefined => {
		const j = json(path);
		return isRecord(j) ? str(j.version) : undefined;
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
	const props = (() => {
		const j = json('/props');
		return isRecord(j) && isRecord(j.default_generation_settings) ? j : undefined;
	})();
	const llamaBuild = props && typeof props.build_info === 'string' && BUILD_INFO.test(props.build_info) ? props.build_info : undefined;
	const llamaHeader = Object.values(responses).some((r) => r !== undefined && /^llama\.cpp\b/i.test(r.headers.server ?? ''));
	const info = json('/get_model_info');
	const sglangInfo = isRecord(info) && typeof info.model_path === 'string';
	const answered = (paths: readonly string[]) => paths.every((p) => responses[p] !== undefined);
	return {
		answer: (path) => responses[path],
		json,
		version,
		answered,
		all: answered(asked),
		models: list,
		modelIds: list?.map((m) => sanitize(String(m.id), 200)),
		ownedBy,
		llamaHeader,
		llamaProps: props,
		llamaBuild,
		sglangInfo,
		otherMarker: llamaHeader || llamaBuild !== undefined || sglangInfo || ['vllm', 'sglang', 'lithos-metal', 'llamacpp', 'llama-swap', 'omlx'].some(ownedBy),
	};
}
