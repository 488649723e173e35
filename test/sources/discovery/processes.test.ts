import {mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {
	createProcessFinder,
	engineOfProcess,
	findEngineProcesses,
	flagValue,
	flagValueOfArgv,
	logFileFromCommand,
	type ProcessRow,
} from '../../../source/sources/discovery/processes.js';

describe('engine processes by name and command line', () => {
	it.each([
		['ollama', '/usr/local/bin/ollama serve', 'ollama'],
		['ollama', '/usr/local/bin/ollama runner --model /x --port 41235', undefined],
		['llama-server', '/opt/llama.cpp/build/bin/llama-server -m m.gguf --port 8081', 'llamacpp'],
		['llama-server', '/usr/lib/ollama/llama-server --model /home/user/.ollama/models/blobs/sha256-x --port 40001', undefined],
		['python3.12', 'python3 -m mlx_lm.server --model mlx-community/Qwen3-4B-4bit', 'mlxlm'],
		['mlx_lm.server', '/opt/venv/bin/python /opt/venv/bin/mlx_lm.server --port 8081', 'mlxlm'],
		['Python', '/opt/homebrew/bin/lithos-metal serve --model nvidia/Qwen3.8-27B-NVFP4', 'lithos'],
		['vllm', '/venv/bin/python /venv/bin/vllm serve Qwen/Qwen3-8B --port 8001', 'vllm'],
		['python', 'python -m vllm.entrypoints.openai.api_server --model x', 'vllm'],
		['python', 'python -m sglang.launch_server --model-path Qwen/Qwen3-8B', 'sglang'],
		['LM Studio', '/Applications/LM Studio.app/Contents/MacOS/LM Studio', 'lmstudio'],
		['LM Studio Helper', '/Applications/LM Studio.app/Contents/Frameworks/LM Studio Helper.app/Contents/MacOS/LM Studio Helper --type=gpu', 'lmstudio'],
		['ollama_llama_server', '/usr/lib/ollama/runners/cuda_v12/ollama_llama_server --model /x --port 41000', undefined],
		['llama-cli', '/opt/llama.cpp/build/bin/llama-cli -m m.gguf', undefined],
		['VLLM::EngineCore', 'VLLM::EngineCore', undefined],
		['ollama', '/usr/local/bin/ollama run llama3', undefined],
		['llama-swap', '/usr/local/bin/llama-swap --config c.yaml', 'llamaswap'],
		['koboldcpp', './koboldcpp --model m.gguf', 'koboldcpp'],
		['local-ai', '/usr/bin/local-ai run', 'localai'],
		['bash', 'bash -c grep ollama', undefined],
		['vim', 'vim vllm.md', undefined],
		['node', 'node server.js --port 8080', undefined],
	])('%s: %s → %s', (name, cmd, engine) => {
		expect(engineOfProcess(name, cmd)).toBe(engine);
	});

	it('reads --log-file and --port in both spellings, quoted paths too', () => {
		expect(logFileFromCommand('llama-server -m m.gguf --log-file /var/log/llama.log --port 8081')).toBe('/var/log/llama.log');
		expect(logFileFromCommand('llama-server --log-file=/tmp/l.log')).toBe('/tmp/l.log');
		expect(logFileFromCommand('llama-server --log-file "/Users/me/My Logs/l.log" -c 4096')).toBe('/Users/me/My Logs/l.log');
		expect(logFileFromCommand('llama-server -m m.gguf')).toBeUndefined();
		expect(flagValue('x --port 9000', '--port')).toBe('9000');
		expect(flagValue('x --portal 9000', '--port')).toBeUndefined();
	});

	const rows: ProcessRow[] = [
		{pid: 100, parentPid: 1, name: 'ollama', command: '/usr/local/bin/ollama', params: 'serve'},
		{pid: 101, parentPid: 100, name: 'llama-server', command: '/usr/local/lib/llama-server', params: '--model /blobs/x --port 40001'},
		{pid: 200, parentPid: 1, name: 'llama-server', command: 'llama-server', params: '-m m.gguf --port 8081 --log-file /tmp/ls.log'},
		{pid: 300, parentPid: 1, name: 'python3', command: 'python3', params: '-m mlx_lm.server --port 8090'},
		{pid: 400, parentPid: 1, name: 'sshd', command: '/usr/sbin/sshd', params: '-D'},
	];

	it('ports from the socket table where it says, else from --port; Ollama children skipped', () => {
		const found = findEngineProcesses(rows, [
			{protocol: 'tcp', localAddress: '127.0.0.1', localPort: '11434', state: 'LISTEN', pid: 100},
			{protocol: 'tcp', localAddress: '127.0.0.1', localPort: '40001', state: 'LISTEN', pid: 101},
			{protocol: 'tcp', localAddress: '127.0.0.1', localPort: '8081', state: 'LISTEN', pid: 200},
			{protocol: 'tcp', localAddress: '127.0.0.1', localPort: '51000', state: 'ESTABLISHED', pid: 200},
			{protocol: 'tcp', localAddress: '0.0.0.0', localPort: '22', state: 'LISTEN', pid: 400},
		]);
		expect(found.map((p) => [p.pid, p.engine, p.ports, p.logFile])).toEqual([
			[100, 'ollama', [11434], undefined],
			[200, 'llamacpp', [8081], '/tmp/ls.log'],
			[300, 'mlxlm', [8090], undefined],
		]);
	});

	it('reads the process table at most every minIntervalMs, and survives a failing lister', async () => {
		let t = 0;
		let calls = 0;
		let conns = 0;
		const finder = createProcessFinder({
			minIntervalMs: 10_000,
			now: () => t,
			listProcesses: async () => {
				calls++;
				if (calls === 3) throw new Error('ps not found');
				return rows;
			},
			listConnections: async () => {
				conns++;
				return [];
			},
		});
		expect((await finder.find()).length).toBe(3);
		t = 9_999;
		await finder.find();
		expect(calls).toBe(1);
		t = 10_000;
		await finder.find();
		expect(calls).toBe(2);
		expect(conns).toBe(2);
		t = 20_000;
		expect((await finder.find()).length).toBe(3); // last good list kept
		expect(finder.lastError()).toMatch(/ps not found/);
	});

	it('does not read the socket table when no engine runs', async () => {
		let conns = 0;
		const finder = createProcessFinder({listProcesses: async () => [rows[4]!], listConnections: async () => (conns++, [])});
		expect(await finder.find()).toEqual([]);
		expect(conns).toBe(0);
	});

	it('a relative --log-file is the process\'s: resolved against its working folder, not infertop\'s', async () => {
		const relative: ProcessRow[] = [
			{pid: 500, parentPid: 1, name: 'llama-server', command: 'llama.cpp/build/bin/llama-server', params: '-m models/m.gguf --port 18280 --log-file server.log'},
			{pid: 501, parentPid: 1, name: 'llama-server', command: 'llama-server', params: '-m m.gguf --port 18281 --log-file ../logs/b.log'},
			{pid: 502, parentPid: 1, name: 'llama-server', command: 'llama-server', params: '-m m.gguf --port 18282 --log-file c.log'},
		];
		const asked: number[] = [];
		const finder = createProcessFinder({
			listProcesses: async () => relative,
			listConnections: async () => [],
			cwdOf: async (pid) => (asked.push(pid), pid === 500 ? '/srv/llama' : pid === 501 ? '/srv/llama/run' : undefined),
		});
		expect((await finder.find()).map((p) => p.logFile)).toEqual(['/srv/llama/server.log', '/srv/llama/logs/b.log', 'c.log']);
		expect(asked).toEqual([500, 501, 502]);
	});
});

describe('a --log-file path with white space (issue 34: the command line joined with spaces cut it)', () => {
	it('argv: the value is the whole argument, --flag VALUE and --flag=VALUE', () => {
		expect(flagValueOfArgv(['llama-server', '--log-file', 'my logs/server.log', '--port', '8080'], '--log-file')).toBe('my logs/server.log');
		expect(flagValueOfArgv(['llama-server', '--log-file=a\nb.log'], '--log-file')).toBe('a\nb.log');
		expect(flagValueOfArgv(['llama-server', '--log-file'], '--log-file')).toBeUndefined();
		const row: ProcessRow = {pid: 7, name: 'llama-server', command: 'llama-server -m m.gguf --log-file my logs/server.log', argv: ['llama-server', '-m', 'm.gguf', '--log-file', 'my logs/server.log']};
		expect(findEngineProcesses([row])[0]!.logFile).toBe('my logs/server.log');
		// without argv (a platform that gives one joined line) the first word is all that can be told
		expect(findEngineProcesses([{...row, argv: undefined}])[0]!.logFile).toBe('my');
	});

	it('a /proc tree: the NUL-separated cmdline keeps the path whole, resolved against the process\'s folder', async () => {
		const root = mkdtempSync(path.join(tmpdir(), 'infertop-proc-argv-'));
		try {
			const d = path.join(root, '4242');
			mkdirSync(path.join(root, 'self'), {recursive: true});
			mkdirSync(d);
			mkdirSync(path.join(root, 'run', 'my logs'), {recursive: true});
			writeFileSync(path.join(d, 'stat'), '4242 (llama-server) S 1 4242 4242 0 -1 4194560 0 0 0 0 10 5 0 0 20 0 4 0 777 1000000 256 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0');
			writeFileSync(path.join(d, 'cmdline'), ['llama-server', '-m', 'm.gguf', '--log-file', 'my logs/server.log', ''].join('\0'));
			symlinkSync(path.join(root, 'run'), path.join(d, 'cwd'));
			const finder = createProcessFinder({procRoot: root, listConnections: async () => []});
			const [found] = await finder.find();
			expect(found?.logFile).toBe(path.join(root, 'run', 'my logs', 'server.log'));
		} finally {
			rmSync(root, {recursive: true, force: true});
		}
	});
});
