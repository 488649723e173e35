/**
 * `--depths 0,4k,16k,32k` (issue 29): the depths `compare` measures a server × model at. A flag's
 * value parser, apart from the probe that measures them (source/probe/depths.ts), so that reading
 * the command line does not load the probe's client and node's HTTP and worker modules.
 */

/** Depths when `--depths` is given without a list. */
export const DEFAULT_DEPTHS: readonly number[] = [0, 4096, 16_384, 32_768];

/**
 * `0,4k,16k,32k` → [0, 4096, 16384, 32768] (k = 1024, the unit context windows are given in).
 * Rejects with a one-line reason: not a list of whole token counts, or more than 8.
 */
export function parseDepths(text: string): number[] {
	const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
	if (parts.length === 0) throw new Error('--depths: give depths in tokens, e.g. 0,4k,16k,32k');
	if (parts.length > 8) throw new Error(`--depths: at most 8 depths (got ${parts.length})`);
	const out: number[] = [];
	for (const p of parts) {
		const m = /^(\d{1,7})(k?)$/i.exec(p);
		if (!m) throw new Error(`--depths: "${p.slice(0, 20)}" is not a token count (e.g. 4k or 4096)`);
		const n = Number(m[1]) * (m[2] ? 1024 : 1);
		if (n > 2_097_152) throw new Error(`--depths: ${p} is beyond 2M tokens`);
		out.push(n);
	}
	return [...new Set(out)].sort((a, b) => a - b);
}
