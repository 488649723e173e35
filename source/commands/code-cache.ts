/**
 * bin/infertop.js's V8 code cache, where it has none: the bin leaves a function at
 * Symbol.for('infertop.saveCodeCache'), and the monitor calls it once its first frame and the
 * collectors have run (the bin says why only the monitor writes it). Nothing when run from source.
 */
export function saveCodeCacheAfter(delayMs: number): void {
	const save = (globalThis as Record<symbol, unknown>)[Symbol.for('infertop.saveCodeCache')];
	if (typeof save === 'function') setTimeout(save as () => void, delayMs).unref();
}
