/**
 * vLLM lines that carry a user's prompt or the model's output (`--enable-log-requests`,
 * `--enable-log-outputs`, the DEBUG request details) are the user's text: quoting another line's
 * phrase there makes no event (main at 48848bc made a server start of "vLLM API server version …"
 * in a prompt, and a preemption total of "total_num_cumulative_preemption=51").
 */
import {describe, expect, it} from 'vitest';
import {createVllmParser} from '../../source/engines/vllm.js';

const AT = '(APIServer pid=1) INFO 12-05 11:40:01 ';
const QUOTED = ['vLLM API server version 0.11.0', 'Starting vLLM API server 0 on http://0.0.0.0:8000', 'Uvicorn running on http://0.0.0.0:8000', 'total_num_cumulative_preemption=51'];

describe('vLLM request and response text', () => {
	it('a prompt or an output that quotes other lines makes no event', () => {
		const p = createVllmParser();
		for (const q of QUOTED) {
			// vllm/entrypoints/logger.py @ 01ff126 (INFO, the prompt in it).
			expect(p.push(`${AT}[logger.py:43] Received request chatcmpl-1: prompt: 'explain: ${q}', params: SamplingParams(n=1, temperature=0.7), prompt_token_ids: None, prompt_embeds shape: None, lora_request: None, prompt_adapter_request: None.`)).toEqual([]);
			// @ 63c2b7a: the prompt at DEBUG, the output with --enable-log-outputs.
			expect(p.push(`(APIServer pid=1) DEBUG 12-05 11:40:01 [logger.py:40] Request chatcmpl-1 details: prompt: 'explain: ${q}', prompt_token_ids: [1, 2], prompt_embeds shape: None.`)).toEqual([]);
			expect(p.push(`${AT}[logger.py:61] Generated response chatcmpl-1 (streaming complete): output: 'the log said ${q}', output_token_ids: None, finish_reason: stop`)).toEqual([]);
		}
	});

	it('the lines themselves still count', () => {
		const p = createVllmParser();
		expect(p.push(`${AT}[api_server.py:1895] vLLM API server version 0.11.0`)).toEqual([{type: 'server-start', version: '0.11.0'}]);
		expect(p.push(`${AT}[api_server.py:1960] Starting vLLM API server 0 on http://0.0.0.0:8000`)).toEqual([{type: 'server-start', listen: 'http://0.0.0.0:8000'}]);
		expect(p.push('(EngineCore_DP0 pid=7) WARNING 12-05 11:40:01 [scheduler.py:1190] Sequence group 1 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. total_num_cumulative_preemption=51')).toEqual([{type: 'interval-stats', preemptedTotal: 51}]);
		expect(p.push(`${AT}[logger.py:43] Received request chatcmpl-2: params: SamplingParams(n=1), lora_request: None.`)).toEqual([]);
	});
});
