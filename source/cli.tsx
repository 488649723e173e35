/**
 * flags → config → either the interactive monitor or a headless command (DESIGN §3).
 * `bin/infertop.js` sets NODE_ENV=production before this module (and React) loads.
 */
import os from 'node:os';
import meow from 'meow';
import {resolveConfig, formatConfig, type FlagValues} from './config/config.js';
import {VERSION} from './version.js';

const HELP = `
  infertop — top for local LLM inference engines

  Usage
    $ infertop [options]              the monitor: finds engines on this machine, tails their logs
    $ infertop --demo                 the monitor on the built-in demo engine (labelled DEMO)
    $ infertop snapshot [--json]      collect for a few seconds, print one snapshot, exit
    $ infertop probe [URL]            one wall-clocked streaming probe, printed as a table or JSON

  Sources
    --server URL          watch and probe this server (repeatable; remote allowed)
    --api-key KEY         API key for the --server given (sent only to that host; or INFERTOP_API_KEY)
    --log PATH            tail this log (repeatable); ENGINE=PATH forces the engine,
                          cmd:COMMAND streams a command (journalctl -u ollama -f -o cat, docker logs -f NAME, ssh HOST tail -F PATH)
    --replay FILE[:SPEED] replay a captured log with its original pacing (samples/ has one per engine)
    --demo / --no-demo    start the demo engine / never start it (default: only when no engine is found)
    --demo-split SHARE    demo: put this share (0..1) of the GGUF model on the CPU
    --no-scan             don't scan the default ports or processes
    --ollama-ps api|cli   read residency from /api/ps (default) or by running \`ollama ps\`

  Figures
    --bandwidth GB/s      memory bandwidth for the ceiling (default: from the chip table)

  Screen
    --refresh MS          refresh interval (250..10000, default 1000; +/- change it live)
    --theme NAME|PATH     dark (default), light, high-contrast, no-color, or a theme JSON file
    --no-color            no colours (also NO_COLOR=1)

  Headless
    --json                snapshot/probe: print JSON
    --seconds N           snapshot: collect for N seconds (default 3)
    --prompt KIND         probe: code | prose | repeat | hex | long | @FILE (default code)
    --runs N              probe: run N times (2 shows cache reuse)
    --max-tokens N        probe: tokens to generate (default 256)
    --model NAME          probe: model to use (default: the loaded one)
    --busy-timeout S      probe: keep retrying a busy (HTTP 429) server this long (default 30)
    --timeout S           probe: give up on a run after S seconds, keep-alives or not (default 300)

  Files and exports
    --history PATH        probe history CSV (default: probes.csv in the XDG state dir)
    --config PATH         config file (default: config.json in the XDG config dir)
    --print-config        print the effective configuration and where each value came from
    --serve-metrics [ADDR] expose live figures as Prometheus metrics (default 127.0.0.1:9464)

    --version, --help
`;

export async function main(argv = process.argv.slice(2)): Promise<number> {
	// meow cannot take an optional flag value: `--serve-metrics` alone means the default address.
	const args = argv.flatMap((a, i) => (a === '--serve-metrics' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('-')) ? ['--serve-metrics=127.0.0.1:9464'] : [a]));
	const cli = meow(HELP, {
		importMeta: import.meta,
		argv: args,
		version: VERSION,
		autoHelp: true,
		autoVersion: true,
		allowUnknownFlags: false,
		flags: {
			server: {type: 'string', isMultiple: true},
			apiKey: {type: 'string'},
			log: {type: 'string', isMultiple: true},
			replay: {type: 'string'},
			demo: {type: 'boolean'},
			demoSplit: {type: 'number'},
			scan: {type: 'boolean', default: true},
			ollamaPs: {type: 'string'},
			bandwidth: {type: 'number'},
			refresh: {type: 'number'},
			theme: {type: 'string'},
			color: {type: 'boolean'},
			json: {type: 'boolean', default: false},
			seconds: {type: 'number', default: 3},
			prompt: {type: 'string', default: 'code'},
			runs: {type: 'number', default: 1},
			maxTokens: {type: 'number', default: 256},
			model: {type: 'string'},
			busyTimeout: {type: 'number'},
			timeout: {type: 'number'},
			history: {type: 'string'},
			config: {type: 'string'},
			printConfig: {type: 'boolean', default: false},
			serveMetrics: {type: 'string'},
		},
	});
	const flags = cli.flags;
	// meow reads an absent boolean as false: only a flag actually given may override the config file.
	const given = (name: string) => args.some(a => a === `--${name}` || a === `--no-${name}` || a.startsWith(`--${name}=`));
	const [command, ...rest] = cli.input;
	const env = process.env;
	const flagValues: FlagValues = {
		server: flags.server,
		log: flags.log,
		bandwidth: flags.bandwidth,
		theme: flags.theme,
		refresh: flags.refresh,
		history: flags.history,
		demo: given('demo') ? flags.demo : undefined,
		ollamaPs: flags.ollamaPs,
		busyTimeout: flags.busyTimeout,
		serveMetrics: flags.serveMetrics,
		color: given('color') ? flags.color : undefined,
		noColor: (given('color') && flags.color === false) || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb' ? true : undefined,
	};
	const {config, problems} = resolveConfig({path: flags.config, env, platform: process.platform, homedir: os.homedir(), flags: flagValues});
	for (const p of problems) process.stderr.write(`infertop: ${p}\n`);
	if (flags.printConfig) {
		process.stdout.write(`${formatConfig(config)}\n`);
		return 0;
	}
	if (command !== undefined && command !== 'snapshot' && command !== 'probe') {
		process.stderr.write(`infertop: unknown command "${command}" (try: snapshot, probe, --help)\n`);
		return 2;
	}
	if (flags.demoSplit !== undefined && !(flags.demoSplit >= 0 && flags.demoSplit <= 1)) {
		process.stderr.write('infertop: --demo-split takes a share between 0 and 1 (e.g. 0.35)\n');
		return 2;
	}
	if (flags.timeout !== undefined && !(Number.isFinite(flags.timeout) && flags.timeout >= 1 && flags.timeout <= 86_400)) {
		process.stderr.write('infertop: --timeout takes seconds between 1 and 86400 (e.g. 300)\n');
		return 2;
	}
	const apiKey = flags.apiKey ?? env.INFERTOP_API_KEY;
	const probeTimeoutMs = flags.timeout === undefined ? undefined : flags.timeout * 1000;
	const common = {config, scan: flags.scan, replay: flags.replay, demoSplit: flags.demoSplit, apiKey, probeTimeoutMs};

	if (command === 'probe') {
		const {runProbeCli} = await import('./commands/probe.js');
		return runProbeCli({...common, url: rest[0], prompt: flags.prompt, runs: flags.runs, json: flags.json, maxTokens: flags.maxTokens, model: flags.model});
	}
	if (command === 'snapshot' || !process.stdout.isTTY || env.TERM === 'dumb') {
		const {runSnapshot} = await import('./commands/snapshot.js');
		return runSnapshot({...common, json: command === 'snapshot' ? flags.json : flags.json, seconds: flags.seconds});
	}
	const {runMonitor} = await import('./commands/monitor.js');
	return runMonitor(common);
}

main().then(
	code => {
		process.exitCode = code;
	},
	(error: unknown) => {
		process.stderr.write(`infertop: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exitCode = 1;
	},
);
