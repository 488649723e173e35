import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {
	DEFAULTS,
	configFromFlags,
	parseNumberFlag,
	formatConfig,
	loadConfig,
	mergeConfig,
	parseLogSpec,
	resolveApiKey,
	resolveConfig,
	effectiveHistoryPath,
} from '../../source/config/config.js';
import {parseJsonc, plain} from '../../source/config/jsonc.js';
import {configFile, historyFile, expandHome} from '../../source/config/paths.js';
import {parseListenAddress} from '../../source/metrics/address.js';

const linux = {platform: 'linux' as const, homedir: '/home/ada', env: {}};
const fromText = (text: string, extra: {path?: string} = {}) =>
	loadConfig({...linux, path: extra.path ?? '/etc/infertop.json', readFile: () => text});

describe('paths', () => {
	it('follows XDG on Linux, with defaults under the home directory', () => {
		expect(configFile(linux)).toBe('/home/ada/.config/infertop/config.json');
		expect(historyFile(linux)).toBe('/home/ada/.local/state/infertop/probes.csv');
		const env = {XDG_CONFIG_HOME: '/x/cfg', XDG_STATE_HOME: '/x/state'};
		expect(configFile({...linux, env})).toBe('/x/cfg/infertop/config.json');
		expect(historyFile({...linux, env})).toBe('/x/state/infertop/probes.csv');
	});

	it('ignores relative XDG values (basedir spec)', () => {
		expect(configFile({...linux, env: {XDG_CONFIG_HOME: 'rel/dir'}})).toBe('/home/ada/.config/infertop/config.json');
	});

	it('uses the env-paths layout on macOS and Windows', () => {
		expect(configFile({platform: 'darwin', homedir: '/Users/ada', env: {}})).toBe('/Users/ada/Library/Preferences/infertop/config.json');
		expect(historyFile({platform: 'darwin', homedir: '/Users/ada', env: {}})).toBe('/Users/ada/Library/Application Support/infertop/probes.csv');
		const win = {platform: 'win32' as const, homedir: 'C:\\Users\\ada', env: {APPDATA: 'C:\\Users\\ada\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local'}};
		expect(configFile(win)).toBe('C:\\Users\\ada\\AppData\\Roaming\\infertop\\Config\\config.json');
		expect(historyFile(win)).toBe('C:\\Users\\ada\\AppData\\Local\\infertop\\Data\\probes.csv');
	});

	it('expands ~ only at the start', () => {
		expect(expandHome('~/logs/x.log', linux)).toBe('/home/ada/logs/x.log');
		expect(expandHome('/a/~/b', linux)).toBe('/a/~/b');
	});
});

describe('jsonc', () => {
	it('accepts comments, trailing commas and a BOM, and agrees with JSON.parse on plain JSON', () => {
		const r = parseJsonc('\ufeff{\n // c\n "a": [1, 2,], /* x */ "b": {"c": "d\\n\\u00e9"},\n}');
		expect(r.ok).toBe(true);
		if (r.ok) expect(plain(r.node)).toEqual({a: [1, 2], b: {c: 'd\né'}});
		const json = '{"x": [true, false, null, -1.5e3, "q\\"uote"], "y": {}}';
		const r2 = parseJsonc(json);
		expect(r2.ok && plain(r2.node)).toEqual(JSON.parse(json));
	});

	it('reports syntax errors with line and column', () => {
		const r = parseJsonc('{\n  "refresh": 1000\n  "theme": "x"\n}');
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.error).toMatchObject({line: 3, col: 3, message: expect.stringContaining("expected ',' or '}'")});
		const single = parseJsonc("{'theme': 1}");
		expect(!single.ok && single.error).toMatchObject({line: 1, col: 2});
		const open = parseJsonc('{"a": [1, 2');
		expect(!open.ok && open.error.message).toContain('end of file');
	});
});

describe('loadConfig', () => {
	it('no file at the default place: defaults, no problems', () => {
		const r = loadConfig({...linux, readFile: () => {
			throw Object.assign(new Error('nope'), {code: 'ENOENT'});
		}});
		expect(r.problems).toEqual([]);
		expect(r.source).toBeUndefined();
		expect(r.config.refresh).toBe(DEFAULTS.refresh);
		expect(r.config.origin.refresh).toBe('default');
	});

	it('a missing --config file is a problem, not a crash', () => {
		const r = loadConfig({...linux, path: '/nowhere/x.json', readFile: () => {
			throw Object.assign(new Error('nope'), {code: 'ENOENT'});
		}});
		expect(r.problems).toEqual(['/nowhere/x.json: cannot read the config file (not found); using the defaults']);
	});

	it('reads every key', () => {
		const r = fromText(`{
			// my machine
			"$schema": "https://example.invalid/schema.json",
			"servers": ["127.0.0.1:11434", {"url": "https://box:8000/", "apiKeyEnv": "VLLM_KEY"}],
			"logs": ["~/.ollama/logs/server.log", "llamacpp=/tmp/ls.log", "cmd:journalctl -fu ollama"],
			"bandwidth": 546,
			"theme": "solarized",
			"refresh": "2s",
			"history": "~/probes.csv",
			"demo": false,
			"ollamaPs": "cli",
			"busyTimeout": "2m",
			"sessionGap": "90s",
			"serveMetrics": ":9500",
			"noColor": true,
		}`);
		expect(r.problems).toEqual([]);
		expect(r.config).toMatchObject({
			servers: [{url: 'http://127.0.0.1:11434'}, {url: 'https://box:8000', apiKeyEnv: 'VLLM_KEY'}],
			logs: ['/home/ada/.ollama/logs/server.log', 'llamacpp=/tmp/ls.log', 'cmd:journalctl -fu ollama'],
			bandwidth: 546,
			theme: 'solarized',
			refresh: 2000,
			history: '/home/ada/probes.csv',
			demo: false,
			ollamaPs: 'cli',
			busyTimeout: 120,
			sessionGap: 90,
			serveMetrics: '127.0.0.1:9500',
			noColor: true,
		});
		expect(Object.values(r.config.origin).every((o) => o === 'file')).toBe(true);
	});

	it('reports bad values with their line and column and keeps the defaults for them', () => {
		const text = ['{', '  "refresh": 50,', '  "theme": "dark",', '  "colour": true,', '  "demo": "yes",', '  "servers": ["http://a:1", 42, "ftp://b"]', '}'].join('\n');
		const r = fromText(text);
		expect(r.problems).toEqual([
			'/etc/infertop.json:2:14: refresh: expected 250..10000 ms (a number, or "2s"); using the default',
			'/etc/infertop.json:4:3: unknown key "colour"; ignored',
			'/etc/infertop.json:5:11: demo: expected "auto", true or false; using the default',
			'/etc/infertop.json:6:29: servers: a server is a URL string or {"url", "apiKey", "apiKeyEnv"}, not number; skipped',
			'/etc/infertop.json:6:33: servers: "ftp://b": only http:// and https:// servers; skipped',
		]);
		expect(r.config.refresh).toBe(1000);
		expect(r.config.origin.refresh).toBe('default');
		expect(r.config.theme).toBe('dark');
		expect(r.config.demo).toBe('auto');
		expect(r.config.servers).toEqual([{url: 'http://a:1'}]);
	});

	it('suggests the right name for a near miss', () => {
		const r = fromText('{"server": ["http://a:1"], "busy_timeout": 5}');
		expect(r.problems[0]).toContain('unknown key "server" (did you mean "servers"?)');
		expect(r.problems[1]).toContain('(did you mean "busyTimeout"?)');
	});

	it('invalid JSON: the whole file is ignored, with its position', () => {
		const r = fromText('{\n  "refresh": 500,\n  theme: "x"\n}');
		expect(r.problems).toHaveLength(1);
		expect(r.problems[0]).toMatch(/^\/etc\/infertop\.json:3:3: expected a "quoted" key, found "theme"; the file is ignored, using the defaults$/);
		expect(r.config.refresh).toBe(1000);
	});

	it('a top-level array or an unknown engine is reported', () => {
		expect(fromText('[1]').problems[0]).toContain('must be a JSON object');
		const r = fromText('{"logs": ["olama=/x.log"]}');
		expect(r.problems[0]).toContain('unknown engine "olama"');
		expect(r.config.logs).toEqual([]);
	});

	it('null means the default', () => {
		const r = fromText('{"bandwidth": null, "serveMetrics": null}');
		expect(r.problems).toEqual([]);
		expect(r.config.bandwidth).toBeUndefined();
		expect(r.config.origin.bandwidth).toBe('default');
	});

	it('reads a real file from disk', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-cfg-'));
		try {
			fs.mkdirSync(path.join(dir, 'infertop'));
			fs.writeFileSync(path.join(dir, 'infertop', 'config.json'), '{"refresh": 750}');
			const r = loadConfig({platform: 'linux', homedir: '/home/ada', env: {XDG_CONFIG_HOME: dir}});
			expect(r.source).toBe(path.join(dir, 'infertop', 'config.json'));
			expect(r.config.refresh).toBe(750);
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	});
});

describe('flags and merge', () => {
	it('flags beat the file, the file beats the defaults; lists are replaced', () => {
		const file = fromText('{"servers": ["http://a:1"], "refresh": 500, "theme": "x"}');
		const flags = configFromFlags({server: ['http://b:2'], refresh: '250', color: false}, linux);
		expect(flags.problems).toEqual([]);
		const c = mergeConfig(DEFAULTS, file.file, flags.partial, file.source);
		expect(c.servers).toEqual([{url: 'http://b:2'}]);
		expect(c.refresh).toBe(250);
		expect(c.theme).toBe('x');
		expect(c.noColor).toBe(true);
		expect(c.ollamaPs).toBe('api');
		expect(c.origin).toMatchObject({servers: 'flag', refresh: 'flag', theme: 'file', noColor: 'flag', ollamaPs: 'default'});
	});

	it('bad flags are reported by flag name', () => {
		const r = configFromFlags({refresh: 'fast', bandwidth: '-3', serveMetrics: 'localhost', server: []});
		expect(r.problems).toEqual([
			'--bandwidth: expected memory bandwidth in GB/s, a number in 0..100000 (e.g. 546), got "-3"',
			'--refresh: expected 250..10000 ms (a number, or "2s"), got "fast"',
			'--serve-metrics: "localhost": expected HOST:PORT (e.g. 127.0.0.1:9464)',
		]);
		expect(r.partial).toEqual({});
	});

	it('a flag that is not a finite number (meow reads "abc" as NaN) is an error, not a value', () => {
		const r = configFromFlags({refresh: Number.NaN, busyTimeout: Number.POSITIVE_INFINITY});
		expect(r.problems).toEqual([
			'--refresh: expected 250..10000 ms (a number, or "2s"), got "NaN"',
			'--busy-timeout: expected seconds, 0..3600 (a number, or "2m"), got "Infinity"',
		]);
		expect(r.partial).toEqual({});
	});

	it('--session-gap: seconds (or "2m") above 0, up to a day; 0 or garbage is an error naming the flag', () => {
		expect(configFromFlags({sessionGap: '2m'})).toEqual({partial: {sessionGap: 120}, problems: []});
		expect(configFromFlags({sessionGap: '45'})).toEqual({partial: {sessionGap: 45}, problems: []});
		expect(configFromFlags({sessionGap: '0'}).problems).toEqual(['--session-gap: expected seconds, more than 0 and at most 86400 (a number, or "2m"), got "0"']);
		expect(configFromFlags({sessionGap: 'soon'}).partial).toEqual({});
	});

	it('numeric command-line flags: a plain number within the range, else one line with the range', () => {
		const rule = {min: 0, max: 3600, unit: 'seconds'};
		expect(parseNumberFlag('--seconds', '2.5', rule)).toEqual({value: 2.5});
		expect(parseNumberFlag('--seconds', undefined, rule)).toEqual({});
		expect(parseNumberFlag('--seconds', '-1', rule)).toEqual({error: '--seconds: expected a number in 0..3600 seconds, got "-1"'});
		expect(parseNumberFlag('--seconds', '3s', rule).error).toBe('--seconds: expected a number in 0..3600 seconds, got "3s"');
		expect(parseNumberFlag('--seconds', '', rule).error).toBe('--seconds: expected a number in 0..3600 seconds, got ""');
		expect(parseNumberFlag('--runs', '2.5', {min: 1, max: 20, integer: true}).error).toBe('--runs: expected an integer in 1..20, got "2.5"');
		expect(parseNumberFlag('--runs', '0x10', {min: 1, max: 20, integer: true}).error).toBe('--runs: expected an integer in 1..20, got "0x10"');
	});

	it('resolveConfig does it all in one call', () => {
		const r = resolveConfig({...linux, path: '/c.json', readFile: () => '{"demo": true}', flags: {bandwidth: 273}});
		expect(r.problems).toEqual([]);
		expect(r.config.demo).toBe(true);
		expect(r.config.bandwidth).toBe(273);
		expect(r.config.configPath).toBe('/c.json');
		expect(effectiveHistoryPath(r.config, linux)).toBe('/home/ada/.local/state/infertop/probes.csv');
	});
});

describe('formatConfig', () => {
	it('prints every key with its origin, masks keys, and parses back', () => {
		const file = fromText('{"servers": [{"url": "http://a:1", "apiKey": "sk-secret"}], "refresh": 500}');
		const flags = configFromFlags({theme: 'mono'});
		const c = mergeConfig(DEFAULTS, file.file, flags.partial, file.source);
		const out = formatConfig(c, linux);
		expect(out).not.toContain('sk-secret');
		expect(out).toContain('"apiKey":"***"');
		expect(out).toContain('// config file: /etc/infertop.json');
		expect(out).toMatch(/"refresh": 500, \/\/ file$/m);
		expect(out).toMatch(/"theme": "mono", \/\/ flag \(--theme\)$/m);
		expect(out).toMatch(/"history": null, \/\/ default: \/home\/ada\/\.local\/state\/infertop\/probes\.csv$/m);
		const back = parseJsonc(out);
		expect(back.ok).toBe(true);
		const again = loadConfig({...linux, path: '/p.json', readFile: () => out});
		expect(again.problems).toEqual([]);
		expect(again.config.refresh).toBe(500);
		expect(again.config.theme).toBe('mono');
	});
});

describe('helpers', () => {
	it('parseLogSpec', () => {
		expect(parseLogSpec('/var/log/ollama.log')).toEqual({ok: true, spec: {kind: 'file', path: '/var/log/ollama.log'}});
		expect(parseLogSpec('vllm=cmd:docker logs -f vllm')).toEqual({ok: true, spec: {kind: 'cmd', command: 'docker logs -f vllm', engine: 'vllm'}});
		expect(parseLogSpec('cmd:  ').ok).toBe(false);
		expect(parseLogSpec('/tmp/a=b.log')).toEqual({ok: true, spec: {kind: 'file', path: '/tmp/a=b.log'}});
	});

	it('resolveApiKey: the file key, else the named variable', () => {
		expect(resolveApiKey({url: 'http://a', apiKeyEnv: 'K'}, {K: 'v'})).toBe('v');
		expect(resolveApiKey({url: 'http://a', apiKeyEnv: 'K'}, {})).toBeUndefined();
		expect(resolveApiKey({url: 'http://a', apiKey: 'f', apiKeyEnv: 'K'}, {K: 'v'})).toBe('f');
	});

	it('parseListenAddress', () => {
		expect(parseListenAddress('9464')).toEqual({ok: true, host: '127.0.0.1', port: 9464});
		expect(parseListenAddress('0.0.0.0:80')).toEqual({ok: true, host: '0.0.0.0', port: 80});
		expect(parseListenAddress('[::1]:9464')).toEqual({ok: true, host: '::1', port: 9464});
		expect(parseListenAddress('::1:9464').ok).toBe(false);
		expect(parseListenAddress('host:99999').ok).toBe(false);
	});
});
