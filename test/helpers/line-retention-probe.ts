/**
 * Run by test/engines/line-retention.test.ts, `node --expose-gc --import tsx
 * test/helpers/line-retention-probe.ts SAMPLE.log`: what the heap still holds of one large read
 * after every line of the sample log was cut from it and pushed through a parser (and, `store`,
 * through the store too), in bytes. A process for each sample, not the test runner's: V8 holds a
 * last subject string here and there (each module context's last regular-expression match; other
 * engines' modules run in a sample before), which the measure would count against the next sample.
 * Prints one JSON object: {"<sample> parser": bytes, "<sample> store": bytes, "kept": bytes, …}.
 */
import {readdirSync, readFileSync} from 'node:fs';
import {createParser} from '../../source/engines/index.js';
import {SLOT_MATCH} from '../../source/engines/llamacpp.js';
import {createStore} from '../../source/model/store.js';
import {readLine} from '../../source/sources/log-source.js';

export const READ_BYTES = 8_000_000;

type Gc = (options?: {type: 'major'; execution: 'sync'; flavor: 'last-resort'}) => void;
const gc = (globalThis as {gc?: Gc}).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const heapUsed = (): number => {
	// V8 keeps the subject of the last regular-expression match (RegExp.input): one string, replaced
	// at the next match. A match on a string of our own lets go of it.
	/./.exec('.');
	// V8's last-resort collection (as before a heap snapshot): its caches are emptied too
	gc({type: 'major', execution: 'sync', flavor: 'last-resort'});
	gc({type: 'major', execution: 'sync', flavor: 'last-resort'});
	return process.memoryUsage().heapUsed;
};

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
const out: Record<string, number | string> = {};
const only = process.argv[2];
if (only === undefined) throw new Error('usage: line-retention-probe.ts SAMPLE.log');
for (const file of readdirSync(SAMPLES).filter(f => f === only)) {
	const lines = readFileSync(new URL(file, SAMPLES), 'utf8').split('\n').filter(l => l.length > 0);
	// The parser alone. Its own state (the engine detected, its maps of slots and tasks) is made
	// before the measure, from lines of their own.
	const parser = createParser();
	for (const line of lines) parser.push(line.split('').join(''));
	let before = heapUsed();
	pushSlices(lines, line => parser.push(line));
	out[`${file} parser`] = heapUsed() - before;
	out[`${file} engine`] = parser.detected ?? 'none';
	// Through the store: what the state keeps of the events (models, signals, requests).
	const p2 = createParser();
	const store = createStore();
	let fed = 0;
	const feed = (line: string): void => {
		fed++;
		store.dispatch({type: 'log-batch', serverId: 'log:a', lines: [readLine(p2, line, Date.now())]});
	};
	for (const line of lines) feed(line.split('').join(''));
	store.publish();
	before = heapUsed();
	pushSlices(lines, feed);
	store.publish();
	out[`${file} store`] = heapUsed() - before;
	const s = store.getSnapshot().servers['log:a'];
	out[`${file} lines`] = s === undefined ? -1 : s.linesParsed + s.linesUnparsed - fed;
}
out['slot match line'] = SLOT_MATCH.line;
// The measure sees a read that is kept.
let kept: string | undefined;
const before = heapUsed();
pushSlices(['0.02.272.335 I slot launch_slot_: id  1 | task 67 | processing task, is_child = 0'], line => {
	kept = line;
});
out.kept = heapUsed() - before;
out.keptLength = kept?.length ?? 0;
process.stdout.write(JSON.stringify(out));
