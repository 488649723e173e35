/**
 * Which process serves a local URL: the process listening on its port. A server the user names by
 * URL (`--server http://127.0.0.1:PORT`) is tied to its process this way as surely as a discovered
 * one (whose process is found by name): its pid, and so its start time, which anchors llama.cpp's
 * process-relative log stamps. Linux reads /proc (linux-hw.ts); elsewhere systeminformation's socket
 * table (lsof/netstat on macOS). Never throws: undefined where it cannot be known.
 */
import {readLinuxListenerPid} from './linux-hw.js';

export interface PortOwnerOptions {
	/** A Linux /proc tree to read instead of this machine's (tests). */
	readonly procRoot?: string;
}

/** The port of a loopback URL (`localhost`, 127.x, ::1), else undefined: a remote server has no process here. */
export function loopbackPort(url: string | undefined): number | undefined {
	if (url === undefined) return undefined;
	try {
		const u = new URL(url);
		const h = u.hostname;
		if (h !== 'localhost' && h !== '[::1]' && !/^127\./.test(h)) return undefined;
		const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
		return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
	} catch {
		return undefined;
	}
}

export async function portOwnerPid(port: number, options: PortOwnerOptions = {}): Promise<number | undefined> {
	try {
		if (options.procRoot !== undefined || process.platform === 'linux') return await readLinuxListenerPid(port, {procRoot: options.procRoot});
		if (process.platform === 'win32') return undefined;
		const si = await import('systeminformation');
		const rows = await si.networkConnections();
		const row = rows.find((c) => Number(c.localPort) === port && (c.state ?? '').toUpperCase() === 'LISTEN' && typeof c.pid === 'number' && c.pid > 0);
		return row?.pid;
	} catch {
		return undefined;
	}
}
