
/** Refresh steps for `+`/`-` (htop 1.5 s, btop 2 s, mactop 1 s; bottom's floor is 250 ms). */
export const REFRESH_STEPS_MS = [250, 500, 1000, 1500, 2000, 3000, 5000, 10_000] as const;

/** The next refresh step faster (dir −1) or slower (+1) than `current`. */
export function stepRefresh(current: number, dir: 1 | -1): number {
	const steps = REFRESH_STEPS_MS;
	if (dir < 0) {
		const faster = [...steps].reverse().find(s => s < current);
		return faster ?? steps[0];
	}
	return steps.find(s => s > current) ?? steps[steps.length - 1]!;
}
