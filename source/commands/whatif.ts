/**
 * `infertop whatif [--session ID|last] [URL…] [--measure] [--json]` (issue 29): collect for a few
 * seconds as `snapshot` does (the logs' backlog gives the agent's turns), then project the chosen
 * session onto every measured profile (profiles.json, `compare --depths`), or onto the servers named.
 * `--measure` first measures the servers named that have no profile, one at a time.
 */
import {startRuntime, type RuntimeOptions} from '../runtime.js';
import {deriveSessions} from '../model/sessions.js';
import {whatIfOf, whatIfText, type WhatIfRow} from '../model/whatif.js';
import {profilesFile} from '../config/paths.js';
import {readProfiles} from '../probe/profiles.js';
import {DEFAULT_DEPTHS} from '../config/depths.js';
import {redactUserinfo, sanitize, sanitizeDeep, sanitizeName} from '../util/sanitize.js';

export interface WhatIfCliOptions extends RuntimeOptions {
	readonly urls: readonly string[];
	readonly json: boolean;
	readonly session: string;
	readonly measure: boolean;
	readonly seconds: number;
	readonly stdout?: NodeJS.WritableStream;
	readonly stderr?: NodeJS.WritableStream;
	/** Where the profiles are (default profiles.json in the state dir). */
	readonly profilesPath?: string;
}

/** The JSON row of `whatif --json` (the shape, plus the notes and the rates used). */
export function whatIfJson(r: WhatIfRow): Record<string, unknown> {
	return {
		server: r.server,
		engine: r.engine,
		model: r.model,
		actual: r.actual,
		turns: r.turns,
		projectedMs: r.projectedMs,
		parts: r.parts,
		actualMs: r.actualMs,
		changePct: r.changePct,
		selfErrorPct: r.selfErrorPct,
		ratesMeasuredAt: r.ratesMeasuredAt,
		ratesVersion: r.ratesVersion,
		unable: r.unable,
		dominant: r.dominant,
		tokenRatio: r.tokenRatio,
		rates: r.rates,
		notes: r.notes,
	};
}

export async function runWhatIfCli(o: WhatIfCliOptions): Promise<number> {
	const out = o.stdout ?? process.stdout;
	const err = o.stderr ?? process.stderr;
	const say = (m: string): void => void err.write(`infertop whatif: ${sanitizeName(redactUserinfo(m))}\n`);
	const file = o.profilesPath ?? profilesFile();
	if (o.measure) {
		if (o.urls.length === 0) {
			say('--measure: name the servers to measure (URLs)');
			return 2;
		}
		const have = await readProfiles(file).catch(() => []);
		const missing = o.urls.filter((u) => !have.some((p) => p.url.replace(/\/+$/, '') === (/^[a-z]+:\/\//i.test(u) ? u : `http://${u}`).replace(/\/+$/, '')));
		if (missing.length > 0) {
			say(`measuring ${missing.length} server${missing.length === 1 ? '' : 's'} without a profile, one at a time`);
			const {runCompareCli} = await import('./compare.js');
			const code = await runCompareCli({...o, urls: missing, json: false, maxTokens: 64, depths: DEFAULT_DEPTHS, stdoutSink: err});
			if (code !== 0) say('measurement incomplete; projecting onto the profiles there are');
		}
	}
	let profiles;
	try {
		profiles = await readProfiles(file);
	} catch (e) {
		say(sanitize((e as Error).message, 300));
		return 2;
	}
	const runtime = await startRuntime(o);
	let view;
	try {
		await runtime.ready;
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, o.seconds) * 1000));
		runtime.dispatch({type: 'tick', t: Date.now()});
		const state = runtime.store.getSnapshot();
		view = whatIfOf(deriveSessions(state, o.config.sessionGap * 1000).sessions, state.servers, profiles, o.session, o.urls.map((u) => (/^[a-z]+:\/\//i.test(u) ? u : `http://${u}`)), Date.now());
	} finally {
		await runtime.stop();
	}
	if (view.problem) say(view.problem);
	if (view.unmeasured && view.unmeasured.length > 0) say(`not measured yet: ${view.unmeasured.join(', ')} (whatif --measure URL…)`);
	if (!view.session) return 1;
	if (o.json) out.write(JSON.stringify(sanitizeDeep(view.rows.map(whatIfJson)), null, 2) + '\n');
	else if (view.rows.length > 0) out.write(whatIfText(view.session, view.rows, Date.now()));
	return view.rows.length > 0 ? 0 : 1;
}
