/**
 * The measured profiles file (issue 29): `profiles.json` in infertop's state folder
 * (config/paths.ts profilesFile), one profile per server × model, newest kept, with the time and
 * infertop's version. Read back checked: the file is outside infertop's control, so every number is
 * checked and every text sanitized where it enters; a profile that does not hold together is dropped.
 */
import {mkdir, readFile, rename, unlink, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {sanitize, sanitizeDeep} from '../util/sanitize.js';
import type {CacheBehaviour, Concurrency, DepthPoint, Profile, ProfilesFile} from '../types/whatif.js';

/** Largest profiles file read (bytes). */
const MAX_BYTES = 4_000_000;
const MAX_PROFILES = 500;

const obj = (x: unknown): Record<string, unknown> | undefined => (x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined);
const num = (x: unknown, max = 1e12): number | undefined => (typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= max ? x : undefined);
const str = (x: unknown, max = 300): string | undefined => (typeof x === 'string' && x !== '' ? sanitize(x, max) : undefined);

function point(x: unknown): DepthPoint | undefined {
	const o = obj(x);
	if (!o) return undefined;
	const nominal = num(o.nominal, 1e8);
	const promptTokens = num(o.promptTokens, 1e8);
	const ttftMs = num(o.ttftMs, 1e8);
	const prefillTps = num(o.prefillTps, 1e8);
	const t = num(o.t, 1e14);
	if (nominal === undefined || promptTokens === undefined || ttftMs === undefined || ttftMs <= 0 || prefillTps === undefined || t === undefined) return undefined;
	const cachedTokens = num(o.cachedTokens, 1e8);
	return {
		nominal,
		promptTokens,
		...(cachedTokens !== undefined && cachedTokens <= promptTokens ? {cachedTokens} : {}),
		ttftMs,
		prefillTps,
		prefillTpsReported: num(o.prefillTpsReported, 1e8),
		decodeTps: num(o.decodeTps, 1e8),
		decodeTpsReported: num(o.decodeTpsReported, 1e8),
		generated: num(o.generated, 1e8),
		t,
	};
}

function cacheOf(x: unknown): CacheBehaviour {
	const o = obj(x) ?? {};
	return {
		reused: typeof o.reused === 'boolean' ? o.reused : undefined,
		by: o.by === 'count' || o.by === 'time' ? o.by : undefined,
		promptTokens: num(o.promptTokens, 1e8),
		cachedTokens: num(o.cachedTokens, 1e8),
		firstTtftMs: num(o.firstTtftMs, 1e8),
		secondTtftMs: num(o.secondTtftMs, 1e8),
		cachedPrefillTps: num(o.cachedPrefillTps, 1e9),
	};
}

const CONCURRENCY: readonly Concurrency[] = ['parallel', 'one-at-a-time', 'refuses'];

/** One profile read back, checked; undefined when it does not hold together. */
export function checkProfile(x: unknown): Profile | undefined {
	const o = obj(x);
	if (!o) return undefined;
	const url = str(o.url, 500);
	const engine = str(o.engine, 40);
	const model = str(o.model, 300);
	const measuredAt = num(o.measuredAt, 1e14);
	const version = str(o.version, 40) ?? 'unknown';
	if (url === undefined || engine === undefined || model === undefined || measuredAt === undefined || !Array.isArray(o.points)) return undefined;
	const points = o.points.slice(0, 64).map(point).filter((p): p is DepthPoint => p !== undefined).sort((a, b) => a.promptTokens - b.promptTokens);
	if (points.length === 0) return undefined;
	const tk = obj(o.tokenizer);
	const tokTokens = num(tk?.tokens, 1e7);
	const tokId = str(tk?.textId, 60);
	const notes = Array.isArray(o.notes) ? o.notes.slice(0, 20).map((n) => str(n, 300)).filter((n): n is string => n !== undefined) : [];
	return {
		url,
		engine,
		model,
		measuredAt,
		version,
		contextWindow: num(o.contextWindow, 1e8),
		points,
		cache: cacheOf(o.cache),
		loadMs: num(o.loadMs, 1e8),
		loadSource: str(o.loadSource, 80),
		keepAliveMs: num(o.keepAliveMs, 1e11),
		concurrency: CONCURRENCY.find((c) => c === o.concurrency),
		...(tokTokens !== undefined && tokTokens > 0 && tokId !== undefined ? {tokenizer: {textId: tokId, tokens: tokTokens}} : {}),
		...(notes.length > 0 ? {notes} : {}),
	};
}

/** The profiles in a file; a missing file is none. Rejects with one line when the file is not a profiles file. */
export async function readProfiles(file: string): Promise<Profile[]> {
	let text: string;
	try {
		const buf = await readFile(file);
		if (buf.length > MAX_BYTES) throw new Error(`${file}: larger than ${MAX_BYTES} bytes`);
		text = buf.toString('utf8');
	} catch (e) {
		if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
		throw new Error(`cannot read ${file}: ${sanitize((e as Error).message, 200)}`);
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		throw new Error(`${file}: not JSON (remove it, or measure again with compare --depths)`);
	}
	const profiles = obj(parsed)?.profiles;
	if (!Array.isArray(profiles)) throw new Error(`${file}: no "profiles" list`);
	return profiles.slice(0, MAX_PROFILES).map(checkProfile).filter((p): p is Profile => p !== undefined);
}

export const profileKey = (p: Pick<Profile, 'url' | 'model'>): string => `${p.url}\u0000${p.model}`;

/** Add or replace (same server × model) profiles, newest kept, and write the file atomically. */
export async function saveProfiles(file: string, added: readonly Profile[]): Promise<void> {
	const old = await readProfiles(file).catch(() => []);
	const byKey = new Map<string, Profile>();
	for (const p of [...old, ...added]) {
		const k = profileKey(p);
		const had = byKey.get(k);
		if (!had || had.measuredAt <= p.measuredAt) byKey.set(k, p);
	}
	const out: ProfilesFile = {format: 1, profiles: [...byKey.values()].slice(-MAX_PROFILES)};
	await mkdir(path.dirname(file), {recursive: true});
	const tmp = `${file}.${process.pid}.tmp`;
	// Stored text like printed text: no control character, no password of a URL (sanitizeDeep); a
	// failed write (a full disk) takes its temp file with it.
	try {
		await writeFile(tmp, JSON.stringify(sanitizeDeep(out), null, 1) + '\n');
		await rename(tmp, file);
	} catch (error) {
		await unlink(tmp).catch(() => undefined);
		throw error;
	}
}
