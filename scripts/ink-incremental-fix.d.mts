import type {Plugin} from 'esbuild';

export const INK_910_BUGGY: string;
export const INK_910_FIXED: string;
export function patchInkLogUpdate(source: string): string;
export function inkIncrementalFix(state?: {applied?: boolean}): Plugin;
