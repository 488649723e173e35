import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Two cores on CI: keep parallelism modest so wall-clocked tests stay honest.
    poolOptions: {forks: {maxForks: 2, minForks: 1}},
  },
});
