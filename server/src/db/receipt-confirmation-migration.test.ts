import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { receiptConfirmByFor } from '@shared/deadlines';
import { createTestEnv, type TestEnv } from '../test/harness';

const MIGRATION = path.resolve(
  import.meta.dirname,
  '../../../prisma/migrations/20261127160000_request_receipt_confirmation/migration.sql',
);

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
});

it('gives the CCPA requests stored before it the date new ones get, from receipt, and no other request one', async () => {
  const client = new pg.Client({ connectionString: env.db.url });
  await client.connect();
  try {
    // The migration's statements, run on a table of the same columns in a schema of its own.
    await client.query(`CREATE SCHEMA receipt_migration; SET search_path TO receipt_migration`);
    await client.query(
      `CREATE TABLE "DeletionRequest" (id text, regulation text, "createdAt" TIMESTAMP(3), "receivedAt" TIMESTAMP(3))`,
    );
    // Every day of the week, late in the day and early, with and without an earlier receipt.
    const rows: [string, string | null, string, string | null][] = [];
    for (let day = 0; day < 7; day++) {
      const created = new Date(Date.UTC(2026, 10, 23 + day, day % 2 ? 23 : 0, 30, 15, 250));
      rows.push([`ccpa-${day}`, 'CCPA', created.toISOString(), null]);
      rows.push([`ccpa-received-${day}`, 'CCPA', '2026-12-31T12:00:00.000Z', created.toISOString()]);
    }
    rows.push(['gdpr', 'GDPR', '2026-11-23T10:00:00.000Z', null], ['none', null, '2026-11-23T10:00:00.000Z', null]);
    for (const row of rows)
      await client.query(
        `INSERT INTO "DeletionRequest" VALUES ($1, $2, ($3::timestamptz AT TIME ZONE 'UTC'), ($4::timestamptz AT TIME ZONE 'UTC'))`,
        row,
      );
    await client.query(fs.readFileSync(MIGRATION, 'utf8'));
    const after = await client.query<{ id: string; by: string | null }>(
      `SELECT id, to_char("receiptConfirmBy", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS by FROM "DeletionRequest" ORDER BY id`,
    );
    const expected = Object.fromEntries(
      rows.map(([id, regulation, createdAt, receivedAt]) => [
        id,
        receiptConfirmByFor(regulation ?? '', new Date(receivedAt ?? createdAt))?.toISOString() ?? null,
      ]),
    );
    expect(Object.fromEntries(after.rows.map((r) => [r.id, r.by]))).toEqual(expected);
    expect(expected['ccpa-4']).toBe('2026-12-11T00:30:15.250Z'); // Friday 27 November: Friday 11 December
    expect(expected.gdpr).toBeNull();
  } finally {
    await client.end();
  }
});
