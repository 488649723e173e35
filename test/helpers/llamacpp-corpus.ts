/**
 * The llama.cpp lines the hand-read parser tests compare against the regexes and the frozen
 * reference: every line of every shipped llama-server capture, and the slot messages in them.
 */
import {readdirSync, readFileSync} from 'node:fs';

const DIR = new URL('../fixtures/engines/llama.cpp/', import.meta.url);

/** Every non-empty line of every llama.cpp capture under test/fixtures/engines/llama.cpp. */
export const corpus = (): string[] => readdirSync(DIR).filter(f => f.endsWith('.log')).flatMap(f => readFileSync(new URL(f, DIR), 'utf8').split('\n').filter(l => l.length > 0));

/** The message of each slot line (after `| `), as the parser hands it on. */
export const messages = (lines: readonly string[]): string[] => lines.flatMap(l => {
	const at = l.indexOf('| task ');
	const bar = at < 0 ? -1 : l.indexOf('| ', at + 7);
	return bar < 0 ? [] : [l.slice(bar + 2)];
});
