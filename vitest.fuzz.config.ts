import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The hostile-input fuzz (npm run test:fuzz): at least 10,000 generated requests; CI runs it.
// It also runs the generated requests of `npm test` (security/fuzz.test.ts) at full size: 500
// runs of each kind instead of 100.
export default defineConfig({
  resolve: { alias: { '@shared': path.resolve(import.meta.dirname, 'shared/src') } },
  test: {
    include: ['server/src/**/*.fuzz.ts', 'server/src/security/fuzz.test.ts'],
    env: { FUZZ_RUNS: process.env.FUZZ_RUNS ?? '500' },
    globalSetup: ['server/src/test/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
