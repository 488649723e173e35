/**
 * Memory bandwidth (GB/s = 1e9 B/s) by chip or GPU, for the decode ceiling (DESIGN §1).
 * Figures from reference/anchors.md §3 (spec sheets and the sources listed there).
 * Pure. Binned Apple parts are told apart by GPU core count (then P-core count); laptop GPUs are
 * never matched to their desktop namesakes.
 */

export interface ChipInput {
	/** `sysctl -n machdep.cpu.brand_string` / systeminformation cpu brand, e.g. `Apple M4 Max`. */
	readonly cpuBrand?: string;
	/** GPU model, e.g. `NVIDIA GeForce RTX 4090` (nvidia-smi) or `Apple M3 Max` (system_profiler). */
	readonly gpuName?: string;
	/** Apple GPU cores (`system_profiler SPDisplaysDataType` "Total Number of Cores"). */
	readonly gpuCores?: number;
	/** Apple performance cores (`sysctl hw.perflevel0.physicalcpu`), a weaker bin signal. */
	readonly pCores?: number;
}

export interface ChipBandwidth {
	readonly gbs: number;
	/** Canonical name, e.g. `Apple M4 Max 40-core GPU`, `NVIDIA RTX 4090`. */
	readonly chip: string;
	/** `table: <chip>` (with `(unverified)` where the material has one source only). */
	readonly source: string;
}

interface AppleBin {
	readonly gbs: number;
	readonly gpuCores?: readonly number[];
	readonly pCores?: number;
	readonly unverified?: boolean;
}

/** Apple silicon: family → tier → bins. One bin = one figure for all its variants. */
export const APPLE: Readonly<Record<string, readonly AppleBin[]>> = {
	'M1': [{gbs: 68}],
	'M1 Pro': [{gbs: 200}],
	'M1 Max': [{gbs: 400}],
	'M1 Ultra': [{gbs: 800}],
	'M2': [{gbs: 100}],
	'M2 Pro': [{gbs: 200}],
	'M2 Max': [{gbs: 400}],
	'M2 Ultra': [{gbs: 800}],
	'M3': [{gbs: 100}],
	'M3 Pro': [{gbs: 150}],
	'M3 Max': [{gbs: 300, gpuCores: [30], pCores: 10}, {gbs: 400, gpuCores: [40], pCores: 12}],
	'M3 Ultra': [{gbs: 819}],
	'M4': [{gbs: 120}],
	'M4 Pro': [{gbs: 273}],
	'M4 Max': [{gbs: 410, gpuCores: [32], pCores: 10}, {gbs: 546, gpuCores: [40], pCores: 12}],
	'M5': [{gbs: 153}],
	'M5 Pro': [{gbs: 307}],
	// Both M5 Max bins share one CPU configuration: only the GPU core count tells them apart.
	'M5 Max': [{gbs: 460, gpuCores: [32], unverified: true}, {gbs: 614, gpuCores: [40]}],
};

interface GpuEntry {
	readonly match: RegExp;
	readonly chip: string;
	readonly gbs: number;
	readonly unverified?: boolean;
}

/** Discrete GPUs, most specific first. Names are matched after `NVIDIA`/`GeForce`/`AMD`/`Radeon` are dropped. */
export const GPUS: readonly GpuEntry[] = [
	{match: /\bRTX 3090 TI\b/, chip: 'NVIDIA RTX 3090 Ti', gbs: 1008},
	{match: /\bRTX 3090\b/, chip: 'NVIDIA RTX 3090', gbs: 936},
	{match: /\bRTX 4090\b/, chip: 'NVIDIA RTX 4090', gbs: 1008},
	{match: /\bRTX 5090\b/, chip: 'NVIDIA RTX 5090', gbs: 1792},
	{match: /\bA100\b.*\b80 ?GB\b.*\bPCIE\b|\bA100\b.*\bPCIE\b.*\b80 ?GB\b/, chip: 'NVIDIA A100 80GB PCIe', gbs: 1935, unverified: true},
	{match: /\bA100\b.*\b80 ?GB\b/, chip: 'NVIDIA A100 80GB SXM4', gbs: 2039},
	{match: /\bA100\b.*\b40 ?GB\b/, chip: 'NVIDIA A100 40GB', gbs: 1555},
	{match: /\bH100\b.*\bNVL\b/, chip: 'NVIDIA H100 NVL', gbs: 3938},
	{match: /\bH100\b.*\bPCIE\b/, chip: 'NVIDIA H100 PCIe', gbs: 2000},
	{match: /\bH100\b.*(\bSXM|\bHBM3\b)/, chip: 'NVIDIA H100 SXM5', gbs: 3350},
	{match: /\bH200\b/, chip: 'NVIDIA H200', gbs: 4800},
	{match: /\bB200\b/, chip: 'NVIDIA B200', gbs: 8000},
	{match: /\bL40S\b/, chip: 'NVIDIA L40S', gbs: 864},
	{match: /\bMI300X\b/, chip: 'AMD Instinct MI300X', gbs: 5300},
	{match: /\bRX 7900 XTX\b/, chip: 'AMD Radeon RX 7900 XTX', gbs: 960},
];

const APPLE_RE = /\bApple (M[1-9])(?: (Pro|Max|Ultra))?\b/i;
const LAPTOP_RE = /\b(laptop|max-q|mobile)\b/i;

function normGpu(name: string): string {
	return ` ${name.toUpperCase().replace(/[-_]/g, ' ').replace(/\b(NVIDIA|GEFORCE|AMD|RADEON|INSTINCT)\b/g, ' ').replace(/\s+/g, ' ').trim()} `;
}

/** The Apple chip family and tier named in a brand string, e.g. `M4 Max`. */
export function appleChip(name: string | undefined): string | undefined {
	const m = name ? APPLE_RE.exec(name) : null;
	if (!m?.[1]) return undefined;
	const tier = m[2] ? m[2].charAt(0).toUpperCase() + m[2].slice(1).toLowerCase() : undefined;
	return tier ? `${m[1].toUpperCase()} ${tier}` : m[1].toUpperCase();
}

/** Is this a laptop GPU (never its desktop namesake)? */
export function isLaptopGpu(name: string | undefined): boolean {
	return name !== undefined && LAPTOP_RE.test(name);
}

function lookupApple(chip: string, input: ChipInput): ChipBandwidth | undefined {
	const bins = APPLE[chip];
	if (!bins || bins.length === 0) return undefined;
	let bin: AppleBin | undefined;
	if (bins.length === 1) bin = bins[0];
	else if (input.gpuCores !== undefined) bin = bins.find((b) => b.gpuCores?.includes(input.gpuCores as number));
	else if (input.pCores !== undefined) {
		const byP = bins.filter((b) => b.pCores === input.pCores);
		if (byP.length === 1) bin = byP[0];
	}
	if (!bin) return undefined;
	const name = `Apple ${chip}${bins.length > 1 && input.gpuCores !== undefined ? ` ${input.gpuCores}-core GPU` : bins.length > 1 && input.pCores !== undefined ? ` (${input.pCores} P-cores)` : ''}`;
	return {gbs: bin.gbs, chip: name, source: `table: ${name}${bin.unverified ? ' (unverified)' : ''}`};
}

/** Bandwidth from the built-in table; undefined for an unknown chip or an undecidable bin. */
export function lookupBandwidth(input: ChipInput): ChipBandwidth | undefined {
	const apple = appleChip(input.cpuBrand) ?? appleChip(input.gpuName);
	if (apple) return lookupApple(apple, input);
	if (!input.gpuName || isLaptopGpu(input.gpuName)) return undefined;
	const n = normGpu(input.gpuName);
	const e = GPUS.find((g) => g.match.test(n));
	if (!e) return undefined;
	return {gbs: e.gbs, chip: e.chip, source: `table: ${e.chip}${e.unverified ? ' (unverified)' : ''}`};
}

/** Why the table has no figure for this machine, in words (for the header's hint). */
export function unknownChipHint(input: ChipInput): string {
	const apple = appleChip(input.cpuBrand) ?? appleChip(input.gpuName);
	if (apple && APPLE[apple] && APPLE[apple].length > 1) {
		const opts = APPLE[apple].map((b) => `${b.gbs} GB/s (${b.gpuCores?.join('/') ?? '?'}-core GPU)`).join(' or ');
		return `Apple ${apple} is ${opts}: GPU core count unknown, pass --bandwidth GB/s`;
	}
	const name = input.gpuName ?? input.cpuBrand;
	if (name && isLaptopGpu(name)) return `laptop GPU "${name}" is not its desktop namesake: pass --bandwidth GB/s`;
	return `unknown chip "${name ?? '?'}": pass --bandwidth GB/s`;
}
