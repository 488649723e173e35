/**
 * Issue 30, the demo's first screen: PASSES shows the model whose decode rate is known (the
 * headline), not whichever model ran last; the other model's unknown rate is said with its reason.
 */
import {describe, expect, it} from 'vitest';
import type {ModelFigures} from '../../source/model/figure-table.js';
import {decodeUnknownWhy, primaryFigures} from '../../source/ui/view-model/passes.js';

const gguf = {serverId: 's', engine: 'ollama', model: 'qwen3:8b', runner: 'gguf', requestCount: 3, decodeTps: 48.2, tokensPerPass: 2.1, lastRequestAt: 1000, basis: 'log'} as unknown as ModelFigures;
const mlx = {serverId: 's', engine: 'ollama', model: 'gemma4:12b-mlx', runner: 'mlx', requestCount: 2, tokensPerPass: 3.4, lastRequestAt: 2000, basis: 'log'} as unknown as ModelFigures;

describe('the model PASSES opens on', () => {
	it('the one whose decode tok/s is known, though the other ran last', () => {
		expect(primaryFigures([gguf, mlx])).toBe(gguf);
		expect(primaryFigures([mlx, gguf])).toBe(gguf);
	});

	it('both known: the newest; none known: the newest with any figure', () => {
		expect(primaryFigures([gguf, {...gguf, model: 'b', lastRequestAt: 3000} as ModelFigures])!.model).toBe('b');
		expect(primaryFigures([{...mlx, lastRequestAt: 500} as ModelFigures, mlx])).toBe(mlx);
	});

	it('says why the other\'s decode rate is unknown', () => {
		expect(decodeUnknownWhy(mlx)).toBe('decode --: no decode time in its log');
		expect(decodeUnknownWhy(gguf)).toBeUndefined();
		expect(decodeUnknownWhy({...mlx, requestCount: 0} as ModelFigures)).toBe('decode --: no request finished yet');
	});
});
