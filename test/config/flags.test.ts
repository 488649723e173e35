/** The command line read from its tokens (config/flags.ts): values, negations, and one line per mistake. */
import {describe, expect, it} from 'vitest';
import {DEFAULT_METRICS_ADDR, FLAG_SPECS, parseCommandLine, flagsNotFor} from '../../source/config/flags.js';

const read = (...argv: string[]) => parseCommandLine(argv);

describe('parseCommandLine', () => {
	it('values inline or next; lists repeat; the command and its URLs are input', () => {
		const r = read('probe', 'http://127.0.0.1:8080', '--server', 'http://a:1', '--server=http://b:2', '--runs', '2', '--log', 'ollama=/x.log');
		expect(r.problems).toEqual([]);
		expect(r.input).toEqual(['probe', 'http://127.0.0.1:8080']);
		expect(r.flags.server).toEqual(['http://a:1', 'http://b:2']);
		expect(r.flags.log).toEqual(['ollama=/x.log']);
		expect(r.flags.runs).toBe('2');
		expect([...r.given].sort()).toEqual(['log', 'runs', 'server']);
	});

	it('a flag not given is absent, a list is empty', () => {
		const r = read();
		expect(r.flags).toEqual({server: [], log: []});
		expect(r.given.size).toBe(0);
		expect(r.problems).toEqual([]);
	});

	it('--no-demo, --no-scan, --no-color turn those off; the last of --demo / --no-demo wins', () => {
		expect(read('--no-demo', '--no-scan', '--no-color').flags).toMatchObject({demo: false, scan: false, color: false});
		expect(read('--demo', '--no-demo').flags.demo).toBe(false);
		expect(read('--no-demo', '--demo').flags.demo).toBe(true);
		expect(read('--no-demo').given.has('demo')).toBe(true);
		// only the flags that say so can be negated
		expect(read('--no-json').problems).toEqual(['unknown flag --no-json (see --help)']);
	});

	it('-h and -v, alone or together; kebab-case names become camelCase keys', () => {
		expect(read('-hv').flags).toMatchObject({help: true, version: true});
		expect(read('--max-tokens', '64', '--demo-agent', '--print-config', '--api-key=k').flags).toMatchObject({maxTokens: '64', demoAgent: true, printConfig: true, apiKey: 'k'});
	});

	it('a negative number is a value, not a flag (the range check reports it)', () => {
		const r = read('--bandwidth', '-5', '--demo-split', '-0.5');
		expect(r.problems).toEqual([]);
		expect(r.flags).toMatchObject({bandwidth: '-5', demoSplit: '-0.5'});
	});

	it('--serve-metrics alone is the default address; with a value, that value', () => {
		expect(read('--serve-metrics').flags.serveMetrics).toBe(DEFAULT_METRICS_ADDR);
		expect(read('--serve-metrics', '--headless').flags).toMatchObject({serveMetrics: DEFAULT_METRICS_ADDR, headless: true});
		expect(read('--serve-metrics', '0.0.0.0:9000').flags.serveMetrics).toBe('0.0.0.0:9000');
	});

	it('after --, everything is input', () => {
		const r = read('compare', '--', '--json');
		expect(r.input).toEqual(['compare', '--json']);
		expect(r.flags.json).toBeUndefined();
	});

	it('mistakes are one line each, naming the flag', () => {
		expect(read('--bogus').problems).toEqual(['unknown flag --bogus (see --help)']);
		expect(read('-x').problems).toEqual(['unknown flag -x (see --help)']);
		expect(read('--bogus=1', '--bogus').problems).toEqual(['unknown flag --bogus (see --help)']);
		expect(read('--server').problems).toEqual(['--server: needs a value']);
		expect(read('--theme', '--json').problems).toEqual(['--theme: needs a value']);
		expect(read('--theme', 'light', '--theme', 'dark').problems).toEqual(['--theme: given more than once']);
		expect(read('--demo=false').problems).toEqual(['--demo takes no value (--no-demo turns it off)']);
		expect(read('--json=yes').problems).toEqual(['--json takes no value']);
		// camelCase spellings are not flags
		expect(read('--apiKey', 'k').problems).toEqual(['unknown flag --apiKey (see --help)']);
	});

	it('every flag the table names is in the help text', async () => {
		// The help lives in cli.tsx, which runs main() when imported: read it as text.
		const {readFileSync} = await import('node:fs');
		const cli = readFileSync(new URL('../../source/cli.tsx', import.meta.url), 'utf8');
		const help = cli.slice(cli.indexOf('const HELP = `'), cli.indexOf('`;', cli.indexOf('const HELP = `')));
		for (const [name, spec] of Object.entries(FLAG_SPECS)) expect(help.includes(`--${name}`) || ('negatable' in spec && help.includes(`--no-${name}`)), name).toBe(true);
	});
});

describe('issue 30: a flag that does not belong to the command is one line, not ignored', () => {
	const given = (...names: string[]) => new Set(names);
	it('compare --runs 3, the monitor with --prompt, probe --seconds', () => {
		expect(flagsNotFor('compare', given('runs'))).toEqual(['--runs: not for the compare command (only probe)']);
		expect(flagsNotFor('monitor', given('prompt', 'json', 'model'))).toEqual(['--prompt: not for the monitor (only probe)', '--model: not for the monitor (only probe, compare)']);
		expect(flagsNotFor('probe', given('seconds'))).toEqual(['--seconds: not for the probe command (only snapshot, whatif)']);
	});

	it('flags that belong stay quiet', () => {
		expect(flagsNotFor('probe', given('runs', 'prompt', 'json', 'max-tokens', 'model', 'timeout', 'busy-timeout', 'server', 'log'))).toEqual([]);
		expect(flagsNotFor('compare', given('json', 'max-tokens', 'model', 'timeout'))).toEqual([]);
		expect(flagsNotFor('snapshot', given('json', 'seconds', 'demo', 'log'))).toEqual([]);
		// Where stdout is not a terminal the monitor prints one snapshot: --json and --seconds are its.
		expect(flagsNotFor('monitor', given('timeout', 'busy-timeout', 'demo', 'theme', 'json', 'seconds'))).toEqual([]);
	});
});
