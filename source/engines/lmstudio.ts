/**
 * LM Studio: no log parser yet (its `lms log stream` format is issue 12 §2); REST v1 (≥ 0.4.0) and
 * v0 (≥ 0.3.6) model lists, and its own chat endpoint for the probe (`stats` in answers).
 */
import type {ModelInfo} from '../types/monitor.js';
import {CHAT, cleanModel, COMPLETIONS, isRecord, MAX_MODELS, OPENAI_MODEL_LIST, OPENAI_POLL, posInt, text, type EngineDescriptor} from './descriptor.js';

function lmStudioV0Items(j: unknown): Record<string, unknown>[] | undefined {
	if (!isRecord(j) || !Array.isArray(j.data)) return undefined;
	const items = (j.data as unknown[]).filter(isRecord);
	if (items.length === 0) return j.object === 'list' && (j.data as unknown[]).length === 0 ? [] : undefined;
	return items.some((m) => 'compatibility_type' in m || ('state' in m && 'max_context_length' in m)) ? items : undefined;
}

function lmStudioV1Items(j: unknown): Record<string, unknown>[] | undefined {
	if (!isRecord(j) || !Array.isArray(j.models)) return undefined;
	const items = (j.models as unknown[]).filter(isRecord);
	return items.length > 0 && items.some((m) => 'loaded_instances' in m && 'key' in m) ? items : undefined;
}

function sortLoaded(models: ModelInfo[]): ModelInfo[] {
	return [...models].sort((a, b) => Number(b.loaded === true) - Number(a.loaded === true)).slice(0, MAX_MODELS);
}

/** LM Studio `GET /api/v1/models` (≥ 0.4.0): loaded_instances carry the configured context. */
export function lmStudioV1Models(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.models as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.key) ?? text(m.id);
		if (!name) continue;
		const instances = Array.isArray(m.loaded_instances) ? m.loaded_instances.filter(isRecord) : [];
		const config = instances[0] && isRecord(instances[0].config) ? instances[0].config : {};
		const quant = isRecord(m.quantization) ? text(m.quantization.name, 32) : text(m.quantization, 32);
		out.push(cleanModel<ModelInfo>({
			name,
			format: text(m.format, 16),
			family: text(m.architecture, 64),
			parameterSize: text(m.params_string, 32),
			quantization: quant,
			modelBytes: posInt(m.size_bytes, 'size_bytes', 'bytes'),
			contextLength: posInt(config.context_length, 'context_length'),
			loaded: instances.length > 0,
		}));
	}
	return sortLoaded(out);
}

/** LM Studio `GET /api/v0/models` (≥ 0.3.6): state loaded / not-loaded. */
export function lmStudioV0Models(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.data)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.data as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.id);
		if (!name) continue;
		const state = text(m.state, 32);
		out.push(cleanModel<ModelInfo>({
			name,
			format: text(m.compatibility_type, 16),
			family: text(m.arch, 64),
			quantization: text(m.quantization, 32),
			// loaded_context_length where newer builds send it; max_context_length is the model's limit, not the loaded context.
			contextLength: posInt(m.loaded_context_length, 'loaded_context_length'),
			loaded: state === 'loaded' ? true : state === 'not-loaded' ? false : undefined,
		}));
	}
	return sortLoaded(out);
}

export const lmstudio: EngineDescriptor = {
	kind: 'lmstudio',
	label: 'LM Studio',
	logTimes: [],
	poll: {
		paths: ['/api/v1/models', '/api/v0/models'],
		fallback: OPENAI_POLL,
		read: (a) => ({models: lmStudioV1Models(a.json['/api/v1/models']) ?? lmStudioV0Models(a.json['/api/v0/models']), marker: {}}),
	},
	probe: [{protocol: 'openai-chat', path: '/api/v0/chat/completions'}, CHAT, COMPLETIONS],
	apiKeyEnv: ['LM_API_TOKEN'],
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	defaultPorts: [1234],
	process: {names: ['LM Studio']},
	modelBytes: {localDirs: true},
	// REST v0 (compatibility_type/state) or v1 (loaded_instances).
	fingerprint: {
		rank: 60,
		paths: ['/api/v0/models', '/api/v1/models', '/v1/models'],
		identify: (e) => {
			const v0 = lmStudioV0Items(e.json('/api/v0/models'));
			const v1 = lmStudioV1Items(e.json('/api/v1/models'));
			if (v0 === undefined && v1 === undefined) return undefined;
			return {models: e.modelIds ?? v0?.map((m) => String(m.id))};
		},
	},
};
