/**
 * Log line formats of a real Ollama 0.34 daemon (engines.md §1e) and of the llama-server it runs
 * with `--no-log-prefix --no-log-timestamps -lv 4` (engines.md §2a, the b10424+ era). Pure.
 */

const pad2 = (n: number): string => String(n).padStart(2, '0');
const pad3 = (n: number): string => String(n).padStart(3, '0');

/** Go's RFC3339 with milliseconds in local time, as slog's TextHandler writes `time=`. */
export function slogTime(d: Date): string {
	const off = -d.getTimezoneOffset();
	const base = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}T${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${pad3(d.getMilliseconds())}`;
	if (off === 0) return `${base}Z`;
	const sign = off > 0 ? '+' : '-';
	const a = Math.abs(off);
	return `${base}${sign}${pad2(Math.floor(a / 60))}:${pad2(a % 60)}`;
}

/** Quote a slog value when it needs quoting (spaces, quotes, `=`, empty). */
export function slogValue(v: string | number | boolean): string {
	const s = String(v);
	if (s === '' || /[\s"=\\]/.test(s) || /[^\x21-\x7e]/.test(s)) return JSON.stringify(s);
	return s;
}

export type SlogLevel = 'INFO' | 'WARN' | 'ERROR' | 'DEBUG';

/** `time=… level=INFO source=file.go:N msg="…" k=v …` */
export function slogLine(d: Date, level: SlogLevel, source: string, msg: string, attrs: ReadonlyArray<readonly [string, string | number | boolean]> = []): string {
	let line = `time=${slogTime(d)} level=${level} source=${source} msg=${slogValue(msg)}`;
	for (const [k, v] of attrs) line += ` ${/[\s"=]/.test(k) ? JSON.stringify(k) : k}=${slogValue(v)}`;
	return line;
}

/** Trim trailing zeros of a fixed fraction ("1.500" → "1.5", "2.000" → "2"). */
function trimFrac(s: string): string {
	return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** Go's time.Duration.String() for a duration in nanoseconds. */
export function goDuration(ns: bigint): string {
	if (ns === 0n) return '0s';
	const neg = ns < 0n;
	const a = neg ? -ns : ns;
	let out: string;
	if (a < 1000n) out = `${a}ns`;
	else if (a < 1_000_000n) out = `${trimFrac(`${a / 1000n}.${String(a % 1000n).padStart(3, '0')}`)}µs`;
	else if (a < 1_000_000_000n) out = `${trimFrac(`${a / 1_000_000n}.${String(a % 1_000_000n).padStart(6, '0')}`)}ms`;
	else {
		const h = a / 3_600_000_000_000n;
		const m = (a / 60_000_000_000n) % 60n;
		const sNs = a % 60_000_000_000n;
		const s = trimFrac(`${sNs / 1_000_000_000n}.${String(sNs % 1_000_000_000n).padStart(9, '0')}`);
		out = `${h > 0n ? `${h}h` : ''}${h > 0n || m > 0n ? `${m}m` : ''}${s}s`;
	}
	return neg ? `-${out}` : out;
}

/** gin's default log line (v1.10.0 defaultLogFormatter, no colours). */
export function ginLine(d: Date, status: number, latencyNs: bigint, clientIp: string, method: string, path: string): string {
	const ts = `${d.getFullYear()}/${pad2(d.getMonth() + 1)}/${pad2(d.getDate())} - ${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}`;
	return `[GIN] ${ts} | ${String(status).padStart(3)} | ${goDuration(latencyNs).padStart(13)} | ${clientIp.padStart(15)} | ${method.padEnd(7)}  ${JSON.stringify(path)}`;
}

/** C printf `%W.Pf` (right-aligned). */
export function fmtF(x: number, width: number, prec: number): string {
	const s = Number.isFinite(x) ? x.toFixed(prec) : x > 0 ? 'inf' : Number.isNaN(x) ? 'nan' : '-inf';
	return s.padStart(width);
}

/** C printf `%Wd`. */
export function fmtD(n: number, width: number): string {
	return String(Math.trunc(n)).padStart(width);
}

/** `slot %12.*s: id %2d | task %d | ` — llama-server's slot line, without prefix. */
export function slotLine(fn: string, slot: number, task: number, msg: string): string {
	return `slot ${fn.slice(0, 12).padStart(12)}: id ${fmtD(slot, 2)} | task ${task} | ${msg}`;
}

/** `srv  %12.*s: ` */
export function srvLine(fn: string, msg: string): string {
	return `srv  ${fn.slice(0, 12).padStart(12)}: ${msg}`;
}

/** `spec %12.*s: ` */
export function specLine(fn: string, msg: string): string {
	return `spec ${fn.slice(0, 12).padStart(12)}: ${msg}`;
}

export interface PrintTimings {
	readonly slot: number;
	readonly task: number;
	/** Uncached prompt tokens processed and their time. */
	readonly promptN: number;
	readonly promptMs: number;
	/** Generated tokens (n_gen) and the decode time. */
	readonly nGen: number;
	readonly predictedMs: number;
	readonly graphsReused: number;
	/** Speculation, when a draft was used. */
	readonly drafted?: number;
	readonly accepted?: number;
	readonly draftingPasses?: number;
	readonly accPerPos?: readonly number[];
}

/** llama-server's print_timings block (b10424+: eval time shows n_gen, rates use n_gen − 1). */
export function printTimingLines(t: PrintTimings): string[] {
	const l = (msg: string): string => slotLine('print_timings', t.slot, t.task, msg);
	const steps = t.nGen - 1;
	const pPer = t.promptN > 0 ? t.promptMs / t.promptN : Number.POSITIVE_INFINITY;
	const pTps = t.promptMs > 0 ? (t.promptN * 1000) / t.promptMs : Number.POSITIVE_INFINITY;
	const ePer = steps > 0 ? t.predictedMs / steps : Number.POSITIVE_INFINITY;
	const eTps = t.predictedMs > 0 ? (steps * 1000) / t.predictedMs : Number.POSITIVE_INFINITY;
	const lines = [
		l(`prompt eval time = ${fmtF(t.promptMs, 10, 2)} ms / ${fmtD(t.promptN, 5)} tokens (${fmtF(pPer, 8, 2)} ms per token, ${fmtF(pTps, 8, 2)} tokens per second)`),
		l(`       eval time = ${fmtF(t.predictedMs, 10, 2)} ms / ${fmtD(t.nGen, 5)} tokens (${fmtF(ePer, 8, 2)} ms per token, ${fmtF(eTps, 8, 2)} tokens per second)`),
		l(`      total time = ${fmtF(t.promptMs + t.predictedMs, 10, 2)} ms / ${fmtD(t.promptN + t.nGen, 5)} tokens`),
		l(`   graphs reused = ${fmtD(t.graphsReused, 10)}`),
	];
	if (t.drafted !== undefined && t.accepted !== undefined && t.drafted > 0) {
		const rate = t.accepted / t.drafted;
		const mean = 1 + t.accepted / Math.max(1, t.draftingPasses ?? 1);
		lines.push(l(`draft acceptance = ${rate.toFixed(5)} (${fmtD(t.accepted, 5)} accepted / ${fmtD(t.drafted, 5)} generated), mean len = ${fmtF(mean, 5, 2)}`));
		if (t.accPerPos) lines.push(l(`     acc per pos = (${t.accPerPos.map((x) => x.toFixed(3)).join(', ')})`));
	}
	return lines;
}

/** common_speculative_print_stats (trace, b9838+), cumulative over the server's life. */
export function specStatisticsLine(type: string, s: {calls: number; genDrafts: number; accDrafts: number; genTokens: number; accTokens: number; accPerPos: readonly number[]; durMs: readonly [number, number, number]}): string {
	const mean = s.genDrafts > 0 ? 1 + s.accTokens / s.genDrafts : 0;
	return specLine(
		'common_speculative_print_stats',
		`statistics ${type.padStart(16)}: #calls(b,g,a) = ${fmtD(1, 4)} ${fmtD(s.calls, 6)} ${fmtD(s.calls, 6)}, #gen drafts = ${fmtD(s.genDrafts, 6)}, #acc drafts = ${fmtD(s.accDrafts, 5)}, #gen tokens = ${fmtD(s.genTokens, 6)}, #acc tokens = ${fmtD(s.accTokens, 5)}, #mean acc len = ${mean.toFixed(2)}, #acc rate/pos = (${s.accPerPos.map((x) => x.toFixed(3)).join(', ')}), dur(b,g,a) = ${s.durMs.map((x) => x.toFixed(3)).join(', ')} ms`,
	);
}

/** `%s: %12s model buffer size = %8.2f MiB` and friends. */
export function bufferLine(prefix: string, device: string, kind: 'model' | 'KV' | 'compute' | 'output', bytes: number): string {
	const width = kind === 'model' ? 12 : 10;
	return `${prefix}: ${device.padStart(width)} ${kind === 'output' ? ' ' : ''}${kind} buffer size = ${fmtF(bytes / 1048576, 8, 2)} MiB`;
}
