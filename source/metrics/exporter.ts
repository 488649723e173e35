/**
 * `--serve-metrics ADDR`: the live figures as Prometheus metrics (text exposition format 0.0.4).
 * Ollama has no /metrics endpoint (ollama#3144): infertop derives one from what it sees.
 * Names and labels are listed in source/metrics/README.md and are stable.
 *
 * The exposition is written by hand rather than with prom-client: every value here is a snapshot
 * computed from the store at scrape time, and a figure that is unknown must disappear from the
 * output (never 0). With prom-client that means resetting every gauge before each scrape and
 * re-setting the known ones; writing the ~15 lines of the format directly is simpler, exact, has
 * no global registry to leak between tests, and keeps prom-client out of the bundle.
 *
 * A figure that is unknown (undefined, NaN, ±Infinity) is OMITTED. The HELP/TYPE lines of every
 * family are always written, so a scraper sees the whole vocabulary.
 */
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import type {ModelFigures, MonitorState} from '../types/monitor.js';
import {DEFAULT_METRICS_ADDR, parseListenAddress} from './address.js';

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Readonly<Record<string, string | undefined>>;
interface Sample {
	readonly labels: Labels;
	readonly value: number;
}
interface Family {
	readonly name: string;
	readonly type: 'gauge' | 'counter';
	readonly help: string;
	readonly samples: Sample[];
}

/** Label values: backslash, double quote and newline escaped (exposition format 0.0.4). */
export function escapeLabelValue(value: string): string {
	return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text: backslash and newline escaped. */
function escapeHelp(text: string): string {
	return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatLabels(labels: Labels): string {
	const parts: string[] = [];
	for (const [k, v] of Object.entries(labels)) if (v !== undefined && v !== '') parts.push(`${k}="${escapeLabelValue(v)}"`);
	return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64) and JS agree on the digits; JS writes exponents as `e+21`, which parsers accept. */
const formatValue = (v: number): string => String(v);

const known = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v);

// ---------------------------------------------------------------------------------------------
// Counters from finished requests seen in logs

interface CounterKey {
	readonly engine: string;
	readonly server: string;
	readonly model?: string;
}
interface CounterTotals {
	requests: number;
	generated?: number;
	prompt?: number;
	drafted?: number;
	accepted?: number;
}

/**
 * Monotonic totals over every finished request infertop has seen since start: the reducer counts
 * each one once, when it finishes, under the model label known then (the listed name, or
 * `unknown` without evidence), so a burst larger than the request ring is still counted in full.
 */
export class RequestCounters {
	private state: MonitorState | undefined;

	observe(state: MonitorState): void {
		this.state = state;
	}

	entries(): readonly {readonly key: CounterKey; readonly totals: Readonly<CounterTotals>}[] {
		const state = this.state;
		if (!state) return [];
		return Object.entries(state.servers).flatMap(([serverId, server]) =>
			Object.entries(server.totals).map(([model, totals]) => ({key: {engine: server.engine, server: server.url ?? serverId, model}, totals})),
		);
	}
}

// ---------------------------------------------------------------------------------------------
// Rendering

const MODEL_GAUGES: readonly (readonly [name: string, help: string, pick: (f: ModelFigures) => number | undefined])[] = [
	['infertop_decode_tokens_per_second', 'Decode tokens per second (wall), DESIGN decodeTps.', (f) => f.decodeTps],
	['infertop_reported_tokens_per_second', "The engine's own decode tokens per second, DESIGN reportedTps.", (f) => f.reportedTps],
	['infertop_tokens_per_pass', 'Generated tokens per target forward pass, DESIGN tokensPerPass.', (f) => f.tokensPerPass],
	['infertop_draft_acceptance_ratio', 'Accepted draft tokens / drafted tokens (0..1), DESIGN acceptance.', (f) => f.acceptance],
	['infertop_ms_per_pass', 'Milliseconds per target forward pass, DESIGN msPerPass.', (f) => f.msPerPass],
	['infertop_passes_per_second', 'Target forward passes per second, DESIGN passesPerSec.', (f) => f.passesPerSec],
	['infertop_bytes_per_token', 'Bytes of weights one target pass reads, DESIGN bytesPerToken.', (f) => f.bytesPerToken],
	['infertop_ceiling_tokens_per_second', 'Memory-bandwidth ceiling: bandwidth / bytes per token, DESIGN ceilingTps.', (f) => f.ceilingTps],
	['infertop_ceiling_ratio', 'Decode tokens per second / ceiling (1 = 100 %), DESIGN pctOfCeiling.', (f) => f.pctOfCeiling],
	['infertop_effective_bandwidth_gbps', 'Bandwidth the engine pulled, gigabytes (1e9 B) per second, DESIGN effectiveBandwidthGBs.', (f) => f.effectiveBandwidthGBs],
	['infertop_gpu_residency_ratio', 'Share of the model on the GPU (0..1), DESIGN gpuResidency.', (f) => f.gpuResidency],
];

const COUNTERS: readonly (readonly [name: string, help: string, pick: (t: Readonly<CounterTotals>) => number | undefined])[] = [
	['infertop_requests_total', 'Finished generation requests seen in the logs.', (t) => t.requests],
	['infertop_generated_tokens_total', 'Tokens generated by the finished requests seen in the logs.', (t) => t.generated],
	['infertop_prompt_tokens_total', 'Prompt tokens (cached + processed) of the finished requests seen in the logs.', (t) => t.prompt],
	['infertop_draft_tokens_total', 'Draft tokens proposed by speculative decoding in the finished requests seen.', (t) => t.drafted],
	['infertop_accepted_tokens_total', 'Draft tokens accepted in the finished requests seen.', (t) => t.accepted],
];

/** The full exposition text for one state. Pure (counters are read, not updated). */
export function renderMetrics(state: MonitorState, figures: readonly ModelFigures[], counters?: RequestCounters): string {
	const families: Family[] = [];
	const family = (name: string, type: Family['type'], help: string): Family => {
		const f: Family = {name, type, help, samples: []};
		families.push(f);
		return f;
	};
	const serverLabel = (serverId: string): string => state.servers[serverId]?.url ?? serverId;

	for (const [name, help, pick] of MODEL_GAUGES) {
		const fam = family(name, 'gauge', help);
		for (const f of figures) {
			const v = pick(f);
			if (known(v)) fam.samples.push({labels: {engine: f.engine, server: serverLabel(f.serverId), model: f.model}, value: v});
		}
	}

	// The last probe per server and model.
	const lastProbe = new Map<string, MonitorState['probe']['results'][number]>();
	for (const p of state.probe.results) lastProbe.set(`${p.url}\u0000${p.model ?? ''}`, p);
	const ttft = family('infertop_probe_ttft_seconds', 'gauge', 'Time to first token of the last probe, seconds (wall clock).');
	const probeTps = family('infertop_probe_decode_tokens_per_second', 'gauge', 'Decode tokens per second (wall) of the last probe.');
	for (const p of lastProbe.values()) {
		const labels = {engine: p.engine, server: p.url, model: p.model};
		if (known(p.ttftMs)) ttft.samples.push({labels, value: p.ttftMs / 1000});
		if (known(p.decodeTps)) probeTps.samples.push({labels, value: p.decodeTps});
	}

	const entries = counters?.entries() ?? [];
	for (const [name, help, pick] of COUNTERS) {
		const fam = family(name, 'counter', help);
		for (const {key, totals} of entries) {
			const v = pick(totals);
			if (known(v)) fam.samples.push({labels: {engine: key.engine, server: key.server, model: key.model}, value: v});
		}
	}

	const up = family('infertop_server_up', 'gauge', 'Whether the server answers (1) or stopped answering (0); absent for log-only sources.');
	for (const id of state.order) {
		const s = state.servers[id];
		if (!s || s.state === 'log-only') continue;
		up.samples.push({labels: {server: s.url ?? id, engine: s.engine, ...(s.demo === true ? {demo: 'true'} : {})}, value: s.state === 'up' || s.state === 'restarted' ? 1 : 0});
	}

	const sys = state.system;
	const systemKnown = sys.updatedAt !== undefined;
	const active = family('infertop_contention_active', 'gauge', 'Whether something competes with the engines right now (1) or not (0).');
	if (systemKnown) active.samples.push({labels: {}, value: sys.contention.active ? 1 : 0});
	const hot = family('infertop_contention_cpu_percent', 'gauge', 'CPU taken by another busy process, percent (100 = one core).');
	for (const p of sys.contention.hot) if (known(p.cpuPct)) hot.samples.push({labels: {process: p.name, pid: String(p.pid)}, value: p.cpuPct});
	const swap = family('infertop_swap_used_bytes', 'gauge', 'Swap in use, bytes.');
	if (known(sys.contention.swapUsedBytes)) swap.samples.push({labels: {}, value: sys.contention.swapUsedBytes});
	const selfCpu = family('infertop_self_cpu_percent', 'gauge', "infertop's own CPU use, percent (100 = one core).");
	if (known(sys.self.cpuPct)) selfCpu.samples.push({labels: {}, value: sys.self.cpuPct});
	const selfRss = family('infertop_self_rss_bytes', 'gauge', "infertop's own resident memory, bytes.");
	if (known(sys.self.rssBytes)) selfRss.samples.push({labels: {}, value: sys.self.rssBytes});

	const out: string[] = [];
	for (const f of families) {
		out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
		const seen = new Set<string>();
		for (const s of f.samples) {
			const line = `${f.name}${formatLabels(s.labels)}`;
			if (seen.has(line)) continue; // one series per label set (the first wins)
			seen.add(line);
			out.push(`${line} ${formatValue(s.value)}`);
		}
	}
	return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// The HTTP server

export interface MetricsServerOptions {
	/** `HOST:PORT` (see parseListenAddress); default 127.0.0.1:9464. Port 0 picks a free port. */
	readonly addr?: string;
	readonly getState: () => MonitorState;
	/** source/model/derive.ts deriveModels. */
	readonly derive: (state: MonitorState) => readonly ModelFigures[];
	/** How often finished requests are counted between scrapes (ms); default 1000. */
	readonly sampleEveryMs?: number;
}

export interface MetricsServer {
	/** e.g. `http://127.0.0.1:9464/metrics` (the real port when 0 was asked). */
	readonly url: string;
	close(): Promise<void>;
}

/**
 * Serve `GET /metrics`. Resolves once listening; rejects with a short reason (`127.0.0.1:9464:
 * address already in use`) when it cannot bind. A scrape never throws out of the server: a failure
 * to compute answers 500 with the reason.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
	const addr = options.addr ?? DEFAULT_METRICS_ADDR;
	const parsed = parseListenAddress(addr);
	if (!parsed.ok) throw new Error(`--serve-metrics: ${parsed.error}`);
	const counters = new RequestCounters();
	const observe = (): MonitorState | undefined => {
		try {
			const state = options.getState();
			counters.observe(state);
			return state;
		} catch {
			return undefined;
		}
	};

	const server = http.createServer((req, res) => {
		const path = (req.url ?? '/').split('?')[0];
		if (req.method !== 'GET' && req.method !== 'HEAD') {
			res.writeHead(405, {allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8'}).end('method not allowed\n');
			return;
		}
		if (path === '/') {
			res.writeHead(200, {'content-type': 'text/plain; charset=utf-8'}).end('infertop: Prometheus metrics at /metrics\n');
			return;
		}
		if (path !== '/metrics') {
			res.writeHead(404, {'content-type': 'text/plain; charset=utf-8'}).end('not found; try /metrics\n');
			return;
		}
		let body: string;
		try {
			const state = options.getState();
			counters.observe(state);
			body = renderMetrics(state, options.derive(state), counters);
		} catch (error) {
			res.writeHead(500, {'content-type': 'text/plain; charset=utf-8'}).end(`infertop: cannot compute metrics: ${error instanceof Error ? error.message : String(error)}\n`);
			return;
		}
		res.writeHead(200, {'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store'});
		res.end(req.method === 'HEAD' ? undefined : body);
	});
	server.keepAliveTimeout = 5000;

	await new Promise<void>((resolve, reject) => {
		const onError = (error: NodeJS.ErrnoException): void => {
			const why = error.code === 'EADDRINUSE' ? 'address already in use' : error.code === 'EADDRNOTAVAIL' ? 'no such address on this machine' : error.code === 'EACCES' ? 'permission denied' : error.message;
			reject(new Error(`--serve-metrics ${addr}: ${why}`));
		};
		server.once('error', onError);
		server.listen(parsed.port, parsed.host, () => {
			server.off('error', onError);
			resolve();
		});
	});
	// Errors after listening (e.g. a client reset) must not crash the monitor.
	server.on('error', () => {});
	server.on('clientError', (_error, socket) => socket.destroy());

	observe();
	const timer = setInterval(observe, options.sampleEveryMs ?? 1000);
	timer.unref();

	const bound = server.address() as AddressInfo;
	const host = bound.family === 'IPv6' || bound.address.includes(':') ? `[${bound.address}]` : bound.address;
	let closing: Promise<void> | undefined;
	return {
		url: `http://${host}:${bound.port}/metrics`,
		close() {
			clearInterval(timer);
			closing ??= new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closing;
		},
	};
}
