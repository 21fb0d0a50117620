import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { createMigrationAdapter } from '../server/src/db/pg-adapter';

// Migrations run on the WASM schema engine through the pg driver adapter: no native
// engine binary is downloaded or executed (see README, "Database").
export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join(__dirname, 'schema.prisma'),
  migrations: { path: path.join(__dirname, 'migrations') },
  async adapter() {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set (npm run db:migrate starts the embedded database for you)');
    return createMigrationAdapter(url);
  },
});
