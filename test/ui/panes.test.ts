import {describe, expect, it} from 'vitest';
import type {ModelFigures} from '../../source/model/figure-table.js';
import type {ServerState} from '../../source/types/state.js';
import {newServer} from '../../source/model/reducer.js';
import {busySystem} from '../helpers/ui-state.js';
import {contentionLines} from '../../source/ui/panes/contention.js';
import {emptyLines} from '../../source/ui/panes/empty.js';
import {residencyText as residencyOf} from '../../source/ui/view-model/engines.js';
import {visibleLog} from '../../source/ui/panes/log.js';
import {passesLines} from '../../source/ui/panes/passes.js';
import {tppWithEngine} from '../../source/model/figure-table.js';
import {disagreement, resultLines} from '../../source/ui/panes/probe.js';
import {emptySystem} from '../../source/types/system.js';
import {passesVerdictLine} from '../../source/ui/verdict.js';

const text = (segments: [string, string][]) => segments.map(([a, b]) => a + b).join('');
const base: ModelFigures = {serverId: 's', engine: 'llamacpp', requestCount: 1};

describe('passes figures', () => {
	it('shows the engine figure beside ours only when it differs', () => {
		expect(tppWithEngine({...base, tokensPerPass: 47 / 9, engineTokensPerPass: 5.75})).toBe('5.22 (engine 5.75)');
		expect(tppWithEngine({...base, tokensPerPass: 4.47, engineTokensPerPass: 4.47})).toBe('4.47');
		expect(tppWithEngine(undefined)).toBe('--');
	});

	it('prints -- for every unknown, ~ for an estimated B, never 0', () => {
		const lines = passesLines({...base}).map(text);
		expect(lines[0]).toBe('decode -- tok/s   tok/pass --   accept --   passes/s --');
		expect(lines[1]).toBe('ms/pass --   B --');
		expect(lines[2]).toBe('ceiling -- tok/s   -- of ceiling   eff. BW -- = -- of --');
		const est = passesLines({...base, bytesPerToken: 4.9e9, bytesPerTokenSource: '~ /v1/models meta.size'}).map(text);
		expect(est[1]).toBe('ms/pass --   B ~4.90 GB (/v1/models meta.size)');
	});

	it('DESIGN §1: 14.45 GB at 638 GB/s → ceiling 44 tok/s; 225 passes in 10.5 s → ~310 GB/s effective', () => {
		const pps = 225 / 10.5;
		const f: ModelFigures = {...base, decodeTps: 512 / 10.5, tokensPerPass: 512 / 225, passesPerSec: pps, msPerPass: 1000 / pps, bytesPerToken: 14.45e9, bandwidthGBs: 638, ceilingTps: 638e9 / 14.45e9, pctOfCeiling: 512 / 10.5 / (638e9 / 14.45e9), effectiveBandwidthGBs: (pps * 14.45e9) / 1e9};
		const lines = passesLines(f).map(text);
		expect(lines[0]).toBe('decode 48.8 tok/s   tok/pass 2.28   accept --   passes/s 21.4');
		expect(lines[1]).toBe('ms/pass 46.7   B 14.45 GB');
		expect(lines[2]).toBe('ceiling 44.2 tok/s   110% of ceiling   eff. BW 310 GB/s = 49% of 638 GB/s');
		expect(passesVerdictLine(f).text).toMatch(/^above the ceiling: 2\.3 tokens per pass/);
		expect(passesVerdictLine(f).level).toBe('good');
	});

	it('flags a model partly on CPU in words in the verdict', () => {
		const v = passesVerdictLine({...base, decodeTps: 5, gpuResidency: 0.52, pctOfCeiling: 0.2});
		expect(v.text).toMatch(/^partly on CPU \(48 % of the model\)/);
		expect(v.level).toBe('bad');
		expect(passesVerdictLine(undefined)).toEqual({text: 'no decode figures yet', level: 'muted'});
	});

	it('the demo\'s causes are said as simulated, never pinned on a real process', () => {
		const f: ModelFigures = {...base, decodeTps: 20, tokensPerPass: 2.5, gpuResidency: 0.7, pctOfCeiling: 0.4, effectiveBandwidthGBs: 100, bandwidthGBs: 546};
		const real = passesVerdictLine(f, 'contention: cc1plus 48 % CPU').text;
		expect(real).toBe('partly on CPU (30 % of the model); speculation on, but passes are slow: 100 GB/s of 546; contention: cc1plus 48 % CPU');
		const demo = passesVerdictLine(f, 'contention: cc1plus 48 % CPU', true).text;
		expect(demo).toBe('simulated: partly on CPU (30 % of the model); speculation on, but passes are slow: 100 GB/s of 546; simulated by the demo engine');
	});
});

describe('engines residency', () => {
	it('uses ollama ps PROCESSOR text, else layers offloaded, with the CPU share', () => {
		const s: ServerState = newServer({id: 'x', engine: 'ollama', source: 'flag'});
		expect(residencyOf(s, {name: 'm', sizeBytes: 20e9, sizeVramBytes: 10.4e9})).toEqual({text: '48%/52% CPU/GPU', cpuShare: 0.48});
		expect(residencyOf(s, {name: 'm', sizeBytes: 6e9, sizeVramBytes: 6e9})).toEqual({text: '100% GPU', cpuShare: undefined});
		const l: ServerState = {...newServer({id: 'y', engine: 'llamacpp', source: 'flag'}), offload: {layersOnGpu: 20, layersTotal: 33}};
		const r = residencyOf(l, undefined);
		expect(r.text).toBe('20/33 layers GPU');
		expect(r.cpuShare).toBeCloseTo(13 / 33);
		expect(residencyOf(newServer({id: 'z', engine: 'vllm', source: 'flag'}), undefined)).toEqual({text: '--', cpuShare: undefined});
	});
});

describe('contention, probe, log, empty', () => {
	it('lists GPU, hot processes, other engines, swap and power', () => {
		const lines = contentionLines(busySystem);
		expect(lines[0]).toBe('GPU 0 Apple M4 Pro  unified memory  util 87%');
		expect(lines[1]).toMatch(/^hot blender\s+pid 4242\s+110% CPU {2}for 3 min {2}1\.20 GB$/);
		expect(lines).toContain('other engines: llamacpp (llama-server pid 977, 4% CPU)');
		expect(lines).toContain('swap 2.10 GB of 8.00 GB  ·  power AC  ·  CPU load 63%');
		expect(contentionLines(emptySystem())).toEqual(['swap --']);
	});

	it('flags wall vs reported beyond 5 %', () => {
		const r = {t: 0, engine: 'ollama', url: 'u', protocol: 'ollama' as const, prompt: 'code', decodeTps: 47.6, reportedTps: 52.4};
		expect(disagreement(r)).toBe('⚠ differ by 9% (>5%)');
		expect(disagreement({...r, reportedTps: 48})).toBeUndefined();
		expect(resultLines({...r, ttftMs: undefined})[0]).toBe('TTFT --   decode 47.6 tok/s wall vs 52.4 reported');
	});

	it('filters, scrolls, sanitizes and highlights log lines', () => {
		const log = [
			{t: 0, text: 'alpha \u001b[31mred\u001b[0m one', parsed: true},
			{t: 1, text: 'beta two', parsed: false},
			{t: 2, text: 'alpha three', parsed: true},
		];
		const all = visibleLog(log, '', {}, 10, 80);
		expect(all.lines.map(l => l.text.slice(9))).toEqual(['• alpha red one', '  beta two', '• alpha three']);
		const sub = visibleLog(log, 'ALPHA', {}, 10, 80);
		expect(sub.matched).toBe(2);
		expect(sub.lines[0]!.ranges).toEqual([[11, 16]]);
		const re = visibleLog(log, '/t(wo|hree)/', {}, 10, 80);
		expect(re.lines.map(l => l.text.slice(11))).toEqual(['beta two', 'alpha three']);
		const bad = visibleLog(log, '/(/', {}, 10, 80);
		expect(bad.error).toMatch(/bad regex/);
		// Held at line 1 (absolute), one row: that line, whatever arrives later.
		expect(visibleLog(log, '', {end: 1}, 1, 80).lines.map(l => l.text.slice(11))).toEqual(['beta two']);
		expect(visibleLog(log, '', {}, 1, 80).lines.map(l => l.text.slice(11))).toEqual(['alpha three']);
	});

	it('empty state says what was looked for and how to point infertop at a server', () => {
		const lines = emptyLines({ports: [11434], processes: ['ollama'], logs: []}, true);
		expect(lines).toContain('  ports      11434');
		expect(lines).toContain('  logs       --');
		expect(lines.at(-1)).toMatch(/press d/);
		expect(emptyLines({ports: [11434], processes: [], logs: []}, false).at(-1)).toMatch(/infertop --demo/);
		// --no-scan: the scan did not run, and the text says so instead of `--`.
		const off = emptyLines({ports: [], processes: [], logs: []}, true);
		expect(off).toContain('  ports      not scanned (--no-scan)');
		expect(off).toContain('  processes  not scanned (--no-scan)');
	});

	it('issue 30: before the first look is done, the card says it is looking, never `ports --`', () => {
		const lines = emptyLines(undefined, true);
		expect(lines[0]).toBe('Looking for inference engines: default ports, engine processes, their logs…');
		expect(lines.join('\n')).not.toMatch(/Looked for|--$/m);
	});
});

describe('contention wording', () => {
	it('does not repeat "contention:" when the system verdict already says it', () => {
		const v = passesVerdictLine({...base, decodeTps: 20, pctOfCeiling: 0.7}, 'contention: node 88 % CPU for 14 s');
		expect(v.text).toBe('70 % of the ceiling; contention: node 88 % CPU for 14 s');
		expect(v.level).toBe('warn');
	});
});

describe('log filter window', () => {
	it('starts a long line shortly before a match that would be past the right edge', () => {
		const log = [{t: 0, text: `${'x'.repeat(100)} speculative decoding on`, parsed: true}];
		const v = visibleLog(log, 'speculative', {}, 5, 60);
		const line = v.lines[0]!;
		expect(line.text.slice(11)).toMatch(/^…x{9} speculative decoding on$/);
		const [a, b] = line.ranges[0]!;
		expect(line.text.slice(a, b)).toBe('speculative');
	});
});
