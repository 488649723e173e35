/**
 * Server ids are normalized base URLs: `http://127.0.0.1:11434`. `localhost` and a trailing
 * `/`, `/v1` or `/api` are folded so a named server and a scanned port are one server.
 */

export interface NormalizedUrl {
	/** Stable id: scheme://host:port with localhost → 127.0.0.1. */
	readonly id: string;
	/** Base URL to send requests to (host as the user wrote it). */
	readonly url: string;
}

/** Normalize `localhost:11434`, `http://LOCALHOST:8080/v1/`, `https://host/` … ; undefined when not a URL. */
export function normalizeServerUrl(input: string): NormalizedUrl | undefined {
	let s = input.trim();
	if (!s) return undefined;
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = `http://${s}`;
	let u: URL;
	try {
		u = new URL(s);
	} catch {
		return undefined;
	}
	if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
	const port = u.port || (u.protocol === 'https:' ? '443' : '80');
	let path = u.pathname.replace(/\/+$/, '');
	path = path.replace(/\/(?:v1|api)$/, '');
	const host = u.hostname.toLowerCase();
	const idHost = host === 'localhost' ? '127.0.0.1' : host;
	return {
		id: `${u.protocol}//${idHost}:${port}${path}`,
		url: `${u.protocol}//${host}:${port}${path}`,
	};
}

/** Id of a loopback port. */
export function loopbackId(port: number, host = '127.0.0.1'): string {
	const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
	return `http://${h}:${port}`;
}
