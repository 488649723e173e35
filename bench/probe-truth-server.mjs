/**
 * The probe bench's scripted server: it streams a known schedule and reports what it ACTUALLY did,
 * on its own clock, so the probe is compared with the server's deeds, not its intentions.
 *
 * Run as a child process (`fork`): it listens on 127.0.0.1, port 0, sends {port} on the IPC
 * channel, then for each finished request sends
 *   {id, reqInMs, reqReads, writesMs, preMs, queued, hrMinusPerf, slipMs}
 *   reqInMs      performance.now() when the request's last byte was read (stamped first thing in the
 *                socket's data handler, before anything is parsed); reqReads how many reads the
 *                request took (1: headers and body in one segment, no Nagle or delayed-ACK wait)
 *   writesMs[i]  performance.now() just AFTER token i's bytes were handed to the kernel: a net.Socket
 *                write first tries a synchronous write(2) (libuv uv_try_write), and `writableLength`
 *                0 after it proves the bytes went then (else the write is counted in `queued`)
 *   preMs[i]     the same just BEFORE the write: [preMs, writesMs] brackets the moment the bytes
 *                became readable, so its width bounds the server's own stamping error
 *   hrMinusPerf  CLOCK_MONOTONIC ms (process.hrtime, shared by every process and thread on the
 *                machine) minus performance.now(), so the bench can place the probe's reads
 *                between the server's writes
 *   slipMs       how late the first write was against the schedule (the machine's noise, never
 *                counted for or against the probe: the truth is what was done)
 *
 * It is a plain TCP server speaking just enough HTTP/1.1 (request line, headers, content-length
 * body; chunked response) so that no framework buffers, corks or delays a write: Node's http
 * server corks a response until the next tick, which would make "when it was written" a guess.
 *
 * The schedule is in the request's model name: `bench:` + base64url JSON
 * {id, ttftMs, gapMs, n, keepAlive?}. POST /v1/chat/completions answers OpenAI SSE; POST
 * /api/generate Ollama NDJSON; under a /ollama base path, GET / says "Ollama is running" (so the
 * headless `infertop probe` detects an Ollama server).
 *
 * Between writes it SLEEPS, blocking this process on Atomics.wait (a futex with a sub-millisecond
 * timeout) until each token's time on the schedule (absolute times, so a late wake-up never drifts
 * the rate): it burns no core while it waits, so on a small machine the bench's own server does not
 * compete with the probe for the CPU (a whole core at 1000 tok/s with the earlier
 * sleep-then-spin-2-ms). How late it woke does not matter to the bench: the truth is what it did.
 * One request at a time; nothing else needs this event loop while a stream runs, every write being
 * synchronous.
 */
import net from 'node:net';
import {performance} from 'node:perf_hooks';

const hrNow = () => Number(process.hrtime.bigint()) / 1e6;
/** CLOCK_MONOTONIC − performance.now(), from the tightest of 5 bracketed samples (a sample this process was descheduled in would be off by as much). */
function hrOffset() {
	let best = Infinity;
	let off = 0;
	for (let i = 0; i < 5; i++) {
		const a = hrNow();
		const p = performance.now();
		const b = hrNow();
		if (b - a < best) {
			best = b - a;
			off = (a + b) / 2 - p;
		}
	}
	return off;
}
const lock = new Int32Array(new SharedArrayBuffer(4));
function until(t) {
	for (let left = t - performance.now(); left > 0; left = t - performance.now()) Atomics.wait(lock, 0, 0, left);
}

function chunk(socket, text) {
	const b = Buffer.from(text);
	socket.write(`${b.length.toString(16)}\r\n`);
	socket.write(b);
	socket.write('\r\n');
}

/** The whole token frame in one write: one syscall, one TCP segment. */
function frame(text) {
	const b = Buffer.from(text);
	return Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
}

const sse = (o) => `data: ${JSON.stringify(o)}\n\n`;

function answer(socket, method, rawPath, body, reqInMs, reqReads) {
	// A base path of /ollama makes this an Ollama server to infertop's engine detection (GET /).
	const ollamaBase = rawPath.startsWith('/ollama/');
	const path = ollamaBase ? rawPath.slice('/ollama'.length) : rawPath;
	if (method === 'GET') {
		const text = ollamaBase && path === '/' ? 'Ollama is running' : '{"error":"not found"}';
		socket.end(`HTTP/1.1 ${ollamaBase && path === '/' ? '200 OK' : '404 Not Found'}\r\ncontent-type: text/plain\r\ncontent-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`);
		return;
	}
	let spec;
	try {
		const m = JSON.parse(body).model;
		spec = JSON.parse(Buffer.from(String(m).slice(6), 'base64url').toString());
	} catch {
		socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 21\r\nconnection: close\r\n\r\n{"error":"bad spec"}\n');
		return;
	}
	const ollama = path === '/api/generate';
	const ctype = ollama ? 'application/x-ndjson' : 'text/event-stream';
	socket.write(`HTTP/1.1 200 OK\r\ncontent-type: ${ctype}\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n`);
	// Every token's frame built before the stream starts: nothing is allocated between the sleeps.
	const frames = [];
	for (let i = 0; i < spec.n; i++) {
		const text = ollama
			? JSON.stringify({model: 'bench', created_at: new Date().toISOString(), response: `tok${i} `, done: false}) + '\n'
			: sse({id: 'b', object: 'chat.completion.chunk', model: 'bench', choices: [{index: 0, delta: {content: `tok${i} `}, finish_reason: null}]});
		frames.push(frame(text));
	}
	const keepAlive = frame(ollama ? JSON.stringify({model: 'bench', response: '', done: false}) + '\n' : ': keep-alive\n\n');
	const preMs = new Array(spec.n);
	const writesMs = new Array(spec.n);
	let queued = 0;
	for (let i = 0; i < spec.n; i++) {
		until(reqInMs + spec.ttftMs + i * spec.gapMs);
		preMs[i] = performance.now();
		socket.write(frames[i]);
		writesMs[i] = performance.now();
		if (socket.writableLength > 0) queued++;
		// Keep-alives between tokens where asked: they must not count as tokens.
		if (spec.keepAlive && i < spec.n - 1) socket.write(keepAlive);
	}
	// The end of the answer a moment after the last token: this process's work after the stream
	// (the finish frames, the record below) must not take the CPU the probe reads the last token on.
	until(performance.now() + 20);
	const gen = spec.n > 1 ? writesMs[spec.n - 1] - writesMs[0] : 0;
	if (ollama) {
		chunk(
			socket,
			JSON.stringify({model: 'bench', response: '', done: true, done_reason: 'length', eval_count: spec.n, eval_duration: Math.round(gen * 1e6), prompt_eval_count: 12, prompt_eval_duration: 1_000_000}) + '\n',
		);
	} else {
		chunk(socket, sse({id: 'b', object: 'chat.completion.chunk', model: 'bench', choices: [{index: 0, delta: {}, finish_reason: 'length'}]}));
		chunk(socket, sse({id: 'b', object: 'chat.completion.chunk', model: 'bench', choices: [], usage: {prompt_tokens: 12, completion_tokens: spec.n, total_tokens: 12 + spec.n}}));
		chunk(socket, 'data: [DONE]\n\n');
	}
	socket.end('0\r\n\r\n');
	const hrMinusPerf = hrOffset();
	process.send?.({id: spec.id, reqInMs, reqReads, writesMs, preMs, queued, hrMinusPerf, slipMs: spec.n > 0 ? preMs[0] - reqInMs - spec.ttftMs : 0});
}

const server = net.createServer({noDelay: true}, (socket) => {
	socket.setNoDelay(true);
	let buf = Buffer.alloc(0);
	let done = false;
	let reads = 0;
	socket.on('data', (d) => {
		const t = performance.now();
		if (done) return;
		reads++;
		buf = Buffer.concat([buf, d]);
		const end = buf.indexOf('\r\n\r\n');
		if (end < 0) return;
		const head = buf.subarray(0, end).toString('latin1');
		const len = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
		if (buf.length < end + 4 + len) return;
		done = true;
		const [method, path] = head.split(' ');
		answer(socket, method, path, buf.subarray(end + 4, end + 4 + len).toString('utf8'), t, reads);
	});
	socket.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => process.send?.({port: server.address().port}));
process.on('message', (m) => {
	if (m === 'close') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
