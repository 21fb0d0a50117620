import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../test/harness';
import { parseTracking, withSubjectId } from '../integrations/amplitude/status';

const MIGRATION = path.resolve(
  import.meta.dirname,
  '../../../prisma/migrations/20261127130000_amplitude_tracking_without_identifier/migration.sql',
);

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

it('rewrites the Amplitude ids of amplitude_id integrations to "subject", and nothing else', async () => {
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    // The migration's statement, run on a table of the same columns in a schema of its own.
    await client.query(`CREATE SCHEMA amplitude_migration; SET search_path TO amplitude_migration`);
    await client.query(
      `CREATE TABLE "IntegrationRequest" (id text, "integrationType" text, "configSnapshot" jsonb, "trackingId" text)`,
    );
    const rows: [string, string, object, string | null][] = [
      ['by-id', 'AMPLITUDE', { identifierType: 'amplitude_id' }, '2026-11-20@187520:1234567'],
      ['by-id-org', 'AMPLITUDE', { identifierType: 'amplitude_id' }, '2026-11-20@1:1234567;2026-11-20@2:1234567,89'],
      ['by-id-old', 'AMPLITUDE', { identifierType: 'amplitude_id' }, '2026-11-20:1234567'],
      ['by-id-new', 'AMPLITUDE', { identifierType: 'amplitude_id' }, '2026-11-20@187520:subject'],
      ['by-user', 'AMPLITUDE', { identifierType: 'user_id' }, '2026-11-20@187520:555'],
      ['webhook', 'WEBHOOK', { identifierType: 'amplitude_id' }, 'job:42'],
      ['unsent', 'AMPLITUDE', { identifierType: 'amplitude_id' }, null],
    ];
    for (const row of rows) await client.query(`INSERT INTO "IntegrationRequest" VALUES ($1, $2, $3, $4)`, row);
    await client.query(fs.readFileSync(MIGRATION, 'utf8'));
    const after = Object.fromEntries(
      (
        await client.query<{ id: string; trackingId: string | null }>(
          `SELECT id, "trackingId" FROM "IntegrationRequest"`,
        )
      ).rows.map((r) => [r.id, r.trackingId]),
    );
    expect(after).toEqual({
      'by-id': '2026-11-20@187520:subject',
      'by-id-org': '2026-11-20@1:subject;2026-11-20@2:subject',
      'by-id-old': '2026-11-20:subject',
      'by-id-new': '2026-11-20@187520:subject',
      'by-user': '2026-11-20@187520:555',
      webhook: 'job:42',
      unsent: null,
    });
    // The driver reads the rewritten ids as the request's identifier again.
    expect(withSubjectId(parseTracking(after['by-id-org']!), '1234567')).toEqual([
      { day: '2026-11-20', app: '1', amplitudeIds: ['1234567'] },
      { day: '2026-11-20', app: '2', amplitudeIds: ['1234567'] },
    ]);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS amplitude_migration CASCADE`).catch(() => undefined);
    await client.end();
  }
});
