/**
 * `--serve-metrics ADDR` parsing. Accepted forms: `9464`, `:9464`, `127.0.0.1:9464`,
 * `localhost:9464`, `0.0.0.0:9464`, `[::1]:9464`. A missing host means loopback (127.0.0.1),
 * never all interfaces: infertop binds only where it is asked to. Port 0 picks a free port.
 */

export const DEFAULT_METRICS_ADDR = '127.0.0.1:9464';

export interface ListenAddress {
	readonly host: string;
	readonly port: number;
}

export type ParsedAddress = ({readonly ok: true} & ListenAddress) | {readonly ok: false; readonly error: string};

export function parseListenAddress(input: string): ParsedAddress {
	const text = input.trim();
	if (text === '') return {ok: false, error: 'empty address (expected HOST:PORT, e.g. 127.0.0.1:9464)'};
	let host: string;
	let portText: string;
	const bracketed = /^\[([0-9A-Fa-f:.%\w]+)\]:(\d+)$/.exec(text);
	if (bracketed) {
		host = bracketed[1]!;
		portText = bracketed[2]!;
	} else if (/^\d+$/.test(text)) {
		host = '';
		portText = text;
	} else {
		const colon = text.lastIndexOf(':');
		if (colon < 0) return {ok: false, error: `"${input}": expected HOST:PORT (e.g. 127.0.0.1:9464)`};
		host = text.slice(0, colon);
		portText = text.slice(colon + 1);
		if (host.includes(':')) return {ok: false, error: `"${input}": write an IPv6 host in brackets, e.g. [::1]:9464`};
		if (host !== '' && !/^[A-Za-z0-9.-]+$/.test(host)) return {ok: false, error: `"${input}": bad host "${host}"`};
	}
	if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65_535) return {ok: false, error: `"${input}": bad port "${portText}" (0..65535)`};
	return {ok: true, host: host === '' ? '127.0.0.1' : host, port: Number(portText)};
}

/** Whether an address keeps the endpoint on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
	const h = host.toLowerCase();
	return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * The warning for an endpoint open beyond this machine (`0.0.0.0:9464`, a LAN address): the metrics
 * carry no secret, but model names, servers and traffic are readable by anyone who can connect,
 * without authentication. Undefined for a loopback address (or one that does not parse).
 */
export function exposedWarning(addr: string): string | undefined {
	const a = parseListenAddress(addr);
	if (!a.ok || isLoopbackHost(a.host)) return undefined;
	return `warning: --serve-metrics ${a.host}:${a.port} is reachable from the network, without authentication (model names, servers and traffic can be read by anyone who connects); use 127.0.0.1:${a.port} to keep it on this machine`;
}
