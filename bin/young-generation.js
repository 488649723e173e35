// The young generation's size while the logs are busy (issue 32), for the bin (bin/infertop.js).
//
// The bin starts V8 with a young generation that never grows (--semi-space-growth-factor=1): 1 MB a
// semi-space, which keeps RSS at rest and under light traffic low. Under a busy log that 1 MB fills
// ~10 times a second, and what a batch of lines made is still alive at most scavenges (the state of
// the last read, the frame's state): it is copied, then promoted to the old generation and marked.
// Measured, eight llama.cpp logs × 100 req/s (8,000 lines a second), two instances of one build on
// the same logs at once, four rounds: whole-process CPU 8.9, 7.4, 8.9, 8.5 % with 1 MB against
// 8.1, 6.8, 8.1, 7.4 % with 4 MB a semi-space (−10 %, RSS +6 MB); 8 MB was no cheaper (+10 MB).
// So, while the busy gate is on, the young generation may grow once, to BUSY_SEMI_SPACE_BYTES:
// V8 grows it at a scavenge where enough survived, by the growth factor (the one step from the
// semi-space it has to the target), and the factor is set back to 1 once it is there. When the logs
// quiet down the factor goes back to 1, and V8 shrinks the young generation by itself at the next
// collection that sees little allocation.
//
// V8 reads --semi-space-growth-factor when it grows the young generation, not only at start, so
// setting it at run time is enough (checked with node 20.20). V8's own limit (16 MB a semi-space)
// bounds any overshoot: a burst that grows it twice between two checks.
'use strict';

/** The semi-space size under a busy log. */
const BUSY_SEMI_SPACE_BYTES = 4 * 1024 * 1024;
/** How often, while busy, the young generation's size is looked at. */
const CHECK_MS = 250;

/**
 * The growth factor to set now: the one whole step from `semiBytes` that stays within `targetBytes`
 * (V8's semi-spaces hold a little less than their nominal size, the pages' headers: 1,030,880
 * bytes for 1 MB), at most 16; 1 where no step of at least 2 fits (it is there, or more than half
 * way). Bad input: 1 (never grow on a number that cannot be trusted).
 */
function growthFactor(semiBytes, targetBytes) {
	if (!(semiBytes > 0) || !(targetBytes > 0) || !Number.isFinite(semiBytes) || !Number.isFinite(targetBytes)) return 1;
	const f = Math.floor(targetBytes / semiBytes);
	return f < 2 ? 1 : Math.min(16, f);
}

/** The size of one semi-space: what the new space holds and has left (its to-space's capacity). */
function semiSpaceBytes(v8) {
	const s = v8.getHeapSpaceStatistics().find(x => x.space_name === 'new_space');
	return s ? s.space_used_size + s.space_available_size : Number.NaN;
}

/**
 * `busy(on)`: the gate's decision. While on, every CHECK_MS the factor is set as growthFactor
 * says (only when it changes); off: the factor is 1 again and the checks stop.
 */
function createYoungGeneration(v8, options = {}) {
	const target = options.targetBytes ?? BUSY_SEMI_SPACE_BYTES;
	const every = options.checkMs ?? CHECK_MS;
	let factor = 1;
	let timer;
	const set = f => {
		if (f === factor) return;
		factor = f;
		v8.setFlagsFromString(`--semi-space-growth-factor=${f}`);
	};
	const check = () => set(growthFactor(semiSpaceBytes(v8), target));
	return {
		busy(on) {
			if (!on) {
				if (timer) clearInterval(timer);
				timer = undefined;
				set(1);
				return;
			}
			if (timer) return;
			check();
			timer = setInterval(check, every);
			timer.unref?.();
		},
		factor: () => factor,
	};
}

module.exports = {BUSY_SEMI_SPACE_BYTES, growthFactor, semiSpaceBytes, createYoungGeneration};
