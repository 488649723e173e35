/** A command's stdout and stderr as in-memory streams, with what was written to each so far. */
import {PassThrough} from 'node:stream';

export interface Captured {
	readonly stdout: PassThrough;
	readonly stderr: PassThrough;
	/** Everything written to stdout so far. */
	out(): string;
	/** Everything written to stderr so far. */
	err(): string;
}

export function captureStreams(): Captured {
	const stdout = new PassThrough();
	const stderr = new PassThrough();
	let out = '';
	let err = '';
	stdout.on('data', (c: Buffer) => (out += c.toString()));
	stderr.on('data', (c: Buffer) => (err += c.toString()));
	return {stdout, stderr, out: () => out, err: () => err};
}
