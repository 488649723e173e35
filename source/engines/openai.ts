/**
 * Any OpenAI-compatible server infertop does not know by name (Jan 1337, TabbyAPI 5000…): the
 * model list and the probe, nothing engine-specific.
 */
import {OPENAI_MODEL_LIST, OPENAI_POLL, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		openai: true;
	}
}

export const openai: EngineDescriptor<'openai'> = {
	kind: 'openai',
	label: 'OpenAI-compatible',
	logTimes: [],
	poll: OPENAI_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	// Jan 1337, TabbyAPI 5000, llama-server's planned new default 9931.
	defaultPorts: [1337, 5000, 9931],
	modelBytes: {localDirs: true},
	// Only "none of the above" with a valid `/v1/models` list, once every path answered.
	fingerprint: {rank: 1000, paths: ['/v1/models'], identify: (e) => (e.models === undefined ? undefined : e.all ? {models: e.modelIds} : 'wait')},
};
