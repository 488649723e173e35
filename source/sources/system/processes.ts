/**
 * The process table: the lean sampler (/proc on Linux, one `ps` on macOS; sources/process-sampler.ts)
 * where infertop runs on that platform, systeminformation's processes() elsewhere. The first scan
 * has no CPU baseline: it primes, and names only.
 */
import type {ProcSample} from '../../system/contention.js';
import {createProcessSampler, type ProcessSampler} from '../process-sampler.js';
import {errWords, loadSi, type SetReason} from './shared.js';

export interface ProcessTable {
	/**
	 * One scan. `keep`: the pids whose figures are kept whether busy or not (asked only by the lean
	 * sampler). `noteScan` hears how long a scan took, before `primed` turns true.
	 */
	scan(keep: () => Set<number>): Promise<void>;
	/** A scan has succeeded (CPU % has a baseline from now on). */
	readonly primed: boolean;
	/** The table, when a scan finished since the last take; undefined otherwise. */
	takeFresh(): ProcSample[] | undefined;
}

export interface ProcessTableOptions {
	readonly platform: NodeJS.Platform;
	/** systeminformation's process CPU % is of all cores on Linux and Windows, of one on macOS. */
	readonly siCpuScale: number;
	readonly setReason: SetReason;
	/** How long a scan took, ms (called while `primed` still says whether this scan was the first). */
	readonly noteScan: (ms: number) => void;
}

export function createProcessTable(o: ProcessTableOptions): ProcessTable {
	const {setReason, noteScan} = o;
	const sampler: ProcessSampler | undefined = o.platform === process.platform ? createProcessSampler({platform: o.platform}) : undefined;
	let table: ProcSample[] | undefined;
	let tableFresh = false;
	let primed = false;
	return {
		async scan(keep) {
			const t0 = performance.now();
			try {
				if (sampler) {
					const r = await sampler.sample(keep());
					noteScan(r.scanMs);
					table = r.processes;
					setReason('processes', r.total === 0 ? 'processes: none listed' : undefined);
				} else {
					const r = await (await loadSi()).processes();
					noteScan(performance.now() - t0);
					const list: ProcSample[] = [];
					for (const p of r.list ?? []) {
						if (!Number.isInteger(p.pid) || p.pid <= 0) continue;
						const command = [p.command, p.params].filter((s) => s && s !== '').join(' ');
						list.push({
							pid: p.pid,
							...(Number.isInteger(p.parentPid) ? {ppid: p.parentPid} : {}),
							name: p.name || (p.command ?? '').split(/\s+/)[0] || '?',
							...(command !== '' ? {command} : {}),
							// the first scan has no baseline (lifetime averages on Linux): names only
							...(primed && Number.isFinite(p.cpu) ? {cpuPct: p.cpu * o.siCpuScale} : {}),
							...(Number.isFinite(p.memRss) && p.memRss > 0 ? {memRssBytes: p.memRss * 1024} : {}),
						});
					}
					table = list;
					setReason('processes', list.length === 0 ? 'processes: none listed' : undefined);
				}
				tableFresh = true;
				primed = true;
			} catch (error) {
				setReason('processes', `processes: ${errWords(error)}`);
			}
		},
		get primed() {
			return primed;
		},
		takeFresh() {
			const fresh = tableFresh && table ? table : undefined;
			tableFresh = false;
			return fresh;
		},
	};
}
