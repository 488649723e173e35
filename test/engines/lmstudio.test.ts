/**
 * LM Studio `lms log stream` (lmstudio-ai/lms src/subcommands/log.ts @ 07b7252, lms 0.3.43): text
 * blocks (`timestamp:`/`type:`/`modelIdentifier:`, `output:`, `--stats` `key: value` lines of
 * @lmstudio/sdk LLMPredictionStats) and `--json` (`JSON.stringify({timestamp, data})`). The sample
 * samples/lmstudio.log is built from those format strings.
 */
import {describe, expect, it} from 'vitest';
import {createParser, detectEngine} from '../../source/engines/index.js';
import {createLmStudioLogParser} from '../../source/engines/lmstudio.js';
import {requestFigures} from '../../source/model/figures.js';
import {readLines, requests, run} from '../helpers/engines.js';
import {fileURLToPath} from 'node:url';

const sample = readLines(fileURLToPath(new URL('../../samples/lmstudio.log', import.meta.url)));

describe('lms log stream --stats (text)', () => {
	it('one request per output block, its stats as figures; the output text is not parsed as stats', () => {
		const {events, unparsed} = run(createLmStudioLogParser(), sample);
		expect(unparsed).toEqual([]);
		const r = requests(events).get('lms#1')!;
		expect(r).toEqual({key: 'lms#1', model: 'qwen2.5-7b-instruct', started: true, done: true, engineTps: 51.43709529007664, ttftMs: 111, wallMs: 3844, promptTokens: 38, generatedTokens: 192, drafted: 160, accepted: 118, finishReason: 'stop'});
		const f = requestFigures(r);
		expect(f.acceptance!.toFixed(4)).toBe('0.7375');
		// No cached count in LM Studio's stats: unknown, never 0.
		expect(f.cachedTokens).toBeUndefined();
	});

	it('an output line that looks like a stats key inside the text is text', () => {
		const p = createLmStudioLogParser();
		const {events} = run(p, ['timestamp: 12/1/2026, 10:22:29 AM', 'type: llm.prediction.output', 'modelIdentifier: m', 'output:', 'type: not a key', 'No stats available']);
		expect([...requests(events).values()]).toEqual([{key: 'lms#1', model: 'm', started: true, done: true}]);
	});
});

describe('lms log stream --json', () => {
	it('input + output events → one request; userStopped → cancelled', () => {
		const {events} = run(createLmStudioLogParser(), sample);
		const reqs = requests(events);
		expect(reqs.get('lms#2')).toEqual({key: 'lms#2', model: 'qwen2.5-7b-instruct', started: true, done: true, engineTps: 55.2, ttftMs: 90, promptTokens: 12, generatedTokens: 8, finishReason: 'stop'});
		expect(reqs.get('lms#3')).toMatchObject({outcome: 'cancelled', done: true});
		expect(requestFigures(reqs.get('lms#3')!)).toEqual({});
	});

	it('a line cut at the line cap still counts one request, figures unknown; bad numbers are unknown', () => {
		const p = createLmStudioLogParser();
		expect(p.push('{"timestamp":1,"data":{"type":"llm.prediction.output","modelIdentifier":"m","output":"aaaa…[+9000 chars]')).toEqual([{type: 'request', key: 'lms#1', started: true, done: true}]);
		const ev = p.push('{"timestamp":1,"data":{"type":"llm.prediction.output","modelIdentifier":"m","output":"x","stats":{"stopReason":"eosFound","tokensPerSecond":-3,"predictedTokensCount":"NaN"}}}');
		expect(ev).toEqual([{type: 'request', key: 'lms#2', model: 'm', started: true, done: true}, {type: 'request', key: 'lms#2', finishReason: 'stop'}]);
	});

	it('runtime log messages of the llama.cpp engine go to the llama.cpp parser', () => {
		const p = createLmStudioLogParser();
		const ev = p.push('[INFO] llama.cpp-mac-arm64-apple-metal-advsimd@1.3.0 (llm) qwen2.5-7b-instruct pid=4242 load_tensors: offloaded 29/29 layers to GPU');
		expect(ev).toEqual([{type: 'offload', layersOnGpu: 29, layersTotal: 29}]);
	});
});

describe('detection: an lms log stream is LM Studio, not llama.cpp or openai', () => {
	it('text, json and runtime forms', () => {
		expect(detectEngine(sample.slice(0, 6))).toBe('lmstudio');
		expect(detectEngine(sample.slice(-3))).toBe('lmstudio');
		expect(detectEngine([
			'[INFO] llama.cpp-mac-arm64-apple-metal-advsimd@1.3.0 (llm) qwen2.5-7b-instruct pid=4242 slot launch_slot_: id  0 | task 0 | processing task, is_child = 0',
			'{"timestamp":1764584561000,"data":{"type":"runtime.log","level":"info","message":"slot print_timing: id  0 | task 0 | prompt eval time =     300.11 ms /    20 tokens (   15.01 ms per token,    66.64 tokens per second)"}}',
		])).toBe('lmstudio');
		expect(createParser('lmstudio').engine).toBe('lmstudio');
	});
});
