/**
 * renderTui (ink-practices §6.8): ink.render with a fake stdout that has isTTY, settable
 * columns/rows and a resize event (ink-testing-library's stdout is fixed at 100 columns, no rows).
 */
import {EventEmitter} from 'node:events';
import {render} from 'ink';
import type {ReactElement} from 'react';
import stripAnsi from 'strip-ansi';

class FakeStdout extends EventEmitter {
	readonly isTTY = true;
	readonly frames: string[] = [];
	constructor(
		public columns: number,
		public rows: number,
	) {
		super();
	}

	write = (frame: string): boolean => {
		this.frames.push(frame);
		return true;
	};
}

class FakeStdin extends EventEmitter {
	data: string | null = null;
	constructor(public isTTY: boolean) {
		super();
	}

	write = (data: string): void => {
		this.data = data;
		this.emit('readable');
		this.emit('data', data);
	};

	setEncoding(): void {}
	setRawMode(): void {
		if (!this.isTTY) throw new Error('raw mode on a non-TTY stdin');
	}

	resume(): void {}
	pause(): void {}
	ref(): void {}
	unref(): void {}
	read = (): string | null => {
		const {data} = this;
		this.data = null;
		return data;
	};
}

export interface Tui {
	lastFrame(): string;
	/** The last frame without escape codes. */
	frame(): string;
	frames: string[];
	stdin: FakeStdin;
	resize(columns: number, rows: number): void;
	unmount(): void;
}

export function renderTui(node: ReactElement, options: {columns: number; rows: number; stdinIsTTY?: boolean}): Tui {
	const stdout = new FakeStdout(options.columns, options.rows);
	const stderr = new FakeStdout(options.columns, options.rows);
	const stdin = new FakeStdin(options.stdinIsTTY ?? true);
	const instance = render(node, {
		stdout: stdout as unknown as NodeJS.WriteStream,
		stderr: stderr as unknown as NodeJS.WriteStream,
		stdin: stdin as unknown as NodeJS.ReadStream,
		debug: true,
		exitOnCtrlC: false,
		patchConsole: false,
	});
	return {
		lastFrame: () => stdout.frames.at(-1) ?? '',
		frame: () => stripAnsi(stdout.frames.at(-1) ?? ''),
		frames: stdout.frames,
		stdin,
		resize(columns, rows) {
			stdout.columns = columns;
			stdout.rows = rows;
			stdout.emit('resize');
		},
		unmount: () => {
			instance.unmount();
			instance.cleanup();
		},
	};
}

const tick = () => new Promise<void>(resolve => setImmediate(resolve));

/** Wait on a condition over setImmediate ticks (never a sleep). */
export async function waitFor(check: () => boolean, what = 'condition', ticks = 200): Promise<void> {
	for (let i = 0; i < ticks; i++) {
		if (check()) return;
		await tick();
	}
	throw new Error(`waitFor: ${what} not met`);
}

/** Let effects subscribe (useInput re-subscribes after renders on ink 6.8). */
export async function settle(n = 3): Promise<void> {
	for (let i = 0; i < n; i++) await tick();
}
