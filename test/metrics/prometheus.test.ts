/**
 * A real Prometheus (Debian's `prometheus` package) scrapes infertop every second while infertop
 * watches the demo engine; the test reads Prometheus's HTTP API and checks the series, the
 * recording rules of deploy/alerts.yml and one pending alert. promtool checks the live exposition
 * and the rules. Prometheus listens on 127.0.0.1, keeps its data in a temp folder, and is stopped
 * by its pid.
 *
 * Skipped, with the reason, only when prometheus/promtool are not installed and CI is not set;
 * in CI (CI=true, where .ci/run installs them with apt) a missing binary fails the test.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {execa, type ResultPromise} from 'execa';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {DEFAULTS, mergeConfig} from '../../source/config/config.js';
import {startMetricsServer, type MetricsServer} from '../../source/metrics/exporter.js';
import {deriveModels} from '../../source/model/derive.js';
import {startRuntime, type Runtime} from '../../source/runtime.js';
import {httpGet, isAnswer} from '../../source/sources/http-get.js';
import {waitUntil} from '../helpers/wait.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RULES = path.join(root, 'deploy', 'alerts.yml');
const SCRAPE_CONFIG = path.join(root, 'deploy', 'prometheus.yml');

function which(bin: string): string | undefined {
	try {
		return execFileSync('sh', ['-c', `command -v ${bin}`], {encoding: 'utf8'}).trim() || undefined;
	} catch {
		return undefined;
	}
}

const PROMETHEUS = which('prometheus');
const PROMTOOL = which('promtool');
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const HAVE = PROMETHEUS !== undefined && PROMTOOL !== undefined;
if (!HAVE && !IN_CI) {
	process.stderr.write('prometheus.test.ts: skipped: prometheus/promtool not installed (apt-get install -y prometheus; CI installs it)\n');
}

async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as net.AddressInfo).port;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

interface PromSample {
	metric: Record<string, string>;
	value: [number, string];
}

describe.runIf(HAVE || IN_CI)('Prometheus scrapes infertop watching the demo', () => {
	let runtime: Runtime | undefined;
	let metrics: MetricsServer | undefined;
	let prometheus: ResultPromise | undefined;
	let dataDir: string | undefined;
	let api = '';
	let demoUrl = '';

	const query = async (q: string, time?: number): Promise<PromSample[]> => {
		const r = await httpGet(`${api}/api/v1/query?query=${encodeURIComponent(q)}${time === undefined ? '' : `&time=${time}`}`, {timeoutMs: 10_000});
		if (!isAnswer(r) || r.status !== 200) return [];
		const body = JSON.parse(r.body) as {status: string; data: {resultType: string; result: PromSample[]}};
		return body.status === 'success' ? body.data.result : [];
	};
	const exposition = async (): Promise<string> => {
		const r = await httpGet(metrics!.url, {timeoutMs: 10_000});
		return isAnswer(r) ? r.body : '';
	};

	beforeAll(async () => {
		expect(PROMETHEUS, 'prometheus is not installed: .ci/run installs it with apt-get install -y prometheus').toBeDefined();
		expect(PROMTOOL, 'promtool is not installed (Debian package prometheus)').toBeDefined();
		const config = mergeConfig(DEFAULTS, {}, {demo: true, history: '/dev/null'});
		runtime = await startRuntime({config, scan: false, demoSplit: 0.35, demoSpeed: 4, pollMs: 500});
		await runtime.ready;
		demoUrl = runtime.demo()!.url;
		metrics = await startMetricsServer({addr: '127.0.0.1:0', getState: runtime.store.getSnapshot, derive: deriveModels, sampleEveryMs: 250});
		const target = new URL(metrics.url).host;

		dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-prometheus-'));
		// deploy/prometheus.yml's job, pointed at this infertop, scraped every second.
		const shipped = fs.readFileSync(SCRAPE_CONFIG, 'utf8');
		expect(shipped).toContain('job_name: infertop');
		fs.writeFileSync(
			path.join(dataDir, 'prometheus.yml'),
			[
				'global: {scrape_interval: 1s, evaluation_interval: 1s}',
				`rule_files: [${JSON.stringify(RULES)}]`,
				'scrape_configs:',
				'  - job_name: infertop',
				'    scrape_interval: 1s',
				`    static_configs: [{targets: [${JSON.stringify(target)}], labels: {machine: test-box}}]`,
				'',
			].join('\n'),
		);
		const port = await freePort();
		api = `http://127.0.0.1:${port}`;
		prometheus = execa(PROMETHEUS!, [
			`--config.file=${path.join(dataDir, 'prometheus.yml')}`,
			`--storage.tsdb.path=${path.join(dataDir, 'data')}`,
			`--web.listen-address=127.0.0.1:${port}`,
			'--log.level=warn',
		], {reject: false, stdin: 'ignore', stdout: 'ignore', stderr: 'pipe', cleanup: true});
		await waitUntil(async () => {
			if (prometheus!.exitCode !== null && prometheus!.exitCode !== undefined) throw new Error(`prometheus exited: ${String((await prometheus)?.stderr).slice(0, 500)}`);
			const r = await httpGet(`${api}/-/ready`, {timeoutMs: 2000});
			return isAnswer(r) && r.status === 200;
		}, {timeoutMs: 60_000, everyMs: 200, what: 'prometheus ready'});
	}, 120_000);

	afterAll(async () => {
		if (prometheus?.pid !== undefined) {
			process.kill(prometheus.pid, 'SIGTERM');
			const killer = setTimeout(() => prometheus?.pid !== undefined && process.kill(prometheus.pid, 'SIGKILL'), 10_000);
			await prometheus;
			clearTimeout(killer);
		}
		await metrics?.close();
		await runtime?.stop();
		if (dataDir) fs.rmSync(dataDir, {recursive: true, force: true});
	}, 60_000);

	it('scrapes the series, computes the recording rules, and promtool accepts the exposition and the rules', async () => {
		// Both demo models have finished requests and their histograms are in the exposition.
		await waitUntil(async () => {
			const text = await exposition();
			return /infertop_gpu_residency_ratio\{[^}]*model="qwen3\.8:latest"/.test(text) &&
				/infertop_request_tokens_per_pass_count\{[^}]*model="qwen3\.8:27b-mlx"/.test(text) &&
				/^infertop_seconds_per_pass\{/m.test(text);
		}, {timeoutMs: 120_000, everyMs: 500, what: 'both demo models with finished requests'});

		// promtool lints the live exposition: no abbreviated units, counters end in _total, HELP present.
		const text = await exposition();
		const lint = await execa(PROMTOOL!, ['check', 'metrics'], {input: text, reject: false});
		expect(`${lint.stdout}${lint.stderr}`).toBe('');
		expect(lint.exitCode).toBe(0);
		const rules = await execa(PROMTOOL!, ['check', 'rules', RULES], {reject: false});
		expect(rules.exitCode, rules.stdout + rules.stderr).toBe(0);

		// The series, as scraped: the demo server is up, with the labels infertop gives it.
		// (Waiting for the value, not just the series: a poll that timed out on a loaded machine reads 0 for a moment.)
		await waitUntil(async () => (await query('infertop_server_up')).some((x) => x.value[1] === '1'), {timeoutMs: 60_000, everyMs: 500, what: 'infertop_server_up scraped'});
		const up = await query('infertop_server_up');
		expect(up.map((s) => [s.metric.server, s.metric.engine, s.metric.demo, s.metric.job, s.metric.machine, s.value[1]])).toEqual([[demoUrl, 'ollama', 'true', 'infertop', 'test-box', '1']]);

		// Recording rule: one server up on this machine.
		await waitUntil(async () => (await query('infertop:servers_up:count')).some((x) => x.value[1] === '1'), {timeoutMs: 60_000, everyMs: 500, what: 'infertop:servers_up:count'});
		const count = await query('infertop:servers_up:count');
		expect(count.map((s) => [s.metric.machine, s.value[1]])).toEqual([['test-box', '1']]);

		// Recording rule: CPU share = 1 − GPU residency, exactly, per model (the GGUF model is split 0.35 on the CPU).
		await waitUntil(async () => (await query('infertop:model_cpu_share:ratio')).length === 2, {timeoutMs: 60_000, everyMs: 500, what: 'cpu share of both models'});
		const share = Object.fromEntries((await query('infertop:model_cpu_share:ratio')).map((s) => [s.metric.model, Number(s.value[1])]));
		const residency = Object.fromEntries((await query('infertop_gpu_residency_ratio')).map((s) => [s.metric.model, Number(s.value[1])]));
		expect(Object.keys(share).sort()).toEqual(['qwen3.8:27b-mlx', 'qwen3.8:latest']);
		expect(share['qwen3.8:27b-mlx']).toBe(0);
		expect(share['qwen3.8:latest']).toBe(1 - residency['qwen3.8:latest']!);
		expect(share['qwen3.8:latest']).toBeGreaterThan(0.3);

		// Recording rule: mean tokens per pass = histogram sum / count at the same instant.
		let checked = false;
		await waitUntil(async () => {
			const mean = await query('infertop:request_tokens_per_pass:mean{model="qwen3.8:27b-mlx"}');
			if (mean.length !== 1) return false;
			const [t, v] = mean[0]!.value;
			const sum = await query('sum(infertop_request_tokens_per_pass_sum{model="qwen3.8:27b-mlx"})', t);
			const n = await query('sum(infertop_request_tokens_per_pass_count{model="qwen3.8:27b-mlx"})', t);
			if (sum.length !== 1 || n.length !== 1) return false;
			// A scrape landing between the rule's evaluation and these queries makes them differ: ask again.
			if (Number(v) !== Number(sum[0]!.value[1]) / Number(n[0]!.value[1])) return false;
			checked = Number(v) >= 1;
			return true;
		}, {timeoutMs: 60_000, everyMs: 300, what: 'tokens-per-pass mean = sum / count'});
		expect(checked).toBe(true);

		// Histograms arrive as _bucket series, one per le, the +Inf one equal to _count.
		const buckets = await query('infertop_request_tokens_per_pass_bucket{model="qwen3.8:27b-mlx"}');
		expect(buckets.map((s) => s.metric.le).sort()).toEqual(['+Inf', '1', '1.25', '1.5', '2', '2.5', '3', '3.5', '4', '5', '6', '8'].sort());

		// Every query of deploy/grafana-dashboard.json parses in Prometheus, and every infertop name it
		// uses is a family of the exposition or a recording rule of deploy/alerts.yml.
		const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'deploy', 'grafana-dashboard.json'), 'utf8')) as {panels: {title: string; targets: {expr: string}[]}[]};
		const families = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]!));
		const recorded = new Set([...fs.readFileSync(RULES, 'utf8').matchAll(/record: (\S+)/g)].map((m) => m[1]!));
		let exprs = 0;
		for (const panel of dashboard.panels) {
			for (const {expr} of panel.targets) {
				exprs++;
				const q = expr.replaceAll('$machine', '.*').replaceAll('$model', '.*');
				const r = await httpGet(`${api}/api/v1/query?query=${encodeURIComponent(q)}`, {timeoutMs: 10_000});
				expect(isAnswer(r) && r.status, `${panel.title}: ${expr}`).toBe(200);
				for (const m of expr.matchAll(/\b(infertop[:_][a-z0-9_:]+)/g)) {
					const name = m[1]!.replace(/_(bucket|sum|count)$/, '');
					expect(families.has(name) || recorded.has(m[1]!), `${panel.title}: ${m[1]} is neither exported nor recorded`).toBe(true);
				}
			}
		}
		expect(exprs).toBeGreaterThan(10);

		// The alert on a model partly on the CPU is pending (it fires after 5 minutes) for the split GGUF model only.
		await waitUntil(async () => {
			const r = await httpGet(`${api}/api/v1/alerts`, {timeoutMs: 10_000});
			if (!isAnswer(r)) return false;
			const alerts = (JSON.parse(r.body) as {data: {alerts: {labels: Record<string, string>; state: string}[]}}).data.alerts;
			const cpu = alerts.filter((a) => a.labels.alertname === 'ModelPartlyOnCpu');
			if (cpu.length === 0) return false;
			expect(cpu.map((a) => [a.labels.model, a.state])).toEqual([['qwen3.8:latest', 'pending']]);
			return true;
		}, {timeoutMs: 60_000, everyMs: 500, what: 'ModelPartlyOnCpu pending'});
	}, 300_000);

	it('the agent budget as counters per model: scraped, promtool-clean, unknown parts counted apart (never as 0 s)', async () => {
		// The demo's background agent (one client, 127.0.0.1) makes sessions on both models; a turn is counted once a later one follows.
		await waitUntil(async () => (await query('infertop_agent_turns_total{model="qwen3.8:latest"}')).some((x) => Number(x.value[1]) >= 2), {timeoutMs: 120_000, everyMs: 500, what: 'agent turns scraped'});
		const text = await exposition();
		const lint = await execa(PROMTOOL!, ['check', 'metrics'], {input: text, reject: false});
		expect(`${lint.stdout}${lint.stderr}`).toBe('');
		for (const name of ['infertop_agent_queue_seconds_total', 'infertop_agent_prefill_seconds_total', 'infertop_agent_decode_seconds_total', 'infertop_agent_idle_seconds_total', 'infertop_agent_cache_saved_seconds_total']) {
			expect(text).toContain(`# TYPE ${name} counter`);
		}
		// The GGUF model's turns: prefill and decode from print_timing, queue from [GIN] latency, all known.
		const series = (name: string, model: string) => Number(new RegExp(`^${name}\\{[^}]*model="${model.replace(/\./g, '\\.')}"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1]);
		expect(series('infertop_agent_prefill_seconds_total', 'qwen3.8:latest')).toBeGreaterThan(0);
		expect(/^infertop_agent_turns_part_unknown_total\{[^}]*model="qwen3\.8:latest",part="prefill"\} 0$/m.test(text)).toBe(true);
		// The MLX runner logs no prompt time: its turns' prefill is unknown, counted as such, never as 0 seconds.
		await waitUntil(async () => /^infertop_agent_turns_part_unknown_total\{[^}]*model="qwen3\.8:27b-mlx",part="prefill"\} [1-9]/m.test(await exposition()), {timeoutMs: 120_000, everyMs: 500, what: 'MLX turns with unknown prefill'});
		expect(/^infertop_agent_prefill_seconds_total\{[^}]*model="qwen3\.8:27b-mlx"/m.test(await exposition())).toBe(false);
		// rate() over the counters parses and answers.
		const r = await httpGet(`${api}/api/v1/query?query=${encodeURIComponent('sum by (model) (rate(infertop_agent_prefill_seconds_total[1m]))')}`, {timeoutMs: 10_000});
		expect(isAnswer(r) && r.status).toBe(200);
	}, 300_000);
});

describe.runIf(PROMTOOL !== undefined || IN_CI)('promtool test rules: AgentPromptTruncated (issue 28)', () => {
	it('fires when an agent turn was truncated in the last 15 minutes, and not before or long after', () => {
		expect(PROMTOOL, 'promtool is not installed (Debian package prometheus)').toBeDefined();
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-rules-'));
		try {
			const labels = '{machine="box", instance="127.0.0.1:9464", job="infertop", engine="ollama", server="http://127.0.0.1:11434", model="qwen3-coder:30b", kind="truncated"}';
			fs.writeFileSync(path.join(dir, 'test.yml'), [
				`rule_files: [${JSON.stringify(RULES)}]`,
				'evaluation_interval: 1m',
				'tests:',
				'  - interval: 1m',
				'    input_series:',
				`      - series: 'infertop_agent_findings_total${labels}'`,
				// No truncation for 10 minutes, then 3 turns cut at minute 11, then nothing more.
				"        values: '0x10 3x40'",
				'    alert_rule_test:',
				'      - {eval_time: 5m, alertname: AgentPromptTruncated, exp_alerts: []}',
				'      - eval_time: 15m',
				'        alertname: AgentPromptTruncated',
				'        exp_alerts:',
				`          - exp_labels: {severity: warning, machine: box, instance: "127.0.0.1:9464", job: infertop, engine: ollama, server: "http://127.0.0.1:11434", model: "qwen3-coder:30b", kind: truncated}`,
				'            exp_annotations:',
				"              summary: \"an agent's prompt to qwen3-coder:30b on box was truncated to fit the context window\"",
				"              description: '3 agent turns in 15 minutes had their prompt cut by ollama at http://127.0.0.1:11434. Load the model with a larger context (Ollama: OLLAMA_CONTEXT_LENGTH=65536; llama-server: -c 65536).'",
				'      - {eval_time: 45m, alertname: AgentPromptTruncated, exp_alerts: []}',
				'',
			].join('\n'));
			const r = execFileSync('sh', ['-c', `${PROMTOOL!} test rules ${JSON.stringify(path.join(dir, 'test.yml'))} 2>&1 || true`], {encoding: 'utf8'});
			expect(r).toContain('SUCCESS');
			const check = execFileSync('sh', ['-c', `${PROMTOOL!} check rules ${JSON.stringify(RULES)} 2>&1 || true`], {encoding: 'utf8'});
			expect(check).toContain('SUCCESS');
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	});
});
