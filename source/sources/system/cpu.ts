/**
 * infertop's own cost (CPU %, RSS) and the machine's CPU load, over the window since the last
 * machine scan: /proc/stat on Linux, os.cpus() elsewhere. No process is spawned.
 */
import {readFileSync} from 'node:fs';
import os from 'node:os';
import type {SystemState} from '../../types/system.js';
import {parseProcStatCpu} from '../../system/proc.js';
import type {Mutable} from './shared.js';

export interface CpuReader {
	/** Start a new window now (the collector's start). */
	reset(): void;
	/** Own CPU % and RSS into `self`, and the machine's load since the last sample. */
	sample(self: Mutable<SystemState['self']>): void;
	/** Machine CPU load, 0..100, once two samples are known. */
	readonly loadPct: number | undefined;
}

function cpuTimesFromOs(): {idle: number; total: number} {
	let idle = 0;
	let total = 0;
	for (const c of os.cpus()) {
		const t = c.times;
		idle += t.idle;
		total += t.user + t.nice + t.sys + t.idle + t.irq;
	}
	return {idle, total};
}

export function createCpuReader(nativeProc: boolean): CpuReader {
	const cpuTimes = (): {idle: number; total: number} => {
		if (nativeProc) {
			try {
				const t = parseProcStatCpu(readFileSync('/proc/stat', 'latin1'));
				if (t) return t;
			} catch {}
		}
		return cpuTimesFromOs();
	};
	let lastCpuUsage = process.cpuUsage();
	let lastCpuWall = performance.now();
	let lastTimes = cpuTimes();
	let loadPct: number | undefined;
	return {
		reset() {
			lastCpuUsage = process.cpuUsage();
			lastCpuWall = performance.now();
			lastTimes = cpuTimes();
		},
		sample(self) {
			const wall = performance.now();
			const usage = process.cpuUsage(lastCpuUsage);
			const dt = (wall - lastCpuWall) * 1000;
			// a window under 200 ms says more about timer jitter than about cost
			if (dt >= 200_000) {
				self.cpuPct = ((usage.user + usage.system) / dt) * 100;
				lastCpuUsage = process.cpuUsage();
				lastCpuWall = wall;
			}
			self.rssBytes = process.memoryUsage.rss();
			const times = cpuTimes();
			const dTotal = times.total - lastTimes.total;
			if (dTotal > 0) loadPct = Math.max(0, Math.min(100, (1 - (times.idle - lastTimes.idle) / dTotal) * 100));
			lastTimes = times;
		},
		get loadPct() {
			return loadPct;
		},
	};
}
