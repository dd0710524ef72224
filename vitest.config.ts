// Tests run against the compiled dist/ (npm test builds first), so worker and child entry files are real .js.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // 2-core machines: spawning-heavy suites (decoders, daemons) run better with few parallel files.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
