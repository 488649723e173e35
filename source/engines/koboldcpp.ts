/** KoboldCpp: llama.cpp underneath (its log lines are llama.cpp's); OpenAI-style model list. */
import {OPENAI_MODEL_LIST, OPENAI_POLL, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';
import {createLlamaCppParser} from './llamacpp.js';

export const koboldcpp: EngineDescriptor = {
	kind: 'koboldcpp',
	label: 'KoboldCpp',
	logParser: () => createLlamaCppParser(),
	logTimes: [],
	poll: OPENAI_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	defaultPorts: [5001],
	process: {names: ['koboldcpp']},
	modelBytes: {localDirs: true},
};
