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
// node's own modules when its flags differ from the ones it was made under. So the modules of
// node's that the bundle needs at start (STARTUP_BUILTINS) are loaded first, under V8's defaults,
// and only then is START_FLAGS set (the young generation does not grow, no TurboFan); the bundle
// is compiled, and its code cache made, under it.
//
// A CommonJS script (bin/package.json says so), not an ES module: node's ES-module loader, run
// for the entry alone, cost ~8 ms of the start (an empty .mjs printed at 95–101 ms, an empty .cjs
// at 87–93 ms, node 20.20 on 2 cores).
'use strict';
const fs = require('node:fs');
const {createRequire} = require('node:module');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

// Before React and Ink are evaluated (the bundle also has it inlined).
process.env.NODE_ENV ??= 'production';
// In ps, top and htop it is `infertop`, not `node` (meow used to set this).
process.title = 'infertop';

const file = path.join(__dirname, '..', 'dist', 'cli.cjs');
const debug = process.env.INFERTOP_CODE_CACHE_DEBUG === '1' ? (text) => process.stderr.write(`infertop: code cache: ${text}\n`) : () => {};

/**
 * V8 flags, set at start (START_FLAGS), before the bundle is compiled:
 * - the young generation never grows: it stays at 1 MB a semi-space. V8 grew it to 8 MB a
 *   semi-space in the first second (16.8 MB of new space, RSS 87–92 MB until a full collection
 *   shrank it, 8–9 s in, to 70–73 MB) and to 16 MB a semi-space under a request a second (33.6 MB);
 *   with it, RSS at start stays at 70–75 MB, and the first frame is as fast (bench/startup.bench.ts,
 *   median 144 → 152 ms and cold 199 → 192 ms, within the runs' spread);
 * - no optimizing compiler (TurboFan): V8's worker threads spent as much CPU as the main thread
 *   re-optimizing infertop's hot functions again and again (--demo, 30 s, per thread: main 63–71
 *   ticks, workers 63–66; with --no-opt main 65–80, workers 4–13: 4.2–4.6 → 2.5–3.0 % of a core,
 *   ~10 MB less). It was turned off 3 s in, after the first frame; off from the start, under a
 *   request a second, RSS at 150 s was 80.6–82.0 MiB against 88.2 (TurboFan's pages of node's
 *   binary and its compile zones in the worker threads' malloc arenas), at the same CPU (299–309
 *   ticks in 150 s against 298). Under a busy log it is turned on again, and off when the logs
 *   quiet down (the `busy` hook below): there it halves the cost of a line (issue 32).
 * - the old generation may grow 15 % past what a full collection left live before the next one
 *   (--heap-growing-percent=15), not V8's own factor, which under a busy log (issue 32) let the old
 *   space fill with dead log lines and request records up to 3–4× what is live: at 1,000 req/s
 *   of llama.cpp lines RSS 96–122 MB against 89 MB with it, at 5,000 req/s 146 against 94 MB, at
 *   the same CPU (36.9 against 38.0 % of a core; 5 % instead of 15: 44.4 %, 101 MB).
 * The code cache is made under the same flags, as the next start reads it.
 */
const START_FLAGS = '--semi-space-growth-factor=1 --no-opt --heap-growing-percent=15';
/**
 * node's modules that the bundle loads before its first frame, loaded here before START_FLAGS so
 * that they keep their code cache. One left out is only compiled from its source (a few ms). The
 * collectors' (http, worker_threads) load after the first frame (test/architecture/first-frame.test.ts
 * keeps them out of it): compiled from source then, ~3.5 and ~1.4 ms of CPU later, not ~0.9 and ~0.4
 * ms before the screen.
 */
const STARTUP_BUILTINS = ['net', 'child_process', 'tty', 'stream', 'stream/promises', 'fs/promises', 'perf_hooks', 'timers/promises', 'assert', 'dgram', 'os', 'util', 'events', 'string_decoder', 'diagnostics_channel', 'async_hooks', 'querystring', 'url'];

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
		// made under START_FLAGS, still in force: the flags the next start compiles the bundle under
		// (a busy log's `--opt`, below, set after V8 hashed its flags, leaves the cache's hash as it was:
		// a cache made then is accepted under START_FLAGS, checked with node 20.20)
		const data = script.createCachedData();
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

/** The CommonJS wrapper around the bundle (on its first line: line numbers in stack traces are the file's). */
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAP_TAIL = '\n})';

/**
 * The bundle's text inside WRAP_HEAD and WRAP_TAIL, read 64 KiB at a time (it is ASCII: esbuild
 * escapes the rest) and joined once: one 2.7 MB string, not the text and then its wrapped copy.
 */
function readBundle() {
	const fd = fs.openSync(file, 'r');
	try {
		const chunk = Buffer.allocUnsafeSlow(64 * 1024);
		const parts = [WRAP_HEAD];
		let n;
		while ((n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0) parts.push(chunk.toString('latin1', 0, n));
		parts.push(WRAP_TAIL);
		return parts.join('');
	} finally {
		fs.closeSync(fd);
	}
}

for (const m of STARTUP_BUILTINS) require(`node:${m}`);
v8.setFlagsFromString(START_FLAGS);

/**
 * While the logs are busy (the runtime calls this, source/runtime.ts createBusySwitch, as
 * source/model/busy-gate.ts decides): TurboFan, and a young generation of 4 MB a semi-space, not 1
 * (bin/young-generation.js: loaded on the first busy log, not at every start). Off again, what was
 * optimized stays so (only new compiles stop), and V8 shrinks the young generation by itself.
 */
let busy = false;
let young;
globalThis[Symbol.for('infertop.busy')] = (on) => {
	if (on === busy) return;
	busy = on;
	v8.setFlagsFromString(on ? '--opt' : '--no-opt');
	young ??= require('./young-generation.js').createYoungGeneration(v8);
	young.busy(on);
};

let source;
try {
	source = readBundle();
} catch (error) {
	if (error?.code !== 'ENOENT') throw error;
	process.stderr.write('infertop: dist/cli.cjs is missing: run `npm run build` first (or `npm run dev` to run from source)\n');
	process.exitCode = 1;
}
if (source !== undefined) {
	const build = /^\/\/ infertop build ([0-9a-f]{16}):/.exec(source.slice(WRAP_HEAD.length, WRAP_HEAD.length + 64))?.[1];
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
	const script = new vm.Script(source, {
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
	cached = undefined;
	source = undefined;
	const bundle = {exports: {}};
	script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, path.dirname(file));
}
