import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configSnapshotKey } from '../pipeline/store/sql';
import { createTestEnv, type TestEnv } from '../test/harness';

const MIGRATION = path.resolve(
  import.meta.dirname,
  '../../../prisma/migrations/20261129130046_config_snapshots/migration.sql',
);

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

it('stores each distinct configuration of an organization once and points every integration request at it', async () => {
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    // The tables as the migration finds them (the columns it reads), in a schema of its own.
    await client.query(`CREATE SCHEMA snapshot_migration; SET search_path TO snapshot_migration`);
    await client.query(`
      CREATE TABLE "Organization" (id text PRIMARY KEY);
      CREATE TABLE "DeletionRequest" (id text PRIMARY KEY, "organizationId" text NOT NULL);
      CREATE TABLE "IntegrationRequest" (id text PRIMARY KEY, "deletionRequestId" text NOT NULL, "configSnapshot" jsonb NOT NULL);
      INSERT INTO "Organization" VALUES ('org-a'), ('org-b');
      INSERT INTO "DeletionRequest" VALUES ('dr-a1', 'org-a'), ('dr-a2', 'org-a'), ('dr-b1', 'org-b');`);
    const rows: [string, string, string][] = [
      ['ir-a1-crm', 'dr-a1', '{"url": "https://crm.example/erase", "timeoutMs": 5000}'],
      // The same configuration, its keys written in another order.
      ['ir-a2-crm', 'dr-a2', '{"timeoutMs": 5000, "url": "https://crm.example/erase"}'],
      ['ir-a1-db', 'dr-a1', '{"rules": [{"table": "users"}]}'],
      // Organization b's copy of the same configuration.
      ['ir-b1-crm', 'dr-b1', '{"url": "https://crm.example/erase", "timeoutMs": 5000}'],
    ];
    for (const row of rows) await client.query(`INSERT INTO "IntegrationRequest" VALUES ($1, $2, $3::jsonb)`, row);
    await client.query(fs.readFileSync(MIGRATION, 'utf8'));

    const snapshots = await client.query<{ organizationId: string; config: unknown }>(
      `SELECT "organizationId", config FROM "ConfigSnapshot" ORDER BY "organizationId", config::text`,
    );
    expect(snapshots.rows).toEqual([
      { organizationId: 'org-a', config: { rules: [{ table: 'users' }] } },
      { organizationId: 'org-a', config: { url: 'https://crm.example/erase', timeoutMs: 5000 } },
      { organizationId: 'org-b', config: { url: 'https://crm.example/erase', timeoutMs: 5000 } },
    ]);
    const read = await client.query<{ id: string; config: unknown; keyed: boolean }>(
      `SELECT ir.id, cs.config, cs.id = ${configSnapshotKey('dr."organizationId"', 'cs.config')} AS keyed
         FROM "IntegrationRequest" ir
         JOIN "DeletionRequest" dr ON dr.id = ir."deletionRequestId"
         JOIN "ConfigSnapshot" cs ON cs.id = ir."configSnapshotId"
        ORDER BY ir.id`,
    );
    // Every request reads the configuration it had, under the key the service computes for new ones.
    expect(read.rows).toEqual([
      { id: 'ir-a1-crm', config: { url: 'https://crm.example/erase', timeoutMs: 5000 }, keyed: true },
      { id: 'ir-a1-db', config: { rules: [{ table: 'users' }] }, keyed: true },
      { id: 'ir-a2-crm', config: { url: 'https://crm.example/erase', timeoutMs: 5000 }, keyed: true },
      { id: 'ir-b1-crm', config: { url: 'https://crm.example/erase', timeoutMs: 5000 }, keyed: true },
    ]);
    const columns = await client.query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'snapshot_migration' AND table_name = 'IntegrationRequest'`,
    );
    expect(columns.rows.map((c) => c.column_name).sort()).toEqual(['configSnapshotId', 'deletionRequestId', 'id']);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS snapshot_migration CASCADE`).catch(() => undefined);
    await client.end();
  }
});
