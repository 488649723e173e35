/**
 * The probe bench's scripted server: it streams a known schedule and reports what it ACTUALLY did,
 * on its own clock, so the probe is compared with the server's deeds, not its intentions.
 *
 * Run as a child process (`fork`): it listens on 127.0.0.1, port 0, sends {port} on the IPC
 * channel, then for each finished request sends
 *   {id, reqInMs, writesMs: [...], hrReqIn, hrFirst}
 * where reqInMs is its performance.now() when the last byte of the request was read (stamped in
 * the socket's data handler, before anything is parsed; it can only be late, which shortens the
 * server's interval), writesMs the performance.now() just before each token's bytes were handed to
 * the kernel (socket.write on a no-delay socket writes synchronously when the kernel buffer has
 * room, which it always has here; a stamp before the write can only be early), and hr* the same
 * instants on CLOCK_MONOTONIC (process.hrtime, shared by every process on the machine) so the bench
 * can split the probe's error into the request's way in and the first token's way out.
 *
 * It is a plain TCP server speaking just enough HTTP/1.1 (request line, headers, content-length
 * body; chunked response) so that no framework buffers, corks or delays a write: Node's http
 * server corks a response until the next tick, which would make "when it was written" a guess.
 *
 * The schedule is in the request's model name: `bench:` + base64url JSON
 * {id, ttftMs, gapMs, n, keepAlive?}. POST /v1/chat/completions answers OpenAI SSE; POST
 * /api/generate Ollama NDJSON; under a /ollama base path, GET / says "Ollama is running" (so the
 * headless `infertop probe` detects an Ollama server). Each write waits for its time with a sleep, then a spin on performance.now() for the
 * last 2 ms (sub-millisecond precision without burning a core for the whole stream).
 */
import net from 'node:net';
import {performance} from 'node:perf_hooks';

const hr = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(t) {
	for (;;) {
		const left = t - performance.now();
		if (left <= 0) return;
		if (left > 3) await sleep(left - 2);
		else while (performance.now() < t) {
			// spin: the last 2 ms
		}
	}
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

async function answer(socket, method, rawPath, body, reqInMs, hrReqIn) {
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
	const writesMs = [];
	let hrFirst;
	for (let i = 0; i < spec.n; i++) {
		await until(reqInMs + spec.ttftMs + i * spec.gapMs);
		const text = ollama
			? JSON.stringify({model: 'bench', created_at: new Date().toISOString(), response: `tok${i} `, done: false}) + '\n'
			: sse({id: 'b', object: 'chat.completion.chunk', model: 'bench', choices: [{index: 0, delta: {content: `tok${i} `}, finish_reason: null}]});
		// Stamped just BEFORE the write: the bytes leave at or after this instant, so the server's own
		// "request in → first token out" can only come out short, never long: any noise here (this
		// process descheduled between the stamp and the write) counts against the probe, never for it.
		writesMs.push(performance.now());
		if (i === 0) hrFirst = hr();
		socket.write(frame(text));
		// Keep-alives between tokens where asked: they must not count as tokens.
		if (spec.keepAlive && i < spec.n - 1) socket.write(frame(ollama ? JSON.stringify({model: 'bench', response: '', done: false}) + '\n' : ': keep-alive\n\n'));
	}
	const gen = writesMs.length > 1 ? writesMs[writesMs.length - 1] - writesMs[0] : 0;
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
	process.send?.({id: spec.id, reqInMs, writesMs, hrReqIn, hrFirst});
}

const server = net.createServer({noDelay: true}, (socket) => {
	socket.setNoDelay(true);
	let buf = Buffer.alloc(0);
	let done = false;
	socket.on('data', (d) => {
		const t = performance.now();
		const h = hr();
		if (done) return;
		buf = Buffer.concat([buf, d]);
		const end = buf.indexOf('\r\n\r\n');
		if (end < 0) return;
		const head = buf.subarray(0, end).toString('latin1');
		const len = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
		if (buf.length < end + 4 + len) return;
		done = true;
		const [method, path] = head.split(' ');
		void answer(socket, method, path, buf.subarray(end + 4, end + 4 + len).toString('utf8'), t, h);
	});
	socket.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => process.send?.({port: server.address().port}));
process.on('message', (m) => {
	if (m === 'close') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
