/**
 * The package as a user gets it: `npm pack` (which runs `prepack` → `npm run build`), install the
 * tarball into an empty project, and run the installed `infertop` binary.
 *
 * Slow (a build and an npm install: about a minute): run it alone with
 *   npx vitest run test/platform/pack.test.ts
 * Skipped only when `npm` itself is not available; every other failure fails.
 * The install prefers npm's cache (--prefer-offline) and falls back to the registry.
 */
import {execFile, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PATCH_MARKS, bundledModule} from '../../scripts/patches.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {version: string; name: string};
const npmAvailable = spawnSync('npm', ['--version'], {encoding: 'utf8', shell: process.platform === 'win32'}).status === 0;
if (!npmAvailable) console.warn('test/platform/pack.test.ts: SKIPPED, `npm` is not available on this machine');

// A clean environment for the installed CLI: no CI (Ink prints nothing until exit in CI), no DEV.
const cleanEnv = (): NodeJS.ProcessEnv => {
	const env: NodeJS.ProcessEnv = {...process.env, CI: 'false', NO_COLOR: '1', INFERTOP_CODE_CACHE: 'off'};
	for (const k of ['DEV', 'NODE_ENV', 'VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID', 'TEST']) delete env[k];
	return env;
};

describe.skipIf(!npmAvailable)('npm pack → install → run', () => {
	let work: string;
	let project: string;
	let tarball: string;
	let packedFiles: string[] = [];

	beforeAll(async () => {
		work = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-pack-'));
		project = path.join(work, 'project');
		fs.mkdirSync(project);
		const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {cwd: root, maxBuffer: 64 * 1024 * 1024, timeout: 180_000});
		// prepack's build output goes to stderr/stdout before the JSON: take the JSON array at the end.
		const json = packed.stdout.slice(packed.stdout.indexOf('\n[') + 1 || packed.stdout.indexOf('['));
		const info = (JSON.parse(json) as {filename: string; files: {path: string}[]}[])[0]!;
		tarball = path.join(work, info.filename);
		packedFiles = info.files.map((f) => f.path);
		fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({name: 'infertop-pack-test', version: '0.0.0', private: true}));
		await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {cwd: project, timeout: 180_000, maxBuffer: 16 * 1024 * 1024});
	}, 240_000);

	afterAll(() => {
		if (work) fs.rmSync(work, {recursive: true, force: true});
	});

	it('ships the bundle, the shim and the data, not the sources', () => {
		expect(packedFiles).toContain('bin/infertop.js');
		// what it requires under a busy log
		expect(packedFiles).toContain('bin/young-generation.js');
		expect(packedFiles).toContain('dist/cli.cjs');
		expect(packedFiles.filter((f) => f.startsWith('dist/')).sort()).toEqual(['dist/cli.cjs', 'dist/execa.cjs', 'dist/systeminformation.cjs']);
		expect(packedFiles).toContain('package.json');
		expect(packedFiles.filter((f) => f.startsWith('source/') || f.startsWith('test/') || f.startsWith('node_modules/'))).toEqual([]);
	});

	it('needs no patch step: the bundle already holds every patched module with its mark, and the package has no install script', async () => {
		expect(packedFiles.filter((f) => f.startsWith('patches/') || f.startsWith('scripts/'))).toEqual([]);
		const installed = path.join(project, 'node_modules', pkg.name);
		const text = fs.readFileSync(path.join(installed, 'dist', 'cli.cjs'), 'utf8');
		for (const m of PATCH_MARKS) expect(bundledModule(text, m.file)?.includes(m.bundled ?? m.mark), `${m.file} (patches/${m.patch})`).toBe(true);
		expect(text).toContain('\n// patches/render/ink.js\n');
		// the patch step runs only where the package is developed ("dependencies", after an install into
		// its own node_modules); a tarball with an install script would be refused under --strict-allow-scripts
		const scripts = (JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as {scripts: Record<string, string>}).scripts;
		for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts[s], s).toBeUndefined();
		const prefix = path.join(work, 'global');
		fs.mkdirSync(path.join(prefix, 'lib'), {recursive: true});
		await run('npm', ['install', '-g', tarball, '--prefix', prefix, '--strict-allow-scripts', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {cwd: work, timeout: 120_000});
		const bin = path.join(prefix, 'bin', 'infertop');
		const {stdout} = await run(bin, ['--version'], {cwd: work, env: cleanEnv(), timeout: 30_000});
		expect(stdout.trim()).toBe(pkg.version);
	}, 150_000);

	it('systeminformation and execa are files of their own beside the bundle, required where they are used', async () => {
		const dist = path.join(project, 'node_modules', pkg.name, 'dist');
		const text = fs.readFileSync(path.join(dist, 'cli.cjs'), 'utf8');
		// what the bundle's require (bin/infertop.js: createRequire of dist/cli.cjs) finds
		const req = createRequire(path.join(dist, 'cli.cjs'));
		for (const dep of ['systeminformation', 'execa']) {
			expect(text).toContain(`require("./${dep}.cjs")`);
			expect(text).not.toContain(`node_modules/${dep}/`);
		}
		const si = req('./systeminformation.cjs') as {cpu?: unknown; graphics?: unknown; processes?: unknown};
		expect(typeof si.cpu).toBe('function');
		expect(typeof si.graphics).toBe('function');
		expect(typeof si.processes).toBe('function');
		const {execa} = req('./execa.cjs') as {execa: (file: string, args: string[]) => Promise<{stdout: string}>};
		expect((await execa(process.execPath, ['-e', 'process.stdout.write("ran")'])).stdout).toBe('ran');
	});

	it('`infertop --version` prints the package version', async () => {
		const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'infertop.cmd' : 'infertop');
		expect(fs.existsSync(bin)).toBe(true);
		const {stdout} = await run(bin, ['--version'], {cwd: project, env: cleanEnv(), timeout: 30_000});
		expect(stdout.trim()).toBe(pkg.version);
	}, 60_000);

	it('`infertop snapshot --json --demo --seconds 2` prints one JSON snapshot', async () => {
		const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'infertop.cmd' : 'infertop');
		const {stdout} = await run(bin, ['snapshot', '--json', '--demo', '--seconds', '2'], {cwd: project, env: cleanEnv(), timeout: 60_000, maxBuffer: 16 * 1024 * 1024});
		const snapshot = JSON.parse(stdout) as {infertop?: string; demo?: boolean; servers?: {demo?: boolean}[]; models?: unknown[]};
		expect(snapshot.infertop).toBe(pkg.version);
		expect(snapshot.demo).toBe(true);
		expect(Array.isArray(snapshot.servers)).toBe(true);
		expect(Array.isArray(snapshot.models)).toBe(true);
		expect(snapshot.servers!.some((s) => s.demo === true)).toBe(true);
	}, 90_000);

	it('the bundle keeps the non-ASCII of its patterns: the oMLX banner (`└─ Version: 0.3.5`) is read', async () => {
		const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'infertop.cmd' : 'infertop');
		const snap = async (log: string) =>
			JSON.parse((await run(bin, ['snapshot', '--json', '--no-scan', '--no-demo', '--log', path.join(root, 'samples', log), '--seconds', '1'], {cwd: work, env: cleanEnv(), timeout: 60_000, maxBuffer: 16 * 1024 * 1024})).stdout) as {servers: {engine: string; version: string | null}[]};
		const omlx = (await snap('omlx-service.log')).servers[0];
		expect([omlx?.engine, omlx?.version]).toEqual(['omlx', '0.3.5']);
	}, 60_000);

	it('the installed copy finds its own samples/ for --replay NAME, and a missing one exits 2', async () => {
		const bin = path.join(project, 'node_modules', '.bin', process.platform === 'win32' ? 'infertop.cmd' : 'infertop');
		const {stdout} = await run(bin, ['snapshot', '--json', '--no-scan', '--no-demo', '--replay', 'vllm:1000', '--seconds', '2'], {cwd: work, env: cleanEnv(), timeout: 60_000, maxBuffer: 16 * 1024 * 1024});
		const snapshot = JSON.parse(stdout) as {servers: {id: string; log: {linesParsed: number; linesUnparsed: number} | null}[]};
		const replay = snapshot.servers.find((s) => s.id.startsWith('replay:'));
		expect(replay?.id).toBe(`replay:${path.join(project, 'node_modules', 'infertop', 'samples', 'vllm.log')}`);
		// Every line of the shipped sample was replayed (at 1000× its pacing, within the 2 s).
		const lines = fs.readFileSync(path.join(root, 'samples', 'vllm.log'), 'utf8').split('\n').filter((l, i, all) => i < all.length - 1 || l !== '').length;
		expect((replay?.log?.linesParsed ?? 0) + (replay?.log?.linesUnparsed ?? 0)).toBe(lines);
		const missing = await run(bin, ['snapshot', '--replay', 'no-such-sample'], {cwd: work, env: cleanEnv(), timeout: 60_000}).then(
			() => ({code: 0, stderr: ''}),
			(e: {code: number; stderr: string}) => ({code: e.code, stderr: e.stderr}),
		);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain('--replay: no-such-sample: no such file (shipped samples: lithos, llama-server');
	}, 90_000);
});
