/**
 * The cost of tailing a log while a sibling file in the same folder is written to all the time
 * (issue 14 item 7): this process's CPU (user + system) over a few seconds, while a separate
 * process appends ~10,000 short lines a second to the sibling. The tailed file gets nothing.
 * Compare with the same writer and no tail running (the baseline of an idle Node process).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {execa} from 'execa';
import {createLogTail} from '../source/sources/log-tail.js';

const SECONDS = Number(process.env.TAIL_BENCH_SECONDS ?? 5);

async function cpuOver(seconds: number): Promise<number> {
	const before = process.cpuUsage();
	const t0 = process.hrtime.bigint();
	await new Promise(r => setTimeout(r, seconds * 1000));
	const used = process.cpuUsage(before);
	const wall = Number(process.hrtime.bigint() - t0) / 1e6;
	return ((used.user + used.system) / 1000 / wall) * 100;
}

export async function run(): Promise<string> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-tail-bench-'));
	const log = path.join(dir, 'server.log');
	const sibling = path.join(dir, 'busy.log');
	fs.writeFileSync(log, 'first line\n');
	fs.writeFileSync(sibling, '');
	const script = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(sibling)},'a');setInterval(()=>{for(let i=0;i<10;i++)fs.writeSync(fd,'busy sibling line '+Date.now()+'\\n')},1)`;
	const writer = execa(process.execPath, ['-e', script], {reject: false});
	try {
		await new Promise(r => setTimeout(r, 500));
		const idle = await cpuOver(SECONDS);
		let lines = 0;
		const tail = createLogTail({path: log, onLine: () => lines++});
		await tail.start();
		await new Promise(r => setTimeout(r, 500));
		const tailing = await cpuOver(SECONDS);
		await tail.stop();
		const siblingBytes = fs.statSync(sibling).size;
		return [
			`tail with a busy sibling: ${tailing.toFixed(1)} % of a core (no tail: ${idle.toFixed(1)} %), over ${SECONDS} s each`,
			`sibling grew ${(siblingBytes / 1e6).toFixed(1)} MB meanwhile; lines read from the tailed log: ${lines} (1 expected)`,
		].join('\n');
	} finally {
		writer.kill('SIGKILL');
		await writer;
		fs.rmSync(dir, {recursive: true, force: true});
	}
}
