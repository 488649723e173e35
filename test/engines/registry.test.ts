/** The engine registry: one descriptor per kind, and what discovery, pollers, the probe and derive read from it. */
import {describe, expect, it} from 'vitest';
import {DEFAULT_PORTS, ENGINE_KINDS, ENGINE_LABELS, ENGINE_PROCESS_NAMES, ENGINES, engineName, engineOf, FINGERPRINT_PATHS, identifyEngine, parserEngine, TENSOR_QUANTS} from '../../source/engines/index.js';
import {tensorBytes} from '../../source/model/bytes-per-token.js';
import {residencyOf} from '../../source/model/derive.js';
import {newServer} from '../../source/model/reducer.js';
import {serverGpuBytes} from '../../source/model/wired-limit.js';
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

	it("an engine's own memory formulas and quant types are its descriptor's, read by model/ through the registry", () => {
		// Ollama's size / size_vram: its residency, PROCESSOR as `ollama ps` prints it, and the name
		// wired-limit cites, all from the descriptor of the server's engine.
		const model = {name: 'gemma3:27b', sizeBytes: 20e9, sizeVramBytes: 10.4e9};
		const ollama = {...newServer({id: 'o', engine: 'ollama', url: 'http://127.0.0.1:11434', source: 'port-scan'}), models: [model]};
		expect(residencyOf(ollama, model)).toEqual({gpuResidency: 0.52, processor: '48%/52% CPU/GPU'});
		expect(residencyOf(ollama, {...model, processor: '48%/52% CPU/GPU (as printed)'}).processor).toBe('48%/52% CPU/GPU (as printed)');
		expect(serverGpuBytes(ollama)).toEqual([{serverId: 'o', model: 'gemma3:27b', bytes: 10.4e9, what: 'weights + KV cache', from: 'ollama ps size_vram'}]);
		// An engine whose descriptor reads no such numbers: the fields say nothing of it.
		expect(ENGINE_KINDS.filter((k) => ENGINES[k].modelMemory !== undefined)).toEqual(['ollama']);
		const vllm = {...newServer({id: 'v', engine: 'vllm', url: 'http://127.0.0.1:8000', source: 'port-scan'}), models: [model]};
		expect(residencyOf(vllm, model)).toEqual({});
		expect(serverGpuBytes(vllm)).toBe('unknown');
		// Quant types: the union of the descriptors' tables; tensorBytes reads them from there.
		expect(Object.fromEntries(TENSOR_QUANTS)).toEqual(Object.assign({}, ...ENGINE_KINDS.map((k) => ENGINES[k].tensorQuants ?? {})));
		expect(TENSOR_QUANTS.get('INT4')).toEqual([32, 20]);
		expect(tensorBytes('int4', [256, 2])).toBe(16 * 20);
		expect(tensorBytes('INT3', [256, 2])).toBeUndefined();
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
