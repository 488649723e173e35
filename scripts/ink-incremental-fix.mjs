/**
 * ink#910 for Ink 6.8.0, patched at build time: its incremental renderer (`incrementalRendering`)
 * rewinds to the top of the last frame with `cursorUp(previousVisible - 1)`. Every frame Ink writes
 * below the terminal's full height ends with a newline, which leaves the cursor one row BELOW the
 * frame's last line, so the rewind stops one row short: each update lands one row lower, and the
 * lines it skips as unchanged stay behind as ghosts. Ink 7 rewinds by the full line count when the
 * previous frame ended with a newline (vadimdemedes/ink c32da0b); Ink 7 needs Node 22, so the same
 * one-line change is made here to node_modules/ink/build/log-update.js as esbuild loads it.
 *
 * The build fails when the line is not found (an Ink upgrade moved it): the patch is never silently
 * skipped, and the bundle only turns incremental rendering on through the `__INK_910_FIXED__`
 * constant this same build defines.
 */
import fs from 'node:fs';

/** The line in ink@6.8.0 build/log-update.js (createIncremental, same-or-taller branch). */
export const INK_910_BUGGY = 'buffer.push(ansiEscapes.cursorUp(previousVisible - 1));';

/** The fix: a frame that ended with a newline left the cursor below its last line. */
export const INK_910_FIXED = "buffer.push(ansiEscapes.cursorUp(previousVisible - (previousOutput.endsWith('\\n') ? 0 : 1)));";

/** Apply the fix to log-update.js's source; throws when the buggy line is not there exactly once. */
export function patchInkLogUpdate(source) {
	const at = source.indexOf(INK_910_BUGGY);
	if (at < 0 || source.indexOf(INK_910_BUGGY, at + 1) >= 0) {
		throw new Error('ink#910 patch: the line to fix was not found exactly once in ink/build/log-update.js (Ink changed?)');
	}
	return source.slice(0, at) + INK_910_FIXED + source.slice(at + INK_910_BUGGY.length);
}

/**
 * esbuild plugin: patch Ink's log-update.js on load, and define `__INK_910_FIXED__` = true so the
 * monitor turns incremental rendering on only in a bundle that has the fix.
 * `state.applied` says whether Ink's log-update.js went through it (the build checks).
 * @param {{applied?: boolean}} [state]
 * @returns {import('esbuild').Plugin}
 */
export function inkIncrementalFix(state = {}) {
	return {
		name: 'ink-910-incremental-fix',
		setup(b) {
			b.initialOptions.define = {...b.initialOptions.define, __INK_910_FIXED__: 'true'};
			b.onLoad({filter: /[\\/]ink[\\/]build[\\/]log-update\.js$/}, async (a) => {
				const contents = patchInkLogUpdate(await fs.promises.readFile(a.path, 'utf8'));
				state.applied = true;
				return {contents, loader: 'js'};
			});
		},
	};
}
