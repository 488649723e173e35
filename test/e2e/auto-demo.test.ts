/** `demo: auto` starts the demo only when the first discovery round found nothing. */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startRuntime} from '../../source/runtime.js';
import {mergeConfig, DEFAULTS} from '../../source/config/config.js';

let server: http.Server;
let url: string;

beforeAll(async () => {
	server = http.createServer((req, res) => {
		if (req.url === '/') return void res.end('Ollama is running');
		if (req.url === '/api/version') return void res.end(JSON.stringify({version: '0.34.0'}));
		if (req.url === '/api/ps') return void res.end(JSON.stringify({models: []}));
		res.statusCode = 404;
		res.end('404 page not found');
	});
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>(resolve => server.close(() => resolve())));

describe('demo: auto', () => {
	it('does not start the demo when a named engine answers', async () => {
		const config = mergeConfig(DEFAULTS, {}, {servers: [{url}], demo: 'auto', history: '/dev/null'});
		const rt = await startRuntime({config, scan: false, system: false, pollMs: 200});
		try {
			await rt.ready;
			expect(rt.demo()).toBeUndefined();
			expect(rt.store.getSnapshot().servers[url]?.engine).toBe('ollama');
		} finally {
			await rt.stop();
		}
	});

	it('starts it when nothing was found', async () => {
		const config = mergeConfig(DEFAULTS, {}, {demo: 'auto', history: '/dev/null'});
		const rt = await startRuntime({config, scan: false, system: false, demoAgent: false});
		try {
			await rt.ready;
			expect(rt.demo()).toBeDefined();
			// issue 30: said, not only labelled.
			expect(rt.store.getSnapshot().notices.map(n => n.text)).toContain('no engine found: started the demo (DEMO on screen; --no-demo never starts it)');
		} finally {
			await rt.stop();
		}
	});
});
