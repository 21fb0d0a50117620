import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The hostile-input fuzz (npm run test:fuzz): at least 10,000 generated requests; CI runs it.
export default defineConfig({
  resolve: { alias: { '@shared': path.resolve(import.meta.dirname, 'shared/src') } },
  test: {
    include: ['server/src/**/*.fuzz.ts'],
    globalSetup: ['server/src/test/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
