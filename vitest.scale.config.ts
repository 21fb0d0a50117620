import path from 'node:path';
import { defineConfig } from 'vitest/config';

// Slow suites that run the service as several OS processes (npm run test:scale).
export default defineConfig({
  resolve: { alias: { '@shared': path.resolve(import.meta.dirname, 'shared/src') } },
  test: {
    include: ['server/src/**/*.scale.ts'],
    globalSetup: ['server/src/test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
