/**
 * Which model a request is of (DESIGN §1 Attribution, issue 11 item 1). Pure. A request belongs to
 * a model only on evidence, strongest first: the log names it; it is the only model loaded (or the
 * engine serves one model per server); the runner the log's load lines tie it to is the only
 * listed model of that runner; the model whose keep-alive (`/api/ps` `expires_at`) moved when it
 * ended; a probe whose counts match it. Without evidence it is `model unknown`.
 */
import type {Attribution, ModelInfo, RequestRecord} from '../types/state.js';

/** The label a request without evidence is counted under (server totals, metrics). */
export const UNKNOWN_MODEL = 'unknown';

/** `qwen3` names `qwen3:latest`; `org/qwen3` names `qwen3`. */
export const sameModel = (requestModel: string, name: string): boolean =>
	requestModel === name || name.startsWith(`${requestModel}:`) || requestModel.endsWith(`/${name}`);

const isPath = (name: string): boolean => name.includes('/') || name.includes('\\');

/**
 * The evidence the request itself and the models listed now give. (An engine that serves one model
 * per server, with no model named yet, is handled by derive: its requests are of the server's model.)
 */
export function attribute(r: Pick<RequestRecord, 'model' | 'runner' | 'attribution'>, models: readonly ModelInfo[]): Attribution | undefined {
	if (r.attribution) return r.attribution;
	if (r.model !== undefined) {
		const listed = models.find(m => sameModel(r.model!, m.name));
		if (listed) return {model: listed.name, by: 'log'};
		// A model name (not a blob path) the log gives is evidence even when nothing lists it.
		if (!isPath(r.model)) return {model: r.model, by: 'log'};
	}
	const only = models.length === 1 ? models[0]! : undefined;
	if (only && (r.runner === undefined || only.runner === undefined || only.runner === r.runner)) return {model: only.name, by: 'only model'};
	if (r.runner !== undefined) {
		const ofRunner = models.filter(m => m.runner === r.runner);
		if (ofRunner.length === 1) return {model: ofRunner[0]!.name, by: 'runner'};
	}
	return undefined;
}

/**
 * Models whose keep-alive moved between two `/api/ps` answers (Ollama resets `expires_at` when a
 * request of that model finishes).
 */
export function keepAliveMoved(before: readonly ModelInfo[], after: readonly ModelInfo[]): string[] {
	const prev = new Map(before.map(m => [m.name, m.expiresAt]));
	return after.filter(m => m.expiresAt !== undefined && prev.has(m.name) && prev.get(m.name) !== m.expiresAt).map(m => m.name);
}

/**
 * Attribute the unattributed finished requests of (since, until] by the keep-alive evidence: when
 * exactly one model's keep-alive moved that the requests already attributed in that span do not
 * account for, the unattributed ones are of it. Returns the records to replace (index → record).
 */
export function attributeByKeepAlive(
	requests: readonly RequestRecord[],
	moved: readonly string[],
	since: number,
	until: number,
): Map<number, RequestRecord> {
	const out = new Map<number, RequestRecord>();
	if (moved.length === 0) return out;
	const span: number[] = [];
	const accounted = new Set<string>();
	requests.forEach((r, i) => {
		if (!r.done || r.earlier || r.lastSeen <= since || r.lastSeen > until) return;
		if (r.attribution) accounted.add(r.attribution.model);
		else span.push(i);
	});
	const left = moved.filter(m => !accounted.has(m));
	if (span.length === 0 || left.length !== 1) return out;
	for (const i of span) out.set(i, {...requests[i]!, attribution: {model: left[0]!, by: 'keep-alive'}});
	return out;
}
