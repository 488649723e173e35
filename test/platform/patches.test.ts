/**
 * The install applies patches/*.patch (npm runs scripts/patches.mjs as the "dependencies" script
 * after every install that changed node_modules), each patched package is pinned at its patch's
 * version, and a version that is not the patch's fails the install with a message naming the patch.
 * (That the bundle holds the same patched modules: test/platform/build.test.ts and pack.test.ts.)
 */
import {execFile, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {promisify} from 'node:util';
import {afterAll, describe, expect, it} from 'vitest';
import {PATCH_MARKS, applyHunks, parseDiff, parsePatchName, patchState, readPatches, stockSource, versionProblems} from '../../scripts/patches.mjs';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');
const patches = readPatches();
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	scripts: Record<string, string>;
	devDependencies: Record<string, string>;
	overrides: {ink: Record<string, string | Record<string, string>>};
};
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {packages: Record<string, {version?: string}>};
const temps: string[] = [];
afterAll(() => {
	for (const t of temps) fs.rmSync(t, {recursive: true, force: true});
});

describe('patches/*.patch, applied at install', () => {
	it('one patch per package and version: Ink 6.8.0 and the five dependencies it loads', () => {
		expect(patches.map((p) => `${p.name}@${p.version} ${p.dir}`)).toEqual([
			'@alcalzone/ansi-tokenize@0.2.5 node_modules/@alcalzone/ansi-tokenize',
			'ink@6.8.0 node_modules/ink',
			'restore-cursor@4.0.0 node_modules/restore-cursor',
			'slice-ansi@8.0.0 node_modules/slice-ansi',
			'string-width@8.3.0 node_modules/string-width',
			'string-width@7.2.0 node_modules/wrap-ansi/node_modules/string-width',
			'yoga-layout@3.2.1 node_modules/yoga-layout',
		]);
		// every file a patch changes lies inside its package
		for (const p of patches) for (const f of p.files) expect(f.file.startsWith(`${p.dir}/`), f.file).toBe(true);
	});

	it('the install applied every one (node_modules holds the renderer that ships), and each patched file carries its mark', () => {
		for (const p of patches) expect(patchState(p), p.patch).toEqual(p.files.map((f) => ({file: f.file, state: 'applied'})));
		// one mark for each patched file, no more
		expect(PATCH_MARKS.map((m) => m.file).sort()).toEqual(patches.flatMap((p) => p.files.map((f) => f.file)).sort());
		for (const m of PATCH_MARKS) {
			expect(patches.find((p) => p.patch === m.patch)?.files.some((f) => f.file === m.file), m.file).toBe(true);
			expect(fs.readFileSync(path.join(root, m.file), 'utf8'), m.file).toContain(m.mark);
			// and the text it replaced does not have it
			expect(stockSource(m.file), m.file).not.toContain(m.mark);
		}
	});

	it('npm runs the patch step after an install: the "dependencies" script, not an install script a tarball would carry', () => {
		expect(pkg.scripts['dependencies']).toBe('node scripts/patches.mjs');
		// npm warns about (and with --strict-allow-scripts refuses) a package with any of these: the
		// tarball has none, and the bundle needs none (pack.test.ts installs it)
		for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[s], s).toBeUndefined();
		expect(pkg.devDependencies['patch-package']).toMatch(/^\d+\.\d+\.\d+$/);
		expect(pkg.devDependencies['@infertop/render-patches']).toBe('file:patches/render');
	});

	it('a stock file and its patch make the installed file, hunk by hunk (and undone, the stock file again)', () => {
		for (const p of patches) {
			for (const f of p.files) {
				const stock = stockSource(f.file);
				const text = fs.readFileSync(path.join(root, f.file), 'utf8');
				expect(applyHunks(stock, f.hunks, false), f.file).toBe(text);
				expect(applyHunks(text, f.hunks, true), f.file).toBe(stock);
				// applied twice, a patch does not fit (patch-package then sees it applied and skips it)
				expect(applyHunks(text, f.hunks, false), f.file).toBeUndefined();
			}
		}
	});

	it('reads hunks of no context, and the names patch-package gives nested and scoped packages', () => {
		const diff = ['diff --git a/node_modules/x/a.js b/node_modules/x/a.js', '--- a/node_modules/x/a.js', '+++ b/node_modules/x/a.js', '@@ -2,0 +3,1 @@', '+inserted', '@@ -4 +5 @@', '-four', '+FOUR', '@@ -6,2 +6,0 @@', '-six', '-seven', ''].join('\n');
		const [file] = parseDiff(diff, 'test');
		const before = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight';
		const after = 'one\ntwo\ninserted\nthree\nFOUR\nfive\neight';
		expect(applyHunks(before, file!.hunks, false)).toBe(after);
		expect(applyHunks(after, file!.hunks, true)).toBe(before);
		expect(applyHunks('one\ntwo\nthree\n4\nfive\nsix\nseven\neight', file!.hunks, false)).toBeUndefined();
		expect(parsePatchName('wrap-ansi++string-width+7.2.0.patch')).toEqual({name: 'string-width', version: '7.2.0', dir: 'node_modules/wrap-ansi/node_modules/string-width'});
		expect(parsePatchName('@alcalzone+ansi-tokenize+0.2.5.patch')).toEqual({name: '@alcalzone/ansi-tokenize', version: '0.2.5', dir: 'node_modules/@alcalzone/ansi-tokenize'});
		expect(() => parsePatchName('ink.patch')).toThrow(/not named <package>\+<version>\.patch/);
	});
});

describe('each patched package pinned at its patch version', () => {
	it('package.json: every one by overrides, under ink (wrap-ansi keeps its string-width 7); ink itself exact', () => {
		expect(pkg.devDependencies['ink']).toBe('6.8.0');
		const o = pkg.overrides.ink;
		for (const p of patches) {
			const pinned = p.name === 'ink' ? o['.'] : p.dir.includes('/wrap-ansi/') ? (o['wrap-ansi'] as Record<string, string>)[p.name] : o[p.name];
			expect(pinned, p.patch).toBe(p.version);
		}
	});

	it('package-lock.json installs exactly those versions', () => {
		for (const p of patches) expect(lock.packages[p.dir]?.version, p.dir).toBe(p.version);
	});

	it('the installed versions are the patches\' (what the install checks first)', () => {
		expect(versionProblems()).toEqual([]);
	});
});

describe('a version that is not the patch\'s fails the install, naming the patch', () => {
	/** A project with the patch step and one patch, whose "ink" is a local folder of the given version. */
	function project(version: string): string {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-mismatch-'));
		temps.push(dir);
		fs.mkdirSync(path.join(dir, 'scripts'));
		fs.mkdirSync(path.join(dir, 'patches'));
		fs.mkdirSync(path.join(dir, 'fake-ink'));
		fs.copyFileSync(path.join(root, 'scripts', 'patches.mjs'), path.join(dir, 'scripts', 'patches.mjs'));
		fs.copyFileSync(path.join(root, 'patches', 'ink+6.8.0.patch'), path.join(dir, 'patches', 'ink+6.8.0.patch'));
		fs.writeFileSync(path.join(dir, 'fake-ink', 'package.json'), JSON.stringify({name: 'ink', version}));
		fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({name: 'mismatch', version: '0.0.0', private: true, scripts: {dependencies: 'node scripts/patches.mjs'}, dependencies: {ink: 'file:fake-ink'}}));
		return dir;
	}

	it('the check itself: the patch file, the two versions and the way out, in one line', () => {
		const dir = project('6.9.0');
		fs.mkdirSync(path.join(dir, 'node_modules'));
		fs.cpSync(path.join(dir, 'fake-ink'), path.join(dir, 'node_modules', 'ink'), {recursive: true});
		expect(versionProblems(dir)).toEqual([
			'patches/ink+6.8.0.patch: made for ink 6.8.0, but node_modules/ink is 6.9.0. Pin ink to 6.8.0 in package.json "overrides", or remake the patch for 6.9.0 (docs/patches.md).',
		]);
		fs.rmSync(path.join(dir, 'node_modules', 'ink'), {recursive: true});
		expect(versionProblems(dir)).toEqual(['patches/ink+6.8.0.patch: ink 6.8.0 is not installed at node_modules/ink. Pin it with package.json "overrides" (see docs/patches.md).']);
	});

	const npm = spawnSync('npm', ['--version'], {encoding: 'utf8'}).status === 0;
	it.runIf(npm)('npm install runs the patch step and fails with that message (nothing is patched: the check comes first)', async () => {
		const dir = project('6.9.0');
		const r = await run('npm', ['install', '--no-package-lock', '--no-audit', '--no-fund', '--offline'], {cwd: dir, timeout: 120_000}).then(
			() => ({code: 0, stderr: ''}),
			(e: {code?: number; stderr?: string}) => ({code: e.code ?? -1, stderr: e.stderr ?? ''}),
		);
		expect(r.code).not.toBe(0);
		expect(r.stderr).toContain('infertop patches: patches/ink+6.8.0.patch: made for ink 6.8.0, but node_modules/ink is 6.9.0.');
	}, 150_000);
});
