/**
 * A parser, and the state, let go of each line once it is read (issue 32). A log's lines are slices
 * of the string decoded from one read (V8 keeps a cut of 13 characters or more as a view onto its
 * parent), so a line or a cut of it kept past its line kept that whole piece of the read alive: at
 * rest the last read of every log, and under traffic a read of each log through V8's scavenges. The
 * llama.cpp parser kept the line it read the stamp of and its slot matcher the last `slot` line;
 * parsers kept model names; the state kept models, signals and their evidence. Measured in a node
 * process for each sample log (test/helpers/line-retention-probe.ts), with a read of 8 MB: what
 * the heap still holds once the lines are dropped. Before the fix six samples kept 8-16 MB through
 * the parser alone, and six through the store.
 */
import {execFile} from 'node:child_process';
import {readdirSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {promisify} from 'node:util';
import {beforeAll, describe, expect, it} from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const READ_BYTES = 8_000_000;
const samples = readdirSync(path.join(root, 'samples')).filter(f => f.endsWith('.log')).sort();
const measured = new Map<string, Record<string, number | string>>();

const probe = async (sample: string): Promise<Record<string, number | string>> => {
	const {stdout} = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', path.join(root, 'test', 'helpers', 'line-retention-probe.ts'), sample], {cwd: root, encoding: 'utf8', timeout: 120_000});
	return JSON.parse(stdout) as Record<string, number | string>;
};

beforeAll(async () => {
	// two at a time (CI has two cores)
	for (let i = 0; i < samples.length; i += 2) {
		const pair = samples.slice(i, i + 2);
		const results = await Promise.all(pair.map(probe));
		pair.forEach((s, k) => measured.set(s, results[k]!));
	}
}, 240_000);

describe('parsers, the state and the reads their lines come from', () => {
	it('the measure sees a read that is kept (the check can fail)', () => {
		const m = measured.get(samples[0]!)!;
		expect(m.keptLength).toBeGreaterThan(0);
		expect(m.kept).toBeGreaterThan(READ_BYTES / 2);
	});

	it.each(samples)('samples/%s: no read stays alive through its parser, nor through the state', file => {
		const m = measured.get(file)!;
		expect(m[`${file} engine`], 'its engine detected').not.toBe('none');
		expect(m[`${file} lines`], 'the store took every line').toBe(0);
		expect(m[`${file} parser`]).toBeLessThan(READ_BYTES / 4);
		expect(m[`${file} store`]).toBeLessThan(READ_BYTES / 4);
		// the llama.cpp slot matcher's shared record holds no line once one is parsed
		expect(m['slot match line']).toBe('');
	});
});
