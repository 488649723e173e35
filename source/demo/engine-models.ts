/**
 * The demo engine's models as the daemon holds them: each one's spec, its simulation parameters
 * (scaled by `speed`), where its layers went, whether it is loaded, its queue (requests run one at a
 * time, in arrival order, like `-np 1`) and its running speculative-decoding totals.
 */
import {homedir} from 'node:os';
import path from 'node:path';
import {DEMO_SPECS, baseParams, cpuShareOfPass, ggufLayout, scaleParams, type DemoModelSpec, type GgufLayout} from './models.js';
import {hashString, type DemoModelParams} from './sim.js';

export const KEEP_ALIVE_MS = 5 * 60 * 1000;

export interface SpecTotals {
	calls: number;
	genDrafts: number;
	accDrafts: number;
	genTokens: number;
	accTokens: number;
	accPos: number[];
	draftMs: number;
}

export interface ModelState {
	readonly spec: DemoModelSpec;
	readonly params: DemoModelParams;
	readonly layout: GgufLayout | undefined;
	readonly runnerPort: number;
	loaded: boolean;
	loadedAt: Date | undefined;
	expiresAt: Date | undefined;
	queue: Promise<void>;
	/** Requests in the model's queue, the running one included. */
	inQueue: number;
	nextTask: number;
	lastTokens: string[];
	readonly spec_: SpecTotals;
	requests: number;
}

export function createModels(split: number, speed: number, seed: number): ModelState[] {
	return DEMO_SPECS.map((spec, i) => {
		const layout = spec.runner === 'gguf' ? ggufLayout(spec, split) : undefined;
		let base = baseParams(spec, split);
		// The share of one pass's bytes that sits on the CPU, from where the layers really went.
		if (layout) base = {...base, split: cpuShareOfPass(spec, layout)};
		return {
			spec,
			params: scaleParams(base, speed),
			layout,
			runnerPort: 50_000 + (hashString(spec.name, seed) % 10_000) + i,
			loaded: false,
			loadedAt: undefined,
			expiresAt: undefined,
			queue: Promise.resolve(),
			inQueue: 0,
			nextTask: 0,
			lastTokens: [],
			spec_: {calls: 0, genDrafts: 0, accDrafts: 0, genTokens: 0, accTokens: 0, accPos: new Array<number>(baseParams(spec, split).draftMax).fill(0), draftMs: 0},
			requests: 0,
		};
	});
}

/** The model a request names (`name` alone means `name:latest`). */
export function findModel(models: readonly ModelState[], name: unknown): ModelState | undefined {
	if (typeof name !== 'string') return undefined;
	const n = name.includes(':') ? name : `${name}:latest`;
	return models.find((m) => m.spec.name === n);
}

/** Where Ollama keeps the model's blob. */
export function blobPath(m: ModelState): string {
	return path.join(homedir(), '.ollama', 'models', 'blobs', `sha256-${m.spec.digest}`);
}

/** Requests to one model run one at a time, in arrival order (like `-np 1`). */
export async function inModelQueue<T>(m: ModelState, work: () => Promise<T>): Promise<T> {
	const prev = m.queue;
	let release!: () => void;
	m.queue = new Promise<void>((r) => {
		release = r;
	});
	m.inQueue++;
	try {
		await prev;
		return await work();
	} finally {
		m.inQueue--;
		release();
	}
}
