/**
 * Adding an engine = one file: a descriptor's poll plan is all the poller needs. A made-up engine
 * (its own model list at `/api/loaded`, `/api/build` on identity checks) is polled over real HTTP
 * by the same code every engine uses, with no switch anywhere.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {runPlan} from '../../../source/sources/discovery/pollers.js';
import {isRecord, text} from '../../../source/engines/answers.js';
import type {PollPlan} from '../../../source/engines/descriptor.js';

let server: http.Server | undefined;
afterEach(async () => {
	await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
	server = undefined;
});

async function serve(routes: Record<string, string>): Promise<{url: string; asked: string[]}> {
	const asked: string[] = [];
	server = http.createServer((req, res) => {
		asked.push(req.url ?? '');
		const body = routes[req.url ?? ''];
		res.writeHead(body === undefined ? 404 : 200, {'content-type': 'application/json'});
		res.end(body ?? '{"error":"not found"}');
	});
	await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
	return {url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, asked};
}

const plan: PollPlan = {
	paths: ['/api/loaded'],
	identityPaths: ['/api/build'],
	read: ({json}) => {
		const loaded = json['/api/loaded'];
		const build = json['/api/build'];
		const version = isRecord(build) ? text(build.build, 32) : undefined;
		const names = isRecord(loaded) && Array.isArray(loaded.loaded) ? loaded.loaded.filter((n): n is string => typeof n === 'string') : undefined;
		return {models: names?.map((name) => ({name, loaded: true})), version, marker: {version}};
	},
};

describe('a descriptor poll plan', () => {
	it('is asked and read as declared: identity paths only on identity checks', async () => {
		const {url, asked} = await serve({'/api/loaded': '{"loaded":["tiny-1b"]}', '/api/build': '{"build":"b42"}'});
		const first = await runPlan(plan, {url, timeoutMs: 2000, checkIdentity: true});
		expect(first).toEqual({ok: true, models: [{name: 'tiny-1b', loaded: true}], version: 'b42', marker: {version: 'b42'}});
		const next = await runPlan(plan, {url, timeoutMs: 2000, checkIdentity: false});
		expect(next).toEqual({ok: true, models: [{name: 'tiny-1b', loaded: true}], version: undefined, marker: {version: undefined}});
		expect(asked.sort()).toEqual(['/api/build', '/api/loaded', '/api/loaded']);
	});

	it('a server that answers nothing the plan asks is lost; a fallback plan is tried first', async () => {
		const {url} = await serve({'/v1/models': '{"object":"list","data":[{"id":"m"}]}'});
		// 404 is an answer: the server is alive, with no models it knows of.
		expect(await runPlan(plan, {url, timeoutMs: 2000, checkIdentity: false})).toMatchObject({ok: true, models: undefined});
		await new Promise<void>((r) => server!.close(() => r()));
		server = undefined;
		const lost = await runPlan({...plan, fallback: {paths: ['/v1/models'], read: () => ({marker: {}})}}, {url, timeoutMs: 500, checkIdentity: false});
		expect(lost.ok).toBe(false);
	});
});
