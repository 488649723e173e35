/**
 * The GPU wired-memory limit on Apple silicon (source/model/wired-limit.ts): the default rule against
 * the recommendedMaxWorkingSetSize figures llama.cpp printed on real Macs, the limit's sources in
 * order, what the engines hold from their own numbers, and the verdict with its fix.
 */
import {describe, expect, it} from 'vitest';
import {createMlxLmParser} from '../../source/engines/mlxlm.js';
import {applyEvent} from '../../source/model/reducer.js';
import {GIB, MIB, gpuDemand, macDefaultWiredLimitBytes, macGpuLines, macGpuSummary, wiredLimitOf, wiredLimitVerdict} from '../../source/model/wired-limit.js';
import type {ModelInfo, ServerState} from '../../source/types/state.js';
import {emptySystem, type SystemState} from '../../source/types/system.js';
import {one} from '../helpers/engines.js';

/** A server as the reducer holds it (the fields the demand reads). */
function server(id: string, patch: Partial<ServerState> = {}): ServerState {
	return {
		id, engine: 'ollama', source: 'port-scan', url: id, state: 'up', models: [], requests: [], history: [], buffers: {}, offloads: {}, httpCount: 0,
		linesParsed: 0, linesUnparsed: 0, linesInconsistent: 0, answersInconsistent: 0, requestsSeen: 0, requestsByModel: {}, totals: {}, dropped: [],
		log: {buffer: [], start: 0, end: 0, length: 0}, modelBytes: {},
		...patch,
	} as ServerState;
}
const model = (name: string, patch: Partial<ModelInfo> = {}): ModelInfo => ({name, ...patch});
const mac = (system: Partial<SystemState>): SystemState => ({...emptySystem(), ...system});

describe('the macOS default (iogpu.wired_limit_mb = 0), estimated', () => {
	it('two thirds up to 36 GiB: the 11453.25 MB (16 GiB) and 17179.89 MB (24 GiB M2) llama.cpp printed', () => {
		expect(macDefaultWiredLimitBytes(16 * GIB)).toBe(11453246122);
		expect(Math.round(macDefaultWiredLimitBytes(16 * GIB)! / 1e4) / 100).toBe(11453.25);
		expect(macDefaultWiredLimitBytes(24 * GIB)).toBe(17179869184);
		expect(macDefaultWiredLimitBytes(36 * GIB)).toBe(24 * GIB);
	});
	it('three quarters above: 48 GiB of 64, 96 GiB of 128; nonsense is unknown', () => {
		expect(macDefaultWiredLimitBytes(64 * GIB)).toBe(48 * GIB);
		expect(macDefaultWiredLimitBytes(128 * GIB)).toBe(96 * GIB);
		expect(macDefaultWiredLimitBytes(0)).toBeUndefined();
		expect(macDefaultWiredLimitBytes(Number.NaN)).toBeUndefined();
	});
});

describe('the limit in force', () => {
	it('sysctl set wins (MiB), then the engine, then the default rule (~); nothing known: undefined', () => {
		expect(wiredLimitOf({memsizeBytes: 128 * GIB, wiredLimitMb: 114688}, {bytes: 96 * GIB, by: 'mlx-lm'})).toEqual({bytes: 112 * GIB, source: 'sysctl', estimated: false, label: 'iogpu.wired_limit_mb=114688'});
		expect(wiredLimitOf({memsizeBytes: 128 * GIB, wiredLimitMb: 0}, {bytes: 110100 * MIB, by: 'mlx-lm'})).toEqual({bytes: 110100 * MIB, source: 'engine', estimated: false, label: 'said by mlx-lm (Metal)'});
		expect(wiredLimitOf({memsizeBytes: 128 * GIB, wiredLimitMb: 0})).toEqual({bytes: 96 * GIB, source: 'default-rule', estimated: true, label: '~ macOS default for 128 GiB'});
		expect(wiredLimitOf({})).toBeUndefined();
	});
});

describe('mlx-lm states the limit (generate.py:242-247 @ d78bf58)', () => {
	const line = '[WARNING] Generating with a model that requires 104858 MB which is close to the maximum recommended size of 98304 MB. This can be slow. See the documentation for possible work-arounds: https://github.com/ml-explore/mlx-lm/tree/main#large-models';
	it('gives the limit and the weights in MiB, and the server keeps it', () => {
		const ev = one(createMlxLmParser(), line);
		expect(ev).toEqual([{type: 'gpu-limit', limitBytes: 98304 * MIB, requiredBytes: 104858 * MIB}]);
		const s = applyEvent(server('http://127.0.0.1:8090', {engine: 'mlxlm'}), 5000, ev![0]!);
		expect(s.gpuLimit).toEqual({limitBytes: 98304 * MIB, requiredBytes: 104858 * MIB, t: 5000});
	});
	it('a number past a petabyte of MiB is inconsistent, not a limit', () => {
		expect(one(createMlxLmParser(), line.replace('98304', '99999999999'))).toEqual([{type: 'inconsistent', reason: expect.stringMatching(/maximum recommended MB=99999999999 is beyond/)}]);
	});
});

describe('what the engines hold on the GPU (their own numbers)', () => {
	it('Ollama size_vram per loaded model; llama.cpp GPU buffers; mlx-lm weights only; a remote server is left out', () => {
		const ollama = server('http://127.0.0.1:11434', {models: [model('qwen3.8:27b', {sizeBytes: 30e9, sizeVramBytes: 28e9}), model('gone', {loaded: false, sizeVramBytes: 5e9})]});
		const llama = server('http://127.0.0.1:8081', {engine: 'llamacpp', models: [model('gemma')], buffers: {
			'MTL0:model': {device: 'MTL0', kind: 'model', mib: 1918.35, onGpu: true},
			'MTL0:KV': {device: 'MTL0', kind: 'KV', mib: 512, onGpu: true},
			'CPU:model': {device: 'CPU', kind: 'model', mib: 300, onGpu: false},
		}});
		const mlx = server('http://localhost:8090', {engine: 'mlxlm', models: [model('mlx-community/big')], gpuLimit: {limitBytes: 96 * GIB, requiredBytes: 90 * GIB, t: 1}});
		const remote = server('http://gpu-box:11434', {models: [model('far', {sizeVramBytes: 70e9})]});
		const quiet = server('http://127.0.0.1:1234', {engine: 'lmstudio', models: [model('x')]});
		const d = gpuDemand({order: [ollama.id, llama.id, mlx.id, remote.id, quiet.id], servers: {[ollama.id]: ollama, [llama.id]: llama, [mlx.id]: mlx, [remote.id]: remote, [quiet.id]: quiet}})!;
		expect(d.parts).toEqual([
			{serverId: ollama.id, model: 'qwen3.8:27b', bytes: 28e9, what: 'weights + KV cache', from: 'ollama ps size_vram'},
			{serverId: llama.id, model: 'gemma', bytes: (1918.35 + 512) * MIB, what: 'weights + KV cache', from: 'GPU buffers'},
			{serverId: mlx.id, model: 'mlx-community/big', bytes: 90 * GIB, what: 'weights', from: 'engine warning'},
		]);
		expect(d.bytes).toBe(28e9 + (1918.35 + 512) * MIB + 90 * GIB);
		expect(d.unknown).toEqual([quiet.id]);
		expect(d.kvMissing).toBe(true);
		expect(gpuDemand({order: [remote.id], servers: {[remote.id]: remote}})).toBeUndefined();
	});
});

describe('wiredLimitVerdict', () => {
	const rule = wiredLimitOf({memsizeBytes: 128 * GIB, wiredLimitMb: 0})!;
	it('over: the words, and the fix N = held + 10 % rounded up to a GiB, within RAM less macOS\'s share', () => {
		const v = wiredLimitVerdict({demandBytes: 108e9, limit: rule, memsizeBytes: 128 * GIB})!;
		expect(v.level).toBe('over');
		expect(v.text).toBe('over the limit: expect slow decode or a failed load');
		expect(Math.round(v.pct * 10) / 10).toBe(104.8);
		expect(v.fix).toEqual({mb: 113664, command: 'sudo sysctl iogpu.wired_limit_mb=113664', why: 'what the engines hold, 100.6 GiB, + 10 % headroom, rounded up to a whole GiB; leaves 17.0 GiB of 128 GiB to macOS'});
	});
	it('near from 90 % (mlx-lm\'s own threshold), with a fix; fits below, without one', () => {
		const near = wiredLimitVerdict({demandBytes: 90 * GIB, limit: rule, memsizeBytes: 128 * GIB})!;
		expect([near.level, near.text, near.fix?.mb]).toEqual(['near', 'near the limit (94 %)', 101376]);
		const fits = wiredLimitVerdict({demandBytes: 40 * GIB, limit: rule, memsizeBytes: 128 * GIB})!;
		expect([fits.level, fits.text, fits.fix]).toEqual(['fits', 'fits (42 % of the limit)', undefined]);
		expect(wiredLimitVerdict({demandBytes: 40 * GIB, limit: rule, partial: true})!.text).toBe('fits as far as known (42 % of the limit)');
	});
	it('too big for this Mac even with a raised limit: advice, no sysctl', () => {
		const v = wiredLimitVerdict({demandBytes: 120 * GIB, limit: rule, memsizeBytes: 128 * GIB})!;
		expect(v.fix).toBeUndefined();
		expect(v.advice).toBe('120.0 GiB + 10 % headroom does not fit 128 GiB of RAM with 16.0 GiB left to macOS: use a smaller quantization, a shorter context or fewer models');
	});
	it('figures that cannot be true give no verdict', () => {
		expect(wiredLimitVerdict({demandBytes: 0, limit: rule})).toBeUndefined();
		expect(wiredLimitVerdict({demandBytes: Number.NaN, limit: rule})).toBeUndefined();
		expect(wiredLimitVerdict({demandBytes: 1, limit: {...rule, bytes: 0}})).toBeUndefined();
	});
});

describe('the ENGINES pane lines', () => {
	it('GPU busy, what the engines hold, the limit with its source, the verdict; then the fix', () => {
		const s = server('http://127.0.0.1:11434', {models: [model('big', {sizeVramBytes: 108e9})]});
		const system = mac({gpus: [{index: 0, name: 'Apple M1 Ultra', unified: true, utilizationPct: 94, source: 'ioreg'}], mac: {memsizeBytes: 128 * GIB, wiredLimitMb: 0}});
		expect(macGpuLines(macGpuSummary({order: [s.id], servers: {[s.id]: s}, system}))).toEqual([
			{text: 'GPU 94 % busy · engines hold 100.6 GiB · GPU limit ~96.0 GiB (~ macOS default for 128 GiB) · over the limit: expect slow decode or a failed load', level: 'bad'},
			{text: 'fix: sudo sysctl iogpu.wired_limit_mb=113664 (what the engines hold, 100.6 GiB, + 10 % headroom, rounded up to a whole GiB; leaves 17.0 GiB of 128 GiB to macOS)', level: 'muted'},
		]);
	});
	it('off macOS: nothing; on a Mac with nothing loaded: the busy share and the limit only', () => {
		expect(macGpuLines(macGpuSummary({order: [], servers: {}, system: emptySystem()}))).toEqual([]);
		const system = mac({gpus: [{index: 0, name: 'Apple M4 Max', unified: true, source: 'ioreg'}], mac: {memsizeBytes: 64 * GIB, wiredLimitMb: 40960}});
		expect(macGpuLines(macGpuSummary({order: [], servers: {}, system}))).toEqual([{text: 'GPU -- busy · GPU limit 40.0 GiB (iogpu.wired_limit_mb=40960)', level: 'muted'}]);
	});
});
