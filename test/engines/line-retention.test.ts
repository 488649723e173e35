/**
 * A parser lets go of each line once it is parsed (issue 32). A log's lines are slices of the string
 * decoded from one read (V8 keeps a slice of 13 characters or more as a view onto its parent), so a
 * line a parser kept until the next one kept that whole read alive: at rest the last read of every
 * log, and under traffic a read of each log through V8's scavenges. The llama.cpp parser kept the
 * line it read the stamp of, and its slot matcher the last `slot` line. Measured here with a read of
 * 8 MB: what the heap holds once the lines are dropped, for every engine's sample log.
 */
import {readdirSync, readFileSync} from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import {describe, expect, it} from 'vitest';
import {createParser} from '../../source/engines/index.js';
import {SLOT_MATCH} from '../../source/engines/llamacpp.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapUsed = (): number => {
	// V8 keeps the subject of the last regular-expression match (RegExp.input): one string for the
	// whole process, replaced at the next match. A match on a string of our own lets go of it.
	/./.exec('.');
	gc();
	gc();
	return v8.getHeapStatistics().used_heap_size;
};

const READ_BYTES = 8_000_000;

/** Push `lines` cut out of one large decoded read, as the log tail hands them over; nothing else is kept. */
function pushSlices(lines: readonly string[], push: (line: string) => unknown): void {
	const text = `${'#'.repeat(READ_BYTES)}\n${lines.join('\n')}\n`;
	let at = READ_BYTES + 1;
	for (const line of lines) {
		push(text.slice(at, at + line.length));
		at += line.length + 1;
	}
}

const SAMPLES = new URL('../../samples/', import.meta.url);
const samples = readdirSync(SAMPLES).filter(f => f.endsWith('.log'));

describe('parsers and the reads their lines come from', () => {
	it.each(samples)('samples/%s: no line kept, so no read stays alive through the parser', file => {
		const lines = readFileSync(new URL(file, SAMPLES), 'utf8').split('\n').filter(l => l.length > 0);
		const parser = createParser();
		// The parser's own state (the engine detected, its maps of slots and tasks) made before the
		// measure, from lines of their own.
		for (const line of lines) parser.push(line.split('').join(''));
		expect(parser.detected, file).toBeDefined();
		const before = heapUsed();
		pushSlices(lines, line => parser.push(line));
		const after = heapUsed();
		expect(after - before).toBeLessThan(READ_BYTES / 4);
		expect(SLOT_MATCH.line).toBe('');
	});

	it('the measure sees a read that is kept (the check can fail)', () => {
		const lines = ['0.02.272.335 I slot launch_slot_: id  1 | task 67 | processing task, is_child = 0'];
		let kept: string | undefined;
		const before = heapUsed();
		pushSlices(lines, line => {
			kept = line;
		});
		const after = heapUsed();
		expect(kept).toBe(lines[0]);
		expect(after - before).toBeGreaterThan(READ_BYTES / 2);
	});
});
