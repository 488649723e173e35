/**
 * THE registry: every engine's descriptor, one line each (its import beside it), in the order
 * discovery lists them; the catch-all `openai` last. Adding an engine is its file
 * (`source/engines/<engine>.ts`: its descriptor, its parser, its kind declared into types/events.ts
 * `EngineKinds`) and its line here; engines/index.ts derives everything else from this list, and
 * the compiler checks that every declared kind has its line (engines/index.ts).
 */
import {koboldcpp} from './koboldcpp.js';
import {lithos} from './lithos.js';
import {llamacpp} from './llamacpp.js';
import {llamaswap} from './llamaswap.js';
import {lmstudio} from './lmstudio.js';
import {localai} from './localai.js';
import {mlxlm} from './mlxlm.js';
import {omlx} from './omlx.js';
import {ollama} from './ollama.js';
import {openai} from './openai.js';
import {sglang} from './sglang.js';
import {vllm} from './vllm.js';

export const REGISTRY = [
	ollama,
	llamacpp,
	mlxlm,
	lithos,
	vllm,
	sglang,
	lmstudio,
	llamaswap,
	koboldcpp,
	localai,
	omlx,
	openai,
] as const;
