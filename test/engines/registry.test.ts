/** The engine registry: one descriptor per kind, and what discovery, pollers, the probe and derive read from it. */
import {describe, expect, it} from 'vitest';
import {DEFAULT_PORTS, ENGINE_KINDS, ENGINE_LABELS, ENGINE_PROCESS_NAMES, ENGINES, engineName, engineOf, FINGERPRINT_PATHS, identifyEngine, parserEngine} from '../../source/engines/index.js';
import {protocolPlan} from '../../source/probe/protocols.js';

describe('engine registry', () => {
	it('has exactly one descriptor per engine kind, keyed by its own kind', () => {
		expect(Object.keys(ENGINES).sort()).toEqual([...ENGINE_KINDS].sort());
		for (const k of ENGINE_KINDS) expect(ENGINES[k].kind).toBe(k);
		expect(ENGINE_LABELS.lmstudio).toBe('LM Studio');
		expect(ENGINE_LABELS.ollama).toBe('Ollama');
	});

	it('an unknown name is OpenAI-compatible', () => {
		expect(engineOf('no-such-engine').kind).toBe('openai');
		expect(engineOf(undefined).kind).toBe('openai');
		expect(engineOf('__proto__').kind).toBe('openai');
	});

	it('the demo is engine ollama, marked demo where it is shown', () => {
		expect(engineName({engine: 'ollama', demo: true})).toBe('ollama demo');
		expect(engineName({engine: 'ollama'})).toBe('ollama');
		expect((ENGINE_KINDS as readonly string[]).includes('demo-ollama')).toBe(false);
	});

	it('log parsers: each engine its own (LM Studio: lms log stream), llama-swap and KoboldCpp llama.cpp\'s, none for LocalAI, OpenAI', () => {
		expect(ENGINE_KINDS.map((k) => [k, parserEngine(k) ?? null])).toEqual([
			['ollama', 'ollama'], ['llamacpp', 'llamacpp'], ['mlxlm', 'mlxlm'], ['lithos', 'lithos'], ['vllm', 'vllm'], ['sglang', 'sglang'],
			['lmstudio', 'lmstudio'], ['llamaswap', 'llamacpp'], ['koboldcpp', 'llamacpp'], ['localai', null], ['omlx', 'omlx'], ['openai', null],
		]);
	});

	it('memory model: unified only for the Apple-silicon engines', () => {
		expect(ENGINE_KINDS.filter((k) => ENGINES[k].unifiedMemory)).toEqual(['mlxlm', 'lithos', 'omlx']);
	});

	it('probe plans come from the descriptors', () => {
		expect(protocolPlan('ollama')).toEqual([{protocol: 'ollama', path: '/api/generate'}, {protocol: 'openai-chat', path: '/v1/chat/completions'}]);
		expect(protocolPlan('lmstudio').map((p) => p.path)).toEqual(['/api/v0/chat/completions', '/v1/chat/completions', '/v1/completions']);
		expect(protocolPlan('vllm').map((p) => p.protocol)).toEqual(['openai-chat', 'openai-completions', 'ollama']);
		expect(protocolPlan(undefined)).toEqual(protocolPlan('openai'));
	});

	it('ports, process names and fingerprint paths are the union of the descriptors\'', () => {
		expect([...DEFAULT_PORTS].sort((a, b) => a - b)).toEqual([1234, 1337, 5000, 5001, 8000, 8080, 9931, 11434, 30000]);
		expect(ENGINE_PROCESS_NAMES).toContain('llama-server');
		expect(ENGINE_PROCESS_NAMES).toContain('LM Studio');
		expect([...FINGERPRINT_PATHS].sort()).toEqual(['/', '/.well-known/localai.json', '/api/extra/version', '/api/v0/models', '/api/v1/models', '/api/version', '/get_model_info', '/health', '/props', '/readyz', '/running', '/v1/models', '/version']);
		const ranks = ENGINE_KINDS.map((k) => ENGINES[k].fingerprint?.rank).filter((r) => r !== undefined);
		expect(new Set(ranks).size).toBe(ranks.length);
	});

	it('a poll plan reads its answers without I/O (Ollama /api/ps + /api/version)', () => {
		const read = ENGINES.ollama.poll.read({json: {
			'/api/ps': {models: [{name: 'qwen3:8b', size: 100, size_vram: 100, details: {format: 'gguf'}}]},
			'/api/version': {version: '0.30.10'},
		}});
		expect(read.version).toBe('0.30.10');
		expect(read.marker).toEqual({version: '0.30.10'});
		expect(read.models).toEqual([{name: 'qwen3:8b', sizeBytes: 100, sizeVramBytes: 100, processor: '100% GPU', gpuResidency: 1, format: 'gguf', runner: 'gguf', loaded: true}]);
	});

	it('identification tries the rules by rank: LocalAI answering Ollama routes is LocalAI', () => {
		const a = (body: string, status = 200) => ({status, headers: {}, body});
		const all = Object.fromEntries(FINGERPRINT_PATHS.map((p) => [p, a('', 404)]));
		expect(identifyEngine({...all, '/': a('Ollama is running'), '/api/version': a('{"version":"0.33.0"}')})).toEqual({engine: 'ollama', version: '0.33.0'});
		expect(identifyEngine({...all, '/': a('Ollama is running'), '/.well-known/localai.json': a('{"version":"v3.1.0"}')})?.engine).toBe('localai');
		// Ollama's marker with LocalAI's paths unanswered: not decided yet.
		const {'/readyz': _r, ...partial} = all;
		expect(identifyEngine({...partial, '/': a('Ollama is running')})).toBeUndefined();
	});
});
