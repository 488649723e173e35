/**
 * lithos-metal log parser (engines.md §7): `INFO:monolith.serve:Generation: {…}` (Python dict repr)
 * → one finished request (passes = steps, cachedTokens), the `ready` line, uvicorn access lines,
 * and 429 `model_busy` → busy.
 */
import type {EngineEvent, LineParser} from '../types/events.js';
import {numberCheck} from '../util/numbers.js';
import {own} from '../util/sanitize.js';
import {clean, dictNumber, MAX_PARSE_CHARS, parseUvicorn, PYTHON_HOST, withCheck} from './answers.js';
import {OPENAI_MODEL_LIST, OPENAI_POLL, OPENAI_PROBE, type EngineDescriptor} from './descriptor.js';

declare module '../types/events.js' {
	interface EngineKinds {
		lithos: true;
	}
}

const LOGGER = /^([A-Z]+):([\w.]+):(.*)$/;
const READY = /^lithos-metal ready: (\S+)(?: \S+ model=([^;]+))?(?:; DSpark=([^;]+))?(?:; verification rows=(\d+))?/;

/** Python dict repr → object (`'`→`"`, None/True/False); undefined when it is not one. */
export function parsePythonDict(s: string): Record<string, unknown> | undefined {
	if (!s.startsWith('{') || !s.endsWith('}')) return undefined;
	const json = s
		.replace(/'((?:[^'\\]|\\.)*)'/g, (_m, inner: string) => JSON.stringify(inner.replace(/\\'/g, "'")))
		.replace(/\bNone\b/g, 'null')
		.replace(/\bTrue\b/g, 'true')
		.replace(/\bFalse\b/g, 'false')
		.replace(/\b(?:nan|inf)\b/g, 'null');
	try {
		const v: unknown = JSON.parse(json);
		return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * lithos-metal 0.1.2 `monolith/serve.py` `main()` (lithos-ai/lithos-metal, search-index copies of
 * 46b2bc4c and later): `backend.warmup(model_name)` runs generations (each logs `Generation: {…}`)
 * *before* `'lithos-metal ready: http://%s:%s — model=%s; DSpark=%s; verification rows=%s'` with
 * `args.draft or 'disabled'` and `assets.gamma + 1`, and only then `uvicorn.run(…)`. So a Generation
 * before `ready` is a warmup, not a request; once uvicorn speaks (a tail that began after `ready`)
 * the server is serving. `DSpark=disabled` (one verification row): one token per step.
 */
export function createLithosParser(): LineParser {
	let seq = 0;
	let model: string | undefined;
	/** Past `ready` (or uvicorn has spoken): Generations are requests. */
	let serving = false;
	/** Generations seen before we knew: warmups if `ready` follows, requests if uvicorn speaks first. */
	let pending: EngineEvent[] = [];
	/** No speculation: `DSpark=disabled` or `verification rows=1`. */
	let noSpec = false;
	/** The newest Generation not yet given its access line's client. */
	let lastGeneration: string | undefined;
	const startServing = (): EngineEvent[] => {
		serving = true;
		const out = pending;
		pending = [];
		return out;
	};
	const push = (line: string): EngineEvent[] | null => {
		if (line.length === 0 || line.length > MAX_PARSE_CHARS) return null;
		const h = parseUvicorn(line);
		if (h) {
			const earlier = serving ? [] : startServing();
			const client = h.type === 'http' ? h.client : undefined;
			// One generation at a time (engines.md §7): a busy server answers 429 `model_busy` at once.
			if (h.type === 'http' && h.status === 429) return [...earlier, h, clean({type: 'busy', status: 429, reason: 'model_busy', client}) as EngineEvent];
			// uvicorn writes the access line when the response ends, after the Generation line of that request.
			if (h.type === 'http' && h.method === 'POST' && h.status >= 200 && h.status < 300 && lastGeneration !== undefined && client !== undefined) {
				const key = lastGeneration;
				lastGeneration = undefined;
				return [...earlier, h, {type: 'request', key, client}];
			}
			return [...earlier, h];
		}
		// `INFO:     Started server process [N]`, `Uvicorn running on …`: uvicorn runs only after `ready`.
		if (!serving && /^INFO: +(?:Started server process|Uvicorn running on|Application startup complete)/.test(line)) return startServing();
		if (line.includes('model_busy')) return [clean({type: 'busy', status: line.includes('429') ? 429 : undefined, reason: 'model_busy'}) as EngineEvent];
		const m = LOGGER.exec(line);
		if (!m) return /^(?:INFO|WARNING|ERROR): /.test(line) ? [] : null;
		const msg = m[3]!;
		if (msg.startsWith('Generation: ')) {
			const d = msg.slice('Generation: '.length);
			if (!d.startsWith('{') || !d.endsWith('}')) return [];
			seq += 1;
			const check = numberCheck();
			const steps = check.count('steps', dictNumber(d, 'steps'));
			const oneRow = noSpec || dictNumber(d, 'verify_tokens') === 1;
			const ev = clean({
				type: 'request',
				key: `lithos#${seq}`,
				model,
				started: true,
				done: true,
				passes: steps,
				cachedTokens: check.count('cached_prompt_tokens', dictNumber(d, 'cached_prompt_tokens')),
				decodeMs: check.num('decode_gpu_ms', dictNumber(d, 'decode_gpu_ms'), 'ms'),
				prefillMs: check.num('prefill_wall_ms', dictNumber(d, 'prefill_wall_ms'), 'ms'),
				wallMs: check.num('wall_ms', dictNumber(d, 'wall_ms'), 'ms'),
				// Without a draft every step verifies one row: one token per step.
				decodedTokens: oneRow ? steps : undefined,
			}) as EngineEvent;
			if (!serving) {
				// A warmup (or not yet known): its bad numbers still count now.
				pending.push(ev);
				if (pending.length > 16) pending.shift();
				return withCheck([], check);
			}
			lastGeneration = `lithos#${seq}`;
			return withCheck([ev], check);
		}
		if (msg.startsWith('lithos-metal ready')) {
			const r = READY.exec(msg);
			if (!r) return [];
			model = own(r[2]?.trim());
			// The Generations before this line were the warmup.
			pending = [];
			serving = true;
			const dspark = r[3]?.trim();
			noSpec = dspark === 'disabled' || r[4] === '1';
			const out: EngineEvent[] = [{type: 'server-start', listen: r[1]}, clean({type: 'model-loaded', model}) as EngineEvent];
			if (dspark !== undefined && !noSpec) out.push(clean({type: 'spec-init', kind: 'dspark', detail: dspark + (r[4] ? ` (verification rows ${r[4]})` : '')}));
			return out;
		}
		return [];
	};
	return {engine: 'lithos', push};
}

const BRANDS = ['Lithos-Metal', 'LMK', 'Monolith'];

/** lithos-metal `X-Lithos-Metal-Decode-Steps` (or the LMK-/Monolith- brands): target passes. */
export function lithosDecodeSteps(headers: {get(name: string): string | null}): number | undefined {
	for (const b of BRANDS) {
		const v = headers.get(`x-${b.toLowerCase()}-decode-steps`);
		if (v !== null && /^\s*\d+\s*$/.test(v)) return Number(v);
	}
	return undefined;
}

export const lithos: EngineDescriptor<'lithos'> = {
	kind: 'lithos',
	label: 'lithos-metal',
	logParser: createLithosParser,
	logSignature: {
		rules: [{weight: 6, test: l => l.includes(':monolith.') || l.includes('lithos-metal')}],
		// lithos-metal also writes uvicorn lines; its own logger lines decide it.
		decisive: {atLeast: 1, rank: 2},
	},
	logTimes: ['iso'],
	poll: OPENAI_POLL,
	probe: OPENAI_PROBE,
	passesHeader: {read: lithosDecodeSteps, label: 'lithos header'},
	apiKeyEnv: ['LITHOS_METAL_API_KEY', 'LMK_API_KEY', 'MONOLITH_API_KEY'],
	modelList: OPENAI_MODEL_LIST,
	quickMarks: {modelOwner: 'lithos-metal'},
	unifiedMemory: true,
	oneModel: true,
	whenBusy: 'refuses',
	defaultPorts: [8000],
	process: {
		names: ['lithos-metal'],
		candidates: [PYTHON_HOST, /lithos/i],
		matches: ({nameLower: nl, exeLower: el, command: cmd}) =>
			/^lithos(-metal)?$/.test(el) || /^lithos(-metal)?$/.test(nl) || /(^|[/\s])lithos-metal(\s|$)/.test(cmd) || /(^|\s)-m\s+lithos(_metal)?(\s|$)/.test(cmd),
	},
	modelBytes: {localDirs: true},
	fingerprint: {rank: 80, paths: ['/v1/models'], marker: (e) => e.ownedBy('lithos-metal'), identify: (e) => (e.ownedBy('lithos-metal') ? {models: e.modelIds} : undefined)},
};
