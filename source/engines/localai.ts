/** LocalAI: no log parser; OpenAI-style model list and `/version`. */
import {OPENAI_MODEL_LIST, OPENAI_PROBE, OPENAI_VERSIONED_POLL, type EngineDescriptor} from './descriptor.js';

export const localai: EngineDescriptor = {
	kind: 'localai',
	label: 'LocalAI',
	logTimes: [],
	poll: OPENAI_VERSIONED_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	defaultPorts: [8080],
	process: {names: ['local-ai']},
	modelBytes: {localDirs: true},
};
