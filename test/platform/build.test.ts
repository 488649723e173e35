/**
 * scripts/build.mjs on the smoke entry (the same dependencies as the CLI): the bundle runs on its
 * own from a directory without node_modules, React's production build is inlined, and DEV=true
 * (which makes Ink 6.8 import react-devtools-core) neither crashes nor hangs it.
 */
import {execFile, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PATCH_MARKS, bundledModule} from '../../scripts/patches.mjs';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {version: string}).version;

describe('scripts/build.mjs', () => {
	let dir: string;
	let out: string;

	beforeAll(async () => {
		// Outside the repository, so nothing can be resolved from its node_modules at run time.
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-build-'));
		out = path.join(dir, 'dist', 'cli.cjs');
		fs.cpSync(path.join(root, 'bin'), path.join(dir, 'bin'), {recursive: true});
		built = await run(process.execPath, ['scripts/build.mjs'], {cwd: root, env: {...process.env, INFERTOP_ENTRY: 'scripts/smoke-entry.tsx', INFERTOP_OUTFILE: out}, timeout: 120_000});
	}, 150_000);
	let built: {stdout: string; stderr: string};

	it('says what it built on stderr, never stdout (`npm start -- snapshot --json | jq` reads stdout)', () => {
		expect(built.stdout).toBe('');
		expect(built.stderr).toMatch(/^build: scripts\/smoke-entry\.tsx → /m);
	});

	afterAll(() => {
		if (dir) fs.rmSync(dir, {recursive: true, force: true});
	});

	const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
		const e: NodeJS.ProcessEnv = {...process.env, CI: 'false', INFERTOP_CODE_CACHE: 'off', ...extra};
		delete e.NODE_ENV;
		return e;
	};

	it('inlines the production build of React and never imports react-devtools-core', () => {
		const text = fs.readFileSync(out, 'utf8');
		expect(text).toContain('react-reconciler.production');
		expect(text).not.toContain('react-reconciler.development');
		expect(text).not.toMatch(/from\s*["']react-devtools-core["']/);
		expect(text).toMatch(/^\/\/ infertop build [0-9a-f]{16}:/);
	});

	it("holds the patched renderer: each patched module of Ink and its dependencies with its patch's mark", () => {
		const text = fs.readFileSync(out, 'utf8');
		for (const m of PATCH_MARKS) {
			const part = bundledModule(text, m.file);
			expect(part, `${m.file} bundled`).toBeDefined();
			expect(part, `${m.file} (patches/${m.patch})`).toContain(m.bundled ?? m.mark);
		}
		for (const f of ['ink', 'segmenter', 'string-width', 'ansi-tokenize']) expect(text).toContain(`\n// patches/render/${f}.js\n`);
	});

	it('is one CommonJS script, strict, with no top-level await and no ES module syntax', () => {
		const text = fs.readFileSync(out, 'utf8');
		expect(text.split('\n')[1]).toBe("'use strict';");
		expect(text).not.toMatch(/^(?:import|export)\s/m);
		// import() would fail in a script compiled from V8's code cache (the build refuses it)
		expect(text).not.toMatch(/[^\w$.]import\s*\(/);
		expect(text).not.toMatch(/^(?:await\s|(?:var|let|const)\s+\w+\s*=\s*await\s)/m);
		// and the files of execa and systeminformation, which the bundle requires where it uses them
		expect(fs.readdirSync(path.dirname(out)).sort()).toEqual(['cli.cjs', 'execa.cjs', 'systeminformation.cjs']);
		for (const dep of ['execa', 'systeminformation']) {
			expect(text).toContain(`require("./${dep}.cjs")`);
			expect(text).not.toContain(`node_modules/${dep}/`);
		}
		// ASCII only: bin/infertop.js reads it as bytes (the build escapes what esbuild leaves in comments and patterns)
		expect(text).not.toMatch(/[^\x00-\x7f]/);
	});

	it('V8 code cache: written after the first frame where there is none, read on the next start, a bad one rejected and written again', async () => {
		const cache = path.join(dir, 'cache');
		const bin = path.join(dir, 'bin', 'infertop.js');
		// The smoke entry stays open (an Ink app) until it is stopped; stop it once the cache says what it did.
		const start = (until: RegExp, extra: Record<string, string> = {}) =>
			new Promise<string>((resolve, reject) => {
				const child = spawn(process.execPath, [bin], {cwd: dir, env: env({INFERTOP_CODE_CACHE: cache, INFERTOP_CODE_CACHE_DEBUG: '1', INFERTOP_SMOKE_STAY: '1', ...extra}), stdio: ['ignore', 'ignore', 'pipe']});
				let err = '';
				const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
				child.stderr.on('data', (b: Buffer) => {
					err += b.toString();
					if (until.test(err)) child.kill('SIGTERM');
				});
				child.on('error', reject);
				child.on('exit', () => {
					clearTimeout(timer);
					resolve(err);
				});
			});
		const files = () => (fs.existsSync(cache) ? fs.readdirSync(cache).sort() : []);
		// another build's cache, left by an earlier version: removed when this one is written
		fs.mkdirSync(cache, {recursive: true});
		fs.writeFileSync(path.join(cache, 'cli-0123456789abcdef-v20.0.0-x64.v8cache'), 'old');
		const first = await start(/wrote \d+ bytes|not written/);
		expect(first).toContain(`code cache: none in ${cache}`);
		expect(first).toMatch(/code cache: wrote \d+ bytes/);
		const [name] = files();
		expect(files()).toEqual([name]);
		// build, node, architecture (and a tag of node's flags when it has any, e.g. NODE_OPTIONS)
		expect(name!.startsWith(`cli-${/^\/\/ infertop build ([0-9a-f]{16}):/.exec(fs.readFileSync(out, 'utf8'))![1]}-${process.version}-${process.arch}`)).toBe(true);
		expect(name).toMatch(/\.v8cache$/);
		const written = fs.readFileSync(path.join(cache, name!));
		expect(written.length).toBeGreaterThan(100_000);
		const second = await start(/accepted|rejected/);
		expect(second).toContain(`code cache: read ${written.length} bytes, accepted (not written again)`);
		expect(fs.readFileSync(path.join(cache, name!)).equals(written)).toBe(true);
		// a damaged cache: V8 rejects it, the start goes on, and a good one replaces it
		fs.writeFileSync(path.join(cache, name!), Buffer.alloc(4096, 7));
		const third = await start(/wrote \d+ bytes|not written/);
		expect(third).toContain('code cache: read 4096 bytes, rejected');
		expect(third).toMatch(/code cache: wrote \d+ bytes/);
		expect(fs.statSync(path.join(cache, name!)).size).toBeGreaterThan(100_000);
		// off: nothing read, nothing written
		expect(await start(/off/, {INFERTOP_CODE_CACHE: 'off'})).toContain('code cache: off');
	}, 120_000);

	/** The shim (bin/) beside a stand-in bundle of these lines (with `young()`: the new space's size), in dir/NAME. */
	const standIn = (name: string, lines: readonly string[]) => {
		const stub = path.join(dir, name);
		fs.cpSync(path.join(root, 'bin'), path.join(stub, 'bin'), {recursive: true});
		fs.mkdirSync(path.join(stub, 'dist'));
		fs.writeFileSync(path.join(stub, 'dist', 'cli.cjs'), [
			'// infertop build 0123456789abcdef: a stand-in',
			"'use strict';",
			"const young = () => require('node:v8').getHeapSpaceStatistics().find(s => s.space_name === 'new_space').space_size;",
			...lines,
			'',
		].join('\n'));
		return stub;
	};

	it('the shim runs the bundle without TurboFan from its first line, and the young generation stays small', async () => {
		// a stand-in bundle: asks V8 (node --allow-natives-syntax) whether a function it was told to
		// optimize is TurboFan code (bit 6), at once and 3.5 s in, and how big the young generation is
		// after many objects outlived scavenges (V8 doubles it then)
		const stub = standIn('stub', [
			'const turbofan = (f) => { %PrepareFunctionForOptimization(f); f(1); f(2); %OptimizeFunctionOnNextCall(f); f(3); return (%GetOptimizationStatus(f) & 64) !== 0; };',
			'const atStart = turbofan(function (x) { return x * 2 + 1; });',
			'setTimeout(() => {',
			"  let keep = []; for (let i = 0; i < 1.5e6; i++) { keep.push({i, s: 'x' + i}); if (keep.length > 200000) keep = keep.slice(100000); }",
			'  process.stdout.write(JSON.stringify({atStart, later: turbofan(function (x) { return x * 3 + 1; }), young: young()}));',
			'}, 3500);',
		]);
		type Seen = {atStart: boolean; later: boolean; young: number};
		const ask = async (file: string) => JSON.parse((await run(process.execPath, ['--allow-natives-syntax', file], {cwd: stub, env: env(), timeout: 30_000})).stdout) as Seen;
		const through = await ask(path.join(stub, 'bin', 'infertop.js'));
		expect(through).toMatchObject({atStart: false, later: false});
		// at most 1 MB a semi-space (V8 starts at 512 KB and still takes that one step)
		expect(through.young).toBeLessThanOrEqual(2.2e6);
		// the same script run by node itself: TurboFan all along, the young generation grown (16 MB a semi-space on 64-bit)
		const plain = await ask(path.join(stub, 'dist', 'cli.cjs'));
		expect(plain).toMatchObject({atStart: true, later: true});
		expect(plain.young).toBeGreaterThan(8e6);
	}, 70_000);

	it("the young generation does not grow from the bundle's first line (V8 grows it to 16 MB a semi-space at once otherwise)", async () => {
		// a stand-in bundle: at once, many objects that outlive scavenges (what makes V8 grow it)
		const stub = standIn('stub-young', [
			"let keep = []; for (let i = 0; i < 1.5e6; i++) { keep.push({i, s: 'x' + i}); if (keep.length > 200000) keep = keep.slice(100000); }",
			'process.stdout.write(JSON.stringify({young: young()}));',
		]);
		const ask = async (file: string) => (JSON.parse((await run(process.execPath, [file], {cwd: stub, env: env(), timeout: 40_000})).stdout) as {young: number}).young;
		const [through, plain] = await Promise.all([ask(path.join(stub, 'bin', 'infertop.js')), ask(path.join(stub, 'dist', 'cli.cjs'))]);
		// at most 1 MB a semi-space through the shim; 16 MB a semi-space on 64-bit run by node itself
		expect(through).toBeLessThanOrEqual(2.2e6);
		expect(plain).toBeGreaterThan(8e6);
	}, 60_000);

	it('a busy log (the busy hook on) lets the young generation grow to 4 MB a semi-space, and no further (bin/young-generation.js)', async () => {
		// a stand-in bundle: objects that outlive scavenges, replaced in small turns of the event loop
		// (as a busy log's batches are), for 1.5 s, with the runtime's hook called on or not
		const stub = standIn('stub-busy', [
			'const hook = globalThis[Symbol.for("infertop.busy")];',
			"if (process.argv[2] === 'busy') hook(true);",
			'let ring = new Array(8000), k = 0;',
			'const end = Date.now() + 1500;',
			"const step = () => { for (let i = 0; i < 100; i++) ring[k++ % ring.length] = {k, text: 'line ' + k}; if (Date.now() < end) setTimeout(step, 1); else process.stdout.write(JSON.stringify({young: young()})); };",
			'step();',
		]);
		const ask = async (arg: string) => (JSON.parse((await run(process.execPath, [path.join(stub, 'bin', 'infertop.js'), arg], {cwd: stub, env: env(), timeout: 30_000})).stdout) as {young: number}).young;
		const [busy, quiet] = await Promise.all([ask('busy'), ask('quiet')]);
		// the new space holds two semi-spaces: 2 × 4 MB busy (V8 grows it to 2 × 16 MB on its own), 2 × 1 MB quiet
		expect(busy).toBeGreaterThan(7e6);
		expect(busy).toBeLessThan(9e6);
		expect(quiet).toBeLessThanOrEqual(2.2e6);
	}, 40_000);

	it('the shim runs the bundle: --version', async () => {
		const {stdout} = await run(process.execPath, [path.join(dir, 'bin', 'infertop.js'), '--version'], {cwd: dir, env: env(), timeout: 30_000});
		expect(stdout.trim()).toBe(version);
	}, 40_000);

	it('renders a frame, also with DEV=true', async () => {
		for (const extra of [{}, {DEV: 'true'}] as Record<string, string>[]) {
			const {stdout, stderr} = await run(process.execPath, [path.join(dir, 'bin', 'infertop.js')], {cwd: dir, env: env({INFERTOP_EXIT_AFTER_FIRST_FRAME: '1', ...extra}), timeout: 30_000});
			expect(stdout).toContain(`infertop ${version} (smoke entry)`);
			expect(stderr).toBe('');
		}
	}, 70_000);

	it('the shim says what to do when dist/ is missing', async () => {
		const bare = path.join(dir, 'bare');
		fs.cpSync(path.join(root, 'bin'), path.join(bare, 'bin'), {recursive: true});
		const error = await run(process.execPath, [path.join(bare, 'bin', 'infertop.js'), '--version'], {cwd: bare, env: env(), timeout: 30_000}).catch((e: {code: number; stderr: string}) => e);
		expect(error).toMatchObject({code: 1, stderr: expect.stringContaining('run `npm run build`')});
	}, 40_000);
});
