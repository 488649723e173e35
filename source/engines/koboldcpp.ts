/** KoboldCpp: llama.cpp underneath (its log lines are llama.cpp's); OpenAI-style model list. */
import {isRecord, PYTHON_HOST, text} from './answers.js';
import {OPENAI_MODEL_LIST, OPENAI_POLL, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';
import {createLlamaCppParser} from './llamacpp.js';

declare module '../types/events.js' {
	interface EngineKinds {
		koboldcpp: true;
	}
}

export const koboldcpp: EngineDescriptor<'koboldcpp'> = {
	kind: 'koboldcpp',
	label: 'KoboldCpp',
	logParser: () => createLlamaCppParser(),
	logTimes: [],
	poll: OPENAI_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	oneModel: true,
	defaultPorts: [5001],
	process: {names: ['koboldcpp'], candidates: [PYTHON_HOST, /kobold/i], matches: ({exe, command}) => /koboldcpp/i.test(exe) || /(^|[/\s])koboldcpp(\.py)?\b/i.test(command)},
	modelBytes: {localDirs: true},
	// /api/extra/version {"result":"KoboldCpp","version":…}.
	fingerprint: {
		rank: 20,
		paths: ['/api/extra/version', '/v1/models'],
		identify: (e) => {
			const k = e.json('/api/extra/version');
			return isRecord(k) && k.result === 'KoboldCpp' ? {version: text(k.version, 80), models: e.modelIds} : undefined;
		},
	},
};
