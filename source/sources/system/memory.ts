/**
 * Memory and swap: /proc/meminfo on Linux (what systeminformation reads, without its extra work),
 * systeminformation's mem() elsewhere (on macOS sysctl's swap, read with the memory pressure in
 * mac.ts, takes precedence).
 */
import {readFileSync} from 'node:fs';
import type {SystemState} from '../../types/system.js';
import {parseMeminfo} from '../../system/proc.js';
import {errWords, loadSi, type Mutable, type SetReason} from './shared.js';

export interface MemoryReader {
	scan(): Promise<void>;
	readonly memory: Mutable<SystemState['memory']>;
	readonly swapUsed: number | undefined;
	readonly swapTotal: number | undefined;
}

export function createMemoryReader(nativeProc: boolean, setReason: SetReason): MemoryReader {
	const memory: Mutable<SystemState['memory']> = {};
	let swapUsed: number | undefined;
	let swapTotal: number | undefined;
	return {
		async scan() {
			try {
				if (nativeProc) {
					// /proc/meminfo directly (what systeminformation reads, without its extra work)
					const m = parseMeminfo(readFileSync('/proc/meminfo', 'latin1'));
					if (m.totalBytes !== undefined) memory.totalBytes = m.totalBytes;
					if (m.usedBytes !== undefined) memory.usedBytes = m.usedBytes;
					swapTotal = m.swapTotalBytes;
					swapUsed = m.swapUsedBytes;
				} else {
					const m = await (await loadSi()).mem();
					if (m.total > 0) {
						memory.totalBytes = m.total;
						const avail = m.available > 0 ? m.available : undefined;
						memory.usedBytes = avail !== undefined ? m.total - avail : m.used;
					}
					// swaptotal 0 = no swap configured: used 0 of 0 is true, not unknown.
					swapTotal = Number.isFinite(m.swaptotal) ? m.swaptotal : undefined;
					swapUsed = Number.isFinite(m.swapused) ? m.swapused : undefined;
				}
				setReason('memory', undefined);
			} catch (error) {
				setReason('memory', `memory: ${errWords(error)}`);
			}
		},
		memory,
		get swapUsed() {
			return swapUsed;
		},
		get swapTotal() {
			return swapTotal;
		},
	};
}
