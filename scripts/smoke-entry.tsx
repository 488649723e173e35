/**
 * A stand-in entry for scripts/build.mjs and bench/startup.bench.ts while (or whenever) the real
 * CLI cannot be built: it loads the same heavy dependencies the CLI loads, answers `--version`, and
 * renders one Ink frame. Build it with `INFERTOP_ENTRY=scripts/smoke-entry.tsx node scripts/build.mjs`.
 *
 * INFERTOP_EXIT_AFTER_FIRST_FRAME=1 exits right after the first frame is written (the hook the
 * startup benchmark uses; the real CLI should honour the same variable). INFERTOP_SMOKE_STAY=1
 * keeps it running until a signal, as the monitor does (test/platform/build.test.ts: the code cache
 * is written a moment after start).
 */
import React from 'react';
import {Box, Text, render} from 'ink';
import si from 'systeminformation';
import {execa} from 'execa';
import {createParser} from 'eventsource-parser';
import {VERSION} from '../source/version.js';
import {resolveConfig} from '../source/config/config.js';
import {parseCommandLine} from '../source/config/flags.js';
import {saveCodeCacheAfter} from '../source/commands/code-cache.js';

const cli = parseCommandLine(process.argv.slice(2));
if (cli.flags.version) {
	process.stdout.write(`${VERSION}\n`);
	process.exit(0);
}
// Keep the imports live (tree shaking would drop them, and the point is to measure their load).
const loaded = [si.version?.(), typeof execa, typeof createParser].length;
const {config} = resolveConfig({env: process.env});

function Frame(): React.JSX.Element {
	return (
		<Box borderStyle="round" flexDirection="column" paddingX={1}>
			<Text bold>infertop {VERSION} (smoke entry)</Text>
			<Text>
				refresh {config.refresh} ms · theme {config.theme} · {loaded} deps · demo {String(cli.flags.demo ?? false)}
			</Text>
		</Box>
	);
}

const app = render(<Frame />, {exitOnCtrlC: true, patchConsole: false});
// bin/infertop.js's code cache, saved after the first frame as the monitor does (at once here).
saveCodeCacheAfter(0);
if (process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1') {
	// render() writes the first frame synchronously; leave on the next turn.
	setImmediate(() => {
		app.unmount();
		process.exit(0);
	});
}
if (process.env.INFERTOP_SMOKE_STAY === '1') {
	const open = setInterval(() => {}, 60_000);
	process.once('SIGTERM', () => {
		clearInterval(open);
		app.unmount();
	});
}
