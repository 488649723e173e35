import type {Plugin} from 'esbuild';

export const INK_910_BUGGY: string;
export const INK_910_FIXED: string;
export function patchInkLogUpdate(source: string): string;
export const INK_OUTPUT_CACHES: string;
export const INK_OUTPUT_CACHES_SHARED: string;
export function patchInkOutput(source: string): string;
export function patchInkTextCache(file: string, source: string): string;
export function patchInkRenderNode(source: string): string;
export const INK_RECONCILER_PATCHES: readonly (readonly [string, string])[];
export function patchInkReconciler(source: string): string;
export const INK_TEXT_PATCHES: readonly (readonly [string, string])[];
export function patchInkText(source: string): string;
export function inkIncrementalFix(state?: {applied?: boolean; outputShared?: boolean; textCaches?: number; widths?: boolean; reconciler?: boolean; text?: boolean}): Plugin;
