/** `infertop probe [URL]`: one headless wall-clocked probe; exit 0, or non-zero with a clear message. */
import type {EffectiveConfig} from '../config/config.js';
import {effectiveHistoryPath, resolveApiKey} from '../config/config.js';
import {probeCommand} from '../probe/command.js';
import {discoverOnce} from '../sources/discovery/discovery.js';

export interface ProbeCliOptions {
	readonly config: EffectiveConfig;
	readonly url?: string;
	readonly prompt: string;
	readonly runs: number;
	readonly json: boolean;
	readonly maxTokens: number;
	readonly model?: string;
	readonly apiKey?: string;
	readonly scan: boolean;
}

export async function runProbeCli(o: ProbeCliOptions): Promise<number> {
	const url = o.url ?? o.config.servers[0]?.url;
	const named = o.config.servers.find(s => s.url === url);
	return probeCommand({
		url,
		prompt: o.prompt,
		runs: o.runs,
		json: o.json,
		maxTokens: o.maxTokens,
		model: o.model,
		apiKey: o.apiKey ?? (named ? resolveApiKey(named) : undefined),
		historyPath: effectiveHistoryPath(o.config),
		busyTimeoutMs: o.config.busyTimeout * 1000,
		bandwidthGBs: o.config.bandwidth,
		discover: async () => (await discoverOnce({scan: o.scan})).filter(s => s.url !== undefined).map(s => ({url: s.url!, engine: s.engine})),
		stdout: process.stdout,
	});
}
