#!/usr/bin/env node
// infertop's executable. It compiles the bundle (dist/cli.cjs, one CommonJS script) with V8's code
// cache: the bytecode of everything an earlier run compiled, saved in the user's cache folder, so a
// start skips the parse and the lazy compiles (bench/startup.bench.ts: ~60 ms of ~300 on a 2-core
// machine). Node 20 has no such cache of its own (module.enableCompileCache is Node 22).
//
// - The cache is keyed on the build (the hash on the bundle's first line), node's version, the
//   architecture and node's flags (V8 rejects a cache made under other flags): V8 itself checks only
//   the source's length and its own version and flags, and rejects what does not match (then the
//   cache is written again). Writing it removes the caches of other builds (an upgrade).
// - It is written only where there is none (or V8 rejected it), and only by the monitor, 2 s after
//   its first frame (the first frame and the collectors have run by then): it calls the function at
//   Symbol.for('infertop.saveCodeCache'). Never at exit, never from a short command (`--version`
//   would save a cache without the screen in it). A cache V8 accepted is not written again.
// - The bundle is read in small pieces: a 2.7 MB read buffer, once freed, raises glibc's mmap
//   threshold, and the allocations of the start then stay in its heap (measured: idle RSS 87 MB
//   with one read, 73 MB with small reads, 72 MB for the ES-module build this replaced).
// - INFERTOP_CODE_CACHE=off: no cache; INFERTOP_CODE_CACHE=DIR: the cache in DIR. Any failure to
//   read or write it only means a slower start: nothing is printed, unless
//   INFERTOP_CODE_CACHE_DEBUG=1 (what was read and written, on stderr).
//
// No V8 flags on the shebang: any V8 flag there (--max-semi-space-size, --max-old-space-size) makes
// node itself start ~25 ms slower (`node -e` 112 → 137 ms here): V8 rejects the code cache of
// node's own modules when its flags differ from the ones it was made under. The flags infertop
// wants (RUNTIME_FLAGS) are set at run time instead, 3 s in, after the first frame: set before the
// bundle ran they put the first frame ~30 ms later. The code cache is written under V8's defaults,
// as the next start reads it.
import fs from 'node:fs';
import {createRequire} from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

// Before React and Ink are evaluated (the bundle also has it inlined).
process.env.NODE_ENV ??= 'production';
// In ps, top and htop it is `infertop`, not `node` (meow used to set this).
process.title = 'infertop';

const file = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));
const debug = process.env.INFERTOP_CODE_CACHE_DEBUG === '1' ? (text) => process.stderr.write(`infertop: code cache: ${text}\n`) : () => {};

/**
 * V8 flags set at run time, 3 s in (after the first frame):
 * - the young generation no longer grows: once V8 has shrunk it back to 1 MB a semi-space, it stays
 *   there (under a request a second it had grown to 16 MB a semi-space, 33.6 MB of new space);
 * - no optimizing compiler (TurboFan): V8's worker threads spent as much CPU as the main thread
 *   re-optimizing infertop's hot functions again and again (--demo, 30 s, per thread: main 63–71
 *   ticks, workers 63–66; with --no-opt main 65–80, workers 4–13: 4.2–4.6 → 2.5–3.0 % of a core,
 *   ~10 MB less). What TurboFan made in the first 3 s stays.
 * SHRINK_FLAG is set with them until the young generation has shrunk: V8's full collections are then
 * its memory-reducing ones, and the first one shrinks the young generation. Without it V8 shrinks
 * it only when allocation slows, which under a request a second took 50 s in one run and had not
 * happened at 240 s in another (RSS 114–124 MB with 33.6 MB of new space; with it, shrunk by 9 s:
 * RSS 86–87 MB). Left on, it made every full collection a compacting one: 16 in 40 s instead of 4
 * under that traffic, 4.0 % of a core instead of 2.4, so it is turned off once the young generation
 * is at most YOUNG_SHRUNK (asked every 2 s).
 * DEFAULT_FLAGS are V8's defaults for the same flags: the code cache is made under them.
 */
const RUNTIME_FLAGS = '--semi-space-growth-factor=1 --no-opt';
const SHRINK_FLAG = '--optimize-for-size';
const DEFAULT_FLAGS = '--semi-space-growth-factor=2 --opt --no-optimize-for-size';
const YOUNG_SHRUNK = 4 * 1024 * 1024;
/** The run-time flags now in force ('' before 3 s). */
let applied = '';

/** Set the run-time flags, then drop SHRINK_FLAG once V8 has shrunk the young generation. */
function applyRuntimeFlags() {
	applied = `${RUNTIME_FLAGS} ${SHRINK_FLAG}`;
	v8.setFlagsFromString(applied);
	const poll = setInterval(() => {
		const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
		if (young && young.space_size > YOUNG_SHRUNK) return;
		clearInterval(poll);
		applied = `${RUNTIME_FLAGS} --no-optimize-for-size`;
		v8.setFlagsFromString(applied);
	}, 2000);
	poll.unref();
}

/** Where the cache lives: INFERTOP_CODE_CACHE, else the platform's cache folder; undefined = none. */
function cacheDir() {
	const env = process.env.INFERTOP_CODE_CACHE;
	if (env === 'off' || env === '0') return undefined;
	if (env) return path.resolve(env);
	const home = os.homedir();
	if (process.platform === 'darwin') return path.join(home, 'Library', 'Caches', 'infertop');
	if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'infertop', 'Cache');
	return path.join(process.env.XDG_CACHE_HOME && path.isAbsolute(process.env.XDG_CACHE_HOME) ? process.env.XDG_CACHE_HOME : path.join(home, '.cache'), 'infertop');
}

/** Save the script's code cache: the bytecode of everything that has run so far. */
function save(script, dir, name, build) {
	try {
		// made under V8's default flags, as the next start reads it (it sets its flags after)
		v8.setFlagsFromString(DEFAULT_FLAGS);
		let data;
		try {
			data = script.createCachedData();
		} finally {
			if (applied) v8.setFlagsFromString(applied);
		}
		fs.mkdirSync(dir, {recursive: true, mode: 0o700});
		const tmp = path.join(dir, `${name}.${process.pid}.tmp`);
		fs.writeFileSync(tmp, data, {mode: 0o600});
		fs.renameSync(tmp, path.join(dir, name));
		// Other builds' caches (an upgrade) would pile up; another node's or other flags' stay.
		for (const f of fs.readdirSync(dir)) if (/^cli-.*\.v8cache$/.test(f) && !f.startsWith(`cli-${build}-`)) fs.rmSync(path.join(dir, f), {force: true});
		debug(`wrote ${data.length} bytes`);
	} catch (error) {
		// no cache: the next start compiles again
		debug(`not written (${error?.message ?? error})`);
	}
}

/** The bundle's text, read 64 KiB at a time (it is ASCII: esbuild escapes the rest). */
function readBundle() {
	const fd = fs.openSync(file, 'r');
	try {
		const chunk = Buffer.allocUnsafeSlow(64 * 1024);
		const parts = [];
		let n;
		while ((n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0) parts.push(chunk.toString('latin1', 0, n));
		return parts.join('');
	} finally {
		fs.closeSync(fd);
	}
}

let source;
try {
	source = readBundle();
} catch (error) {
	if (error?.code !== 'ENOENT') throw error;
	process.stderr.write('infertop: dist/cli.cjs is missing: run `npm run build` first (or `npm run dev` to run from source)\n');
	process.exitCode = 1;
}
if (source !== undefined) {
	const build = /^\/\/ infertop build ([0-9a-f]{16}):/.exec(source)?.[1];
	const dir = build ? cacheDir() : undefined;
	// node's own flags change V8's flags: a cache of its own for each set (FNV-1a of the text)
	const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
	let fnv = 0x811c9dc5;
	for (let i = 0; i < flags.length; i++) fnv = Math.imul(fnv ^ flags.charCodeAt(i), 0x01000193) >>> 0;
	const name = `cli-${build}-${process.version}-${process.arch}${flags ? `-${fnv.toString(16)}` : ''}.v8cache`;
	let cached;
	if (dir) {
		try {
			cached = fs.readFileSync(path.join(dir, name));
		} catch {
			// none yet
		}
	}
	// The CommonJS wrapper on the first line, so line numbers in stack traces are the file's.
	const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
		filename: file,
		cachedData: cached,
		// no importModuleDynamically: with cached data Node 20 drops it; the build makes sure the bundle never calls import()
	});
	if (!dir) debug('off');
	else if (cached && !script.cachedDataRejected) debug(`read ${cached.length} bytes, accepted (not written again)`);
	else {
		debug(cached ? `read ${cached.length} bytes, rejected` : `none in ${dir}`);
		const hook = Symbol.for('infertop.saveCodeCache');
		globalThis[hook] = () => {
			delete globalThis[hook];
			save(script, dir, name, build);
		};
	}
	setTimeout(applyRuntimeFlags, 3000).unref();
	cached = undefined;
	source = undefined;
	const module = {exports: {}};
	script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
}
