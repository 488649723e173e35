/** Wait on a condition, never on a fixed sleep: polls the predicate until it holds or the deadline passes. */
export async function waitUntil(check: () => boolean | Promise<boolean>, {timeoutMs = 10_000, everyMs = 10, what = 'condition'} = {}): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		if (await check()) return;
		if (Date.now() > deadline) throw new Error(`waitUntil: ${what} not met within ${timeoutMs} ms`);
		await new Promise(resolve => setTimeout(resolve, everyMs));
	}
}
