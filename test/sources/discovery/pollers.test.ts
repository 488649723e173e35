import {afterEach, describe, expect, it} from 'vitest';
import type {Action} from '../../../source/types/state.js';
import {createPoller, isRestart, type ServerPoller} from '../../../source/sources/discovery/pollers.js';
// What each engine's answers say is read by its own file (the poller runs the descriptor's plan).
import {openAiModels} from '../../../source/engines/answers.js';
import {llamaMetricsCounters, llamaServerModels, maxSlotTask} from '../../../source/engines/llamacpp.js';
import {lmStudioV0Models} from '../../../source/engines/lmstudio.js';
import {ollamaPsModels} from '../../../source/engines/ollama.js';
import {fixture, startFake, waitFor, type Fake} from '../../helpers/fake-engines.js';

// Captured docs/api.md example of GET /api/ps (engines.md §1b).
const PS_DOC = {models: [{name: 'mistral:latest', model: 'mistral:latest', size: 5137025024,
	digest: '2ae6f6dd7a3dd734790bbbf58b8909a606e0e7e97e94b7604e0aa7ae4490e6d8',
	details: {parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '7.2B', quantization_level: 'Q4_0'},
	expires_at: '2024-06-04T14:38:31.83753-07:00', size_vram: 5137025024}]};

describe('Ollama /api/ps → models', () => {
	it('maps the captured docs example exactly', () => {
		expect(ollamaPsModels(PS_DOC)).toEqual([{
			name: 'mistral:latest', sizeBytes: 5137025024, sizeVramBytes: 5137025024, processor: '100% GPU', gpuResidency: 1,
			expiresAt: '2024-06-04T14:38:31.83753-07:00', format: 'gguf', runner: 'gguf', family: 'llama', parameterSize: '7.2B',
			quantization: 'Q4_0', digest: '2ae6f6dd7a3dd734790bbbf58b8909a606e0e7e97e94b7604e0aa7ae4490e6d8', loaded: true,
		}]);
	});

	it('partial offload, CPU only, MLX engine and context_length', () => {
		const models = ollamaPsModels({models: [
			{name: 'a', size: 10_000_000_000, size_vram: 5_200_000_000, details: {format: 'gguf'}, context_length: 131072},
			{name: 'b', size: 4_000_000_000, size_vram: 0, details: {format: 'gguf'}},
			{name: 'c', size: 9_600_000_000, size_vram: 9_600_000_000, details: {format: 'safetensors'}},
		]})!;
		expect(models.map((m) => m.processor)).toEqual(['48%/52% CPU/GPU', '100% CPU', '100% GPU']);
		expect(models[0]!.gpuResidency).toBeCloseTo(0.52, 10);
		expect(models[0]!.contextLength).toBe(131072);
		expect(models[1]!.gpuResidency).toBe(0);
		expect(models.map((m) => m.runner)).toEqual(['gguf', 'gguf', 'mlx']);
	});

	it('unknown figures stay undefined, bad input gives undefined or skips', () => {
		const [m] = ollamaPsModels({models: [{name: 'x'}]})!;
		expect(m).toEqual({name: 'x', loaded: true});
		expect(ollamaPsModels({error: 'boom'})).toBeUndefined();
		expect(ollamaPsModels('nope')).toBeUndefined();
		expect(ollamaPsModels({models: [null, 3, {size: 1}]})).toEqual([]);
	});
});

describe('llama-server /props + /slots + /v1/models (real captures)', () => {
	it('one model: path, slots × context per slot, weights size and parameters', () => {
		const props = JSON.parse(fixture('props.json'));
		const models = llamaServerModels(props, JSON.parse(fixture('slots-idle.json')), JSON.parse(fixture('models.json')));
		expect(models).toEqual([{
			name: 'models/big-random-llama-8L-1024d-q8_0.gguf',
			modelPath: 'models/big-random-llama-8L-1024d-q8_0.gguf',
			format: 'gguf',
			quantization: 'Q8_0',
			slots: 2,
			contextPerSlot: 1024,
			contextLength: 1024,
			modelBytes: 178884608,
			parameterCount: 168313856,
			loaded: true,
		}]);
	});

	it('largest slot task id (idle slots have none)', () => {
		expect(maxSlotTask(JSON.parse(fixture('slots-idle.json')))).toBeUndefined();
		expect(maxSlotTask(JSON.parse(fixture('slots-busy.json')))).toBe(377);
	});

	it('metrics counters from the real /metrics text', () => {
		const c = llamaMetricsCounters(fixture('metrics-after.txt'));
		expect(c.tokens_predicted_total).toBe(1152);
		expect(c.prompt_tokens_seconds).toBeUndefined(); // a gauge, not a counter
	});
});

describe('other engines', () => {
	it('OpenAI list: vLLM max_model_len and lithos context_window become the context', () => {
		expect(openAiModels({object: 'list', data: [{id: 'Qwen/Qwen3-8B', owned_by: 'vllm', root: 'Qwen/Qwen3-8B', max_model_len: 32768}]})).toEqual([{name: 'Qwen/Qwen3-8B', contextLength: 32768}]);
		expect(openAiModels({object: 'list', data: [{id: 'n', owned_by: 'lithos-metal', context_window: 32768}]})).toEqual([{name: 'n', contextLength: 32768}]);
	});

	it('LM Studio v0: loaded first; max_context_length is not taken as the loaded context', () => {
		const m = lmStudioV0Models({data: [
			{id: 'a', compatibility_type: 'mlx', state: 'not-loaded', max_context_length: 32768},
			{id: 'b', compatibility_type: 'gguf', state: 'loaded', quantization: 'Q4_K_M', arch: 'llama', max_context_length: 131072},
		]})!;
		expect(m.map((x) => [x.name, x.loaded])).toEqual([['b', true], ['a', false]]);
		expect(m[0]!.contextLength).toBeUndefined();
	});
});

describe('restart markers', () => {
	it('start time, pid, version changes and counters going down are restarts; growth is not', () => {
		expect(isRestart(undefined, {version: 'x'})).toBe(false);
		expect(isRestart({startTime: '1'}, {startTime: '2'})).toBe(true);
		expect(isRestart({pid: 10}, {pid: 11})).toBe(true);
		expect(isRestart({version: '0.33.0'}, {version: '0.33.1'})).toBe(true);
		expect(isRestart({taskId: 377}, {taskId: 3})).toBe(true);
		expect(isRestart({taskId: 3}, {taskId: 377})).toBe(false);
		expect(isRestart({counters: {tokens_predicted_total: 1152}}, {counters: {tokens_predicted_total: 0}})).toBe(true);
		expect(isRestart({counters: {tokens_predicted_total: 0}}, {counters: {tokens_predicted_total: 1152}})).toBe(false);
		expect(isRestart({version: 'a'}, {})).toBe(false);
	});
});

describe('poller against live fakes', () => {
	let fake: Fake | undefined;
	let poller: ServerPoller | undefined;
	afterEach(async () => {
		await poller?.stop();
		await fake?.close();
		poller = undefined;
		fake = undefined;
	});

	const serverOf = (f: Fake, engine: 'ollama' | 'llamacpp') => ({id: f.url, url: f.url, engine, source: 'port-scan' as const});

	it('answers that repeat: the wait doubles up to quietMaxMs (no back-off without it); wake() asks again at once', async () => {
		fake = await startFake('ollama', {state: {ps: PS_DOC}});
		const ps = () => fake!.requests.filter((r) => r.path === '/api/ps').length;
		const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
		// without quietMaxMs: a fixed pace
		poller = createPoller({server: serverOf(fake, 'ollama'), dispatch: () => undefined, intervalMs: 20, timeoutMs: 3000});
		poller.start();
		await sleep(1300);
		await poller.stop();
		const fixed = ps();
		// with it: 20, 40, 80, 160, 320, 640 ms… (the answer never changes after the first)
		const before = ps();
		poller = createPoller({server: serverOf(fake, 'ollama'), dispatch: () => undefined, intervalMs: 20, quietMaxMs: 5000, timeoutMs: 3000});
		poller.start();
		await sleep(1300);
		const quiet = ps() - before;
		expect(fixed).toBeGreaterThan(2 * quiet);
		expect(quiet).toBeLessThanOrEqual(9);
		// the engine got work: the next poll comes now, not after the grown wait (≥ 1.28 s by now)
		const n = ps();
		await waitFor(() => ps() > n, 'a poll');
		poller.wake();
		await waitFor(() => ps() > n + 1, 'the poll wake() asked for', 800);
	});

	it('Ollama: dispatches models once, again only when they change; lost; back on the same port with a new version = restarted', async () => {
		fake = await startFake('ollama', {state: {ps: PS_DOC}});
		const actions: Action[] = [];
		poller = createPoller({server: {...serverOf(fake, 'ollama'), version: '0.33.0-rc2'}, dispatch: (a) => actions.push(a), intervalMs: 30, timeoutMs: 3000});
		poller.start();
		const models = () => actions.filter((a) => a.type === 'server-models');
		await waitFor(() => fake!.requests.filter((r) => r.path === '/api/ps').length >= 4, 'several polls');
		expect(models()).toHaveLength(1);
		expect(models()[0]).toMatchObject({serverId: fake.url, models: [{name: 'mistral:latest', processor: '100% GPU'}]});
		// Each request is a [GIN] line in Ollama's log: the version is asked on first sight only (and after a loss).
		expect(fake.requests.filter((r) => r.path === '/api/version')).toHaveLength(1);

		fake.state.ps = {models: []};
		await waitFor(() => models().length === 2, 'changed models');
		expect(models()[1]).toMatchObject({models: []});

		const port = fake.port;
		await fake.close();
		await waitFor(() => actions.some((a) => a.type === 'server-lost'), 'server-lost');
		expect(actions.filter((a) => a.type === 'server-lost')).toHaveLength(1);
		expect(poller.lifecycle()).toBe('lost');

		fake = await startFake('ollama', {port, state: {ps: PS_DOC, version: '0.33.1'}});
		await waitFor(() => actions.some((a) => a.type === 'server-restarted'), 'server-restarted');
		const tail = actions.slice(actions.findIndex((a) => a.type === 'server-lost') + 1).map((a) => a.type);
		expect(tail).toEqual(['server-seen', 'server-restarted', 'server-models']);
		expect(actions.find((a) => a.type === 'server-seen')).toMatchObject({server: {version: '0.33.1'}});
	});

	it('Ollama back with the same version is up again, not restarted', async () => {
		fake = await startFake('ollama');
		const actions: Action[] = [];
		poller = createPoller({server: serverOf(fake, 'ollama'), dispatch: (a) => actions.push(a), intervalMs: 30, timeoutMs: 3000});
		poller.start();
		await waitFor(() => actions.some((a) => a.type === 'server-models'), 'models');
		const port = fake.port;
		await fake.close();
		await waitFor(() => poller!.lifecycle() === 'lost', 'lost');
		fake = await startFake('ollama', {port});
		await waitFor(() => poller!.lifecycle() === 'up', 'back up');
		await waitFor(() => actions.filter((a) => a.type === 'server-models').length === 2, 'models again');
		expect(actions.some((a) => a.type === 'server-restarted')).toBe(false);
		const afterLost = actions.slice(actions.findIndex((a) => a.type === 'server-lost') + 1);
		expect(afterLost.filter((a) => a.type === 'server-seen')).toHaveLength(1);
	});

	it('llama-server: a new Process-Start-Time-Unix after coming back is a restart; polls never overlap', async () => {
		fake = await startFake('llamacpp', {state: {slots: fixture('slots-busy.json'), metrics: fixture('metrics-after.txt')}});
		const actions: Action[] = [];
		poller = createPoller({server: serverOf(fake, 'llamacpp'), dispatch: (a) => actions.push(a), intervalMs: 30, timeoutMs: 3000});
		poller.start();
		await waitFor(() => actions.some((a) => a.type === 'server-models'), 'models');
		expect(actions.find((a) => a.type === 'server-models')).toMatchObject({models: [{slots: 2, contextPerSlot: 1024, modelBytes: 178884608}]});
		// /metrics only scraped on first sight (its windowed gauges reset on each scrape).
		await waitFor(() => fake!.requests.filter((r) => r.path === '/props').length >= 3, 'polls');
		expect(fake.requests.filter((r) => r.path === '/metrics')).toHaveLength(1);
		const port = fake.port;
		await fake.close();
		await waitFor(() => poller!.lifecycle() === 'lost', 'lost');
		fake = await startFake('llamacpp', {port, state: {startTime: '2694699999'}});
		await waitFor(() => actions.some((a) => a.type === 'server-restarted'), 'restarted');
		expect(fake.requests.filter((r) => r.path === '/metrics')).toHaveLength(1);
	});

	it('sends the API key it was given, as a Bearer token', async () => {
		fake = await startFake('ollama');
		poller = createPoller({server: serverOf(fake, 'ollama'), dispatch: () => {}, intervalMs: 30, apiKey: 'sekrit'});
		await poller.pollNow();
		expect(fake.requests.every((r) => r.authorization === 'Bearer sekrit')).toBe(true);
	});
});
