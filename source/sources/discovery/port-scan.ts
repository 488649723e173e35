/**
 * Cheap loopback scan: one TCP connect per port, then fingerprint only the ports that accept.
 * Every step has a deadline, so a port that accepts and never answers costs at most
 * connectTimeoutMs + fingerprintTimeoutMs, in parallel with the others.
 */
import net from 'node:net';
import {fingerprint, type FingerprintResult} from './fingerprint.js';
import {loopbackId} from './server-id.js';

/**
 * Default ports of the engines (engines.md §8): Ollama 11434; llama-server, mlx_lm, llama-swap,
 * LocalAI 8080; vLLM, lithos-metal 8000; LM Studio 1234; SGLang 30000; KoboldCpp 5001; Jan 1337;
 * TabbyAPI 5000; llama-server's planned new default 9931.
 */
import {DEFAULT_PORTS} from '../../engines/index.js';

export {DEFAULT_PORTS};

export const DEFAULT_CONNECT_TIMEOUT_MS = 300;

/** True when something accepts a TCP connection at host:port within the deadline. */
export function tcpAccepts(host: string, port: number, timeoutMs = DEFAULT_CONNECT_TIMEOUT_MS): Promise<boolean> {
	return new Promise((resolve) => {
		let settled = false;
		const socket = net.connect({host, port});
		const finish = (value: boolean) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			socket.removeAllListeners();
			socket.on('error', () => {});
			socket.destroy();
			resolve(value);
		};
		const timer = setTimeout(() => finish(false), timeoutMs);
		socket.once('connect', () => finish(true));
		socket.once('error', () => finish(false));
	});
}

export interface ScanOptions {
	readonly ports?: readonly number[];
	/** Loopback hosts to try in order; the first that accepts wins for a port. */
	readonly hosts?: readonly string[];
	readonly connectTimeoutMs?: number;
	readonly fingerprintTimeoutMs?: number;
	/** Ports not to fingerprint (already known and answering); still reported as open. */
	readonly skip?: (id: string, port: number) => boolean;
	readonly signal?: AbortSignal;
}

export interface PortResult {
	readonly port: number;
	readonly host: string;
	/** Normalized base URL / server id. */
	readonly id: string;
	readonly open: boolean;
	/** Absent when the port was closed or skipped. */
	readonly fingerprint?: FingerprintResult;
}

async function scanPort(port: number, options: ScanOptions): Promise<PortResult> {
	const hosts = options.hosts ?? ['127.0.0.1', '::1'];
	for (const host of hosts) {
		const id = loopbackId(port, host);
		if (!(await tcpAccepts(host, port, options.connectTimeoutMs))) continue;
		if (options.skip?.(id, port)) return {port, host, id, open: true};
		const fp = await fingerprint(id, {timeoutMs: options.fingerprintTimeoutMs, signal: options.signal});
		return {port, host, id, open: true, fingerprint: fp};
	}
	const host = hosts[0] ?? '127.0.0.1';
	return {port, host, id: loopbackId(port, host), open: false};
}

/** Scan all ports in parallel; resolves when every port has connected+fingerprinted or timed out. */
export async function scanPorts(options: ScanOptions = {}): Promise<PortResult[]> {
	const ports = [...new Set(options.ports ?? DEFAULT_PORTS)];
	return Promise.all(ports.map((port) => scanPort(port, options)));
}
