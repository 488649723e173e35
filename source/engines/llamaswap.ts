/** llama-swap: a proxy in front of llama-server processes; it passes their log lines through. */
import type {ModelInfo} from '../types/state.js';
import {clean, isRecord, MAX_MODELS, openAiModels, text} from './answers.js';
import {OPENAI_MODEL_LIST, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';
import {createLlamaCppParser} from './llamacpp.js';

declare module '../types/events.js' {
	interface EngineKinds {
		llamaswap: true;
	}
}

/** llama-swap `GET /running` → the models it has running. */
export function llamaSwapRunning(body: unknown): ModelInfo[] | undefined {
	if (!isRecord(body) || !Array.isArray(body.running)) return undefined;
	const out: ModelInfo[] = [];
	for (const m of body.running as unknown[]) {
		if (!isRecord(m)) continue;
		const name = text(m.model) ?? text(m.name);
		if (!name) continue;
		const state = text(m.state, 32);
		out.push(clean<ModelInfo>({name, loaded: state === undefined ? undefined : state === 'ready'}));
	}
	return out.slice(0, MAX_MODELS);
}

export const llamaswap: EngineDescriptor<'llamaswap'> = {
	kind: 'llamaswap',
	label: 'llama-swap',
	logParser: () => createLlamaCppParser(),
	logTimes: [],
	poll: {
		paths: ['/running', '/v1/models'],
		read: (a) => {
			const run = llamaSwapRunning(a.json['/running']);
			const listed = openAiModels(a.json['/v1/models']);
			// Configured models not running are listed as not loaded.
			const merged = run && listed ? [...run, ...listed.filter((m) => !run.some((r) => r.name === m.name)).map((m) => ({...m, loaded: false}))] : run ?? listed;
			return {models: merged?.slice(0, MAX_MODELS), marker: {}};
		},
	},
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	defaultPorts: [8080],
	process: {names: ['llama-swap'], candidates: [/llama/i], matches: ({nameLower, exeLower}) => exeLower === 'llama-swap' || nameLower === 'llama-swap'},
	modelBytes: {localDirs: true, fileSizeFromModels: true},
	// owned_by "llama-swap" or GET /running {"running":[…]}.
	fingerprint: {
		rank: 40,
		paths: ['/running', '/v1/models'],
		marker: (e) => e.ownedBy('llama-swap'),
		identify: (e) => {
			const running = e.json('/running');
			return e.ownedBy('llama-swap') || (isRecord(running) && Array.isArray(running.running)) ? {models: e.modelIds} : undefined;
		},
	},
};
