/**
 * Ink's reconciler with infertop's patch (patches/ink+6.8.0.patch, patches/render/ink.js
 * trackHostChanges): a commit that changed no host node draws no frame. Checked against Ink 6.8's
 * own behaviour: the scenarios of test/fixtures/render/reconciler-scenarios.tsx (the rerender cases
 * Ink 6.8's tests assert, then commits that change nothing) run on the installed, patched Ink in this
 * process and on Ink 6.8 as published (bundled with every patched file as it was), through Ink's real
 * render() and a fake stdout, and through ink-testing-library.
 */
process.env.CI = 'false'; // Ink renders nothing until exit in CI (is-in-ci reads this at import)

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import React, {useEffect, useState} from 'react';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {Run} from '../fixtures/render/reconciler-scenarios.js';
import {bundleEntry} from '../helpers/stock-ink.js';

type Scenarios = {scenarios: Record<string, readonly React.ReactElement[]>; run(steps: readonly React.ReactElement[], unmount?: boolean): Run; runAll(): Record<string, Run>};
type Ink = typeof import('ink');
type Testing = typeof import('ink-testing-library');
type Changes = typeof import('@infertop/render-patches/ink.js');

const ENTRY = 'test/fixtures/render/reconciler-scenarios.tsx';
/** The cases Ink 6.8's own tests assert (test/reconciler.tsx, test/components.tsx), and the patch's. */
const INKS_OWN = ['update a child', 'update one text node among others', 'append a child', 'insert a child between two', 'remove a child', 'reorder children', 'replace a child node with text', 'remeasure a text that changed', 'reset a prop removed from the element', 'static output: only new items, each once'];
const CHANGES = ['a colour changes, the text does not', 'a padding changes', 'a transform that is a new function each time'];
const NOTHING = ['the same tree again', 'a parent re-renders, its child comes out the same', 'the same style in a new object, the same colour'];

let dir: string;
let shipped: Scenarios;
let patched: Record<string, Run>;
let stock: Record<string, Run>;
let ink: Ink;
let testing: Testing;
let changes: Changes;

beforeAll(async () => {
	// imported here, after CI=false above
	shipped = (await import('../fixtures/render/reconciler-scenarios.js')) as Scenarios;
	ink = await import('ink');
	testing = await import('ink-testing-library');
	changes = await import('@infertop/render-patches/ink.js');
	patched = shipped.runAll();
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'infertop-reconciler-'));
	const outfile = path.join(dir, 'stock.mjs');
	await bundleEntry(ENTRY, outfile, true);
	stock = ((await import(pathToFileURL(outfile).href)) as Scenarios).runAll();
}, 120_000);

afterAll(() => {
	if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

describe("Ink 6.8's rerender cases, on the patched reconciler", () => {
	it('covers every scenario', () => {
		expect(Object.keys(shipped.scenarios).sort()).toEqual([...INKS_OWN, ...CHANGES, ...NOTHING].sort());
	});

	it.each(INKS_OWN)('%s: after each rerender the frame is the new tree\'s, as on stock Ink, frame for frame', (name) => {
		const steps = shipped.scenarios[name]!;
		const run = patched[name]!;
		// what Ink 6.8's tests assert: the last write after a rerender is what the new tree renders to alone
		if (!name.startsWith('static')) {
			expect(run.writes[steps.length - 1]).toBe(shipped.run([steps.at(-1)!]).writes[0]);
			expect(run.writes[0]).toBe(shipped.run([steps[0]!]).writes[0]);
		}
		// and every write, and every frame drawn, is stock Ink's
		expect(run.writes).toEqual(stock[name]!.writes);
		expect(run.renders).toBe(stock[name]!.renders);
	});

	it('static output: each item written once, the earlier ones not again (Ink 6.8: components.tsx)', () => {
		expect(patched['static output: only new items, each once']!.writes).toEqual(['A\n', 'A\n', 'A\nB\n', 'A\nB\n', 'A\nB\nC\n', 'A\nB\nC\n', 'A\nB\nC\n']);
	});

	it.each(CHANGES)('%s: a prop that changes a host node is a change (a frame is drawn, as on stock Ink)', (name) => {
		expect(patched[name]!.writes).toEqual(stock[name]!.writes);
		expect(patched[name]!.renders).toBe(stock[name]!.renders);
	});
});

describe('a commit that changed no host node draws no frame', () => {
	it.each(NOTHING)('%s: stock Ink draws the same frame again, the patched one draws nothing', (name) => {
		const p = patched[name]!;
		const s = stock[name]!;
		expect(p.renders).toBeLessThan(s.renders);
		// the frames the patched Ink wrote are stock Ink's, less each one that repeated the one before
		const kept = s.writes.filter((w, i) => i === 0 || w !== s.writes[i - 1] || i === s.writes.length - 1);
		expect(p.writes).toEqual(kept);
		expect(p.writes.at(-1)).toBe(s.writes.at(-1));
	});

	it('the counts: one frame per commit that changed something, and each skipped one counted', () => {
		const before = changes.hostChanges.skipped;
		const r = shipped.run(shipped.scenarios['the same tree again']!, false);
		// the first render draws; the two identical rerenders do not
		expect(r.renders).toBe(1);
		expect(changes.hostChanges.skipped - before).toBe(2);
		expect(stock['the same tree again']!.renders - 1).toBe(3);
	});

	it('state inside a component: an update to the same text draws nothing, a new text draws (the real stdout path, no debug)', async () => {
		const {Text, render} = ink;
		const writes: string[] = [];
		let frames = 0;
		let set: ((v: string) => void) | undefined;
		function Label() {
			const [v, setV] = useState('a');
			set = setV;
			return <Text>{`label ${v}`}</Text>;
		}
		const {EventEmitter} = await import('node:events');
		const stdout = Object.assign(new EventEmitter(), {isTTY: true, columns: 40, rows: 10, write: (d: string) => (writes.push(d), true)}) as unknown as NodeJS.WriteStream;
		const app = render(<Label />, {stdout, patchConsole: false, exitOnCtrlC: false, onRender: () => frames++});
		const settle = () => new Promise((r) => setTimeout(r, 80));
		await settle();
		const first = {frames, writes: writes.length};
		expect(writes.join('')).toContain('label a');
		// React bails out of a state set to the same value; a new object of the same text re-renders
		set!('a');
		await settle();
		expect(frames).toBe(first.frames);
		set!('b');
		await settle();
		expect(frames).toBe(first.frames + 1);
		expect(writes.slice(first.writes).join('')).toContain('label b');
		app.unmount();
	});

	it('ink-testing-library: a rerender to the same output adds no frame; a change adds one', () => {
		const {Text, Box} = ink;
		function View({n, tick}: {readonly n: number; readonly tick: number}) {
			useEffect(() => undefined, [tick]);
			return (
				<Box flexDirection="column">
					<Text color="green">n = {n}</Text>
					<Text dimColor>footer</Text>
				</Box>
			);
		}
		const r = testing.render(<View n={1} tick={0} />);
		expect(r.lastFrame()).toBe('n = 1\nfooter');
		const framesAfterFirst = r.frames.length;
		r.rerender(<View n={1} tick={1} />);
		r.rerender(<View n={1} tick={2} />);
		expect(r.frames.length).toBe(framesAfterFirst);
		r.rerender(<View n={2} tick={3} />);
		expect(r.frames.length).toBe(framesAfterFirst + 1);
		expect(r.lastFrame()).toBe('n = 2\nfooter');
		r.unmount();
	});
});

describe('what the patch compares', () => {
	it('style and accessibility by their fields, children never, everything else by identity', () => {
		const {propsDiffer, sameFields} = changes;
		const f = () => '';
		expect(sameFields({a: 1, b: 'x'}, {b: 'x', a: 1})).toBe(true);
		expect(sameFields({a: 1}, {a: 1, b: undefined})).toBe(false);
		expect(sameFields({a: 1, b: undefined}, {a: 1, c: undefined})).toBe(false);
		expect(propsDiffer({style: {padding: 1}, children: 'a'}, {style: {padding: 1}, children: 'b'})).toBe(false);
		expect(propsDiffer({style: {padding: 1}}, {style: {padding: 2}})).toBe(true);
		expect(propsDiffer({internal_accessibility: {role: 'button'}}, {internal_accessibility: {role: 'button'}})).toBe(false);
		expect(propsDiffer({internal_transform: f}, {internal_transform: f})).toBe(false);
		expect(propsDiffer({internal_transform: f}, {internal_transform: () => ''})).toBe(true);
		// a prop removed, a prop added
		expect(propsDiffer({style: {}, x: 1}, {style: {}})).toBe(true);
		expect(propsDiffer({style: {}}, {style: {}, x: 1})).toBe(true);
		// (a prop added as undefined reads as it did before it was there)
		expect(propsDiffer({style: {}}, {style: {}, x: undefined})).toBe(false);
	});

	it("Text makes its style function once per set of style props (Ink 6.8 made a new one each render)", async () => {
		const text = fs.readFileSync(path.resolve(import.meta.dirname, '../../node_modules/ink/build/components/Text.js'), 'utf8');
		expect(text).toMatch(/const transform = useMemo\(\(\) => \(children\) => \{/);
		// the hook runs on every render: the early return for empty children is below it
		expect(text.indexOf('useMemo(')).toBeLessThan(text.indexOf('childrenOrAriaLabel === undefined'));
	});
});
