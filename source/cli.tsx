/**
 * flags → config → either the interactive monitor or a headless command (DESIGN §3).
 * `bin/infertop.js` sets NODE_ENV=production before this module (and React) loads.
 */
import {statSync} from 'node:fs';
import os from 'node:os';
import {resolveConfig, formatConfig, parseLogSpec, parseNumberFlag, type FlagValues, type NumberFlagRule} from './config/config.js';
import {flagsNotFor, parseCommandLine} from './config/flags.js';
import {loadTheme} from './config/themes.js';
import {resolveReplayArg} from './sources/replay.js';
import {VERSION} from './version.js';
import {parseDepths} from './config/depths.js';
import {sanitizeName} from './util/sanitize.js';
import {exposedWarning} from './metrics/address.js';

const HELP = `
  infertop — top for local LLM inference engines (${VERSION})

  Usage
    $ infertop [options]            the monitor: finds engines on this machine, tails their logs
    $ infertop --demo               the monitor on the built-in demo engine (labelled DEMO)
    $ infertop snapshot [--json]    collect for a few seconds, print one snapshot, exit
    $ infertop probe [URL]          one wall-clocked streaming probe, printed as a table or JSON
    $ infertop compare [URL…]       code, prose, long prompts (2 runs each) on every server × model
    $ infertop compare --depths 0,4k,16k,32k [URL…]
                                    prefill and decode rates at each depth, cache reuse, load
                                    time, concurrency; kept in profiles.json (the state dir)
    $ infertop whatif [URL…]        an agent session's turns projected onto each measured
                                    server × model (--session ID|last, --measure, --json)

  Sources
    --server URL          watch and probe this server (repeatable; remote allowed)
    --api-key KEY         API key for the --server given, sent only to that host
                          (or INFERTOP_API_KEY)
    --log PATH            tail this log (repeatable); ENGINE=PATH forces the engine;
                          cmd:COMMAND streams a command's output, e.g.
                          "cmd:journalctl -u ollama -f -o cat", "cmd:docker logs -f NAME"
    --replay FILE[:SPEED] replay a captured log with its original pacing; a bare NAME
                          (e.g. vllm) is one of the shipped samples/
    --demo / --no-demo    start the demo engine / never start it
                          (default: only when no engine is found)
    --demo-split SHARE    demo: put this share (0..1) of the GGUF model on the CPU
    --demo-agent          demo: a simulated coding agent (growing prompts, tool pauses,
                          cache reuse, busy retries) for the agent view (key a)
    --notify              ring the terminal bell (and an OSC 9 notification) once per
                          new kind of agent finding (truncated, cache miss, reload…)
    --no-scan             don't scan the default ports or processes
    --ollama-ps api|cli   read residency from /api/ps (default) or by running \`ollama ps\`

  Figures
    --bandwidth GB/s      memory bandwidth for the ceiling (default: from the chip table)
    --session-gap S       agent view: longest pause within one session (default 60)

  Screen
    --refresh MS          refresh interval (250..10000, default 1000; +/- change it live)
    --theme NAME|PATH     dark (default), light, high-contrast, no-color, or a theme JSON file
    --no-color            no colours (also NO_COLOR=1)

  Headless
    --json                snapshot/probe/compare: print JSON
    --seconds N           snapshot: collect for N seconds (0..3600, default 3)
    --prompt KIND         probe: code | prose | repeat | hex | long | @FILE (default code)
    --runs N              probe: run N times (1..20; 2 shows cache reuse)
    --max-tokens N        probe/compare: tokens to generate (2..100000, default 256)
    --model NAME          probe/compare: model to use (default: the loaded one; compare: each)
    --depths LIST         compare: measure at these context depths (tokens; 4k = 4096)
    --session ID|last     whatif: the session to project (default last: the newest of
                          more than one turn)
    --measure             whatif: measure the servers given that have no profile, one at a time
    --busy-timeout S      probe: keep retrying a busy (HTTP 429) server this long (default 30)
    --timeout S           probe: give up on a run after S seconds, keep-alives or not (default 300)

  Files and exports
    --history PATH        probe history CSV (default: probes.csv in the XDG state dir)
    --config PATH         config file (default: config.json in the XDG config dir)
    --print-config        print the effective configuration and where each value came from
    --serve-metrics [ADDR] serve live figures as Prometheus metrics (default 127.0.0.1:9464)
    --headless            with --serve-metrics: no screen, run until SIGTERM (for systemd)

    -v, --version         print the version
    -h, --help            print this help
`;

/** Numeric flags arrive as text, so `abc` is an error, not NaN. */
const NUMBER_FLAGS = {
	seconds: {flag: '--seconds', rule: {min: 0, max: 3600, unit: 'seconds'}},
	runs: {flag: '--runs', rule: {min: 1, max: 20, integer: true}},
	maxTokens: {flag: '--max-tokens', rule: {min: 2, max: 100_000, integer: true}},
	demoSplit: {flag: '--demo-split', rule: {min: 0, max: 1, unit: '(share of the model on the CPU, e.g. 0.35)'}},
	timeout: {flag: '--timeout', rule: {min: 1, max: 86_400, unit: 'seconds'}},
} as const satisfies Record<string, {flag: string; rule: NumberFlagRule}>;

/** An error the user made on the command line: one line on stderr, exit 2. */
function usageError(lines: readonly string[]): number {
	for (const l of lines) process.stderr.write(`infertop: ${sanitizeName(l)}\n`);
	return 2;
}

/** `--log PATH` whose file does not exist (or is not a file): the message; commands and present files: undefined. */
function missingLog(spec: string): string | undefined {
	const parsed = parseLogSpec(spec);
	if (!parsed.ok || parsed.spec.kind !== 'file') return undefined;
	try {
		if (statSync(parsed.spec.path).isFile()) return undefined;
		return `--log ${parsed.spec.path}: not a file`;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		return `--log ${parsed.spec.path}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (code ?? String(error))}`;
	}
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
	const {flags, input, given: givenNames, problems} = parseCommandLine(argv);
	if (problems.length > 0) return usageError(problems);
	if (flags.help) {
		process.stdout.write(`${HELP.replace(/^\n+/, '').trimEnd()}\n`);
		return 0;
	}
	if (flags.version) {
		process.stdout.write(`${VERSION}\n`);
		return 0;
	}
	// Only a flag actually given may override the config file.
	const given = (name: string) => givenNames.has(name);
	const [command, ...rest] = input;
	if (command !== undefined && command !== 'snapshot' && command !== 'probe' && command !== 'compare' && command !== 'whatif') {
		return usageError([`unknown command "${command}" (try: snapshot, probe, compare, whatif, --help)`]);
	}
	const errors: string[] = flagsNotFor(command ?? 'monitor', givenNames);
	const numbers: Partial<Record<keyof typeof NUMBER_FLAGS, number>> = {};
	for (const [key, {flag, rule}] of Object.entries(NUMBER_FLAGS) as [keyof typeof NUMBER_FLAGS, (typeof NUMBER_FLAGS)[keyof typeof NUMBER_FLAGS]][]) {
		const r = parseNumberFlag(flag, flags[key], rule);
		if (r.error) errors.push(r.error);
		else if (r.value !== undefined) numbers[key] = r.value;
	}
	const env = process.env;
	const flagValues: FlagValues = {
		server: flags.server,
		log: flags.log,
		bandwidth: flags.bandwidth,
		theme: flags.theme,
		refresh: flags.refresh,
		history: flags.history,
		// --demo-agent is the demo with its agent: it starts the demo engine.
		demo: flags.demoAgent ? true : given('demo') ? flags.demo : undefined,
		ollamaPs: flags.ollamaPs,
		busyTimeout: flags.busyTimeout,
		sessionGap: flags.sessionGap,
		serveMetrics: flags.serveMetrics,
		color: given('color') ? flags.color : undefined,
		noColor: (given('color') && flags.color === false) || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb' ? true : undefined,
	};
	const {config, fileProblems, flagProblems} = resolveConfig({path: flags.config, env, platform: process.platform, homedir: os.homedir(), flags: flagValues});
	errors.push(...flagProblems);
	if (flags.theme !== undefined && config.theme === flags.theme.trim()) {
		// A theme named on the command line must exist (one in the config file falls back with a notice).
		try {
			loadTheme(config.theme);
		} catch (error) {
			errors.push(`--theme: ${(error as Error).message}`);
		}
	}
	if (flags.headless && !config.serveMetrics) errors.push('--headless: only with --serve-metrics ADDR (it serves metrics without a screen)');
	if (flags.headless && command !== undefined) errors.push(`--headless: not with the ${command} command`);
	if (errors.length > 0) return usageError(errors);
	// The config file's problems are warnings: its defaults apply and infertop starts.
	for (const p of fileProblems) process.stderr.write(`infertop: ${sanitizeName(p)}\n`);
	if (flags.printConfig) {
		process.stdout.write(`${formatConfig(config)}\n`);
		return 0;
	}
	// An endpoint open beyond this machine is said once, before anything starts.
	const exposed = config.serveMetrics ? exposedWarning(config.serveMetrics) : undefined;
	if (exposed !== undefined) process.stderr.write(`infertop: ${exposed}\n`);
	const apiKey = flags.apiKey ?? env.INFERTOP_API_KEY;
	let replay = flags.replay;
	if (replay !== undefined) {
		const r = resolveReplayArg(replay);
		if ('error' in r) return usageError([r.error]);
		replay = r.spec;
	}
	const probeTimeoutMs = numbers.timeout === undefined ? undefined : numbers.timeout * 1000;
	if (flags.demoAgent && given('demo') && flags.demo === false) return usageError(['--demo-agent: not with --no-demo (it runs the demo engine)']);
	const common = {config, scan: flags.scan ?? true, replay, demoSplit: numbers.demoSplit, apiKey, probeTimeoutMs, ...(flags.demoAgent ? {demoAgent: 'session' as const} : {})};

	if (command === 'probe') {
		const {runProbeCli} = await import('./commands/probe.js');
		return runProbeCli({...common, url: rest[0], prompt: flags.prompt ?? 'code', runs: numbers.runs ?? 1, json: flags.json === true, maxTokens: numbers.maxTokens ?? 256, model: flags.model});
	}
	if (command === 'compare') {
		const {runCompareCli} = await import('./commands/compare.js');
		let depths: number[] | undefined;
		if (flags.depths !== undefined) {
			try {
				depths = parseDepths(flags.depths);
			} catch (e) {
				return usageError([(e as Error).message]);
			}
		}
		return runCompareCli({...common, urls: rest, json: flags.json === true, maxTokens: numbers.maxTokens ?? 256, model: flags.model, depths});
	}
	if (command === 'whatif') {
		const {runWhatIfCli} = await import('./commands/whatif.js');
		return runWhatIfCli({...common, urls: rest, json: flags.json === true, session: flags.session ?? 'last', measure: flags.measure === true, seconds: numbers.seconds ?? 3});
	}
	if (flags.headless) {
		const {runHeadless} = await import('./commands/headless.js');
		return runHeadless(common);
	}
	if (command === undefined && !process.stdout.isTTY && config.serveMetrics && config.origin.serveMetrics === 'flag') {
		// Most likely a service started without --headless: say why it will not stay up.
		process.stderr.write('infertop: stdout is not a terminal: printing one snapshot; add --headless to keep serving metrics\n');
	}
	// TERM=dumb: a terminal that cannot draw the screen gets the plain snapshot, not the alternate screen.
	if (command === 'snapshot' || !process.stdout.isTTY || env.TERM === 'dumb') {
		// A snapshot lasts seconds: a log that is not there now cannot appear in time (the monitor waits for it).
		// Only the command line's (the config file's logs are lists a user keeps for the monitor).
		const missing = config.origin.logs === 'flag' ? config.logs.map(missingLog).filter((m): m is string => m !== undefined) : [];
		if (missing.length > 0) return usageError(missing);
		const {runSnapshot} = await import('./commands/snapshot.js');
		const code = await runSnapshot({...common, json: flags.json === true, seconds: numbers.seconds ?? 3});
		// Stopped by a signal: what it started is stopped; leave now, whatever sockets are still closing.
		if (code > 128) process.exit(code);
		return code;
	}
	const {runMonitor} = await import('./commands/monitor.js');
	return runMonitor({...common, ...(flags.notify ? {notify: true} : {})});
}

main().then(
	code => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(`infertop: ${sanitizeName(error instanceof Error ? error.message : String(error))}\n`);
		process.exitCode = 1;
	},
);
