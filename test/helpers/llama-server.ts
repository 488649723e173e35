/**
 * A real llama.cpp `llama-server` for the tests that need one (docs/real-servers.md says how to
 * build it and the tiny models). It is found through environment variables only:
 *
 *   INFERTOP_LLAMA_SERVER     the llama-server binary
 *   INFERTOP_LLAMA_MODEL      a small GGUF model (fast: a tiny random-weight LLaMA)
 *   INFERTOP_LLAMA_MODEL_BIG  optional: a larger GGUF model, noticeably slower per token
 *
 * Where they are not set (CI), `realLlamaServer.available` is false and `reason` says why, for the
 * tests' one-line skip message. A server started here binds 127.0.0.1 on a free ephemeral port
 * (never a default engine port), is waited for until `/health` answers 200, and is stopped by its
 * pid (SIGTERM, then SIGKILL).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {accessSync, constants, mkdtempSync, openSync, closeSync, readFileSync, statSync} from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RealLlamaServer {
	readonly available: boolean;
	/** Why the tests that need it are skipped (empty when available). */
	readonly reason: string;
	readonly bin?: string;
	readonly model?: string;
	/** The larger model, where INFERTOP_LLAMA_MODEL_BIG names one. */
	readonly bigModel?: string;
	/** Why the big model is not there (empty when it is). */
	readonly bigReason: string;
}

function check(name: string, mode: number): {path?: string; why?: string} {
	const value = process.env[name];
	if (value === undefined || value === '') return {why: `${name} is not set`};
	try {
		accessSync(value, mode);
		if (!statSync(value).isFile()) return {why: `${name} is not a file`};
		return {path: value};
	} catch {
		return {why: `${name} cannot be ${mode === constants.X_OK ? 'run' : 'read'}`};
	}
}

function find(): RealLlamaServer {
	const bin = check('INFERTOP_LLAMA_SERVER', constants.X_OK);
	const model = check('INFERTOP_LLAMA_MODEL', constants.R_OK);
	const big = check('INFERTOP_LLAMA_MODEL_BIG', constants.R_OK);
	const missing = [bin.why, model.why].filter((w): w is string => w !== undefined);
	return {
		available: missing.length === 0,
		reason: missing.length === 0 ? '' : `no real llama-server: ${missing.join(', ')} (docs/real-servers.md)`,
		...(bin.path !== undefined ? {bin: bin.path} : {}),
		...(model.path !== undefined ? {model: model.path} : {}),
		...(big.path !== undefined ? {bigModel: big.path} : {}),
		bigReason: big.why === undefined ? '' : `no big model: ${big.why} (docs/real-servers.md)`,
	};
}

export const realLlamaServer: RealLlamaServer = find();

const said = new Set<string>();
/** One line on stderr saying why `what` is skipped (once per reason and file). */
export function sayWhySkipped(what: string, reason: string): void {
	if (reason === '' || said.has(`${what}\u0000${reason}`)) return;
	said.add(`${what}\u0000${reason}`);
	process.stderr.write(`skipped ${what}: ${reason}\n`);
}

/** A free ephemeral port on 127.0.0.1 (the kernel's choice: never a default engine port). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const {port} = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
	});
}

export interface StartOptions {
	/** The GGUF model (default INFERTOP_LLAMA_MODEL). */
	readonly model?: string;
	/** More llama-server flags (`-c 4096`, `--parallel 1`, `--metrics` …); never --host or --port. */
	readonly args?: readonly string[];
	/**
	 * `--log-file` as the server is given it (relative to `cwd`, as a user writes it). Without it the
	 * server's stderr is written to a file of its own (logPath).
	 */
	readonly logFile?: string;
	/** The server's working folder (default: a new temporary folder). */
	readonly cwd?: string;
	/** How long to wait for /health 200 (default 60 s: a big model on a busy 2-core box). */
	readonly readyTimeoutMs?: number;
}

export interface StartedLlamaServer {
	readonly url: string;
	readonly port: number;
	readonly pid: number;
	/** The log the server writes (its --log-file, else its stderr), absolute. */
	readonly logPath: string;
	readonly cwd: string;
	/** SIGTERM, then SIGKILL after 5 s; resolves once it has exited. Safe to call twice. */
	stop(): Promise<void>;
}

async function healthy(url: string): Promise<boolean> {
	try {
		const r = await fetch(`${url}/health`, {signal: AbortSignal.timeout(2000)});
		await r.arrayBuffer();
		return r.status === 200;
	} catch {
		return false;
	}
}

function exited(child: ChildProcess): Promise<void> {
	return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Started and not yet stopped: killed by pid if the test process exits without afterAll. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
	for (const child of running) {
		try {
			if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

async function stopChild(child: ChildProcess): Promise<void> {
	running.delete(child);
	if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
	const done = exited(child);
	try {
		process.kill(child.pid, 'SIGTERM');
	} catch {
		return;
	}
	const timer = setTimeout(() => {
		try {
			if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}, 5000);
	await done;
	clearTimeout(timer);
}

/** Start a real llama-server (throws when none is available: guard with `describe.skipIf(!realLlamaServer.available)`). */
export async function startLlamaServer(options: StartOptions = {}): Promise<StartedLlamaServer> {
	const {bin} = realLlamaServer;
	const model = options.model ?? realLlamaServer.model;
	if (!realLlamaServer.available || bin === undefined || model === undefined) throw new Error(realLlamaServer.reason || 'no real llama-server');
	const cwd = options.cwd ?? mkdtempSync(path.join(os.tmpdir(), 'infertop-llama-'));
	const extra = options.args ?? [];
	if (extra.some((a) => a === '--host' || a === '--port' || a.startsWith('--host=') || a.startsWith('--port='))) throw new Error('startLlamaServer chooses --host and --port itself');
	let lastError = '';
	// A port taken between choosing it and the server's bind: the server says so and exits; try another.
	for (let attempt = 0; attempt < 3; attempt++) {
		const port = await freePort();
		const url = `http://127.0.0.1:${port}`;
		const logPath = path.resolve(cwd, options.logFile ?? `llama-server-${port}.stderr.log`);
		const argv = ['-m', model, '--host', '127.0.0.1', '--port', String(port), ...extra, ...(options.logFile !== undefined ? ['--log-file', options.logFile] : [])];
		const errFd = options.logFile === undefined ? openSync(logPath, 'w') : 'ignore';
		const child = spawn(bin, argv, {cwd, stdio: ['ignore', 'ignore', errFd]});
		if (typeof errFd === 'number') closeSync(errFd);
		const pid = child.pid;
		if (pid === undefined) throw new Error(`could not start ${bin}`);
		running.add(child);
		const server: StartedLlamaServer = {url, port, pid, logPath, cwd, stop: () => stopChild(child)};
		const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
		while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
			if (await healthy(url)) return server;
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		await server.stop();
		let tail = '';
		try {
			tail = readFileSync(logPath, 'utf8').trim().split('\n').slice(-3).join(' | ');
		} catch {
			// no log
		}
		lastError = `llama-server on ${url} did not become healthy (exit ${child.exitCode ?? child.signalCode ?? 'none'}): ${tail}`;
		if (!/couldn't bind/.test(tail)) break;
	}
	throw new Error(lastError);
}

/**
 * POST `body` (JSON) to a real llama-server on a connection of its own, and its status and text.
 * Not fetch: fetch keeps the connection open for the next request, and a request sent on it just as
 * the server closed it failed with "other side closed" (UND_ERR_SOCKET) in 1 of 5 runs of the live
 * tests here. A request must reach the server exactly once (the tests count them), so it is not retried.
 */
export function postFresh(url: string, body: string): Promise<{status: number; text: string}> {
	return new Promise((resolve, reject) => {
		const req = http.request(url, {method: 'POST', agent: false, headers: {'content-type': 'application/json', 'content-length': Buffer.byteLength(body)}}, res => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => resolve({status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8')}));
			res.on('error', reject);
		});
		req.on('error', reject);
		req.end(body);
	});
}
