/**
 * Parsers for the Linux /proc files the system collector reads directly (pure; proc(5)).
 */

/** The machine's CPU times from the first line of /proc/stat (`cpu  user nice system idle iowait irq softirq steal …`, in ticks). */
export function parseProcStatCpu(text: string): {idle: number; total: number} | undefined {
	const nl = text.indexOf('\n');
	const line = nl < 0 ? text : text.slice(0, nl);
	if (!line.startsWith('cpu ')) return undefined;
	const f = line.slice(4).trim().split(/\s+/).map(Number);
	if (f.length < 4 || f.some((x) => !Number.isFinite(x) || x < 0)) return undefined;
	// guest and guest_nice (fields 9, 10) are already counted in user and nice
	const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
	return {idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal};
}

export interface Meminfo {
	readonly totalBytes?: number;
	/** Total − MemAvailable (what `free` calls used, as systeminformation reports it). */
	readonly usedBytes?: number;
	readonly swapTotalBytes?: number;
	readonly swapUsedBytes?: number;
}

/** /proc/meminfo (`MemTotal:  16318412 kB` …). Unknown fields stay undefined; a swap total of 0 is known. */
export function parseMeminfo(text: string): Meminfo {
	const kb = new Map<string, number>();
	for (const line of text.split('\n')) {
		const m = /^(\w+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
		if (m) kb.set(m[1]!, Number(m[2]) * 1024);
	}
	const total = kb.get('MemTotal');
	const available = kb.get('MemAvailable');
	const swapTotal = kb.get('SwapTotal');
	const swapFree = kb.get('SwapFree');
	return {
		...(total !== undefined && total > 0 ? {totalBytes: total} : {}),
		...(total !== undefined && total > 0 && available !== undefined && available <= total ? {usedBytes: total - available} : {}),
		...(swapTotal !== undefined ? {swapTotalBytes: swapTotal} : {}),
		...(swapTotal !== undefined && swapFree !== undefined && swapFree <= swapTotal ? {swapUsedBytes: swapTotal - swapFree} : {}),
	};
}

/**
 * The listening TCP sockets of /proc/net/tcp or /proc/net/tcp6 (proc(5), linux net/ipv4/tcp_ipv4.c
 * get_tcp4_sock: `sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout
 * inode`; addresses are hex `ADDR:PORT`, st 0A is TCP_LISTEN): port and socket inode.
 */
export function parseProcNetTcpListen(text: string): {port: number; inode: string}[] {
	const out: {port: number; inode: string}[] = [];
	for (const line of text.split('\n')) {
		const f = line.trim().split(/\s+/);
		if (f.length < 10 || !/^\d+:$/.test(f[0]!) || f[3] !== '0A') continue;
		const m = /:([0-9A-Fa-f]{4})$/.exec(f[1]!);
		const port = m ? Number.parseInt(m[1]!, 16) : NaN;
		if (!Number.isInteger(port) || port <= 0 || !/^\d+$/.test(f[9]!) || f[9] === '0') continue;
		out.push({port, inode: f[9]!});
	}
	return out;
}
