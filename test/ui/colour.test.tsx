/**
 * Colour output: chalk decides its level at import, so FORCE_COLOR is set before ink loads
 * (this file only; restored after). The themed run proves colour codes would appear, so the
 * NO_COLOR runs cannot pass for nothing.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {ReactElement} from 'react';

const saved = {FORCE_COLOR: process.env['FORCE_COLOR'], NO_COLOR: process.env['NO_COLOR']};
process.env['FORCE_COLOR'] = '3';

type Mods = {
	app: typeof import('../../source/ui/app.js');
	tui: typeof import('../helpers/render-tui.js');
	fx: typeof import('../helpers/ui-state.js');
	themes: typeof import('../../source/config/themes.js');
};
let m: Mods;

beforeAll(async () => {
	m = {app: await import('../../source/ui/app.js'), tui: await import('../helpers/render-tui.js'), fx: await import('../helpers/ui-state.js'), themes: await import('../../source/config/themes.js')};
});

afterAll(() => {
	for (const [k, v] of Object.entries(saved)) {
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
});

const controller = {probe() {}, cancelProbe() {}, startDemo() {}, quit() {}, setRefresh() {}};
const COLOUR = /\u001b\[(?:3|9)/;

async function frameOf(node: ReactElement): Promise<string> {
	const t = m.tui.renderTui(node, {columns: 120, rows: 40});
	try {
		await m.tui.waitFor(() => t.frame().includes('ENGINES'), 'frame');
		return t.lastFrame();
	} finally {
		t.unmount();
	}
}

describe('colour', () => {
	it('the dark theme writes colour codes (so the checks below are real)', async () => {
		const f = await frameOf(<m.app.App store={m.fx.richStore()} controller={controller} version="0.1.0" themes={m.themes.themeCycle({name: 'dark'}).themes} />);
		expect(f).toMatch(COLOUR);
	});

	it('--no-color writes no colour codes; state still reads in glyphs and words', async () => {
		const f = await frameOf(<m.app.App store={m.fx.richStore()} controller={controller} version="0.1.0" />);
		expect(f).not.toMatch(COLOUR);
		expect(f).toContain('● up');
		expect(f).toContain('⚠ partly on CPU: 48% on CPU');
		expect(f).toContain('! blender');
	});

	it('NO_COLOR in the environment picks the no-color theme', async () => {
		process.env['NO_COLOR'] = '1';
		try {
			const f = await frameOf(<m.app.App store={m.fx.richStore()} controller={controller} version="0.1.0" themes={m.themes.themeCycle({name: 'high-contrast'}).themes} />);
			expect(f).not.toMatch(COLOUR);
		} finally {
			delete process.env['NO_COLOR'];
		}
	});

	it('renderSnapshotText is plain text even when colour is forced', () => {
		const text = m.app.renderSnapshotText(m.fx.richState(), {columns: 120, rows: 40}, '0.1.0');
		expect(text).not.toContain('\u001b');
		expect(text).toContain('PASSES');
	});
});
