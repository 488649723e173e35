/**
 * Memory pressure: Linux PSI (/proc/pressure/memory), macOS sysctl and memory_pressure -Q (mac.ts).
 * PSI is absent on older kernels and some containers: that is a reason, said quietly.
 */
import {readFile} from 'node:fs/promises';
import type {MemoryPressureLevel} from '../../system/contention.js';
import {parsePsiMemory} from '../../system/power.js';
import type {MacSystem} from './mac.js';
import {errWords, type PlatformFacts, type SetReason} from './shared.js';

export interface PressureReader {
	scan(): Promise<void>;
	readonly pressure: {readonly words?: string; readonly level?: MemoryPressureLevel};
}

export function createPressureReader(facts: PlatformFacts, mac: MacSystem | undefined, setReason: SetReason): PressureReader {
	let pressure: {words?: string; level?: MemoryPressureLevel} = {};
	return {
		async scan() {
			try {
				if (facts.linux) {
					const p = parsePsiMemory(await readFile('/proc/pressure/memory', 'utf8'));
					pressure = p ? {words: p.words, level: p.level} : {};
				} else if (facts.darwin && mac) {
					// sysctl (pressure level, swap, hw.memsize, iogpu.wired_limit_mb) and memory_pressure -Q.
					pressure = await mac.readPressure();
				}
				setReason('pressure', undefined);
			} catch (error) {
				pressure = {};
				// PSI is absent on older kernels and some containers: say so once, quietly.
				setReason('pressure', `memory pressure: ${errWords(error)}`);
			}
		},
		get pressure() {
			return pressure;
		},
	};
}
