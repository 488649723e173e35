/**
 * `infertop compare [URL…]`: wiring. The servers (named, or discovered), their loaded models (the
 * engine's own poll plan), each model's context and the ceiling's inputs; then compareCommand.
 */
import type {ProbeLikeCliOptions} from './probe.js';
import {effectiveHistoryPath, resolveApiKey} from '../config/config.js';
import {compareCommand} from '../probe/compare-command.js';
import type {CompareTarget} from '../probe/compare.js';
import {ENGINE_KEY_ENV, detectEngine, pickModel} from '../probe/run.js';
import {discoverOnce} from '../sources/discovery/discovery.js';
import {pollServer} from '../sources/discovery/pollers.js';
import {detectBandwidth} from '../sources/bandwidth.js';
import {resolveModelBytes} from '../sources/model-bytes.js';
import type {EngineKind} from '../types/events.js';
import {modelsToCompare} from '../model/compare.js';
import {profilesFile} from '../config/paths.js';

export interface CompareCliOptions extends ProbeLikeCliOptions {
	readonly urls: readonly string[];
	/** `--depths`: measure these depths and keep the profiles. */
	readonly depths?: readonly number[];
	/** Where the result goes (default stdout; `whatif --measure` sends it to stderr). */
	readonly stdoutSink?: NodeJS.WritableStream;
}

export async function runCompareCli(o: CompareCliOptions): Promise<number> {
	const env = process.env;
	const ac = new AbortController();
	const onSigint = (): void => ac.abort();
	process.once('SIGINT', onSigint);
	try {
		return await compareCommand({
			urls: o.urls.length > 0 ? o.urls : o.config.servers.map((s) => s.url),
			json: o.json,
			maxTokens: o.maxTokens,
			model: o.model,
			historyPath: effectiveHistoryPath(o.config),
			busyTimeoutMs: o.config.busyTimeout * 1000,
			totalTimeoutMs: o.probeTimeoutMs,
			signal: ac.signal,
			depths: o.depths,
			profilesPath: profilesFile(),
			expiresAt: async (t) => {
				const poll = await pollServer(t.engine as EngineKind, {url: t.url, apiKey: t.apiKey, timeoutMs: 3000, checkIdentity: false, signal: ac.signal});
				return poll.ok ? poll.models?.find((m) => m.name === t.model)?.expiresAt : undefined;
			},
			stdout: o.stdoutSink ?? process.stdout,
			stderr: process.stderr,
			resolveTargets: async (urls, named) => {
				const problems: string[] = [];
				const servers: {url: string; engine?: string}[] =
					urls.length > 0 ? urls.map((url) => ({url})) : (await discoverOnce({scan: o.scan})).filter((s) => s.url !== undefined && !s.demo).map((s) => ({url: s.url!, engine: s.engine}));
				const bw = await detectBandwidth({override: o.config.bandwidth});
				const targets: CompareTarget[] = [];
				for (const s of servers) {
					const engine = s.engine ?? (await detectEngine(s.url, ac.signal));
					const entry = o.config.servers.find((e) => e.url === s.url);
					const apiKey = o.apiKey ?? (entry ? resolveApiKey(entry) : undefined) ?? env.INFERTOP_API_KEY ?? (ENGINE_KEY_ENV[engine] ?? []).map((k) => env[k]).find((v) => v !== undefined && v !== '');
					const poll = await pollServer(engine as EngineKind, {url: s.url, apiKey, timeoutMs: 3000, checkIdentity: false, signal: ac.signal});
					let models = modelsToCompare(poll.ok ? poll.models ?? [] : [], named);
					if (models.length === 0) {
						const picked = await pickModel(s.url, engine, apiKey, ac.signal);
						if (picked === undefined) {
							problems.push(`${s.url}: ${poll.ok ? 'no loaded model' : poll.error}; skipped`);
							continue;
						}
						models = [{name: picked}];
					}
					for (const m of models) {
						const bytes = await resolveModelBytes({engine: engine as EngineKind, url: s.url, apiKey}, m, {timeoutMs: 5000}).catch(() => undefined);
						targets.push({
							url: s.url,
							engine,
							model: m.name,
							apiKey,
							contextLength: m.contextPerSlot ?? m.contextLength,
							loaded: poll.ok && (poll.models ?? []).some((x) => x.name === m.name) ? true : undefined,
							bandwidthGBs: bw.gbs,
							...(bytes && 'bytesPerToken' in bytes ? {bytesPerToken: bytes.bytesPerToken, bytesPerTokenSource: bytes.source} : m.bytesPerToken !== undefined ? {bytesPerToken: m.bytesPerToken, bytesPerTokenSource: m.bytesPerTokenSource} : {}),
						});
					}
				}
				return {targets, problems};
			},
		});
	} finally {
		process.off('SIGINT', onSigint);
	}
}
