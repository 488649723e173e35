/**
 * Every macOS reader is lazy: a Linux start neither imports sources/mac-system.ts nor runs any Mac
 * tool, even with `ioreg`, `sysctl`, `mactop`, `memory_pressure` and `vm_stat` first on PATH. The
 * control (the same collector told it runs on macOS) imports it and runs them, so the test can fail.
 */
import {chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {createSystemCollector, type SystemCollector} from '../../source/sources/system-collector.js';

const loads = vi.hoisted(() => ({n: 0}));
vi.mock('../../source/sources/mac-system.js', async (importOriginal) => {
	loads.n++;
	return importOriginal();
});

const TOOLS = ['ioreg', 'sysctl', 'mactop', 'memory_pressure', 'vm_stat'];
const dirs: string[] = [];
let collector: SystemCollector | undefined;
afterEach(async () => {
	await collector?.stop();
	collector = undefined;
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

function markingTools(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-maclazy-'));
	dirs.push(dir);
	for (const t of TOOLS) {
		writeFileSync(path.join(dir, t), `#!/bin/sh\ntouch "${dir}/ran-${t}"\n`);
		chmodSync(path.join(dir, t), 0o755);
	}
	return dir;
}

async function runFor(platform: NodeJS.Platform, dir: string, ms: number): Promise<void> {
	const env = {PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`};
	collector = createSystemCollector({dispatch: () => {}, platform, intervalMs: 100, gpuEveryMs: 100, macTools: {env}, nvidiaSmi: {bin: 'infertop-test-no-such-nvidia-smi', env}});
	collector.start();
	await new Promise((r) => setTimeout(r, ms));
	await collector.stop();
	collector = undefined;
}

describe('the Mac readers on a Linux start', () => {
	it.runIf(process.platform === 'linux')('are not imported and run no Mac tool', async () => {
		const dir = markingTools();
		await runFor('linux', dir, 1500);
		expect(loads.n).toBe(0);
		expect(TOOLS.filter((t) => existsSync(path.join(dir, `ran-${t}`)))).toEqual([]);
	}, 20_000);

	it('control: told it runs on macOS, the collector imports them and runs the tools', async () => {
		const dir = markingTools();
		const deadline = Date.now() + 20_000;
		await runFor('darwin', dir, 1500);
		while (!existsSync(path.join(dir, 'ran-memory_pressure')) && Date.now() < deadline) await runFor('darwin', dir, 1000);
		expect(loads.n).toBe(1);
		expect(['ioreg', 'sysctl', 'memory_pressure'].filter((t) => existsSync(path.join(dir, `ran-${t}`)))).toEqual(['ioreg', 'sysctl', 'memory_pressure']);
	}, 40_000);
});
