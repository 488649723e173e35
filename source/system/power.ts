/**
 * Power mode and memory pressure (pure parsers of what the OS tools print).
 * macOS: `pmset -g` (lowpowermode / powermode), `sysctl -n kern.memorystatus_vm_pressure_level`.
 * Linux: /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor, /proc/pressure/memory (PSI).
 */
import type {MemoryPressureLevel} from './contention.js';

/**
 * `pmset -g` → the energy mode in use for the current power source, in macOS Settings words:
 * `powermode` 0/1/2 = Automatic / Low Power / High Power (machines with High Power mode),
 * otherwise `lowpowermode` 1 = Low Power, 0 = Automatic. Undefined when neither is printed.
 */
export function parsePmset(text: string): string | undefined {
	const setting = (key: string): number | undefined => {
		const m = new RegExp(`^\\s*${key}\\s+(\\d+)\\b`, 'm').exec(text);
		return m ? Number(m[1]) : undefined;
	};
	const mode = setting('powermode');
	if (mode !== undefined) return mode === 1 ? 'Low Power' : mode === 2 ? 'High Power' : mode === 0 ? 'Automatic' : `powermode ${mode}`;
	const low = setting('lowpowermode');
	if (low !== undefined) return low === 1 ? 'Low Power' : 'Automatic';
	return undefined;
}

/** `kern.memorystatus_vm_pressure_level`: 1 normal, 2 warn, 4 critical. */
export function macPressureLevel(text: string): MemoryPressureLevel | undefined {
	const n = Number(text.trim());
	if (n === 1) return 'normal';
	if (n === 2) return 'warn';
	if (n === 4) return 'critical';
	return undefined;
}

/**
 * /proc/pressure/memory → words and a level. `some` = share of time at least one task stalled on
 * memory, `full` = all tasks stalled (avg10, %). warn from some ≥ 10 %, critical from full ≥ 10 %.
 */
export function parsePsiMemory(text: string): {words: string; level: MemoryPressureLevel} | undefined {
	const avg = (kind: string): number | undefined => {
		const m = new RegExp(`^${kind}\\s+avg10=(\\d+(?:\\.\\d+)?)`, 'm').exec(text);
		return m ? Number(m[1]) : undefined;
	};
	const some = avg('some');
	if (some === undefined) return undefined;
	const full = avg('full');
	const level: MemoryPressureLevel = full !== undefined && full >= 10 ? 'critical' : some >= 10 ? 'warn' : 'normal';
	const words = `${level} (PSI some ${some.toFixed(1)} %${full !== undefined ? `, full ${full.toFixed(1)} %` : ''}, 10 s)`;
	return {words, level};
}

/** scaling_governor file → the governor name, or undefined. */
export function parseGovernor(text: string): string | undefined {
	const s = text.trim();
	return /^[a-z_-]{2,32}$/i.test(s) ? s : undefined;
}

/** One folder of /sys/class/power_supply as read: its `type`, and `online`, `status`, `capacity` where present. */
export interface PowerSupplyEntry {
	readonly type?: string;
	readonly online?: string;
	readonly status?: string;
	readonly capacity?: string;
}

/**
 * Linux power from /sys/class/power_supply (power_supply class ABI: Documentation/ABI/testing/
 * sysfs-class-power): on AC when a mains/USB supply is online (or a battery charges or is full);
 * on battery when supplies are listed, none is online and a battery discharges. No supply listed
 * (desktops, VMs, containers): unknown, not "AC". The percent is the first battery's `capacity`
 * (0..100), else unknown.
 */
export function parseLinuxPowerSupplies(entries: readonly PowerSupplyEntry[]): {source?: 'ac' | 'battery'; percent?: number} {
	const out: {source?: 'ac' | 'battery'; percent?: number} = {};
	const mains = entries.filter(e => e.type !== undefined && /^(Mains|USB)/i.test(e.type.trim()));
	const batteries = entries.filter(e => e.type?.trim() === 'Battery');
	const online = mains.some(e => e.online?.trim() === '1');
	const charging = batteries.some(e => /^(Charging|Full)$/i.test(e.status?.trim() ?? ''));
	const discharging = batteries.some(e => /^Discharging$/i.test(e.status?.trim() ?? ''));
	if (online || charging) out.source = 'ac';
	else if (discharging || (batteries.length > 0 && mains.length > 0 && mains.every(e => e.online?.trim() === '0'))) out.source = 'battery';
	for (const b of batteries) {
		const n = Number(b.capacity?.trim());
		if (b.capacity !== undefined && b.capacity.trim() !== '' && Number.isFinite(n) && n >= 0 && n <= 100) {
			out.percent = n;
			break;
		}
	}
	return out;
}
