/**
 * llama.cpp's (and Ollama runner's) Metal line, built from its format string
 * (`"%s: recommendedMaxWorkingSetSize  = %8.2f MB\n"`, ggml-metal-device.m @ a8fab2c, MB = 10^6 bytes):
 * the engine's own statement of the GPU's wired-memory limit (model/wired-limit.ts).
 */
import {describe, expect, it} from 'vitest';
import {createLlamaCppParser} from '../../source/engines/llamacpp.js';
import {createOllamaParser} from '../../source/engines/ollama.js';
import {one} from '../helpers/engines.js';

describe('recommendedMaxWorkingSetSize', () => {
	it('both function names of the eras print it; %8.2f MB is 10^6 bytes', () => {
		expect(one(createLlamaCppParser(), 'ggml_metal_device_init: recommendedMaxWorkingSetSize  = 11453.25 MB')).toEqual([{type: 'gpu-limit', limitBytes: 11453250000}]);
		expect(one(createLlamaCppParser(), 'ggml_metal_init: recommendedMaxWorkingSetSize  = 17179.89 MB')).toEqual([{type: 'gpu-limit', limitBytes: 17179890000}]);
	});
	it('in Ollama\'s server log (its llama runner prints ggml\'s lines)', () => {
		expect(one(createOllamaParser(), 'ggml_metal_device_init: recommendedMaxWorkingSetSize  = 107520.00 MB')).toEqual([{type: 'gpu-limit', limitBytes: 107520000000}]);
	});
	it('an impossible size is counted, not a limit', () => {
		expect(one(createLlamaCppParser(), 'ggml_metal_device_init: recommendedMaxWorkingSetSize  = 99999999999.00 MB')).toEqual([{type: 'inconsistent', reason: expect.stringMatching(/recommendedMaxWorkingSetSize=99999999999.00 is beyond/)}]);
	});
});
