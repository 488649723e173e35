/** LocalAI: no log parser; OpenAI-style model list and `/version`. */
import {isRecord} from './answers.js';
import {ok} from './fingerprint.js';
import {OPENAI_MODEL_LIST, OPENAI_PROBE, OPENAI_VERSIONED_POLL, type EngineDescriptor} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		localai: true;
	}
}

export const localai: EngineDescriptor<'localai'> = {
	kind: 'localai',
	label: 'LocalAI',
	logTimes: [],
	poll: OPENAI_VERSIONED_POLL,
	probe: OPENAI_PROBE,
	modelList: OPENAI_MODEL_LIST,
	unifiedMemory: false,
	defaultPorts: [8080],
	process: {names: ['local-ai'], candidates: [/local-ai/i], matches: ({nameLower, exeLower}) => exeLower === 'local-ai' || nameLower === 'local-ai'},
	modelBytes: {localDirs: true},
	// Its own well-known document, or /version + /readyz with no other engine's marker. (The document
	// carries `version`/`endpoints`; LM Studio answers unknown paths 200 {"error":…}.)
	fingerprint: {
		rank: 10,
		paths: ['/.well-known/localai.json', '/version', '/readyz', '/v1/models'],
		identify: (e) => {
			const doc = e.json('/.well-known/localai.json');
			const isDoc = isRecord(doc) && !('error' in doc) && (typeof doc.version === 'string' || isRecord(doc.endpoints));
			if (isDoc || (e.version('/version') !== undefined && ok(e.answer('/readyz')) && !e.otherMarker)) return {version: e.version('/version'), models: e.modelIds};
			return undefined;
		},
	},
};
