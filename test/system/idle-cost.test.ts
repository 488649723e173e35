/**
 * The pieces of the idle monitor's cost that are structure, not time: what wakes the system scan,
 * the in-place /proc stat parser, Linux power from sysfs, nvidia-smi looked up before it is spawned.
 * (The patches of Ink and its dependencies, which cut the renderer's cost: test/platform/render-patches.test.ts.)
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {isWork} from '../../source/runtime.js';
import {parseProcStat, parseProcStatBytes} from '../../source/sources/process-sampler.js';
import {parseLinuxPowerSupplies} from '../../source/system/power.js';
import {onPath} from '../../source/sources/nvidia-smi.js';
const id = 'http://127.0.0.1:11434';

describe('what wakes the system scan', () => {
	it('an engine echoing a GET (infertop polling it) is not work; a POST, a request event, an unparsed line are', () => {
		const http = (method: string) => ({type: 'engine-event' as const, serverId: id, t: 0, event: {type: 'http' as const, method, path: '/api/ps', status: 200}});
		expect(isWork(http('GET'))).toBe(false);
		expect(isWork(http('HEAD'))).toBe(false);
		expect(isWork(http('POST'))).toBe(true);
		expect(isWork({type: 'engine-event', serverId: id, t: 0, event: {type: 'busy', reason: 'x'}} as never)).toBe(true);
		expect(isWork({type: 'log-line', serverId: id, t: 0, text: '[GIN] …', parsed: true})).toBe(false);
		expect(isWork({type: 'log-line', serverId: id, t: 0, text: 'something else', parsed: false})).toBe(true);
		expect(isWork({type: 'tick', t: 0})).toBe(false);
	});
});

describe('/proc/PID/stat read in place', () => {
	it('reads what the line parser reads, comm with spaces and parentheses included', () => {
		const line = '4242 (tmux: (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 300 45 0 0 20 0 1 0 987654 12345678 512 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n';
		const b = Buffer.from(line, 'latin1');
		expect(parseProcStatBytes(b, b.length)).toEqual({pid: 4242, comm: 'tmux: (x) y', ppid: 1, ticks: 345, start: 987654, rssPages: 512});
		// only the bytes read count (the buffer is reused: what lies past the length is the last file's)
		const big = Buffer.alloc(4096, 0x41);
		b.copy(big);
		expect(parseProcStatBytes(big, b.length)).toEqual(parseProcStatBytes(b, b.length));
		expect(parseProcStat('12 (x) S 1 a b')).toBeUndefined();
		expect(parseProcStat('garbage')).toBeUndefined();
	});

	it.runIf(process.platform === 'linux')('agrees with a split of this process\'s own stat file', () => {
		const text = readFileSync('/proc/self/stat', 'latin1');
		const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
		const b = Buffer.from(text, 'latin1');
		const s = parseProcStatBytes(b, b.length)!;
		expect(s.ppid).toBe(Number(f[1]));
		expect(s.ticks).toBe(Number(f[11]) + Number(f[12]));
		expect(s.start).toBe(Number(f[19]));
		expect(s.rssPages).toBe(Number(f[21]));
	});
});

describe('Linux power from /sys/class/power_supply', () => {
	it('AC when mains is online or a battery charges; battery when discharging; unknown when nothing is listed', () => {
		expect(parseLinuxPowerSupplies([])).toEqual({});
		expect(parseLinuxPowerSupplies([{type: 'Mains\n', online: '1\n'}])).toEqual({source: 'ac'});
		expect(parseLinuxPowerSupplies([{type: 'Mains', online: '0'}, {type: 'Battery', status: 'Discharging\n', capacity: '57\n'}])).toEqual({source: 'battery', percent: 57});
		expect(parseLinuxPowerSupplies([{type: 'Mains', online: '1'}, {type: 'Battery', status: 'Charging', capacity: '80'}])).toEqual({source: 'ac', percent: 80});
		expect(parseLinuxPowerSupplies([{type: 'Battery', status: 'Full', capacity: '100'}])).toEqual({source: 'ac', percent: 100});
		// an impossible capacity is unknown, not a number
		expect(parseLinuxPowerSupplies([{type: 'Battery', status: 'Unknown', capacity: '250'}])).toEqual({});
		// a USB supply offline and a battery that does not say: on battery (nothing else feeds it)
		expect(parseLinuxPowerSupplies([{type: 'USB', online: '0'}, {type: 'Battery', status: 'Not charging'}])).toEqual({source: 'battery'});
	});
});

describe('nvidia-smi is looked up before it is spawned', () => {
	it.runIf(process.platform !== 'win32')('a name on PATH is found, one that is not is missing; a path is left to the spawn', () => {
		const dir = path.dirname(process.execPath);
		expect(onPath(path.basename(process.execPath), dir)).toBe(true);
		expect(onPath('infertop-no-such-tool-xyz', dir)).toBe(false);
		expect(onPath('nvidia-smi', '')).toBe(false);
		expect(onPath('/opt/x/nvidia-smi', '')).toBe(true);
		expect(onPath('nvidia-smi', '', 'win32')).toBe(true);
	});
});
