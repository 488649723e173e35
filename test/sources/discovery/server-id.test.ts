import {describe, expect, it} from 'vitest';
import {loopbackId, normalizeServerUrl} from '../../../source/sources/discovery/server-id.js';

describe('server ids are normalized base URLs', () => {
	it.each([
		['localhost:11434', 'http://127.0.0.1:11434', 'http://localhost:11434'],
		['http://LOCALHOST:8080/v1/', 'http://127.0.0.1:8080', 'http://localhost:8080'],
		['http://127.0.0.1:11434/', 'http://127.0.0.1:11434', 'http://127.0.0.1:11434'],
		['https://gpu-box.lan/api', 'https://gpu-box.lan:443', 'https://gpu-box.lan:443'],
		['http://[::1]:1234', 'http://[::1]:1234', 'http://[::1]:1234'],
		['http://host:8000/proxy/vllm', 'http://host:8000/proxy/vllm', 'http://host:8000/proxy/vllm'],
	])('%s → id %s, url %s', (input, id, url) => {
		expect(normalizeServerUrl(input)).toEqual({id, url});
	});

	it('rejects what is not an http(s) URL', () => {
		expect(normalizeServerUrl('')).toBeUndefined();
		expect(normalizeServerUrl('ftp://x')).toBeUndefined();
		expect(normalizeServerUrl('http://')).toBeUndefined();
	});

	it('loopback ids', () => {
		expect(loopbackId(11434)).toBe('http://127.0.0.1:11434');
		expect(loopbackId(1234, '::1')).toBe('http://[::1]:1234');
	});
});
