import type {Plugin} from 'esbuild';

export const YOGA_PATCHES: readonly (readonly [string, string])[];
export function patchYoga(source: string): string;
export const YOGA_INDEX_PATCHES: readonly (readonly [string, string])[];
export function patchYogaIndex(source: string): string;
export function patchSegmenter(source: string, file: string): string;
export const ONE_CODE_POINT_EMOJI: string;
export function patchRgiEmoji(source: string): string;
export function patchAnsiDiff(source: string): string;
export function patchGlyphCopy(source: string): string;
export function patchUndoCopy(source: string): string;
export function patchAnsiCodesToString(source: string): string;
export const NARROW_CLASS: string;
export function patchNarrowWidth(source: string): string;
export const SIMPLE_GRAPHEMES: string;
export function patchTokenizeGraphemes(source: string): string;
export function patchRestoreCursor(source: string): string;
export function startupPatches(state?: {yoga?: boolean; yogaSync?: boolean; segmenters?: number; rgi?: boolean; narrow?: boolean; graphemes?: boolean; ansiDiff?: boolean; glyphCopy?: boolean; undoCopy?: boolean; codesToString?: boolean; cursor?: boolean}): Plugin;
