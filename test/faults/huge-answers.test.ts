/**
 * Fault suite (issue 34 items 5 and 6): what an Ollama answers on `/api/ps` may be hostile.
 * - a depth bomb (2 MB: a million nested arrays) is refused at a depth bound, cheaply, with the
 *   reason: the read stops after the first MAX_JSON_DEPTH brackets;
 * - a 100 MB answer, and a chunked one that never ends: the first models are kept, counted "at
 *   least N", within the poll's deadline;
 * - in each case the ENGINES row (the snapshot's server state) and `infertop_server_up` agree, and
 *   a model list that could not be read says why (a notice), never a silent `model --`.
 * Scripted servers (node:http) on 127.0.0.1; the requests are bounded in time.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {httpGet, MAX_JSON_DEPTH} from '../../source/sources/http-get.js';
import {startRuntime} from '../../source/runtime.js';
import {serveMetrics} from '../../source/commands/lifecycle.js';
import {DEFAULTS, mergeConfig} from '../../source/config/config.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {MAX_MODELS} from '../../source/engines/answers.js';
import {waitUntil} from '../helpers/wait.js';

const model = (i: number) => JSON.stringify({name: `m${i}:8b`, model: `m${i}:8b`, size: 5e9, size_vram: 5e9, details: {format: 'gguf', parameter_size: '8B', quantization_level: 'Q4_K_M'}});

type PsBody = (res: http.ServerResponse) => void;

/** An Ollama whose /api/ps is `ps`. */
async function ollama(ps: PsBody): Promise<{url: string; close(): Promise<void>}> {
	const server = http.createServer((req, res) => {
		if (req.url === '/') return res.end('Ollama is running');
		if (req.url === '/api/version') return res.end('{"version":"0.12.0"}');
		if (req.url === '/api/ps') return ps(res);
		res.statusCode = 404;
		res.end('404 page not found');
	});
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		close: () =>
			new Promise<void>(resolve => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

const DEPTH_BOMB = `{"models":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
const depthBomb: PsBody = res => {
	res.writeHead(200, {'content-type': 'application/json'});
	res.end(DEPTH_BOMB);
};

/** 100 MB of models, written as fast as the socket takes them, stopping when it closes. */
const hundredMB: PsBody = res => {
	res.writeHead(200, {'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024)});
	let sent = 0;
	let i = 0;
	res.write('{"models":[');
	const more = () => {
		while (!res.destroyed && sent < 100 * 1024 * 1024 - 200) {
			const piece = `${i > 0 ? ',' : ''}${model(i++)}`;
			sent += piece.length;
			if (!res.write(piece)) return void res.once('drain', more);
		}
		res.end(']}'.padEnd(100 * 1024 * 1024 - sent - 11, ' '));
	};
	more();
};

/** Chunked, never ends: a model every millisecond, forever (until the client goes). */
const neverEnds: PsBody = res => {
	res.writeHead(200, {'content-type': 'application/json'});
	res.write('{"models":[');
	let i = 0;
	const timer = setInterval(() => {
		if (res.destroyed) return clearInterval(timer);
		for (let k = 0; k < 20; k++) res.write(`${i > 0 ? ',' : ''}${model(i++)}`);
	}, 1);
	res.on('close', () => clearInterval(timer));
};

const open: {close(): Promise<void>}[] = [];
afterEach(async () => {
	for (const o of open.splice(0)) await o.close();
});

describe('the list read itself', {timeout: 30_000}, () => {
	it('a depth bomb is refused at the depth bound, with the reason, before the body is read', async () => {
		const s = await ollama(depthBomb);
		open.push(s);
		const t0 = Date.now();
		const r = await httpGet(`${s.url}/api/ps`, {timeoutMs: 5000, list: {key: 'models', maxItems: 256}});
		const ms = Date.now() - t0;
		expect(r).toMatchObject({status: 200, listError: `answer nested deeper than ${MAX_JSON_DEPTH} levels (not read)`, json: undefined});
		// Refused on its first chunk, not after reading (or parsing) the 2 MB (a bound, not a speed target).
		expect(ms).toBeLessThan(4000);
	});

	it('a never-ending chunked list: the first items kept, counted at least N, at the deadline', async () => {
		const s = await ollama(neverEnds);
		open.push(s);
		const r = await httpGet(`${s.url}/api/ps`, {timeoutMs: 1500, list: {key: 'models', maxItems: 256}});
		expect('status' in r && r.status).toBe(200);
		if (!('status' in r)) return;
		expect(r.truncated).toBe(true);
		expect(r.listTotalAtLeast).toBe(true);
		expect(r.listTotal).toBeGreaterThan(256);
		expect((r.json as {models: unknown[]}).models).toHaveLength(256);
	});
});

/** Start infertop's runtime on one server and its metrics endpoint; wait for `until`; the snapshot and the scrape. */
async function watch(url: string, until: (snap: ReturnType<typeof toSnapshot>) => boolean) {
	const config = mergeConfig(DEFAULTS, {}, {servers: [{url}], demo: false, history: '/dev/null'});
	const runtime = await startRuntime({config, scan: false, system: false});
	const metrics = await serveMetrics(runtime.store, '127.0.0.1:0', config);
	try {
		const snap = () => toSnapshot(runtime.store.getSnapshot(), 'test');
		await waitUntil(() => until(snap()), {timeoutMs: 20_000, what: 'the poll'});
		const scrape = await (await fetch(metrics.url)).text();
		return {snap: snap(), scrape};
	} finally {
		await metrics.close();
		await runtime.stop();
	}
}

const upLine = (scrape: string, url: string) => scrape.split('\n').find(l => l.startsWith('infertop_server_up{') && l.includes(`server="${url}"`));

describe('as the monitor sees it', {timeout: 60_000}, () => {
	it('depth bomb: up (it answers), no models, the reason said; the ENGINES row and infertop_server_up agree', async () => {
		const s = await ollama(depthBomb);
		open.push(s);
		const {snap, scrape} = await watch(s.url, x => x.notices.some(n => n.text.includes('models not read')));
		const server = snap.servers.find(x => x.url === s.url)!;
		expect(server.state).toBe('up');
		expect(server.models).toEqual([]);
		expect(snap.notices.map(n => n.text)).toContain(`${s.url}: models not read: /api/ps: answer nested deeper than ${MAX_JSON_DEPTH} levels (not read)`);
		expect(upLine(scrape, s.url)).toMatch(/ 1$/);
	});

	for (const [name, ps] of [['100 MB', hundredMB], ['never-ending chunked', neverEnds]] as const) {
		it(`${name} /api/ps: the first ${MAX_MODELS} models kept, "at least N" listed; the row and the gauge agree`, async () => {
			const s = await ollama(ps);
			open.push(s);
			const {snap, scrape} = await watch(s.url, x => (x.servers.find(v => v.url === s.url)?.models.length ?? 0) > 0);
			const server = snap.servers.find(x => x.url === s.url)!;
			expect(server.state).toBe('up');
			expect(server.models).toHaveLength(MAX_MODELS);
			expect(server.models[0]).toBe('m0:8b');
			expect(server.modelsListed?.atLeast).toBe(true);
			expect(server.modelsListed!.total).toBeGreaterThan(MAX_MODELS);
			expect(upLine(scrape, s.url)).toMatch(/ 1$/);
		});
	}
});
