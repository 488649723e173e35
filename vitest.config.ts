import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores on CI: keep parallelism modest so wall-clocked tests stay honest.
    poolOptions: {forks: {maxForks: 2, minForks: 1}},
    // The code the patched Ink imports (patches/render, linked as @infertop/render-patches) is loaded
    // by node as Ink loads it, never transformed apart: a test that reads its state (the shared
    // caches, the segmenter) sees the one instance the renderer uses.
    server: {deps: {external: [/[\\/]patches[\\/]render[\\/]/]}},
  },
});
