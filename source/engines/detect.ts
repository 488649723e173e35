/**
 * Which engine wrote a log, from a few of its lines. Ollama logs that contain raw llama-server
 * lines (Ollama ≥ 0.30) are `ollama`: any Ollama marker wins over llama.cpp markers.
 */
import type {EngineKind} from '../types/monitor.js';

interface Rule {
	readonly engine: EngineKind;
	readonly test: (line: string) => boolean;
	readonly weight: number;
}

const JOURNALD = /^\w{3} +\d+ \d{2}:\d{2}:\d{2} \S+ ([^[\s]+)\[\d+\]: /;

const RULES: readonly Rule[] = [
	{engine: 'ollama', weight: 5, test: l => l.startsWith('time=') && l.includes(' level=') && l.includes(' source=')},
	{engine: 'ollama', weight: 5, test: l => l.startsWith('[GIN]')},
	{engine: 'ollama', weight: 3, test: l => /llama runner started in|msg="?Listening on .*\(version /.test(l)},
	{engine: 'lithos', weight: 6, test: l => l.includes(':monolith.') || l.includes('lithos-metal')},
	{engine: 'vllm', weight: 5, test: l => /^(?:\([^)]*pid=\d+\) )?(?:INFO|WARNING|ERROR|DEBUG) \d{2}-\d{2} \d{2}:\d{2}:\d{2} \[/.test(l)},
	{engine: 'vllm', weight: 3, test: l => l.includes('SpecDecoding metrics') || /Avg prompt throughput: .* tokens\/s/.test(l)},
	{engine: 'sglang', weight: 5, test: l => /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?: [^\]]+)?\] /.test(l)},
	{engine: 'sglang', weight: 3, test: l => /(?:Decode|Prefill) batch[.,] /.test(l)},
	{engine: 'mlxlm', weight: 4, test: l => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} - [A-Z]+ - /.test(l)},
	{engine: 'mlxlm', weight: 2, test: l => l.startsWith('Starting httpd at ') || /^\S+ - - \[\d+\/\w+\/\d{4} [\d:]+\] "/.test(l)},
	{engine: 'llamacpp', weight: 4, test: l => /^(?:\[\s*\d+\] )?(?:\d+\.\d{2}\.\d{3}\.\d{3} )?(?:[IWED] )?(?:slot +\S+: id +\d+ \| task|srv +\S+: |que +\S+: |spec +\S+: |cmn +\S+: )/.test(l)},
	{engine: 'llamacpp', weight: 2, test: l => /^(?:llama_model_loader|load_tensors|llama_context|print_info|llama_kv_cache|sched_reserve|main): /.test(l)},
];

/** Given the first lines of an unknown log (sanitized), say which engine wrote it, or undefined. */
export function detectEngine(lines: readonly string[]): EngineKind | undefined {
	const score = new Map<EngineKind, number>();
	for (const raw of lines) {
		if (raw.length === 0 || raw.length > 8192) continue;
		let line = raw;
		const j = JOURNALD.exec(line);
		if (j) {
			if (/ollama/i.test(j[1]!)) score.set('ollama', (score.get('ollama') ?? 0) + 2);
			line = line.slice(j[0].length);
		}
		for (const r of RULES) if (r.test(line)) score.set(r.engine, (score.get(r.engine) ?? 0) + r.weight);
	}
	// An Ollama log carries llama-server lines too: any Ollama evidence decides it.
	if ((score.get('ollama') ?? 0) >= 3) return 'ollama';
	// lithos-metal also writes uvicorn lines; its own logger lines decide it.
	if ((score.get('lithos') ?? 0) > 0) return 'lithos';
	let best: EngineKind | undefined;
	let bestScore = 0;
	for (const [k, v] of score) {
		if (v > bestScore) {
			best = k;
			bestScore = v;
		}
	}
	return best;
}
