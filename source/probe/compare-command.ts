/**
 * `infertop compare [URL…]`: the comparison headless. Progress lines on stderr, the table (or JSON
 * rows) on stdout, every row appended to the probe history with the comparison's run id. Returns the
 * exit code; never throws. Where the targets come from (discovery, the servers' model lists, the
 * ceiling's inputs) is injected by commands/compare.ts.
 */
import {compareJson, compareText} from '../model/compare.js';
import {redactUserinfo, sanitize, sanitizeDeep, sanitizeName} from '../util/sanitize.js';
import {VERSION} from '../version.js';
import {appendHistory, checkHistoryWritable, defaultHistoryPath} from './history.js';
import {newRunId, runCompare, type CompareTarget} from './compare.js';
import {DEPTH_MAX_TOKENS} from './depths.js';
import {loadPrompt} from './prompts.js';
import {pickModel} from './run.js';
import type {StreamTimeouts} from './client.js';
import type {CompareRow} from '../types/compare.js';
import {measureProfile} from './depths.js';
import {saveProfiles} from './profiles.js';
import {profileText} from '../model/whatif.js';
import type {Profile} from '../types/whatif.js';

export interface CompareCommandOptions {
	/** Servers named on the command line; none → `resolveTargets` discovers. */
	readonly urls: readonly string[];
	readonly json: boolean;
	readonly maxTokens: number;
	readonly model?: string;
	readonly historyPath?: string;
	readonly busyTimeoutMs?: number;
	readonly busyRetryBaseMs?: number;
	readonly totalTimeoutMs?: number;
	readonly timeouts?: StreamTimeouts;
	/** URL list (maybe empty) → the targets: each loaded model on each server (or `model` where named). */
	readonly resolveTargets: (urls: readonly string[], model: string | undefined) => Promise<{targets: CompareTarget[]; problems: string[]}>;
	readonly version?: string;
	readonly env?: NodeJS.ProcessEnv;
	readonly signal?: AbortSignal;
	readonly stdout: NodeJS.WritableStream;
	readonly stderr?: NodeJS.WritableStream;
	/** `--depths`: measure each target at these depths (tokens) instead of the prompt set, and keep the profiles. */
	readonly depths?: readonly number[];
	/** Where the profiles are kept (`profiles.json` in the state folder). */
	readonly profilesPath?: string;
	/** The text deeper prompts are cut from (default: samples/prompts/long-source.txt). */
	readonly depthSource?: () => Promise<string>;
	/** The model's `expires_at` as the server says it now (Ollama /api/ps), for the keep-alive. */
	readonly expiresAt?: (t: CompareTarget) => Promise<string | undefined>;
}

export async function compareCommand(o: CompareCommandOptions): Promise<number> {
	const err = o.stderr ?? process.stderr;
	const say = (m: string): void => void err.write(`infertop compare: ${sanitizeName(redactUserinfo(m))}\n`);
	if (!Number.isInteger(o.maxTokens) || o.maxTokens < 2) {
		say(`--max-tokens must be an integer ≥ 2 (got ${o.maxTokens})`);
		return 2;
	}
	const urls: string[] = [];
	for (const raw of o.urls) {
		const u = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
		try {
			const p = new URL(u);
			if (p.protocol !== 'http:' && p.protocol !== 'https:') {
				say(`unsupported URL scheme ${p.protocol} (use http:// or https://)`);
				return 2;
			}
		} catch {
			say(`not a URL: ${sanitize(raw, 100)}`);
			return 2;
		}
		urls.push(u);
	}
	const historyPath = o.historyPath ?? defaultHistoryPath(o.env ?? process.env);
	try {
		await checkHistoryWritable(historyPath);
	} catch (e) {
		say(`cannot write the probe history ${historyPath}: ${sanitize((e as Error).message, 200)} (give another --history PATH)`);
		return 2;
	}
	let found: Awaited<ReturnType<CompareCommandOptions['resolveTargets']>>;
	try {
		found = await o.resolveTargets(urls, o.model);
	} catch (e) {
		say(sanitize((e as Error).message, 200));
		return 1;
	}
	for (const p of found.problems) say(p);
	if (found.targets.length === 0) {
		say(urls.length === 0 ? 'no inference server with a loaded model found on this machine; give URLs: infertop compare http://127.0.0.1:11434 http://127.0.0.1:8080' : 'no model to compare on the servers given (load one, or name it with --model)');
		return 1;
	}
	if (o.depths !== undefined) return depthsCommand(o, found.targets, say, historyPath);
	const runId = newRunId();
	say(`run ${runId}: ${found.targets.length} server × model, code / prose / long, 2 runs each, ${o.maxTokens} max tokens`);
	let lastStatus = '';
	const out = await runCompare({
		targets: found.targets,
		maxTokens: o.maxTokens,
		runId,
		signal: o.signal,
		timeouts: o.timeouts,
		totalTimeoutMs: o.totalTimeoutMs,
		busyTimeoutMs: o.busyTimeoutMs,
		busyRetryBaseMs: o.busyRetryBaseMs,
		historyPath,
		version: o.version ?? VERSION,
		onHistoryError: say,
		onProgress: (p) => {
			// Only what changes the story: a busy server's wait, not every token.
			if (p.status && p.status !== lastStatus) {
				lastStatus = p.status;
				say(`[${p.index + 1}/${p.total}] ${p.url} ${p.model ?? '--'} ${p.prompt} run ${p.run}: ${p.status}`);
			}
		},
		onRow: (r: CompareRow) => {
			const f = r.result;
			const line = r.error ? `failed: ${r.error}` : `TTFT ${f?.ttftMs === undefined ? '--' : `${Math.round(f.ttftMs)} ms`}, ${f?.decodeTps === undefined ? '--' : f.decodeTps.toFixed(1)} tok/s`;
			say(`${r.url} ${r.model ?? '--'} ${r.prompt} run ${r.run}: ${line}`);
		},
	});
	if (out.cancelled) say('cancelled');
	o.stdout.write(o.json ? JSON.stringify(sanitizeDeep(out.rows.map(compareJson)), null, 2) + '\n' : compareText(out.rows, runId));
	if (out.cancelled) return 130;
	return out.rows.some((r) => r.result !== undefined) ? 0 : 1;
}

/** `compare --depths`: each target measured at each depth, one at a time, profiles kept and printed. */
async function depthsCommand(o: CompareCommandOptions, targets: readonly CompareTarget[], say: (m: string) => void, historyPath: string): Promise<number> {
	const runId = newRunId();
	const writes: Promise<void>[] = [];
	const depths = o.depths ?? [];
	let source: string;
	try {
		source = o.depthSource ? await o.depthSource() : (await loadPrompt('long')).text;
	} catch (e) {
		say(sanitize((e as Error).message, 200));
		return 1;
	}
	say(`${targets.length} server × model at depths ${depths.join(', ')} (tokens), one request at a time`);
	const profiles: Profile[] = [];
	for (const t of targets) {
		if (o.signal?.aborted) break;
		const label = `${t.url} ${t.model ?? '--'}`;
		try {
			const model = t.model ?? (await pickModel(t.url, t.engine, t.apiKey, o.signal));
			if (model === undefined) throw new Error('no model to measure (name it with --model)');
			const p = await measureProfile({
				target: {serverId: t.serverId, url: t.url, engine: t.engine, model, apiKey: t.apiKey, contextWindow: t.contextLength, loaded: t.loaded},
				depths,
				source,
				maxTokens: Math.min(o.maxTokens, DEPTH_MAX_TOKENS),
				version: o.version ?? VERSION,
				signal: o.signal,
				timeouts: o.timeouts,
				totalTimeoutMs: o.totalTimeoutMs,
				busyTimeoutMs: o.busyTimeoutMs,
				busyRetryBaseMs: o.busyRetryBaseMs,
				expiresAt: o.expiresAt ? () => o.expiresAt!({...t, model}) : undefined,
				onStep: (line) => say(`${label}: ${line}`),
				// Every probe of it in the probe history, under one run id, as the comparison's are.
				onResult: (r) => void writes.push(appendHistory(historyPath, {...r, runId}, o.version ?? VERSION).catch((e: unknown) => say(`history not written: ${sanitize((e as Error).message, 200)}`))),
			});
			profiles.push(p);
		} catch (e) {
			say(`${label}: ${sanitize((e as Error).message, 200)}`);
		}
	}
	await Promise.all(writes);
	if (profiles.length > 0 && o.profilesPath !== undefined) {
		try {
			await saveProfiles(o.profilesPath, profiles);
			say(`profiles kept in ${o.profilesPath}`);
		} catch (e) {
			say(`profiles not written: ${sanitize((e as Error).message, 200)}`);
		}
	}
	o.stdout.write(o.json ? JSON.stringify(sanitizeDeep(profiles), null, 2) + '\n' : profiles.map(profileText).join('\n'));
	if (o.signal?.aborted) return 130;
	return profiles.length > 0 ? 0 : 1;
}
