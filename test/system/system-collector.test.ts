import {afterEach, describe, expect, it} from 'vitest';
import {execFileSync} from 'node:child_process';
import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Action} from '../../source/types/state.js';
import type {SystemState} from '../../source/types/system.js';
import {createSystemCollector, type SystemCollector} from '../../source/sources/system-collector.js';

/**
 * A real CPU burner that is NOT infertop's child (infertop and its children are excluded from
 * contention): started through a shell that exits at once, so the burner is re-parented.
 */
function startBurner(): number {
	const out = execFileSync('sh', ['-c', `"${process.execPath}" -e "for(;;){}" >/dev/null 2>&1 </dev/null & echo $!`], {encoding: 'utf8'});
	const pid = Number(out.trim());
	if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no burner pid: ${out}`);
	return pid;
}

async function waitFor<T>(probe: () => T | undefined, deadlineMs: number, what: string | (() => string)): Promise<T> {
	const until = Date.now() + deadlineMs;
	for (;;) {
		const v = probe();
		if (v !== undefined) return v;
		if (Date.now() > until) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

const pids: number[] = [];
const dirs: string[] = [];
let collector: SystemCollector | undefined;

afterEach(async () => {
	await collector?.stop();
	collector = undefined;
	for (const pid of pids.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {}
	}
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

describe('system collector (real processes)', () => {
	it('names a CPU-burning process as contention within 5 s, and never an engine', async () => {
		const burner = startBurner();
		const engine = startBurner();
		pids.push(burner, engine);
		const states: SystemState[] = [];
		collector = createSystemCollector({
			dispatch: (a: Action) => {
				if (a.type === 'system') states.push(a.system);
			},
			enginePids: () => new Set([engine]),
			// A burner gets ~2 cores ÷ load average: on a shared, busy 2-core CI box that can be far
			// below the default 25 %, so the threshold is lowered and the list made long.
			contention: {hotPct: 5, topN: 100},
			nvidiaSmi: {bin: 'infertop-test-no-such-nvidia-smi'},
		});
		collector.start();
		const seen = await waitFor(() => {
			const s = states.at(-1);
			if (!s) return undefined;
			// Processes are added up by name: the burner is one of the `node` group (or alone in it).
			const hot = s.contention.hot.find((h) => h.pid === burner || h.pids?.includes(burner));
			const eng = s.contention.engines.find((e) => e.pid === engine);
			// the engine must have been measured busy too, so that leaving it out means something
			return hot && eng && (eng.cpuPct ?? 0) >= 5 ? s : undefined;
		}, 5000, () => `the burner in contention.hot; last: ${JSON.stringify(states.at(-1)?.contention)} self=${process.pid} burner=${burner} engine=${engine}`);
		const hot = seen.contention.hot.find((h) => h.pid === burner || h.pids?.includes(burner))!;
		expect(hot.name).toBe('node');
		expect(hot.cpuPct).toBeGreaterThanOrEqual(5);
		expect(seen.contention.active).toBe(true);
		expect(seen.contention.verdict).toMatch(/^contention: .*node( ×\d+)? \d+ % CPU/);
		// the engine is listed as an engine, never as contention
		expect(seen.contention.hot.some((h) => h.pid === engine || h.pids?.includes(engine))).toBe(false);
		expect(seen.contention.engines.find((e) => e.pid === engine)).toMatchObject({watched: true});
		// infertop itself is never contention either
		expect(seen.contention.hot.some((h) => h.pid === process.pid)).toBe(false);
		// own cost, memory and the missing tool are reported
		expect(seen.self.rssBytes).toBeGreaterThan(0);
		expect(seen.memory.totalBytes).toBeGreaterThan(0);
		if (process.platform === 'linux') expect(seen.reasons).toContain('nvidia-smi: not installed');
	});

	it('dispatches only changes and stops cleanly', async () => {
		const states: SystemState[] = [];
		collector = createSystemCollector({
			dispatch: (a) => {
				if (a.type === 'system') states.push(a.system);
			},
			intervalMs: 200,
			nvidiaSmi: {bin: 'infertop-test-no-such-nvidia-smi'},
		});
		collector.start();
		await waitFor(() => (states.some((s) => s.self.cpuPct !== undefined && s.self.processScanMs !== undefined) ? true : undefined), 8000, 'self cost and a timed process scan');
		await collector.stop();
		const n = states.length;
		const strip = (s: SystemState): string => JSON.stringify({...s, updatedAt: undefined});
		for (let i = 1; i < states.length; i++) expect(strip(states[i]!)).not.toBe(strip(states[i - 1]!));
		expect(collector.current()).toBeDefined();
		await new Promise((r) => setTimeout(r, 400));
		expect(states.length).toBe(n);
	});

	it.runIf(process.platform === 'linux')('on Linux without nvidia-smi the GPUs come from sysfs (not systeminformation), read again each scan', async () => {
		const states: SystemState[] = [];
		let reads = 0;
		collector = createSystemCollector({
			dispatch: (a) => {
				if (a.type === 'system') states.push(a.system);
			},
			intervalMs: 100,
			gpuEveryMs: 100,
			nvidiaSmi: {bin: 'infertop-test-no-such-nvidia-smi'},
			linuxGpus: async () => [{index: 0, name: 'Navi 31 [Radeon RX 7900 XT/7900 XTX]', memoryTotalMiB: 24560, memoryUsedMiB: 1024 * ++reads}],
		});
		collector.start();
		await waitFor(() => (states.some((s) => (s.gpus[0]?.memoryUsedMiB ?? 0) >= 2048) ? true : undefined), 8000, 'a second sysfs read');
		await collector.stop();
		expect(states.find((s) => s.gpus.length > 0)?.gpus[0]).toMatchObject({name: 'Navi 31 [Radeon RX 7900 XT/7900 XTX]', memoryTotalMiB: 24560, memoryUsedMiB: 1024});
	});

	it('GPU users from nvidia-smi leave engines out (fake nvidia-smi naming real pids)', async () => {
		const other = startBurner();
		const engine = startBurner();
		pids.push(other, engine);
		const dir = mkdtempSync(path.join(tmpdir(), 'infertop-sysgpu-'));
		dirs.push(dir);
		const bin = path.join(dir, 'nvidia-smi');
		writeFileSync(bin, [
			'#!/bin/sh',
			'case "$1" in',
			'  --query-gpu=*) echo "0, NVIDIA GeForce RTX 4090, 18423, 24564, 97, 71, 402.51, GPU-aaaa" ;;',
			`  --query-compute-apps=*) echo "${engine}, /usr/local/bin/llama-server, 17012, GPU-aaaa"; echo "${other}, /opt/blender/blender, 1200, GPU-aaaa" ;;`,
			'  *) exit 2 ;;',
			'esac',
			'',
		].join('\n'));
		chmodSync(bin, 0o755);
		const states: SystemState[] = [];
		collector = createSystemCollector({
			dispatch: (a) => {
				if (a.type === 'system') states.push(a.system);
			},
			enginePids: () => new Set([engine]),
			nvidiaSmi: {bin},
		});
		collector.start();
		const s = await waitFor(() => states.findLast((x) => x.gpuProcesses.length === 2 && x.contention.engines.some((e) => e.pid === engine)), 5000, 'GPU processes');
		expect(s.gpus).toEqual([{index: 0, name: 'NVIDIA GeForce RTX 4090', vendor: 'NVIDIA', memoryUsedMiB: 18423, memoryTotalMiB: 24564, utilizationPct: 97, temperatureC: 71, powerW: 402.51, uuid: 'GPU-aaaa', source: 'nvidia-smi'}]);
		expect(s.gpuProcesses.map((g) => [g.pid, g.isEngine, g.gpuIndex])).toEqual([[engine, true, 0], [other, false, 0]]);
		expect(s.contention.gpuUsers.map((g) => g.pid)).toEqual([other]);
		expect(s.contention.verdict).toMatch(/node on GPU 1200 MiB/);
		expect(s.reasons.some((r) => r.startsWith('nvidia-smi'))).toBe(false);
	});
});
