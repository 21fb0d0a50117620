import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../db/embedded';
import { applyMigrations } from '../db/migrate';

export const TEMPLATE_DATABASE = 'deletion_service_template';

/**
 * One real PostgreSQL for the whole run (TEST_DATABASE_URL, or embedded in a temp dir).
 * Migrations are applied once to a template database; each test file clones it.
 */
export default async function setup({ provide }: { provide: (key: string, value: string) => void }) {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  let dir: string | undefined;
  if (!adminUrl) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dds-test-pg-'));
    // initdb runs as the unprivileged postgres user when we are root.
    fs.chmodSync(dir, 0o755);
    const db = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'data'),
      database: 'postgres',
      persistent: false,
      detached: false,
    });
    adminUrl = db.url;
    stop = db.stop;
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  await applyMigrations(templateUrl.toString());
  provide('adminDatabaseUrl', adminUrl);
  return async () => {
    await stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
  }
}
