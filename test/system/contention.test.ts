import {describe, expect, it} from 'vitest';
import {engineProcessKind} from '../../source/engines/index.js';
import {createContentionTracker, descendantsOf, shortDuration, type ProcSample} from '../../source/system/contention.js';
import {macPressureLevel, parseGovernor, parsePmset, parsePsiMemory} from '../../source/system/power.js';

describe('engineProcessKind', () => {
	it.each([
		['ollama', '/usr/local/bin/ollama serve', 'ollama'],
		['ollama', '/usr/local/bin/ollama runner --model /usr/share/ollama/.ollama/models/blobs/sha256-abc --port 40123', 'ollama'],
		['ollama', '/home/ollama/bin/ollama serve', 'ollama'],
		['ollama_llama_server', '/tmp/ollama123/runners/cuda_v12/ollama_llama_server --model x --port 5', 'ollama'],
		['Ollama', '/Applications/Ollama.app/Contents/MacOS/Ollama', 'ollama'],
		['llama-server', '/opt/llama.cpp/build/bin/llama-server -m model.gguf --port 8080', 'llamacpp'],
		['llama-bench', 'llama-bench -m m.gguf', 'llamacpp'],
		['llama-swap', 'llama-swap --config config.yaml', 'llamaswap'],
		['python3.12', '/opt/homebrew/bin/python3.12 /opt/homebrew/bin/mlx_lm.server --model mlx-community/Qwen3-4B-4bit', 'mlxlm'],
		['mlx_lm.server', '/Users/me/.venv/bin/mlx_lm.server --port 8081', 'mlxlm'],
		['python', 'python -m mlx_lm server --model x', 'mlxlm'],
		['lithos-metal', 'lithos-metal serve --model nvidia/Qwen3.8-27B-NVFP4 --port 8189', 'lithos'],
		['python3', '/usr/bin/python3 -m vllm.entrypoints.openai.api_server --model x', 'vllm'],
		['vllm', '/venv/bin/python /venv/bin/vllm serve Qwen/Qwen3-8B', 'vllm'],
		['VLLM::EngineCore', 'VLLM::EngineCore', 'vllm'],
		['python', 'python -m sglang.launch_server --model-path x', 'sglang'],
		['sglang::scheduler', 'sglang::scheduler_TP0', 'sglang'],
		['LM Studio', '/Applications/LM Studio.app/Contents/MacOS/LM Studio', 'lmstudio'],
		['node', '/Users/me/.lmstudio/extensions/backends/llama.cpp-mac-arm64/llmworker.js', 'lmstudio'],
		// LM Studio's folder rule is the catch-all: an engine of its own run from that folder is that engine.
		['python3', '/Users/me/.lmstudio/venv/bin/python3 -m mlx_lm.server --port 8081', 'mlxlm'],
		['llama-server', '/Users/me/.lmstudio/bin/llama-server -m m.gguf', 'llamacpp'],
		['koboldcpp', './koboldcpp --model x.gguf', 'koboldcpp'],
		['ollama.exe', 'C:\\Users\\me\\AppData\\Local\\Programs\\Ollama\\ollama.exe serve', 'ollama'],
		['ollama app.exe', 'C:\\Users\\me\\AppData\\Local\\Programs\\Ollama\\ollama app.exe', 'ollama'],
		['llama-server.exe', 'llama-server.exe -m m.gguf', 'llamacpp'],
	])('%s %s → %s', (name, command, kind) => {
		expect(engineProcessKind(name, command)).toBe(kind);
	});

	it.each([
		['ollama', 'ollama ps'],
		['ollama', 'ollama run llama3'],
		['vim', 'vim vllm_notes.md'],
		['grep', 'grep -r sglang .'],
		['node', 'node -e for(;;){}'],
		['blender', '/opt/blender/blender -b scene.blend'],
		['python3', 'python3 train.py --lr 1e-4'],
		['bash', 'bash'],
	])('%s %s is not an engine', (name, command) => {
		expect(engineProcessKind(name, command)).toBeUndefined();
	});
});

const T0 = 1_800_000_000_000;
const p = (pid: number, name: string, cpuPct?: number, ppid = 1, command = name): ProcSample => ({pid, ppid, name, command, ...(cpuPct !== undefined ? {cpuPct} : {})});

describe('contention tracker', () => {
	it('names other hot processes, hottest first, and how long they have been hot', () => {
		const tr = createContentionTracker();
		let r = tr.update({t: T0, processes: [p(10, 'blender', 110), p(11, 'chrome', 30), p(12, 'sshd', 1)]});
		expect(r.state.hot.map((h) => [h.name, h.hotForMs])).toEqual([['blender', 0], ['chrome', 0]]);
		expect(r.state.active).toBe(true);
		expect(r.state.verdict).toBe('contention: blender 110 % CPU; chrome 30 % CPU');
		r = tr.update({t: T0 + 180_000, processes: [p(10, 'blender', 110), p(11, 'chrome', 5)]});
		expect(r.state.hot).toEqual([{pid: 10, name: 'blender', command: 'blender', cpuPct: 110, hotForMs: 180_000}]);
		expect(r.state.verdict).toBe('contention: blender 110 % CPU for 3 min');
		// cooled down and back: the clock starts again
		r = tr.update({t: T0 + 190_000, processes: [p(10, 'blender', 110), p(11, 'chrome', 40)]});
		expect(r.state.hot.find((h) => h.pid === 11)!.hotForMs).toBe(0);
	});

	it('drops vanished processes and does not inherit a reused pid', () => {
		const tr = createContentionTracker();
		tr.update({t: T0, processes: [p(10, 'blender', 110)]});
		let r = tr.update({t: T0 + 2000, processes: []});
		expect(r.state.hot).toEqual([]);
		expect(r.state.active).toBe(false);
		expect(r.state.verdict).toBeUndefined();
		tr.update({t: T0 + 4000, processes: [p(10, 'blender', 110)]});
		r = tr.update({t: T0 + 6000, processes: [p(10, 'ffmpeg', 90)]});
		expect(r.state.hot).toEqual([expect.objectContaining({pid: 10, name: 'ffmpeg', hotForMs: 0})]);
	});

	it('keeps the last list between scans, its clock moving on', () => {
		const tr = createContentionTracker();
		tr.update({t: T0, processes: [p(10, 'blender', 110)]});
		const r = tr.update({t: T0 + 1500});
		expect(r.state.hot[0]!.hotForMs).toBe(1500);
	});

	it('never counts engines (watched or recognised), their children, or infertop and its children', () => {
		const tr = createContentionTracker();
		const table = [
			p(100, 'ollama', 3, 1, '/usr/local/bin/ollama serve'),
			p(101, 'ollama', 390, 100, '/usr/local/bin/ollama runner --model x --port 1'),
			p(200, 'python3', 150, 1, 'python3 my_private_server.py'), // watched by pid
			p(201, 'python3', 80, 200, 'python3 -c worker'),
			p(300, 'node', 40, 1, 'node infertop'), // self
			p(301, 'ps', 60, 300, 'ps -axo pid'),
			p(400, 'make', 99, 1, 'make -j'),
		];
		const r = tr.update({t: T0, processes: table, selfPid: 300, enginePids: new Set([200])});
		expect(r.state.hot.map((h) => h.pid)).toEqual([400]);
		expect(r.state.engines).toEqual([
			{pid: 100, name: 'ollama', engine: 'ollama', cpuPct: 393, children: 1},
			{pid: 200, name: 'python3', engine: 'engine', cpuPct: 230, watched: true, children: 1},
		]);
	});

	it('flags two engine servers at once (the classic mistake), even with nothing else hot', () => {
		const tr = createContentionTracker();
		const r = tr.update({t: T0, processes: [
			p(100, 'ollama', 60, 1, '/usr/local/bin/ollama serve'),
			p(500, 'llama-server', 95, 1, 'llama-server -m m.gguf --port 8080'),
			p(501, 'llama-server', 0, 1, 'llama-server -m n.gguf --port 8081'),
		], enginePids: new Set([100])});
		expect(r.state.hot).toEqual([]);
		expect(r.state.engines.map((e) => e.engine)).toEqual(['llamacpp', 'ollama', 'llamacpp']);
		expect(r.state.active).toBe(true);
		expect(r.state.verdict).toBe('contention: 3 engine servers: llama-server (500), ollama, llama-server (501) (2 busy)');
		// one server alone is no contention
		const one = createContentionTracker().update({t: T0, processes: [p(100, 'ollama', 60, 1, '/usr/local/bin/ollama serve')]});
		expect(one.state.active).toBe(false);
		expect(one.state.engines).toHaveLength(1);
	});

	it('GPU users are compute apps that are not engines', () => {
		const tr = createContentionTracker();
		const r = tr.update({
			t: T0,
			processes: [p(100, 'ollama', 3, 1, '/usr/local/bin/ollama serve'), p(101, 'ollama', 300, 100, 'ollama runner --port 2'), p(52, 'blender', 5, 1, '/opt/blender/blender')],
			gpuApps: [{pid: 101, name: '/usr/local/bin/ollama', usedMiB: 17012}, {pid: 52, name: '/opt/blender/blender', usedMiB: 1200}, {pid: 77, name: '/usr/bin/python3', usedMiB: 900}],
		});
		expect(r.gpuProcesses.map((g) => [g.pid, g.isEngine])).toEqual([[101, true], [52, false], [77, false]]);
		expect(r.state.gpuUsers.map((g) => g.name)).toEqual(['blender', 'python3']);
		expect(r.state.active).toBe(true);
		expect(r.state.verdict).toBe('contention: blender on GPU 1200 MiB; python3 on GPU 900 MiB');
	});

	it('swap: noted when large, active only when growing or under pressure', () => {
		const tr = createContentionTracker();
		let r = tr.update({t: T0, processes: [], swapUsedBytes: 2.1e9, swapTotalBytes: 4e9});
		expect(r.state.active).toBe(false);
		expect(r.state.verdict).toBe('no contention now: swap 2.1 GB');
		r = tr.update({t: T0 + 2000, swapUsedBytes: 2.2e9});
		expect(r.state.active).toBe(true);
		expect(r.state.verdict).toBe('contention: swap 2.2 GB (growing)');
		r = tr.update({t: T0 + 20_000, swapUsedBytes: 2.2e9});
		expect(r.state.active).toBe(false);
		r = tr.update({t: T0 + 22_000, swapUsedBytes: 2.2e9, memoryPressure: 'warn', memoryPressureLevel: 'warn'});
		expect(r.state.active).toBe(true);
		expect(r.state.verdict).toBe('contention: swap 2.2 GB; memory pressure warn');
		expect(r.state.memoryPressureLevel).toBe('warn');
	});

	it('power: battery, Low Power mode and a powersave governor are said, not counted as contention', () => {
		const tr = createContentionTracker();
		const r = tr.update({t: T0, processes: [p(10, 'blender', 110)], power: {source: 'battery', percent: 45, mode: 'Low Power'}});
		expect(r.state.verdict).toBe('contention: blender 110 % CPU; on battery 45 %; Low Power mode');
		const calm = createContentionTracker().update({t: T0, processes: [], power: {source: 'ac', governor: 'powersave'}});
		expect(calm.state.active).toBe(false);
		expect(calm.state.verdict).toBe('no contention now: governor powersave');
		expect(createContentionTracker().update({t: T0, processes: [], power: {source: 'ac', mode: 'High Power'}}).state.verdict).toBeUndefined();
	});

	it('lists at most topN and sanitizes names', () => {
		const tr = createContentionTracker({topN: 2});
		const r = tr.update({t: T0, processes: [p(1, 'a', 30), p(2, '\u001b[31mb\u001b[0m', 50), p(3, 'c', 40)]});
		expect(r.state.hot.map((h) => h.name)).toEqual(['b', 'c']);
	});

	it('helpers', () => {
		expect(shortDuration(40_000)).toBe('40 s');
		expect(shortDuration(65 * 60_000)).toBe('1 h 5 min');
		expect([...descendantsOf([1], [p(2, 'x', 0, 1), p(3, 'y', 0, 2), p(4, 'z', 0, 9)])].sort()).toEqual([1, 2, 3]);
	});
});

describe('power and pressure parsers', () => {
	it('pmset -g', () => {
		const base = 'System-wide power settings:\nCurrently in use:\n standby              1\n disksleep            10\n sleep                1 (sleep prevented by sharingd)\n';
		expect(parsePmset(`${base} lowpowermode         0\n womp                 1\n`)).toBe('Automatic');
		expect(parsePmset(`${base} lowpowermode         1\n`)).toBe('Low Power');
		expect(parsePmset(`${base} powermode            2\n`)).toBe('High Power');
		expect(parsePmset(`${base} powermode            0\n`)).toBe('Automatic');
		expect(parsePmset(base)).toBeUndefined();
	});

	it('PSI, macOS pressure level, governor', () => {
		expect(parsePsiMemory('some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n'))
			.toEqual({words: 'normal (PSI some 0.0 %, full 0.0 %, 10 s)', level: 'normal'});
		expect(parsePsiMemory('some avg10=12.50 avg60=3.00 avg300=1.00 total=9\nfull avg10=2.00 avg60=0.00 avg300=0.00 total=1\n')!.level).toBe('warn');
		expect(parsePsiMemory('some avg10=40.00 avg60=3.00 avg300=1.00 total=9\nfull avg10=20.00 avg60=0.00 avg300=0.00 total=1\n')!.level).toBe('critical');
		expect(parsePsiMemory('garbage')).toBeUndefined();
		expect(macPressureLevel('1\n')).toBe('normal');
		expect(macPressureLevel('4')).toBe('critical');
		expect(macPressureLevel('')).toBeUndefined();
		expect(parseGovernor('performance\n')).toBe('performance');
		expect(parseGovernor('<html>')).toBeUndefined();
	});
});

describe('contention that adds up (issue 11 item 8)', () => {
	it('a compiler\'s many short jobs add up by name: never "calm" beside 100 % CPU', () => {
		const tr = createContentionTracker();
		// Twelve cc1plus jobs at 15 % each on a 2-core machine: none is hot alone, together 180 %.
		const jobs = Array.from({length: 12}, (_, i) => ({pid: 5000 + i, ppid: 4000, name: 'cc1plus', cpuPct: 15}));
		const {state} = tr.update({t: 1000, processes: [{pid: 4000, name: 'make', cpuPct: 1}, ...jobs], cores: 2, machineCpuPct: 100});
		expect(state.hot.map(h => [h.name, h.count, h.cpuPct])).toEqual([['cc1plus', 12, 180]]);
		expect(state.active).toBe(true);
		expect(state.verdict).toBe('contention: cc1plus ×12 180 % CPU; other processes 200 % CPU of 200 %');
	});

	it('jobs too short-lived to be listed still count: the machine\'s load less the engines and infertop', () => {
		const tr = createContentionTracker();
		const {state} = tr.update({t: 1000, processes: [{pid: 10, name: 'llama-server', cpuPct: 40}, {pid: 20, name: 'node', cpuPct: 5}], selfPid: 20, enginePids: new Set([10]), cores: 2, machineCpuPct: 90});
		// 180 % of the machine − 40 % engine − 5 % infertop = 135 % taken by others nobody listed.
		expect(state.hot).toEqual([]);
		expect(state.active).toBe(true);
		expect(state.verdict).toBe('contention: other processes 135 % CPU of 200 %');
	});

	it('a watched llama-server is known by pid and never listed as contention, even by another name', () => {
		const tr = createContentionTracker();
		const {state} = tr.update({t: 1000, processes: [{pid: 10, name: 'my-llm-build', cpuPct: 190}], enginePids: new Set([10]), cores: 2, machineCpuPct: 95});
		expect(state.hot).toEqual([]);
		expect(state.engines.map(e => [e.pid, e.watched])).toEqual([[10, true]]);
		expect(state.active).toBe(false);
	});
});
