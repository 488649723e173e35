/**
 * The macOS path, run here (Linux) with the platform injected and fake `ioreg`, `sysctl`,
 * `memory_pressure`, `vm_stat` and `mactop` first on PATH (small shell scripts written below; their
 * output is the published formats of test/fixtures/system/mac). A scripted busy GPU, another app on
 * it, and an mlx-lm model past the GPU's limit go through the real collector, store, panes (rendered
 * by ink-testing-library), snapshot JSON, Prometheus text and the verdict.
 */
import {chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {render} from 'ink-testing-library';
import type {ReactElement} from 'react';
import {afterEach, describe, expect, it} from 'vitest';
import {createMlxLmParser} from '../../source/engines/mlxlm.js';
import {renderMetrics} from '../../source/metrics/exporter.js';
import {toSnapshot} from '../../source/model/snapshot.js';
import {createStore} from '../../source/model/store.js';
import {MIB, macGpuLines, macGpuSummary, wiredLimitVerdict} from '../../source/model/wired-limit.js';
import {createSystemCollector, type SystemCollector} from '../../source/sources/system-collector.js';
import type {MonitorState} from '../../source/types/state.js';
import {ContentionPane, contentionLines} from '../../source/ui/panes/contention.js';
import {EnginesPane} from '../../source/ui/panes/engines.js';
import {engineRows} from '../../source/ui/view-model/engines.js';
import {noColorTheme} from '../../source/ui/theme.js';
import {ThemeContext} from '../../source/ui/theme-context.js';

const plain = (node: ReactElement) => render(<ThemeContext.Provider value={noColorTheme()}>{node}</ThemeContext.Provider>);

const dirs: string[] = [];
let collector: SystemCollector | undefined;
afterEach(async () => {
	await collector?.stop();
	collector = undefined;
	for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true});
});

function script(dir: string, name: string, body: string): void {
	const f = path.join(dir, name);
	writeFileSync(f, `#!/bin/sh\n${body}\n`);
	chmodSync(f, 0o755);
}

/**
 * The fake tools. `ioreg -c IOGPU` says an M5 Max 40-core GPU is 94 % busy with 101 GiB in use (or,
 * with `noStats`, prints no statistics); `ioreg -c AGXDeviceUserClient` counts up: blender gains
 * 0.41 s of GPU time and WindowServer 0.01 s at each call (one call per GPU scan, and the collector's
 * clock below moves 1 s per scan: 41 % and 1 %). Every tool leaves a mark when it runs.
 */
function fakeTools(opts: {noStats?: boolean} = {}): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'infertop-mac-'));
	dirs.push(dir);
	const mark = (name: string) => `touch "${dir}/ran-${name}"`;
	const stats = opts.noStats
		? ''
		: [
			'+-o AGXAcceleratorG17X  <class AGXAcceleratorG17X, id 0x1000006f7, registered, matched, active, busy 0 (12 ms), retain 80>',
			'    {',
			'      "model" = "Apple M5 Max"',
			'      "gpu-core-count" = 40',
			'      "PerformanceStatistics" = {"In use system memory (driver)"=0,"Alloc system memory"=112742891520,"Tiler Utilization %"=0,"recoveryCount"=0,"Renderer Utilization %"=1,"Device Utilization %"=94,"In use system memory"=108447924224}',
			'    }',
		].join('\n');
	script(dir, 'ioreg', [
		mark('ioreg'),
		'case "$*" in',
		`  *IOGPU*) cat <<'EOF'\n${stats}\nEOF\n  ;;`,
		'  *AGXDeviceUserClient*)',
		`    n=$(cat "${dir}/n" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "${dir}/n"`,
		'    echo "+-o AGXDeviceUserClient  <class AGXDeviceUserClient, id 0x100002dbd, !registered, !matched, active, busy 0, retain 5>"',
		'    echo "    {"',
		'    echo "      \\"AppUsage\\" = ({\\"API\\"=\\"Metal\\",\\"lastSubmittedTime\\"=1,\\"accumulatedGPUTime\\"=$((n * 10000000))})"',
		'    echo "      \\"IOUserClientCreator\\" = \\"pid 440, WindowServer\\""',
		'    echo "    }"',
		'    echo "+-o AGXDeviceUserClient  <class AGXDeviceUserClient, id 0x100002dbe, !registered, !matched, active, busy 0, retain 5>"',
		'    echo "    {"',
		'    echo "      \\"AppUsage\\" = ({\\"API\\"=\\"Metal\\",\\"lastSubmittedTime\\"=2,\\"accumulatedGPUTime\\"=$((n * 410000000))})"',
		'    echo "      \\"IOUserClientCreator\\" = \\"pid 901, blender\\""',
		'    echo "    }"',
		'  ;;',
		'esac',
	].join('\n'));
	// sysctl.c prints each name as `NAME: VALUE`; 128 GiB, the default limit (0), swap, pressure warn.
	script(dir, 'sysctl', [mark('sysctl'), "printf 'hw.memsize: 137438953472\\niogpu.wired_limit_mb: 0\\nvm.swapusage: total = 20480.00M  used = 19348.94M  free = 1131.06M  (encrypted)\\nkern.memorystatus_vm_pressure_level: 2\\n'"].join('\n'));
	script(dir, 'memory_pressure', [mark('memory_pressure'), "printf 'The system has 137438953472 (8388608 pages with a page size of 16384).\\nSystem-wide memory free percentage: 12%%\\n'"].join('\n'));
	script(dir, 'vm_stat', mark('vm_stat'));
	script(dir, 'mactop', [mark('mactop'), 'echo \'[{"gpu_usage":37.5,"system_info":{"name":"Apple M5 Max","gpu_core_count":40},"processes":[{"pid":901,"command":"blender","gpu_ms_per_sec":300}]}\'', "echo ']'"].join('\n'));
	return dir;
}

const MLX = 'http://127.0.0.1:18090';
const WARNING = '[WARNING] Generating with a model that requires 100000 MB which is close to the maximum recommended size of 98304 MB. This can be slow. See the documentation for possible work-arounds: https://github.com/ml-explore/mlx-lm/tree/main#large-models';

async function runMac(dir: string, until: (s: MonitorState) => boolean, log: readonly string[] = []): Promise<MonitorState> {
	const store = createStore({host: 'studio', now: Date.now()});
	store.dispatch({type: 'server-seen', t: Date.now(), server: {id: MLX, engine: 'mlxlm', url: MLX, source: 'port-scan'}});
	store.dispatch({type: 'server-models', t: Date.now(), serverId: MLX, models: [{name: 'mlx-community/Qwen3-235B-A22B-4bit'}]});
	// the engine's own line, through its real parser
	const parser = createMlxLmParser();
	for (const line of [WARNING, ...log]) for (const event of parser.push(line) ?? []) store.dispatch({type: 'engine-event', serverId: MLX, t: Date.now(), event});
	let k = 0;
	collector = createSystemCollector({
		dispatch: (a) => store.dispatch(a),
		platform: 'darwin',
		intervalMs: 100,
		gpuEveryMs: 100,
		macTools: {env: {PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}`}, now: () => ++k * 1000},
		nvidiaSmi: {bin: 'infertop-test-no-such-nvidia-smi'},
		// this Linux box's own busy processes are not what is tested here
		contention: {hotPct: 1e6},
	});
	collector.start();
	const started = Date.now();
	const deadline = started + 25_000;
	for (;;) {
		const s = store.getSnapshot();
		if (until(s)) {
			if (process.env.INFERTOP_TEST_TIMING) console.log(`mac scan ready after ${Date.now() - started} ms`);
			await collector.stop();
			return s;
		}
		if (Date.now() > deadline) throw new Error(`timed out: ${JSON.stringify({gpus: s.system.gpus, mac: s.system.mac, users: s.system.contention.gpuUsers, reasons: s.system.reasons})}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

describe('macOS without sudo (fake tools on PATH)', () => {
	it('a busy GPU, blender on it and an mlx-lm model over the limit reach the panes, the JSON, the metrics and the verdict', async () => {
		const dir = fakeTools();
		// An agent's request to the mlx-lm server (samples/mlxlm.log's first, mlx_lm.server at DEBUG), so there is a turn to hold the finding.
		const sample = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'samples', 'mlxlm.log'), 'utf8').split('\n');
		const second = sample.findIndex((l, i) => i > 1 && l.includes('Incoming Request Body'));
		const s = await runMac(dir, (x) => x.system.gpus[0]?.utilizationPct === 94 && x.system.contention.gpuUsers.length > 0 && x.system.mac?.memoryFreePct !== undefined, sample.slice(0, second));
		// the collector's figures, exactly as the fake tools said them
		expect(s.system.gpus[0]).toMatchObject({index: 0, name: 'Apple M5 Max', vendor: 'Apple', unified: true, source: 'ioreg', cores: 40, utilizationPct: 94, memoryInUseBytes: 108447924224, memoryAllocBytes: 112742891520});
		expect(s.system.contention.gpuUsers).toEqual([{pid: 901, name: 'blender', gpuPct: 41, isEngine: false}]);
		expect(s.system.mac).toEqual({memsizeBytes: 137438953472, wiredLimitMb: 0, memoryFreePct: 12, gpuUsersSource: 'ioreg'});
		expect(s.system.contention.swapUsedBytes).toBe(20288834109);
		expect(s.system.contention.memoryPressure).toBe('warn (12 % free)');
		expect(s.system.contention.verdict).toContain('blender 41 % GPU');
		// ioreg answered: mactop was never run; memory_pressure answered: no vm_stat
		expect(existsSync(path.join(dir, 'ran-mactop'))).toBe(false);
		expect(existsSync(path.join(dir, 'ran-vm_stat'))).toBe(false);

		// the verdict: mlx-lm said the limit (98304 MiB, Metal) and its weights (100000 MiB)
		const summary = macGpuSummary(s)!;
		expect(summary.limit).toEqual({bytes: 98304 * MIB, source: 'engine', estimated: false, label: 'said by mlx-lm (Metal)'});
		const v = wiredLimitVerdict({demandBytes: summary.demand!.bytes, limit: summary.limit!, memsizeBytes: 137438953472, partial: true})!;
		expect([v.level, v.text, v.fix?.command]).toEqual(['over', 'over the limit: expect slow decode or a failed load', 'sudo sysctl iogpu.wired_limit_mb=110592']);

		// the screen
		const engines = plain(<EnginesPane rows={engineRows(s.servers, s.order, s.now)} width={200} height={5} gpuLines={macGpuLines(summary)} />);
		const frame = engines.lastFrame()!.split('\n').map((l) => l.trimEnd());
		expect(frame.slice(3)).toEqual([
			'  GPU 94 % busy · engines hold 97.7 GiB (weights; KV cache not known) · GPU limit 96.0 GiB (said by mlx-lm (Metal)) · over the limit: expect slow decode or a failed load',
			'  fix: sudo sysctl iogpu.wired_limit_mb=110592 (what the engines hold, 97.7 GiB, + 10 % headroom, rounded up to a whole GiB; leaves 20.0 GiB of 128 GiB to macOS)',
		]);
		engines.unmount();
		// (this box's own engines and busy processes, listed between, are not what is tested here)
		expect(contentionLines(s.system).filter((l) => /^(GPU|swap )/.test(l))).toEqual([
			'GPU 0 Apple M5 Max (40-core)  busy 94%  GPU memory in use 101.0 GiB  (ioreg)',
			'GPU users: blender (pid 901, 41% GPU)',
			expect.stringMatching(/^swap 20.29 GB of 21.47 GB {2}· {2}memory pressure warn \(12 % free\)/),
		]);
		const pane = plain(<ContentionPane system={s.system} width={120} height={4} />);
		expect(pane.lastFrame()).toContain('GPU users: blender (pid 901, 41% GPU)');
		pane.unmount();

		// snapshot --json
		const snap = JSON.parse(JSON.stringify(toSnapshot(s, '0.0.0-test')));
		expect(snap.gpu[0]).toMatchObject({busyPct: 94, memoryInUseBytes: 108447924224, wiredLimitBytes: 98304 * MIB, source: 'ioreg'});
		expect(snap.mac).toMatchObject({
			memsizeBytes: 137438953472, wiredLimitMb: 0, wiredLimitBytes: 98304 * MIB, wiredLimitSource: 'engine', wiredLimitEstimated: false,
			enginesHoldBytes: 100000 * MIB, verdict: 'over', verdictText: 'over the limit: expect slow decode or a failed load', pctOfLimit: 101.7,
			fix: {command: 'sudo sysctl iogpu.wired_limit_mb=110592', mb: 110592}, memoryFreePct: 12, gpuUsersSource: 'ioreg',
		});
		expect(snap.contention.gpuUsers).toEqual([{pid: 901, name: 'blender', gpuPct: 41, isEngine: false}]);
		// the agent finding (issue 28's spilled-to-cpu): the turn ran over the wired limit, with the sysctl fix
		expect(snap.findings.map((f: {kind: string; fix: string; turns: number[]}) => [f.kind, f.fix, f.turns])).toEqual([['spilled-to-cpu', 'sudo sysctl iogpu.wired_limit_mb=110592', [1]]]);

		// Prometheus
		const text = renderMetrics(s, []);
		expect(text).toContain('infertop_gpu_busy_ratio{gpu="Apple M5 Max",index="0",source="ioreg"} 0.94');
		expect(text).toContain(`infertop_gpu_wired_limit_bytes{source="engine"} ${98304 * MIB}`);
		expect(text).toContain(`infertop_gpu_wired_demand_bytes{partial="true"} ${100000 * MIB}`);
		expect(text).toMatch(/infertop_gpu_wired_limit_ratio\{verdict="over"\} 1\.017/);
		expect(text).toContain('infertop_gpu_process_busy_ratio{process="blender",pid="901"} 0.41');
		expect(text).toContain('infertop_memory_free_ratio 0.12');
	}, 45_000);

	it('no GPU statistics from ioreg: mactop answers, its per-process GPU marked experimental; a limit set by sysctl', async () => {
		const dir = fakeTools({noStats: true});
		// no GPU clients either: the users come from mactop
		script(dir, 'ioreg', `touch "${dir}/ran-ioreg"`);
		script(dir, 'sysctl', "printf 'hw.memsize: 68719476736\\niogpu.wired_limit_mb: 57344\\n'");
		const s = await runMac(dir, (x) => x.system.gpus[0]?.source === 'mactop' && x.system.contention.gpuUsers.length > 0 && x.system.mac?.wiredLimitMb !== undefined);
		expect(s.system.gpus[0]).toMatchObject({name: 'Apple M5 Max', source: 'mactop', utilizationPct: 37.5, cores: 40});
		expect(s.system.gpus[0]!.memoryInUseBytes).toBeUndefined();
		expect(s.system.mac?.gpuUsersSource).toBe('mactop');
		expect(contentionLines(s.system)).toContain('GPU users (mactop, experimental): blender (pid 901, 30% GPU)');
		expect(macGpuSummary(s)!.limit).toEqual({bytes: 57344 * MIB, source: 'sysctl', estimated: false, label: 'iogpu.wired_limit_mb=57344'});
	}, 45_000);

	it('nothing answers: -- and the reasons; macOS does not tell the GPU users without sudo', async () => {
		const dir = fakeTools({noStats: true});
		script(dir, 'ioreg', 'exit 0');
		rmSync(path.join(dir, 'mactop'));
		script(dir, 'memory_pressure', 'exit 1');
		script(dir, 'vm_stat', "printf 'Mach Virtual Memory Statistics: (page size of 16384 bytes)\\nPages occupied by compressor:   131072.\\nSwapouts:   0.\\n'");
		const s = await runMac(dir, (x) => x.system.mac?.compressorBytes !== undefined && x.system.reasons.some((r) => r.startsWith('GPU busy')));
		expect(s.system.gpus.every((g) => g.source !== 'ioreg' && g.source !== 'mactop')).toBe(true);
		expect(s.system.reasons).toContain('GPU busy: ioreg gave no GPU statistics; mactop: not installed');
		expect(contentionLines(s.system)).toContain('GPU users: -- (macOS does not tell without sudo here)');
		expect(s.system.mac?.compressorBytes).toBe(131072 * 16384);
		expect(s.system.contention.memoryPressure).toBe('warn (compressor 2.1 GB)');
		expect(s.system.mac?.memoryFreePct).toBeUndefined();
	}, 45_000);
});
