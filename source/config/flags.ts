/**
 * The command line, read with Node's own `util.parseArgs` (it splits `--flag=value`, `-hv` and the
 * `--` terminator); what each flag is, and what is an error, is decided here from its tokens, in
 * order. Pure: argv in, flags, positionals and one-line problems out (cli.tsx prints them, exit 2).
 *
 * Before this, meow 14 did the parsing: 242 KiB of bundle (with the yargs-parser, camelcase,
 * read-package-up and normalize-package-data it carries) parsed and run before the first frame,
 * ~15 ms of a 2-core machine's start-up. It also let some mistakes through: `--server` with no
 * value was ignored, `--theme a --theme b` exited 1, not 2.
 */
import {parseArgs} from 'node:util';

type Kind = 'boolean' | 'string' | 'list';

interface FlagSpec {
	readonly kind: Kind;
	/** One-letter form (`-h`). */
	readonly short?: string;
	/** `--no-NAME` sets it false. */
	readonly negatable?: boolean;
}

/** Every flag, by its command-line name. Keys of {@link Flags} are these names in camelCase. */
export const FLAG_SPECS = {
	help: {kind: 'boolean', short: 'h'},
	version: {kind: 'boolean', short: 'v'},
	server: {kind: 'list'},
	'api-key': {kind: 'string'},
	log: {kind: 'list'},
	replay: {kind: 'string'},
	demo: {kind: 'boolean', negatable: true},
	'demo-split': {kind: 'string'},
	'demo-agent': {kind: 'boolean'},
	notify: {kind: 'boolean'},
	'session-gap': {kind: 'string'},
	scan: {kind: 'boolean', negatable: true},
	'ollama-ps': {kind: 'string'},
	bandwidth: {kind: 'string'},
	refresh: {kind: 'string'},
	theme: {kind: 'string'},
	color: {kind: 'boolean', negatable: true},
	json: {kind: 'boolean'},
	seconds: {kind: 'string'},
	prompt: {kind: 'string'},
	runs: {kind: 'string'},
	'max-tokens': {kind: 'string'},
	model: {kind: 'string'},
	depths: {kind: 'string'},
	session: {kind: 'string'},
	measure: {kind: 'boolean'},
	'busy-timeout': {kind: 'string'},
	timeout: {kind: 'string'},
	history: {kind: 'string'},
	config: {kind: 'string'},
	'print-config': {kind: 'boolean'},
	'serve-metrics': {kind: 'string'},
	headless: {kind: 'boolean'},
} as const satisfies Record<string, FlagSpec>;

type Names = keyof typeof FLAG_SPECS;
type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
type ValueOf<K extends Kind> = K extends 'boolean' ? boolean : K extends 'list' ? readonly string[] : string;

/** What was given, by flag: a flag not given is absent (a list: empty). Numbers stay text (config checks them). */
export type Flags = {readonly [N in Names as Camel<N>]?: ValueOf<(typeof FLAG_SPECS)[N]['kind']>} & {
	readonly server: readonly string[];
	readonly log: readonly string[];
};

export interface ParsedCommandLine {
	readonly flags: Flags;
	/** The words that are not flags (the command and its URLs), `--` included as a terminator. */
	readonly input: readonly string[];
	/** Command-line names of the flags given (`--no-demo` counts as `demo`). */
	readonly given: ReadonlySet<string>;
	/** One line each, e.g. `--server: needs a value`. */
	readonly problems: readonly string[];
}

/** The address `--serve-metrics` alone stands for. */
export const DEFAULT_METRICS_ADDR = '127.0.0.1:9464';

const camel = (name: string) => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
const SHORT = new Map<string, string>(Object.entries(FLAG_SPECS).flatMap(([name, spec]) => ('short' in spec ? [[spec.short, name] as const] : [])));

/** Read argv (without node and the script). Never throws. */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
	// `--serve-metrics` may stand alone (the default address): the one flag whose value is optional.
	const args = argv.flatMap((a, i) => (a === '--serve-metrics' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('-')) ? [`--serve-metrics=${DEFAULT_METRICS_ADDR}`] : [a]));
	// Every option is read as a string here so that parseArgs never throws; the kinds are applied below.
	const {tokens} = parseArgs({args, strict: false, allowPositionals: true, tokens: true, options: {}});
	const values: Record<string, unknown> = {server: [], log: []};
	const input: string[] = [];
	const given = new Set<string>();
	const problems: string[] = [];
	const seen = new Set<string>();
	const problem = (text: string) => {
		if (!problems.includes(text)) problems.push(text);
	};
	// an argument taken as the value of the flag before it (`--bandwidth -5`): its tokens are skipped
	let taken = -1;
	for (const t of tokens) {
		if (t.index === taken) continue;
		if (t.kind === 'positional') {
			input.push(t.value);
			continue;
		}
		if (t.kind === 'option-terminator') continue;
		const raw = t.rawName;
		let name = raw.startsWith('--') ? t.name : (SHORT.get(t.name) ?? '');
		let negated = false;
		if (!(name in FLAG_SPECS) && name.startsWith('no-') && (FLAG_SPECS as Record<string, FlagSpec>)[name.slice(3)]?.negatable) {
			name = name.slice(3);
			negated = true;
		}
		const spec = (FLAG_SPECS as Record<string, FlagSpec>)[name];
		if (!spec) {
			problem(`unknown flag ${raw} (see --help)`);
			continue;
		}
		const label = `--${negated ? 'no-' : ''}${name}`;
		if (spec.kind === 'boolean') {
			if (t.inlineValue) {
				problem(`${label} takes no value${spec.negatable && !negated ? ` (--no-${name} turns it off)` : ''}`);
				continue;
			}
			// parseArgs (strict: false) gave a flag without a declared type no value; a short flag never has one.
			values[camel(name)] = !negated;
			given.add(name);
			continue;
		}
		// A value: inline (`--server=URL`), else the next argument, whatever parseArgs made of it
		// (`-5` is a value, not a short flag); a long flag (`--json`) or `--` is not a value.
		let value: string | undefined;
		if (t.inlineValue) value = t.value;
		else {
			const next = args[t.index + 1];
			if (next !== undefined && !next.startsWith('--')) {
				value = next;
				taken = t.index + 1;
			}
		}
		if (value === undefined) {
			problem(`${label}: needs a value`);
			continue;
		}
		if (spec.kind === 'list') (values[camel(name)] as string[]).push(value);
		else {
			if (seen.has(name)) problem(`${label}: given more than once`);
			values[camel(name)] = value;
		}
		seen.add(name);
		given.add(name);
	}
	return {flags: values as Flags, input, given, problems};
}

/** The commands: the monitor (no command word), `snapshot`, `probe`, `compare`, `whatif`. */
export type CommandName = 'monitor' | 'snapshot' | 'probe' | 'compare' | 'whatif';

/**
 * Flags that belong to some commands only (each other flag belongs to all). One given to a command
 * it does not belong to is a mistake said in one line (exit 2), never silently ignored.
 */
const ONLY_WITH: Readonly<Partial<Record<Names, readonly CommandName[]>>> = {
	// The monitor prints one snapshot when stdout is not a terminal: these are its then.
	seconds: ['snapshot', 'monitor', 'whatif'],
	prompt: ['probe'],
	runs: ['probe'],
	json: ['snapshot', 'monitor', 'probe', 'compare', 'whatif'],
	'max-tokens': ['probe', 'compare'],
	model: ['probe', 'compare'],
	depths: ['compare'],
	session: ['whatif'],
	measure: ['whatif'],
	// The monitor's own probes (`p`, `r`, `c`) keep to these too.
	'busy-timeout': ['monitor', 'probe', 'compare', 'whatif'],
	timeout: ['monitor', 'probe', 'compare', 'whatif'],
};

const commandWords = (cs: readonly CommandName[]): string => cs.filter(c => c !== 'monitor').join(', ');

/** One line per flag given that does not belong to `command`. Pure. */
export function flagsNotFor(command: CommandName, given: ReadonlySet<string>): string[] {
	const out: string[] = [];
	for (const [name, commands] of Object.entries(ONLY_WITH) as [Names, readonly CommandName[]][]) {
		if (given.has(name) && !commands.includes(command)) out.push(`--${name}: not for ${command === 'monitor' ? 'the monitor' : `the ${command} command`} (only ${commandWords(commands)})`);
	}
	return out;
}
