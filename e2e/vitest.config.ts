import path from 'node:path';
import { defineConfig } from 'vitest/config';

const root = path.resolve(import.meta.dirname, '..');

/** End-to-end suites only: the real app is started once by the global setup. */
export default defineConfig({
  root,
  resolve: { alias: { '@shared': path.resolve(root, 'shared/src') } },
  test: {
    include: ['e2e/**/*.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 240_000,
    pool: 'forks',
    fileParallelism: false,
    // In CI a failed browser test runs once more (a slow machine's timing, not the app): a test
    // that fails twice fails the run, and the retry is printed in the report.
    retry: process.env.CI ? 1 : 0,
  },
});
