/**
 * Power: where the machine draws from and its battery (Linux: /sys/class/power_supply read
 * directly; elsewhere systeminformation's battery()), the macOS power mode (pmset -g), the Linux CPU
 * governor. What is not exposed (VMs, containers) stays unknown.
 */
import {readdir, readFile} from 'node:fs/promises';
import type {ContentionState} from '../../types/system.js';
import {parseGovernor, parseLinuxPowerSupplies, parsePmset, type PowerSupplyEntry} from '../../system/power.js';
import {loadExeca} from '../lazy-execa.js';
import {errWords, loadSi, type Mutable, type PlatformFacts, type SetReason} from './shared.js';

type Power = NonNullable<ContentionState['power']>;

export interface PowerReader {
	scan(): Promise<void>;
	/** Undefined when nothing about power is known. */
	readonly power: Power | undefined;
}

/** /sys/class/power_supply read directly (systeminformation's battery() read the same files, and said "AC" where none is listed). */
async function linuxPower(): Promise<{source?: 'ac' | 'battery'; percent?: number}> {
	const root = '/sys/class/power_supply';
	const read = (f: string): Promise<string | undefined> => readFile(f, 'utf8').catch(() => undefined);
	const names = await readdir(root).catch(() => [] as string[]);
	const entries: PowerSupplyEntry[] = await Promise.all(
		names.map(async (n) => {
			const [type, online, status, capacity] = await Promise.all(['type', 'online', 'status', 'capacity'].map((f) => read(`${root}/${n}/${f}`)));
			return {...(type !== undefined ? {type} : {}), ...(online !== undefined ? {online} : {}), ...(status !== undefined ? {status} : {}), ...(capacity !== undefined ? {capacity} : {})};
		}),
	);
	return parseLinuxPowerSupplies(entries);
}

export function createPowerReader(facts: PlatformFacts, setReason: SetReason): PowerReader {
	let power: Mutable<Power> | undefined;
	return {
		async scan() {
			const next: Mutable<Power> = {};
			if (facts.nativeProc) {
				const p = await linuxPower();
				if (p.source) next.source = p.source;
				if (p.percent !== undefined) next.percent = p.percent;
			} else {
				try {
					const b = await (await loadSi()).battery();
					if (b.hasBattery) {
						next.source = b.acConnected ? 'ac' : 'battery';
						if (Number.isFinite(b.percent)) next.percent = b.percent;
					} else if (b.acConnected) next.source = 'ac';
				} catch {}
			}
			if (facts.darwin) {
				try {
					const r = await (await loadExeca())('pmset', ['-g'], {timeout: 2000, reject: false, stdin: 'ignore'});
					const mode = r.failed ? undefined : parsePmset(String(r.stdout));
					if (mode) next.mode = mode;
					setReason('power', r.failed ? 'pmset: failed' : undefined);
				} catch (error) {
					setReason('power', `pmset: ${errWords(error)}`);
				}
			}
			if (facts.linux) {
				try {
					const g = parseGovernor(await readFile('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor', 'utf8'));
					if (g) next.governor = g;
				} catch {
					// Not exposed in VMs and containers: nothing to say, the field stays `--`.
				}
			}
			power = Object.keys(next).length > 0 ? next : undefined;
		},
		get power() {
			return power;
		},
	};
}
