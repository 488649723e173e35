/** `infertop probe [URL]`: one headless wall-clocked probe; exit 0, or non-zero with a clear message. */
import type {EffectiveConfig} from '../config/config.js';
import {effectiveHistoryPath, resolveApiKey} from '../config/config.js';
import {probeCommand} from '../probe/command.js';
import {followProbeLogs, type ProbeLogs} from './probe-log.js';
import {discoverOnce} from '../sources/discovery/discovery.js';
import {detectBandwidth} from '../sources/bandwidth.js';
import {resolveModelBytes} from '../sources/model-bytes.js';
import type {EngineKind} from '../types/events.js';

/** What `infertop probe` and `infertop compare` both take from the command line. */
export interface ProbeLikeCliOptions {
	readonly config: EffectiveConfig;
	readonly json: boolean;
	readonly maxTokens: number;
	readonly model?: string;
	readonly apiKey?: string;
	readonly scan: boolean;
	/** Each run's overall limit (`--timeout`), ms. */
	readonly probeTimeoutMs?: number;
}

export interface ProbeCliOptions extends ProbeLikeCliOptions {
	readonly url?: string;
	readonly prompt: string;
	readonly runs: number;
}

export async function runProbeCli(o: ProbeCliOptions): Promise<number> {
	const url = o.url ?? o.config.servers[0]?.url;
	const named = o.config.servers.find(s => s.url === url);
	// --log ENGINE=PATH: the probe finds its own request there, as the monitor does.
	const logs = o.config.logs.length > 0 ? await followProbeLogs(o.config.logs) : undefined;
	if (logs && 'error' in logs) {
		process.stderr.write(`infertop probe: --log: ${logs.error}\n`);
		return 2;
	}
	try {
		return await probeWith(o, url, named, logs);
	} finally {
		await logs?.stop();
	}
}

function probeWith(o: ProbeCliOptions, url: string | undefined, named: EffectiveConfig['servers'][number] | undefined, logs: ProbeLogs | undefined): Promise<number> {
	return probeCommand({
		...(logs ? {logFigures: logs.logFigures} : {}),
		url,
		prompt: o.prompt,
		runs: o.runs,
		json: o.json,
		maxTokens: o.maxTokens,
		model: o.model,
		apiKey: o.apiKey ?? (named ? resolveApiKey(named) : undefined),
		historyPath: effectiveHistoryPath(o.config),
		busyTimeoutMs: o.config.busyTimeout * 1000,
		totalTimeoutMs: o.probeTimeoutMs,
		bandwidthGBs: o.config.bandwidth,
		// As the monitor does: the machine's bandwidth (table or --bandwidth) and the model's bytes per token.
		ceilingInputs: async ({url: u, engine, model, apiKey}) => {
			const [bw, bytes] = await Promise.all([
				detectBandwidth({override: o.config.bandwidth}),
				model === undefined ? undefined : resolveModelBytes({engine: engine as EngineKind, url: u, apiKey}, {name: model}, {timeoutMs: 5000}),
			]);
			return {bandwidthGBs: bw.gbs, ...(bytes && 'bytesPerToken' in bytes ? {bytesPerToken: bytes.bytesPerToken, bytesPerTokenSource: bytes.source} : {})};
		},
		discover: async () => (await discoverOnce({scan: o.scan})).filter(s => s.url !== undefined).map(s => ({url: s.url!, engine: s.engine})),
		stdout: process.stdout,
		stderr: process.stderr,
	});
}
