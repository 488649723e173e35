/**
 * For the structure tests that count how often a function runs (a vi.mock factory per file: vitest
 * hoists each mock to its own file). `counting(real, 'name', counter)` is the module with `name`
 * wrapped to add one to `counter.count` a call; everything else is the real module's.
 */
export function counting<M extends object, K extends keyof M>(real: M, name: K, counter: {count: number}): M {
	const fn = real[name] as unknown as (...args: unknown[]) => unknown;
	return {...real, [name]: (...args: unknown[]) => {
		counter.count++;
		return fn(...args);
	}};
}
