/**
 * The least Ink app that tails logs (the traffic benches' floor row, `--floor`): every 250 ms it
 * reads what each `--log FILE` appended (64 KiB reads from its last offset), splits it into lines,
 * counts the lines and the requests' ends (a llama.cpp `stop processing` line, a vLLM `Finished
 * request` line), keeps the last 10 lines and redraws: a count, the lines. No parser, no figures,
 * no findings. Bundled by scripts/build.mjs and started through the same bin/infertop.js as
 * infertop (its V8 flags), so the row beside infertop's is what node, React and Ink cost for the
 * same log at the least. `q` quits and writes INFERTOP_RENDER_STATS (lines read) as infertop does.
 */
import fs from 'node:fs';
import React, {useEffect, useState} from 'react';
import {Box, Text, render, useApp, useInput} from 'ink';

interface Tailed {
	readonly file: string;
	pos: number;
	rest: string;
	lines: number;
	requests: number;
}

const logs: Tailed[] = process.argv.flatMap((a, i) => (a === '--log' && process.argv[i + 1] ? [{file: process.argv[i + 1]!, pos: 0, rest: '', lines: 0, requests: 0}] : []));
const END = / release: .*stop processing|Finished request/;
const buffer = Buffer.alloc(64 * 1024);
let last: string[] = [];

function pull(): void {
	for (const l of logs) {
		let fd: number;
		try {
			fd = fs.openSync(l.file, 'r');
		} catch {
			continue;
		}
		try {
			for (let n = fs.readSync(fd, buffer, 0, buffer.length, l.pos); n > 0; n = fs.readSync(fd, buffer, 0, buffer.length, l.pos)) {
				l.pos += n;
				const parts = (l.rest + buffer.toString('utf8', 0, n)).split('\n');
				l.rest = parts.pop() ?? '';
				l.lines += parts.length;
				for (const p of parts) if (END.test(p)) l.requests++;
				last = [...last, ...parts.slice(-10)].slice(-10);
			}
		} finally {
			fs.closeSync(fd);
		}
	}
}

function Screen(): React.JSX.Element {
	const [, redraw] = useState(0);
	const {exit} = useApp();
	useInput(input => {
		if (input === 'q') exit();
	});
	useEffect(() => {
		const timer = setInterval(() => {
			pull();
			redraw(x => x + 1);
		}, 250);
		return () => clearInterval(timer);
	}, []);
	return (
		<Box flexDirection="column" borderStyle="round">
			<Text bold>
				{logs.reduce((a, l) => a + l.lines, 0)} lines · {logs.reduce((a, l) => a + l.requests, 0)} requests · {logs.length} logs
			</Text>
			{last.map((line, i) => (
				<Text key={i} wrap="truncate">
					{line}
				</Text>
			))}
		</Box>
	);
}

const app = render(<Screen />, {patchConsole: false});
void app.waitUntilExit().then(() => {
	const out = process.env.INFERTOP_RENDER_STATS;
	if (out) fs.writeFileSync(out, JSON.stringify({logs: Object.fromEntries(logs.map(l => [l.file, {lines: l.lines, linesSkipped: 0}]))}));
	process.exit(0);
});
