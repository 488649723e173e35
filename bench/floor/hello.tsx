/**
 * The least Ink app (bench/startup.bench.ts's floor row): React, Ink and yoga load, one rounded box
 * with a word is drawn. Bundled by scripts/build.mjs and started through the same bin/infertop.js
 * (its V8 flags and code cache), so the row beside infertop's is what Ink itself costs before a
 * first frame. INFERTOP_EXIT_AFTER_FIRST_FRAME=1 leaves on the next turn; without it, it stays
 * 2.5 s (the warm-up run: its code cache is written at once).
 */
import React from 'react';
import {Box, Text, render} from 'ink';
import {saveCodeCacheAfter} from '../../source/commands/code-cache.js';

const app = render(
	<Box borderStyle="round" paddingX={1}>
		<Text bold>hello</Text>
	</Box>,
	{patchConsole: false},
);
saveCodeCacheAfter(0);
setTimeout(() => app.unmount(), process.env.INFERTOP_EXIT_AFTER_FIRST_FRAME === '1' ? 0 : 2500);
