/**
 * scripts/build.mjs on the smoke entry (the same dependencies as the CLI): the bundle runs on its
 * own from a directory without node_modules, React's production build is inlined, and DEV=true
 * (which makes Ink 6.8 import react-devtools-core) neither crashes nor hangs it.
 */
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const version = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {version: string}).version;

describe('scripts/build.mjs', () => {
	let dir: string;
	let out: string;

	beforeAll(async () => {
		// Outside the repository, so nothing can be resolved from its node_modules at run time.
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-build-'));
		out = path.join(dir, 'dist', 'cli.js');
		fs.cpSync(path.join(root, 'bin'), path.join(dir, 'bin'), {recursive: true});
		await run(process.execPath, ['scripts/build.mjs'], {cwd: root, env: {...process.env, INFERTOP_ENTRY: 'scripts/smoke-entry.tsx', INFERTOP_OUTFILE: out}, timeout: 120_000});
	}, 150_000);

	afterAll(() => {
		if (dir) fs.rmSync(dir, {recursive: true, force: true});
	});

	const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
		const e: NodeJS.ProcessEnv = {...process.env, CI: 'false', ...extra};
		delete e.NODE_ENV;
		return e;
	};

	it('inlines the production build of React and never imports react-devtools-core', () => {
		const text = fs.readFileSync(out, 'utf8');
		expect(text).toContain('react-reconciler.production');
		expect(text).not.toContain('react-reconciler.development');
		expect(text).not.toMatch(/from\s*["']react-devtools-core["']/);
		expect(text.startsWith('// infertop')).toBe(true);
	});

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
